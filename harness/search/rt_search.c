#include "rt_search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_strategy.h"
#include "rt_strutil.h"

/* STRAT_DELEGATE: one of the strategies of rt_strategy.h (genetic, bayes, ...), driven over the
 * space's grid. */
typedef enum strategy { STRAT_EXHAUSTIVE, STRAT_RANDOM, STRAT_ANNEAL, STRAT_DELEGATE } strategy;

static const char *const strategy_names[] = {"exhaustive", "random", "anneal"};
#define N_STRATEGIES 3

/* Annealing schedule: a point 30% slower than the current one is accepted with probability
 * 1/e at the start and practically never at the end; in between T falls geometrically. */
#define ANNEAL_T_START 0.3
#define ANNEAL_T_END   0.003

/* A keyed bijection of [0, n): a 4-round Feistel network on the smallest even-width bit domain
 * that holds n, with cycle walking for the values past n. It gives random sampling without
 * replacement in O(1) memory, whatever the size of the space. */
typedef struct permutation {
    int64_t n;
    int half_bits;
    uint64_t mask;
    uint64_t keys[4];
} permutation;

struct rt_search {
    strategy strat;
    const rt_space *space;
    int64_t size;
    int64_t budget;
    int64_t yielded_feasible;
    int64_t yielded;
    int64_t skipped;
    int64_t cursor; /* exhaustive: next index; random/anneal: next permutation position */
    permutation perm;
    uint64_t rng;

    int64_t best;
    double best_obj;

    /* anneal */
    unsigned char *visited; /* bitmap over the space */
    int64_t current;
    double current_obj;
    int64_t pending;         /* yielded, not yet reported */
    int last_dim, last_step; /* the move that last improved: tried first next time */
    int64_t pending_from;    /* the current point when pending was chosen */
    int pending_dim, pending_step;
    double temperature, cooling;

    rt_strategy *delegate;
};

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t mix(uint64_t x)
{
    uint64_t s = x;
    return splitmix64(&s);
}

