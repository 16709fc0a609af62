#include "sp2_layout.h"

#include <stdio.h>

int64_t sp2_gcd(int64_t a, int64_t b)
{
    while (b != 0) {
        const int64_t t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}

int sp2_default_pr(int P)
{
    int best = 1;
    for (int d = 1; (int64_t)d * d <= P; ++d)
        if (P % d == 0)
            best = d;
    return best;
}

int64_t sp2_split(int64_t len, int T, int t)
{
    /* len * t can exceed 64 bits only for absurd sizes; split the product to stay exact. */
    return (len / T) * t + (len % T) * t / T;
}

int sp2_part_of(int64_t len, int T, int64_t x)
{
    /* Start from the proportional guess and correct: parts differ in length by at most one. */
    int t = len > 0 ? (int)((x * (int64_t)T) / len) : 0;
    if (t >= T)
        t = T - 1;
    while (t > 0 && sp2_split(len, T, t) > x)
        --t;
    while (t + 1 < T && sp2_split(len, T, t + 1) <= x)
        ++t;
    return t;
}

int sp2_layout_init(sp2_layout *L, int P, int me, int pr, int refine, int64_t m, int64_t k,
                    int64_t n, char *why, size_t whylen)
{
    if (P < 1 || me < 0 || me >= P) {
        snprintf(why, whylen, "rank %d of %d ranks is not a valid process", me, P);
        return 1;
    }
    if (pr == 0)
        pr = sp2_default_pr(P);
    if (pr < 1 || P % pr != 0) {
        snprintf(why, whylen, "pr = %d does not divide the %d ranks of the job into a process grid",
                 pr, P);
        return 1;
    }
    if (refine < 1) {
        snprintf(why, whylen, "refine = %d: the tile grid needs at least one tile per process",
                 refine);
        return 1;
    }
    const int pc = P / pr;
    const int64_t lcm = (int64_t)pr / sp2_gcd(pr, pc) * pc;
    const int64_t MT = (int64_t)pr * refine, NT = (int64_t)pc * refine, KT = lcm * refine;
    if (MT > m || KT > k || NT > n) {
        snprintf(
            why, whylen,
            "a %d x %d process grid with refine = %d makes %lld x %lld tiles of A (%lld x %lld) "
            "and %lld tile columns of B (%lld columns): some tiles would be empty",
            pr, pc, refine, (long long)MT, (long long)KT, (long long)m, (long long)k, (long long)NT,
            (long long)n);
        return 1;
    }
    if (MT > 1 << 20 || KT > 1 << 20 || NT > 1 << 20) {
        snprintf(why, whylen, "tile grid %lld x %lld x %lld is too fine", (long long)MT,
                 (long long)KT, (long long)NT);
        return 1;
    }
    L->P = P;
    L->me = me;
    L->pr = pr;
    L->pc = pc;
    L->myr = me / pc;
    L->myc = me % pc;
    L->refine = refine;
    L->m = m;
    L->k = k;
    L->n = n;
    L->MT = (int)MT;
    L->KT = (int)KT;
    L->NT = (int)NT;
    return 0;
}

int sp2_owner(const sp2_layout *L, sp2_owner_kind kind, int ti, int tj)
{
    switch (kind) {
    case SP2_OWN_A: /* A(i, k) */
    case SP2_OWN_B: /* B(k, j) */
    case SP2_OWN_C: /* C(i, j) */ return (ti % L->pr) * L->pc + tj % L->pc;
    case SP2_OWN_BT: /* B(k, j) laid out for the reduce-based stationary-A SUMMA */
        return (tj % L->pr) * L->pc + ti % L->pc;
    }
    return -1;
}
