/* random: uniform sampling without replacement. It proposes nothing, so the driver takes every
 * point from the seed's random order (rt_perm: a keyed permutation of the grid, walked past taken
 * and infeasible points); it is the reference the methodology score is measured against. Its
 * order does not depend on the results, so search.parallel may use it. */
#include "rt_strategy_impl.h"

const rt_strategy_ops rt_strat_random_ops = {
    {"random",
     "uniform sampling without replacement in the seed's random order (the baseline of the "
     "methodology score)",
     NULL, 0, RT_STRATEGY_DEFAULT_BUDGET, 0, 0, 1},
    NULL,
    NULL,
    NULL,
    NULL};