/* Uniform in [0, 1) from the top 53 bits. */
static double uniform01(uint64_t *state)
{
    return (double)(splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform integer in [0, n) without modulo bias worth mentioning for n far below 2^64. */
static int64_t uniform_below(uint64_t *state, int64_t n)
{
    return (int64_t)(uniform01(state) * (double)n);
}

static void perm_init(permutation *p, int64_t n, uint64_t seed)
{
    p->n = n;
    int h = 1;
    while (h < 31 && ((int64_t)1 << (2 * h)) < n)
        ++h;
    p->half_bits = h;
    p->mask = ((uint64_t)1 << h) - 1;
    uint64_t s = seed ^ 0x5851f42d4c957f2dULL;
    for (int r = 0; r < 4; ++r)
        p->keys[r] = splitmix64(&s);
}

static int64_t perm_apply(const permutation *p, int64_t x)
{
    const int h = p->half_bits;
    do {
        uint64_t left = (uint64_t)x >> h, right = (uint64_t)x & p->mask;
        for (int r = 0; r < 4; ++r) {
            const uint64_t next_right = left ^ (mix(right ^ p->keys[r]) & p->mask);
            left = right;
            right = next_right;
        }
        x = (int64_t)((left << h) | right);
    } while (x >= p->n);
    return x;
}

static int is_visited(const rt_search *s, int64_t i)
{
    return (s->visited[i >> 3] >> (i & 7)) & 1;
}

static void mark_visited(rt_search *s, int64_t i)
{
    s->visited[i >> 3] |= (unsigned char)(1u << (i & 7));
}

/* Feasibility as the space defines it. A point whose constraints cannot be evaluated counts as
 * feasible here: it is yielded and the caller's rt_space_point reports the error. */
static int feasible(const rt_search *s, int64_t index)
{
    rt_params p;
    int ok = 0;
    rt_err err;
    if (rt_space_point(s->space, index, &p, &ok, NULL, 0, &err) != 0)
        return 1;
    return ok;
}

static int grid_feasible(void *ctx, int64_t index)
{
    return feasible(ctx, index);
}

static int create_delegate(rt_search *s, const rt_search_cfg *cfg, rt_err *err)
{
    rt_grid grid = {.n_dims = rt_space_n_dims(s->space), .feasible = grid_feasible, .ctx = s};
    for (int d = 0; d < grid.n_dims; ++d)
        grid.dim_size[d] = rt_space_dim_size(s->space, d);
    return rt_strategy_create(cfg->strategy, &grid, s->budget, cfg->max_time_s, cfg->seed,
                              &s->delegate, err);
}

int64_t rt_search_budget_rule(const rt_search_cfg *cfg, int64_t size)
{
    if (cfg->budget > 0)
        return cfg->budget < size ? cfg->budget : size;
    if (!cfg->strategy[0] || strcmp(cfg->strategy, "exhaustive") == 0)
        return size;
    return size < RT_SEARCH_DEFAULT_BUDGET ? size : RT_SEARCH_DEFAULT_BUDGET;
}

int rt_search_create(const rt_search_cfg *cfg, const rt_space *space, rt_search **out, rt_err *err)
{
    *out = NULL;
    if (!cfg || !space)
        return rt_err_set(err, "rt_search_create: missing search config or space");
    const char *name = cfg->strategy[0] ? cfg->strategy : "exhaustive";
    int which = -1;
    for (int i = 0; i < N_STRATEGIES; ++i)
        if (strcmp(name, strategy_names[i]) == 0)
            which = i;
    if (which < 0 && rt_strategy_known(name))
        which = STRAT_DELEGATE;
    if (which < 0) {
        const char *all[N_STRATEGIES + 16];
        int n_all = 0;
        for (int i = 0; i < N_STRATEGIES; ++i)
            all[n_all++] = strategy_names[i];
        for (int i = 0; i < rt_strategy_count && n_all < N_STRATEGIES + 16; ++i)
            if (strcmp(rt_strategy_names[i], "random") != 0) /* already listed */
                all[n_all++] = rt_strategy_names[i];
        const char *hint = rt_suggest(name, all, n_all);
        return rt_err_set(err,
                          "search.strategy '%s' is unknown%s%s%s; use exhaustive, random, "
                          "anneal, genetic, diffevo, ils, basinhop, pso or bayes",
                          name, hint ? " (did you mean '" : "", hint ? hint : "",
                          hint ? "'?)" : "");
    }
    if (cfg->budget < 0)
        return rt_err_set(err,
                          "search.budget must be 0 (default) or a positive number of points, "
                          "not %d",
                          cfg->budget);
    rt_search *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "out of memory for the search");
    s->strat = (strategy)which;
    s->space = space;
    s->size = rt_space_size(space);
    s->budget = rt_search_budget_rule(cfg, s->size);
    s->rng = cfg->seed ^ 0x2545f4914f6cdd1dULL;
    perm_init(&s->perm, s->size, cfg->seed);
    s->best = -1;
    s->best_obj = INFINITY;
    s->current = -1;
    s->current_obj = INFINITY;
    s->pending = -1;
    s->pending_from = -1;
    s->last_dim = -1;
    if (s->strat == STRAT_ANNEAL) {
        s->visited = calloc((size_t)(s->size + 7) / 8, 1);
        if (!s->visited) {
            const long long points = (long long)s->size;
            free(s);
            return rt_err_set(err, "out of memory for the annealing search over %lld points",
                              points);
        }
        s->temperature = ANNEAL_T_START;
        s->cooling =
            s->budget > 1 ? pow(ANNEAL_T_END / ANNEAL_T_START, 1.0 / (double)s->budget) : 1.0;
    }
    if (s->strat == STRAT_DELEGATE && create_delegate(s, cfg, err) != 0) {
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

static int next_exhaustive(rt_search *s, int64_t *index)
{
    if (s->cursor >= s->size || s->yielded_feasible >= s->budget)
        return 0;
    const int64_t i = s->cursor++;
    /* The whole space needs no feasibility test: the budget cannot cut it short. */
    if (s->budget < s->size) {
        if (feasible(s, i))
            s->yielded_feasible++;
    } else {
        s->yielded_feasible++;
    }
    *index = i;
    return 1;
}

static int next_random(rt_search *s, int64_t *index)
{
    while (s->yielded_feasible < s->budget && s->cursor < s->size) {
        const int64_t i = perm_apply(&s->perm, s->cursor++);
        if (!feasible(s, i)) {
            s->skipped++;
            continue;
        }
        s->yielded_feasible++;
        *index = i;
        return 1;
    }
    return 0;
}

/* An unvisited feasible neighbour of center, or -1. Infeasible neighbours met on the way are
 * marked visited so they are never tested again. The move that last paid off is tried first
 * (a pattern-search habit that makes descents along one parameter cheap); the rest in random
 * order. */
typedef struct grid_move {
    int dim;
    int step; /* -1 or +1 */
} grid_move;

static int64_t pick_neighbour(rt_search *s, int64_t center, int *dim_out, int *step_out)
{
    const int nd = rt_space_n_dims(s->space);
    int64_t coords[RT_MAX_PARAMS];
    if (rt_space_coords(s->space, center, coords) != 0)
        return -1;
    grid_move moves[2 * RT_MAX_PARAMS];
    int nm = 0;
    for (int d = 0; d < nd; ++d) {
        if (rt_space_dim_size(s->space, d) < 2)
            continue;
        moves[nm++] = (grid_move){d, -1};
        moves[nm++] = (grid_move){d, +1};
    }
    for (int i = nm - 1; i > 0; --i) { /* Fisher-Yates */
        const int j = (int)uniform_below(&s->rng, i + 1);
        const grid_move tmp = moves[i];
        moves[i] = moves[j];
        moves[j] = tmp;
    }
    for (int i = 1; i < nm; ++i) {
        if (moves[i].dim == s->last_dim && moves[i].step == s->last_step) {
            const grid_move tmp = moves[i];
            moves[i] = moves[0];
            moves[0] = tmp;
            break;
        }
    }
    for (int i = 0; i < nm; ++i) {
        const int d = moves[i].dim;
        const int64_t saved = coords[d];
        coords[d] += moves[i].step;
        int64_t idx;
        const int in_range = rt_space_index(s->space, coords, &idx) == 0;
        coords[d] = saved;
        if (!in_range || is_visited(s, idx))
            continue;
        mark_visited(s, idx);
        if (!feasible(s, idx)) {
            s->skipped++;
            continue;
        }
        *dim_out = d;
        *step_out = moves[i].step;
        return idx;
    }
    return -1;
}

static void anneal_accept(rt_search *s, int64_t index, double obj)
{
    int accept;
    if (s->current < 0 || obj <= s->current_obj) {
        accept = 1;
    } else if (!isfinite(obj)) {
        accept = 0;
    } else if (!isfinite(s->current_obj)) {
        accept = 1;
    } else {
        /* Relative loss: the objective's scale (nanoseconds or minutes) must not change how
         * adventurous the search is. */
        const double scale = fabs(s->current_obj) > 0 ? fabs(s->current_obj) : 1.0;
        const double loss = (obj - s->current_obj) / scale;
        accept = uniform01(&s->rng) < exp(-loss / s->temperature);
    }
    if (accept) {
        if (s->pending_from >= 0 && s->pending_from == s->current && obj < s->current_obj) {
            s->last_dim = s->pending_dim;
            s->last_step = s->pending_step;
        } else {
            s->last_dim = -1;
        }
        s->current = index;
        s->current_obj = obj;
    }
    s->temperature *= s->cooling;
}

static int next_anneal(rt_search *s, int64_t *index)
{
    if (s->pending >= 0) /* yielded but never reported: it failed as far as we know */
        rt_search_report(s, s->pending, INFINITY);
    if (s->yielded_feasible >= s->budget)
        return 0;
    int dim = -1, step = 0;
    int64_t cand = -1;
    if (s->current >= 0)
        cand = pick_neighbour(s, s->current, &dim, &step);
    if (cand < 0 && s->best >= 0 && s->best != s->current) {
        /* The current neighbourhood is used up: resume from the best point seen. */
        s->current = s->best;
        s->current_obj = s->best_obj;
        s->last_dim = -1;
        cand = pick_neighbour(s, s->current, &dim, &step);
    }
    if (cand >= 0) {
        s->pending_from = s->current;
        s->pending_dim = dim;
        s->pending_step = step;
    } else {
        /* Restart from a fresh random point: the next unvisited one in the permutation. */
        while (s->cursor < s->size && cand < 0) {
            const int64_t i = perm_apply(&s->perm, s->cursor++);
            if (is_visited(s, i))
                continue;
            mark_visited(s, i);
            if (feasible(s, i))
                cand = i;
            else
                s->skipped++;
        }
        if (cand < 0)
            return 0; /* every index has been considered */
        s->pending_from = -1;
        s->current = -1; /* the restart point becomes current whatever its objective */
        s->current_obj = INFINITY;
    }
    s->pending = cand;
    s->yielded_feasible++;
    *index = cand;
    return 1;
}

int rt_search_next(rt_search *search, int64_t *index)
{
    int got = 0;
    switch (search->strat) {
    case STRAT_EXHAUSTIVE: got = next_exhaustive(search, index); break;
    case STRAT_RANDOM: got = next_random(search, index); break;
    case STRAT_ANNEAL: got = next_anneal(search, index); break;
    case STRAT_DELEGATE: got = rt_strategy_next(search->delegate, index); break;
    }
    if (got)
        search->yielded++;
    return got;
}

void rt_search_report(rt_search *search, int64_t index, double objective)
{
    if (index < 0 || index >= search->size)
        return;
    if (isnan(objective))
        objective = INFINITY;
    if (isfinite(objective) && objective < search->best_obj) {
        search->best = index;
        search->best_obj = objective;
    }
    if (search->strat == STRAT_DELEGATE)
        rt_strategy_report(search->delegate, index, objective);
    if (search->strat == STRAT_ANNEAL && index == search->pending) {
        search->pending = -1;
        anneal_accept(search, index, objective);
    }
}

int rt_search_best(const rt_search *search, int64_t *index, double *objective)
{
    if (search->best < 0)
        return -1;
    if (index)
        *index = search->best;
    if (objective)
        *objective = search->best_obj;
    return 0;
}

int64_t rt_search_yielded(const rt_search *search)
{
    return search->yielded;
}

int64_t rt_search_skipped(const rt_search *search)
{
    if (search->strat == STRAT_DELEGATE)
        return rt_strategy_skipped(search->delegate);
    return search->skipped;
}

int64_t rt_search_budget(const rt_search *search)
{
    return search->budget;
}

const char *rt_search_strategy(const rt_search *search)
{
    if (search->strat == STRAT_DELEGATE)
        return rt_strategy_name(search->delegate);
    return strategy_names[search->strat];
}

void rt_search_free(rt_search *search)
{
    if (!search)
        return;
    rt_strategy_free(search->delegate);
    free(search->visited);
    free(search);
}
