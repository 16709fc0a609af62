#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
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
#define RANDOM_TRIES 256

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

uint64_t rt_strat_u64(rt_strategy *s)
{
    uint64_t z = (s->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double rt_strat_unif(rt_strategy *s)
{
    return (double)(rt_strat_u64(s) >> 11) * (1.0 / 9007199254740992.0);
}

int64_t rt_strat_below(rt_strategy *s, int64_t n)
{
    if (n <= 1)
        return 0;
    const int64_t v = (int64_t)(rt_strat_unif(s) * (double)n);
    return v < n ? v : n - 1;
}

double rt_strat_normal(rt_strategy *s)
{
    /* Box-Muller; the second value is dropped to keep the state a single counter. */
    const double u1 = 1.0 - rt_strat_unif(s), u2 = rt_strat_unif(s);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

void rt_strat_coords(const rt_strategy *s, int64_t index, int64_t *coords)
{
    for (int d = 0; d < s->grid.n_dims; ++d) {
        coords[d] = index / s->stride[d];
        index %= s->stride[d];
    }
}

int64_t rt_strat_index(const rt_strategy *s, const int64_t *coords)
{
    int64_t index = 0;
    for (int d = 0; d < s->grid.n_dims; ++d) {
        if (coords[d] < 0 || coords[d] >= s->grid.dim_size[d])
            return -1;
        index += coords[d] * s->stride[d];
    }
    return index;
}

static int is_visited(const rt_strategy *s, int64_t i)
{
    return (s->visited[i >> 3] >> (i & 7)) & 1;
}

static void mark_visited(rt_strategy *s, int64_t i)
{
    s->visited[i >> 3] |= (unsigned char)(1u << (i & 7));
}

int rt_strat_open(rt_strategy *s, int64_t index)
{
    if (index < 0 || index >= s->size || is_visited(s, index))
        return 0;
    if (s->grid.feasible && !s->grid.feasible(s->grid.ctx, index)) {
        mark_visited(s, index);
        s->skipped++;
        return 0;
    }
    return 1;
}

int rt_strat_take(rt_strategy *s, int64_t index)
{
    if (!rt_strat_open(s, index))
        return 0;
    mark_visited(s, index);
    return 1;
}

int64_t rt_strat_take_random(rt_strategy *s)
{
    const int sparse = s->grid.feasible_list && s->grid.n_feasible > 0;
    const int64_t n = sparse ? s->grid.n_feasible : s->size;
    for (int t = 0; t < RANDOM_TRIES; ++t) {
        const int64_t pos = rt_strat_below(s, n);
        const int64_t i = sparse ? s->grid.feasible_list[pos] : pos;
        if (rt_strat_take(s, i))
            return i;
    }
    /* Nearly exhausted: scan from a random start so the order stays seed-dependent. */
    const int64_t start = rt_strat_below(s, n);
    for (int64_t k = 0; k < n; ++k) {
        const int64_t pos = (start + k) % n;
        const int64_t i = sparse ? s->grid.feasible_list[pos] : pos;
        if (rt_strat_take(s, i))
            return i;
    }
    return -1;
}

static void shuffle(rt_strategy *s, int64_t *v, int n)
{
    for (int i = n - 1; i > 0; --i) {
        const int j = (int)rt_strat_below(s, i + 1);
        const int64_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

int rt_strat_open_neighbours(rt_strategy *s, int64_t center, int hamming, int64_t *out, int cap)
{
    int64_t c[RT_MAX_PARAMS];
    rt_strat_coords(s, center, c);
    int n = 0;
    for (int d = 0; d < s->grid.n_dims && n < cap; ++d)
        for (int step = -1; step <= 1 && n < cap; step += 2) {
            const int64_t i = center + step * s->stride[d];
            if (c[d] + step >= 0 && c[d] + step < s->grid.dim_size[d] && rt_strat_open(s, i))
                out[n++] = i;
        }
    shuffle(s, out, n);
    if (!hamming)
        return n;
    const int adjacent = n;
    for (int d = 0; d < s->grid.n_dims && n < cap; ++d)
        for (int64_t v = 0; v < s->grid.dim_size[d] && n < cap; ++v) {
            if (v >= c[d] - 1 && v <= c[d] + 1)
                continue;
            const int64_t i = center + (v - c[d]) * s->stride[d];
            if (rt_strat_open(s, i))
                out[n++] = i;
        }
    shuffle(s, out + adjacent, n - adjacent);
    return n;
}

int64_t rt_strat_take_near(rt_strategy *s, const double *x)
{
    int64_t c[RT_MAX_PARAMS];
    for (int d = 0; d < s->grid.n_dims; ++d) {
        double v = floor(x[d] + 0.5);
        if (!(v >= 0))
            v = 0;
        if (v > (double)(s->grid.dim_size[d] - 1))
            v = (double)(s->grid.dim_size[d] - 1);
        c[d] = (int64_t)v;
    }
    const int64_t center = rt_strat_index(s, c);
    if (rt_strat_take(s, center))
        return center;
    /* Outwards: adjacent moves of the rounded point, then of a few of those. */
    int64_t ring[2 * RT_MAX_PARAMS];
    int n = rt_strat_open_neighbours(s, center, 0, ring, 2 * RT_MAX_PARAMS);
    if (n > 0 && rt_strat_take(s, ring[0]))
        return ring[0];
    int64_t around[2 * RT_MAX_PARAMS];
    for (int d = 0; d < s->grid.n_dims; ++d)
        for (int step = -1; step <= 1; step += 2) {
            const int64_t v = c[d] + step;
            if (v < 0 || v >= s->grid.dim_size[d])
                continue;
            n = rt_strat_open_neighbours(s, center + step * s->stride[d], 0, around,
                                         2 * RT_MAX_PARAMS);
            if (n > 0 && rt_strat_take(s, around[0]))
                return around[0];
        }
    return -1;
}

int64_t rt_strat_take_perturbed(rt_strategy *s, int64_t center, int max_dims, int tries)
{
    int64_t c[RT_MAX_PARAMS];
    int movable[RT_MAX_PARAMS], n_movable = 0;
    for (int d = 0; d < s->grid.n_dims; ++d)
        if (s->grid.dim_size[d] > 1)
            movable[n_movable++] = d;
    if (n_movable == 0)
        return -1;
    for (int t = 0; t < tries; ++t) {
        rt_strat_coords(s, center, c);
        const int k = 1 + (int)rt_strat_below(s, max_dims < n_movable ? max_dims : n_movable);
        for (int j = 0; j < k; ++j) {
            const int d = movable[rt_strat_below(s, n_movable)];
            c[d] = rt_strat_below(s, s->grid.dim_size[d]);
        }
        const int64_t i = rt_strat_index(s, c);
        if (rt_strat_take(s, i))
            return i;
    }
    return -1;
}

double rt_strat_rel_loss(double a, double b)
{
    if (!isfinite(a))
        return INFINITY;
    if (!isfinite(b))
        return -INFINITY;
    const double scale = fabs(b) > 0 ? fabs(b) : 1.0;
    return (a - b) / scale;
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
