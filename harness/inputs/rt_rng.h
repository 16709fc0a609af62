/* rt_rng: the deterministic random numbers every generator uses.
 *
 * xoshiro256** seeded through splitmix64. A generator never touches rand() or any shared state:
 * it owns an rt_rng seeded from its `seed` argument and a stream number, so the same arguments give
 * the same matrix on every machine, rank and libc. */
#ifndef RT_RNG_H
#define RT_RNG_H

#include <stdint.h>

typedef struct rt_rng {
    uint64_t s[4];
} rt_rng;

/* One splitmix64 step: advances *state and returns a well-mixed 64-bit value. */
uint64_t rt_rng_splitmix64(uint64_t *state);
/* Seeds from (seed, stream): different streams of one seed are independent sequences (a
 * generator uses one stream for structure and another for values, or one per layer). */
void rt_rng_seed(rt_rng *g, uint64_t seed, uint64_t stream);
uint64_t rt_rng_next(rt_rng *g);
/* Uniform in [0, 1) with 53 random bits. */
double rt_rng_uniform(rt_rng *g);
/* Uniform in [-1, 1). */
double rt_rng_symmetric(rt_rng *g);
/* Uniform integer in [0, bound) without modulo bias; bound 0 gives 0. */
uint64_t rt_rng_below(rt_rng *g, uint64_t bound);
/* Draws k distinct integers from [0, n) (k <= n) into out, in no particular order, with Floyd's
 * algorithm in O(k) expected time. table is scratch of table_size entries, a power of two of at
 * least 2k (see rt_rng_distinct_table_size). Returns 0, or -1 when k > n or the table is too small.
 */
int rt_rng_distinct(rt_rng *g, int64_t n, int64_t k, int64_t *out, int64_t *table,
                    int64_t table_size);
/* Smallest valid table_size for rt_rng_distinct with k draws. */
int64_t rt_rng_distinct_table_size(int64_t k);

#endif
