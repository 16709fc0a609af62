#include "rt_perm.h"

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The round function: splitmix64's finaliser of x. */
static uint64_t mix(uint64_t x)
{
    uint64_t s = x;
    return splitmix64(&s);
}

void rt_perm_init(rt_perm *p, int64_t n, uint64_t seed)
{
    p->n = n;
    int h = 1;
    while (h < 31 && ((int64_t)1 << (2 * h)) < n)
        ++h;
    p->half_bits = h;
    p->mask = ((uint64_t)1 << h) - 1;
    /* The key schedule of the live random search since its first version: a seed gives the same
     * order it always gave. */
    uint64_t s = seed ^ 0x5851f42d4c957f2dULL;
    for (int r = 0; r < 4; ++r)
        p->keys[r] = splitmix64(&s);
}

int64_t rt_perm_apply(const rt_perm *p, int64_t x)
{
    const int h = p->half_bits;
    do {
        uint64_t left = (uint64_t)x >> h, right = (uint64_t)x & p->mask;
        for (int r = 0; r < 4; ++r) {
            const uint64_t next_right = left ^ (mix(right ^ p->keys[r]) & p->mask);
            left = right;
            right = next_right;
        }
        x = (int64_t)((left << h) | right);
    } while (x >= p->n);
    return x;
}

/* Each round maps (L, R) to (R, L ^ F(R)); undone as (L', R') -> (R' ^ F(L'), L'), last round
 * first. Cycle-walking undoes itself the same way: invert until the value falls inside [0, n). */
int64_t rt_perm_invert(const rt_perm *p, int64_t x)
{
    const int h = p->half_bits;
    do {
        uint64_t left = (uint64_t)x >> h, right = (uint64_t)x & p->mask;
        for (int r = 3; r >= 0; --r) {
            const uint64_t prev_left = right ^ (mix(left ^ p->keys[r]) & p->mask);
            right = left;
            left = prev_left;
        }
        x = (int64_t)((left << h) | right);
    } while (x >= p->n);
    return x;
}
