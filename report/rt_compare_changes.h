/* rt_compare_changes: change points of a point's time over an ordered series of stores. */
#ifndef RT_COMPARE_CHANGES_H
#define RT_COMPARE_CHANGES_H

#include "rt_compare_types.h"

/* Change points of one series of sample sets (sets[k] has counts[k] samples, k = 0..n-1), the
 * algorithm above; writes at most max change points (their `after` index, ratio, p and medians;
 * `entry` is left 0) and sets *found. Exposed for tests and for callers with their own data. */
int rt_compare_change_points(const double *const *sets, const int *counts, int n,
                             const rt_compare_opts *o, rt_change_point *out, int max, int *found,
                             rt_err *err);

#endif
