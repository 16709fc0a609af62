#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_strategy.h"
#include "rt_strategy_impl.h"
#include "rt_strutil.h"

static const rt_strategy_ops *const all_ops[] = {
    &rt_strat_random_ops,   &rt_strat_genetic_ops, &rt_strat_diffevo_ops, &rt_strat_ils_ops,
    &rt_strat_basinhop_ops, &rt_strat_pso_ops,     &rt_strat_bayes_ops,
};
#define N_OPS ((int)(sizeof all_ops / sizeof all_ops[0]))

const char *const rt_strategy_names[] = {"random",   "genetic", "diffevo", "ils",
                                         "basinhop", "pso",     "bayes"};
const int rt_strategy_count = N_OPS;

/* Grids larger than this cannot hold a visited bitmap worth having (128 MiB). */
#define GRID_MAX_POINTS ((int64_t)1 << 30)

/* A strategy that keeps proposing taken points is cut off after this many random draws before
 * the driver scans the grid for what is left. */

static const rt_strategy_ops *find_ops(const char *name)
{
    for (int i = 0; i < N_OPS; ++i)
        if (strcmp(all_ops[i]->name, name) == 0)
            return all_ops[i];
    return NULL;
}

int rt_strategy_known(const char *name)
{
    return name && find_ops(name) != NULL;
}

int rt_strategy_create(const char *name, const rt_grid *grid, int64_t budget, double max_time_s,
                       uint64_t seed, rt_strategy **out, rt_err *err)
{
    *out = NULL;
    const rt_strategy_ops *ops = name ? find_ops(name) : NULL;
    if (!ops) {
        const char *hint = name ? rt_suggest(name, rt_strategy_names, N_OPS) : NULL;
        return rt_err_set(err,
                          "strategy '%s' is unknown%s%s%s; use random, genetic, diffevo, ils, "
                          "basinhop, pso or bayes",
                          name ? name : "(none)", hint ? " (did you mean '" : "", hint ? hint : "",
                          hint ? "'?)" : "");
    }
    if (!grid || grid->n_dims < 1 || grid->n_dims > RT_MAX_PARAMS)
        return rt_err_set(err, "strategy %s: the grid needs 1 to %d dimensions", name,
                          RT_MAX_PARAMS);
    if (budget < 0)
        return rt_err_set(err, "strategy %s: budget must be 0 (all) or positive, not %lld", name,
                          (long long)budget);
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
    s->budget = budget > 0 && budget < size ? budget : size;
    s->max_time_s = max_time_s;
    s->start_s = rt_clock_now();
    s->seed = seed;
    s->rng = seed ^ 0x6a09e667f3bcc909ULL;
    s->pending = -1;
    s->best = -1;
    s->best_obj = INFINITY;
    s->visited = calloc((size_t)(size + 7) / 8, 1);
    if (!s->visited) {
        rt_strategy_free(s);
        return rt_err_set(err, "out of memory for strategy %s over %lld points", name,
                          (long long)size);
    }
    if (ops->init && ops->init(s, err) != 0) {
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
    int64_t i = s->ops->propose ? s->ops->propose(s) : -1;
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
        int64_t *hi = realloc(s->hist_index, (size_t)cap * sizeof *hi);
        if (hi)
            s->hist_index = hi;
        double *ho = hi ? realloc(s->hist_obj, (size_t)cap * sizeof *ho) : NULL;
        if (ho)
            s->hist_obj = ho;
        if (!hi || !ho) {
            if (s->ops->observe)
                s->ops->observe(s, index, objective);
            return;
        }
        s->hist_cap = cap;
    }
    s->hist_index[s->n_hist] = index;
    s->hist_obj[s->n_hist] = objective;
    s->n_hist++;
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

int64_t rt_strategy_yielded(const rt_strategy *s)
{
    return s->yielded;
}

int64_t rt_strategy_skipped(const rt_strategy *s)
{
    return s->skipped;
}

int64_t rt_strategy_budget(const rt_strategy *s)
{
    return s->budget;
}

const char *rt_strategy_name(const rt_strategy *s)
{
    return s->ops->name;
}

void rt_strategy_free(rt_strategy *s)
{
    if (!s)
        return;
    if (s->ops && s->ops->release)
        s->ops->release(s);
    free(s->visited);
    free(s->hist_index);
    free(s->hist_obj);
    free(s);
}
