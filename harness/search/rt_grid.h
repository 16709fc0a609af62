/* rt_grid: the search space as the strategies see it (a grid of indices with a feasibility
 * test), and the strategy handle; apart from rt_strategy.h so that the strategies' shared
 * helpers (rt_strategy_impl.h) do not depend on the dispatcher that calls them. */
#ifndef RT_GRID_H
#define RT_GRID_H

#include <stdint.h>

#include "rt_params.h"

/* 1 when the point is feasible, 0 when not. */
typedef int (*rt_grid_feasible_fn)(void *ctx, int64_t index);

typedef struct rt_grid {
    int n_dims;                      /* 1..RT_MAX_PARAMS */
    int64_t dim_size[RT_MAX_PARAMS]; /* values per dimension, each >= 1 */
    rt_grid_feasible_fn feasible;    /* NULL: every point is feasible */
    void *ctx;
    /* Optional: every feasible index, ascending. Lets random sampling draw from sparse grids
     * (a recorded space holds a fraction of its product) without probing. */
    const int64_t *feasible_list;
    int64_t n_feasible;
} rt_grid;

typedef struct rt_strategy rt_strategy;

#endif
