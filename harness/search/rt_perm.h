/* rt_perm: a keyed pseudo-random bijection of [0, n), for sampling without replacement in O(1)
 * memory whatever n is: a 4-round Feistel network on the smallest even-width bit domain that holds
 * n, cycle-walking the values past n. The inverse maps an element back to its position, so a
 * list of elements can be put in the permutation's order without walking it. */
#ifndef RT_PERM_H
#define RT_PERM_H

#include <stdint.h>

typedef struct rt_perm {
    int64_t n;
    int half_bits;
    uint64_t mask;
    uint64_t keys[4];
} rt_perm;

/* n >= 1; the seed picks the permutation. */
void rt_perm_init(rt_perm *p, int64_t n, uint64_t seed);
/* The element at position pos (0 <= pos < n). */
int64_t rt_perm_apply(const rt_perm *p, int64_t pos);
/* The position of element x (0 <= x < n): rt_perm_apply(p, rt_perm_invert(p, x)) == x. */
int64_t rt_perm_invert(const rt_perm *p, int64_t x);

#endif
