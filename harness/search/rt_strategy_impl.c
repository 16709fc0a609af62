#include "rt_strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_visited(const rt_strategy *s, int64_t i)
{
    return (s->visited[i >> 3] >> (i & 7)) & 1;
}

static void mark_visited(rt_strategy *s, int64_t i)
{
    s->visited[i >> 3] |= (unsigned char)(1u << (i & 7));
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

int64_t rt_strat_below(rt_strategy *s, int64_t n)
{
    if (n <= 1)
        return 0;
    const int64_t v = (int64_t)(rt_strat_unif(s) * (double)n);
    return v < n ? v : n - 1;
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

double rt_strat_normal(rt_strategy *s)
{
    /* Box-Muller; the second value is dropped to keep the state a single counter. */
    const double u1 = 1.0 - rt_strat_unif(s), u2 = rt_strat_unif(s);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
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

double rt_strat_rel_loss(double a, double b)
{
    if (!isfinite(a))
        return INFINITY;
    if (!isfinite(b))
        return -INFINITY;
    const double scale = fabs(b) > 0 ? fabs(b) : 1.0;
    return (a - b) / scale;
}

int rt_strat_take(rt_strategy *s, int64_t index)
{
    if (!rt_strat_open(s, index))
        return 0;
    mark_visited(s, index);
    return 1;
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

double rt_strat_option(const rt_strategy *s, const char *name)
{
    for (int k = 0; k < s->ops->info.n_options; ++k)
        if (strcmp(s->ops->info.options[k].name, name) == 0)
            return s->opt[k];
    return NAN; /* a strategy asking for an option it does not declare: its own bug */
}

void rt_strat_free_state(rt_strategy *s)
{
    free(s->state);
    s->state = NULL;
}

/* A sparse grid (a recorded space holds a fraction of its product) puts its feasible list in the
 * permutation's order instead of walking positions that mostly land outside the space; below this
 * density the sort costs less than the walk. Both give the same sequence. */
#define SPARSE_DENSITY 4

static int use_order_list(const rt_strategy *s)
{
    return s->grid.feasible_list && s->grid.n_feasible > 0 &&
           s->grid.n_feasible <= s->size / SPARSE_DENSITY;
}

typedef struct pos_index {
    int64_t pos, index;
} pos_index;

static int cmp_pos(const void *a, const void *b)
{
    const int64_t x = ((const pos_index *)a)->pos, y = ((const pos_index *)b)->pos;
    return x < y ? -1 : x > y;
}

/* Out of memory leaves the list unbuilt; the walk then gives the same sequence, slower. */
static void build_order(rt_strategy *s)
{
    s->order_built = 1;
    const int64_t n = s->grid.n_feasible;
    pos_index *pairs = malloc((size_t)n * sizeof *pairs);
    s->order_pos = malloc((size_t)n * sizeof *s->order_pos);
    s->order_index = malloc((size_t)n * sizeof *s->order_index);
    if (!pairs || !s->order_pos || !s->order_index) {
        free(pairs);
        free(s->order_pos);
        free(s->order_index);
        s->order_pos = s->order_index = NULL;
        return;
    }
    for (int64_t k = 0; k < n; ++k) {
        pairs[k].index = s->grid.feasible_list[k];
        pairs[k].pos = rt_perm_invert(&s->perm, pairs[k].index);
    }
    qsort(pairs, (size_t)n, sizeof *pairs, cmp_pos);
    for (int64_t k = 0; k < n; ++k) {
        s->order_pos[k] = pairs[k].pos;
        s->order_index[k] = pairs[k].index;
    }
    s->n_order = n;
    free(pairs);
}

/* The first k with sorted[k] >= key (n when none). */
static int64_t lower_bound(const int64_t *sorted, int64_t n, int64_t key)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t rt_strat_next_random(rt_strategy *s, int64_t *pos)
{
    if (use_order_list(s) && !s->order_built)
        build_order(s);
    if (s->order_pos) {
        for (int64_t k = lower_bound(s->order_pos, s->n_order, *pos); k < s->n_order; ++k)
            if (rt_strat_open(s, s->order_index[k])) {
                *pos = s->order_pos[k] + 1;
                return s->order_index[k];
            }
    } else {
        for (int64_t p = *pos; p < s->size; ++p) {
            const int64_t i = rt_perm_apply(&s->perm, p);
            if (rt_strat_open(s, i)) {
                *pos = p + 1;
                return i;
            }
        }
    }
    *pos = s->size;
    return -1;
}

int64_t rt_strat_take_random(rt_strategy *s)
{
    const int64_t i = rt_strat_next_random(s, &s->random_pos);
    if (i >= 0)
        mark_visited(s, i);
    return i;
}

int64_t rt_strat_take_in_order(rt_strategy *s, int64_t *cursor)
{
    if (s->pass_infeasible) {
        /* A live walk: every index, so the runner records why the infeasible ones cannot run. */
        for (int64_t i = *cursor; i < s->size; ++i) {
            if (is_visited(s, i))
                continue;
            *cursor = i + 1;
            mark_visited(s, i);
            if (s->grid.feasible && !s->grid.feasible(s->grid.ctx, i))
                s->passing = 1;
            return i;
        }
    } else if (s->grid.feasible_list && s->grid.n_feasible > 0) {
        const int64_t n = s->grid.n_feasible;
        for (int64_t k = lower_bound(s->grid.feasible_list, n, *cursor); k < n; ++k)
            if (rt_strat_take(s, s->grid.feasible_list[k])) {
                *cursor = s->grid.feasible_list[k] + 1;
                return s->grid.feasible_list[k];
            }
    } else {
        for (int64_t i = *cursor; i < s->size; ++i)
            if (rt_strat_take(s, i)) {
                *cursor = i + 1;
                return i;
            }
    }
    *cursor = s->size;
    return -1;
}

#define DESCENT_RESTART_TRIES 64

void rt_strat_descent_init(rt_strat_descent *d)
{
    d->current = -1;
    d->current_obj = INFINITY;
    d->restarting = 0;
}

int64_t rt_strat_descent_move(rt_strategy *s, rt_strat_descent *d)
{
    if (d->current < 0)
        return -1;
    const int n = rt_strat_open_neighbours(s, d->current, 1, d->moves, RT_STRAT_MAX_MOVES);
    return n > 0 && rt_strat_take(s, d->moves[0]) ? d->moves[0] : -1;
}

int64_t rt_strat_descent_restart(rt_strategy *s, rt_strat_descent *d, int64_t center, int max_dims)
{
    d->restarting = 1;
    return rt_strat_take_perturbed(s, center, max_dims, DESCENT_RESTART_TRIES);
}

void rt_strat_descent_observe(rt_strat_descent *d, int64_t index, double obj, int64_t fallback,
                              double fallback_obj)
{
    if (d->restarting || d->current < 0) {
        d->restarting = 0;
        if (isfinite(obj)) {
            d->current = index;
            d->current_obj = obj;
        } else if (fallback >= 0) {
            d->current = fallback;
            d->current_obj = fallback_obj;
        }
    } else if (obj < d->current_obj) {
        d->current = index;
        d->current_obj = obj;
    }
}
