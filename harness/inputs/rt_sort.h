/* rt_sort: the few sorts the generators and orderings need, all deterministic (total orders, so
 * the result never depends on the libc's qsort). */
#ifndef RT_SORT_H
#define RT_SORT_H

#include <stdint.h>

#include "rt_error.h"

/* Ascending, in place. */
void rt_sort_int64(int64_t *a, int64_t n);
/* order[i] = the index of the i-th smallest key (ties broken by index). */
int rt_sort_order_by_key(const uint64_t *key, int64_t n, int64_t *order, rt_err *err);

#endif
