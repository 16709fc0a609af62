#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_strategy.h"
#include "rt_strategy_impl.h"

/* Grids larger than this cannot hold a visited bitmap worth having (128 MiB). */
#define GRID_MAX_POINTS ((int64_t)1 << 30)

/* The driver's own random stream starts here; the strategies draw from it in turn. */
#define RNG_SALT 0x6a09e667f3bcc909ULL

static int resolve_options(rt_strategy *s, const rt_strategy_opts *given, rt_err *err)
{
    const rt_strategy_info *info = &s->ops->info;
    for (int k = 0; k < info->n_options && k < RT_STRATEGY_MAX_OPTIONS; ++k)
        s->opt[k] = info->options[k].def;
    for (int g = 0; given && g < given->n; ++g) {
        if (rt_strategy_check_option(info->name, given->name[g], given->value[g], err) != 0)
            return -1;
        for (int k = 0; k < info->n_options; ++k)
            if (strcmp(info->options[k].name, given->name[g]) == 0)
                s->opt[k] = given->value[g];
    }
    return 0;
}

int rt_strategy_create(const rt_strategy_args *args, const rt_grid *grid, rt_strategy **out,
                       rt_err *err)
{
    *out = NULL;
    const char *name = args ? args->name : NULL;
    if (rt_strategy_check_name(name, "strategy", err) != 0)
        return -1;
    const rt_strategy_ops *ops = rt_strategy_table_ops(name);
    if (!grid || grid->n_dims < 1 || grid->n_dims > RT_MAX_PARAMS)
        return rt_err_set(err, "strategy %s: the grid needs 1 to %d dimensions", name,
                          RT_MAX_PARAMS);
    if (args->budget < 0)
        return rt_err_set(err, "strategy %s: budget must be 0 (all) or positive, not %lld", name,
                          (long long)args->budget);
    int64_t size = 1;
    for (int d = grid->n_dims - 1; d >= 0; --d) {
        if (grid->dim_size[d] < 1)
            return rt_err_set(err, "strategy %s: dimension %d has no values", name, d);
        if (size > GRID_MAX_POINTS / grid->dim_size[d])
            return rt_err_set(err, "strategy %s: the grid has more than %lld points", name,
                              (long long)GRID_MAX_POINTS);
        size *= grid->dim_size[d];
    }
    rt_strategy *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "out of memory for strategy %s", name);
    s->ops = ops;
    s->grid = *grid;
    s->size = size;
    int64_t stride = 1;
    for (int d = grid->n_dims - 1; d >= 0; --d) {
        s->stride[d] = stride;
        stride *= grid->dim_size[d];
    }
    s->budget = args->budget > 0 && args->budget < size ? args->budget : size;
    s->max_time_s = args->max_time_s;
    s->start_s = rt_clock_now();
    s->seed = args->seed;
    s->rng = args->seed ^ RNG_SALT;
    s->pass_infeasible = args->pass_infeasible && ops->info.yields_infeasible;
    rt_perm_init(&s->perm, size, args->seed);
    s->pending = -1;
    s->best = -1;
    s->best_obj = INFINITY;
    s->visited = calloc((size_t)(size + 7) / 8, 1);
    if (!s->visited) {
        rt_strategy_free(s);
        return rt_err_set(err, "out of memory for strategy %s over %lld points", name,
                          (long long)size);
    }
    if (resolve_options(s, args->options, err) != 0 || (ops->init && ops->init(s, err) != 0)) {
        rt_strategy_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

int rt_strategy_next(rt_strategy *s, int64_t *index)
{
    if (s->pending >= 0)
        rt_strategy_report(s, s->pending, INFINITY);
    if (s->yielded >= s->budget)
        return 0;
    if (s->max_time_s > 0 && rt_clock_now() - s->start_s >= s->max_time_s)
        return 0;
    s->passing = 0;
    int64_t i = s->ops->propose ? s->ops->propose(s) : -1;
    if (i >= 0 && s->passing) {
        /* Infeasible, yielded for the record (a live exhaustive walk): no budget, no report. */
        s->passed++;
        *index = i;
        return 1;
    }
    if (i < 0)
        i = rt_strat_take_random(s);
    if (i < 0)
        return 0;
    s->pending = i;
    s->yielded++;
    *index = i;
    return 1;
}

void rt_strategy_report(rt_strategy *s, int64_t index, double objective)
{
    if (index < 0 || index != s->pending)
        return;
    s->pending = -1;
    if (isnan(objective))
        objective = INFINITY;
    if (isfinite(objective) && objective < s->best_obj) {
        s->best = index;
        s->best_obj = objective;
    }
    if (s->n_hist == s->hist_cap) {
        /* Out of memory leaves the history short; strategies read it as far as it goes. */
        const int64_t cap = s->hist_cap ? 2 * s->hist_cap : 64;
        rt_strat_sample *grown = realloc(s->hist, (size_t)cap * sizeof *grown);
        if (grown) {
            s->hist = grown;
            s->hist_cap = cap;
        }
    }
    if (s->n_hist < s->hist_cap)
        s->hist[s->n_hist++] = (rt_strat_sample){index, objective};
    if (s->ops->observe)
        s->ops->observe(s, index, objective);
}

int rt_strategy_best(const rt_strategy *s, int64_t *index, double *objective)
{
    if (s->best < 0)
        return -1;
    if (index)
        *index = s->best;
    if (objective)
        *objective = s->best_obj;
    return 0;
}

rt_strategy_counts rt_strategy_counts_of(const rt_strategy *s)
{
    return (rt_strategy_counts){s->yielded, s->passed, s->skipped, s->budget};
}

const char *rt_strategy_name(const rt_strategy *s)
{
    return s->ops->info.name;
}

void rt_strategy_free(rt_strategy *s)
{
    if (!s)
        return;
    if (s->ops && s->ops->release)
        s->ops->release(s);
    free(s->visited);
    free(s->order_pos);
    free(s->order_index);
    free(s->hist);
    free(s);
}
