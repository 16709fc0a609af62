#include "rt_search.h"

#include <stdlib.h>

struct rt_search {
    const rt_space *space;
    rt_strategy *strat;
    int64_t budget;
};

/* Feasibility as the space defines it. A point whose constraints cannot be evaluated counts as
 * feasible here: it is yielded and the caller's rt_space_point reports the error. */
static int space_feasible(void *ctx, int64_t index)
{
    const rt_space *space = ctx;
    rt_params p;
    int ok = 0;
    rt_err err;
    if (rt_space_point(space, index, &p, &ok, NULL, 0, &err) != 0)
        return 1;
    return ok;
}

static const char *strategy_name(const rt_search_cfg *cfg)
{
    return cfg->strategy[0] ? cfg->strategy : "exhaustive";
}

int64_t rt_search_budget_for(const rt_search_cfg *cfg, int64_t size)
{
    const rt_strategy_info *info = rt_strategy_find(strategy_name(cfg));
    return info ? rt_strategy_budget_for(info, cfg->budget, size) : -1;
}

int rt_search_ignores_results(const rt_search_cfg *cfg)
{
    const rt_strategy_info *info = rt_strategy_find(strategy_name(cfg));
    return info && info->ignores_results;
}

int rt_search_create(const rt_search_cfg *cfg, const rt_space *space, rt_search **out, rt_err *err)
{
    *out = NULL;
    if (!cfg || !space)
        return rt_err_set(err, "rt_search_create: missing search config or space");
    const char *name = strategy_name(cfg);
    if (rt_strategy_check_name(name, "search.strategy", err) != 0)
        return -1;
    if (cfg->budget < 0)
        return rt_err_set(err,
                          "search.budget must be 0 (default) or a positive number of points, "
                          "not %d",
                          cfg->budget);
    rt_search *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "out of memory for the search");
    s->space = space;
    s->budget = rt_search_budget_for(cfg, rt_space_size(space));
    /* The space's parameters in order are the grid's dimensions (the first slowest, as
     * rt_space_index numbers them), so an index means the same point to both. A space without
     * parameters (a kernel whose schema has none) is one point, index 0: the grid of one
     * dimension with one value. */
    rt_grid grid = {
        .n_dims = rt_space_n_dims(space), .feasible = space_feasible, .ctx = (void *)space};
    for (int d = 0; d < grid.n_dims; ++d)
        grid.dim_size[d] = rt_space_dim_size(space, d);
    if (grid.n_dims == 0) {
        grid.n_dims = 1;
        grid.dim_size[0] = 1;
    }
    const rt_strategy_args args = {.name = name,
                                   .budget = s->budget,
                                   .max_time_s = cfg->max_time_s,
                                   .seed = cfg->seed,
                                   .options = &cfg->options,
                                   .pass_infeasible = 1};
    if (rt_strategy_create(&args, &grid, &s->strat, err) != 0) {
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

int rt_search_next(rt_search *search, int64_t *index)
{
    return rt_strategy_next(search->strat, index);
}

void rt_search_report(rt_search *search, int64_t index, double objective)
{
    rt_strategy_report(search->strat, index, objective);
}

int rt_search_best(const rt_search *search, int64_t *index, double *objective)
{
    return rt_strategy_best(search->strat, index, objective);
}

int64_t rt_search_budget(const rt_search *search)
{
    return search->budget;
}

const rt_strategy *rt_search_driver(const rt_search *search)
{
    return search->strat;
}

void rt_search_free(rt_search *search)
{
    if (!search)
        return;
    rt_strategy_free(search->strat);
    free(search);
}
