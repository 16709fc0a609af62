#include "rt_rng.h"

uint64_t rt_rng_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void rt_rng_seed(rt_rng *g, uint64_t seed, uint64_t stream)
{
    /* Mixing the stream through splitmix first keeps (seed, stream) and (seed + 1, stream - 1)
     * from landing on overlapping states. */
    uint64_t mix = stream;
    uint64_t state = seed ^ rt_rng_splitmix64(&mix);
    for (int k = 0; k < 4; ++k)
        g->s[k] = rt_rng_splitmix64(&state);
    if ((g->s[0] | g->s[1] | g->s[2] | g->s[3]) == 0)
        g->s[0] = 1; /* the all-zero state is xoshiro's only fixed point */
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rt_rng_next(rt_rng *g)
{
    uint64_t *s = g->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rt_rng_uniform(rt_rng *g)
{
    return (double)(rt_rng_next(g) >> 11) * 0x1.0p-53;
}

double rt_rng_symmetric(rt_rng *g)
{
    return (double)(rt_rng_next(g) >> 11) * 0x1.0p-52 - 1.0;
}

uint64_t rt_rng_below(rt_rng *g, uint64_t bound)
{
    if (bound == 0)
        return 0;
    /* Reject the lowest (2^64 mod bound) values so every residue is equally likely. */
    const uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        const uint64_t r = rt_rng_next(g);
        if (r >= threshold)
            return r % bound;
    }
}

int64_t rt_rng_distinct_table_size(int64_t k)
{
    int64_t size = 16;
    while (size < 2 * k)
        size *= 2;
    return size;
}

/* Open addressing with linear probing; empty slots hold -1. Returns 1 when x was already there. */
static int table_insert(int64_t *table, int64_t mask, int64_t x)
{
    uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ULL;
    int64_t at = (int64_t)(h >> 20) & mask;
    while (table[at] != -1) {
        if (table[at] == x)
            return 1;
        at = (at + 1) & mask;
    }
    table[at] = x;
    return 0;
}

int rt_rng_distinct(rt_rng *g, int64_t n, int64_t k, int64_t *out, int64_t *table,
                    int64_t table_size)
{
    if (k < 0 || k > n || table_size < 2 * k || (table_size & (table_size - 1)) != 0)
        return -1;
    for (int64_t i = 0; i < table_size; ++i)
        table[i] = -1;
    const int64_t mask = table_size - 1;
    /* Floyd: for j in [n-k, n), draw t in [0, j]; take t unless already taken, else take j
     * (which cannot have been taken yet). Every k-subset is equally likely. */
    int64_t m = 0;
    for (int64_t j = n - k; j < n; ++j) {
        const int64_t t = (int64_t)rt_rng_below(g, (uint64_t)j + 1);
        if (table_insert(table, mask, t) == 0) {
            out[m++] = t;
        } else {
            table_insert(table, mask, j);
            out[m++] = j;
        }
    }
    return 0;
}
