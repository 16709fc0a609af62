/* rt_test_walk: a strategy driven to its end on a grid, as the runner drives it, with a test's
 * objective in place of measurements. Link tests/rt_test_walk.c (and the search library). */
#ifndef RT_TEST_WALK_H
#define RT_TEST_WALK_H

#include <stdint.h>

#include "rt_strategy.h"

/* Creates the strategy of args on g (its message on stderr when that fails: -1), reports
 * objective(i) for every point it yields, and returns how many it yielded; the first cap of them
 * go to seq, the best objective to *best (INFINITY when none; best may be NULL). */
int rt_test_walk(const rt_strategy_args *args, const rt_grid *g, double (*objective)(int64_t),
                 int64_t *seq, int cap, double *best);

#endif
