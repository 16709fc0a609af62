/* A live run and a replay of the same space, with the same strategy, options, seed and budget,
 * visit the same points in the same order: for every strategy of the table (in the toy build,
 * the test strategy `toy` of tests/search/toy too), on a dense space and on a sparse one (under a
 * quarter feasible, where replay puts its feasible list in the seed's order instead of walking the
 * permutation), with configurations that fail. The live side drives rt_search over an rt_space as
 * the runner does (infeasible points exhaustive passes through are recorded, not measured); the
 * replay side drives rt_replay_once over a recorded space holding the live space's feasible
 * points. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_recorded.h"
#include "rt_replay.h"
#include "rt_search.h"
#include "rt_test.h"
#include "rt_test_grid.h"

enum { NX = 9, NY = 7, NZ = 6, MAX_SEQ = NX * NY * NZ };

/* Values 2, 5, 8, ... so that coordinates and values differ. */
static rt_space *make_space(const char *constraint)
{
    return rt_test_grid_space(NX, NY, NZ, 2, 3, constraint);
}

/* Two basins and failing configurations, in seconds like a timing. */
static double objective(const rt_space *space, int64_t index)
{
    int64_t c[RT_MAX_PARAMS];
    rt_space_coords(space, index, c);
    if ((c[0] * 5 + c[1] * 3 + c[2]) % 13 == 6)
        return INFINITY;
    const double a = (double)((c[0] - 6) * (c[0] - 6) + 2 * (c[1] - 2) * (c[1] - 2)) +
                     (double)((c[2] - 4) * (c[2] - 4));
    const double b = (double)((c[0] - 1) * (c[0] - 1) + (c[1] - 5) * (c[1] - 5) + c[2] * c[2]);
    return 1e-3 * (1.0 + 0.1 * (a < b ? a : 1.5 + b));
}

static int feasible(const rt_space *space, int64_t index)
{
    rt_params p;
    int ok = 0;
    rt_err err;
    return rt_space_point(space, index, &p, &ok, NULL, 0, &err) == 0 && ok;
}

/* The space's feasible points as a recorded space: the same dimensions and values in the same
 * order, as a store sweep of it would give. */
static rt_recorded *record(const rt_space *space)
{
    rt_recorded_dim dims[3];
    char text[3][16][8];
    char *values[3][16];
    static const char *const names[] = {"x", "y", "z"};
    for (int d = 0; d < 3; ++d) {
        snprintf(dims[d].name, sizeof dims[d].name, "%s", names[d]);
        dims[d].n_values = (int)rt_space_dim_size(space, d);
        dims[d].numeric = 1;
        dims[d].values = values[d];
        for (int v = 0; v < dims[d].n_values; ++v) {
            snprintf(text[d][v], sizeof text[d][v], "%lld",
                     (long long)rt_space_dim_value(space, d, v)->i);
            values[d][v] = text[d][v];
        }
    }
    rt_recorded *r = NULL;
    rt_err err;
    if (rt_recorded_new("spmm.cpu.grid", "test", "s", 3, dims, &r, &err) != 0)
        return NULL;
    for (int64_t i = 0; i < rt_space_size(space); ++i) {
        int64_t c[RT_MAX_PARAMS];
        rt_space_coords(space, i, c);
        if (feasible(space, i) && rt_recorded_add(r, c, objective(space, i), NAN, &err) != 0)
            fprintf(stderr, "record: %s\n", err.msg);
    }
    if (rt_recorded_finish(r, "test", &err) != 0) {
        fprintf(stderr, "record: %s\n", err.msg);
        rt_recorded_free(r);
        return NULL;
    }
    return r;
}

/* The runner's loop: every yielded point is checked; feasible ones are measured (here: the
 * objective) and reported, infeasible ones recorded and reported as failed. Writes the measured
 * points in order; returns how many, and the budget the search set. */
static int live(const rt_space *space, const rt_search_cfg *cfg, int64_t *seq, int64_t *budget)
{
    rt_search *se = NULL;
    rt_err err;
    if (rt_search_create(cfg, space, &se, &err) != 0) {
        fprintf(stderr, "live %s: %s\n", cfg->strategy, err.msg);
        return -1;
    }
    *budget = rt_search_budget(se);
    int n = 0;
    int64_t index;
    while (rt_search_next(se, &index) == 1 && n < MAX_SEQ) {
        if (!feasible(space, index)) {
            rt_search_report(se, index, INFINITY);
            continue;
        }
        seq[n++] = index;
        rt_search_report(se, index, objective(space, index));
    }
    rt_search_free(se);
    return n;
}

static void check_same_path(const rt_space *space, const rt_recorded *r, const char *strategy,
                            int budget, uint64_t seed, const rt_strategy_opts *opts)
{
    rt_search_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    snprintf(cfg.strategy, sizeof cfg.strategy, "%s", strategy);
    cfg.budget = budget;
    cfg.seed = seed;
    if (opts)
        cfg.options = *opts;
    int64_t a[MAX_SEQ], b[MAX_SEQ], eff = 0;
    const int na = live(space, &cfg, a, &eff);
    const rt_strategy_args args = {.name = strategy, .seed = seed, .options = opts};
    rt_replay_once_result once;
    rt_err err;
    if (rt_replay_once(r, &args, eff, NULL, b, MAX_SEQ, &once, &err) != 0) {
        RT_CHECK_MSG(0, "replay %s: %s", strategy, err.msg);
        return;
    }
    const int nb = (int)once.n_visited;
    int first_diff = -1;
    for (int k = 0; k < na && k < nb && first_diff < 0; ++k)
        if (a[k] != b[k])
            first_diff = k;
    RT_CHECK_MSG(na > 0 && na == nb && first_diff < 0,
                 "%s (budget %d, seed %llu, %d options): live measured %d points, replay %d; "
                 "first difference at step %d",
                 strategy, budget, (unsigned long long)seed, opts ? opts->n : 0, na, nb,
                 first_diff);
    RT_CHECK(once.evals == nb);
}

int main(void)
{
    /* Dense (about 4 in 5 feasible) and sparse (about 1 in 5: replay orders its list). */
    const char *constraints[] = {"(x + 2 * y + z) % 5 != 4", "(x + y + z) % 15 == 0"};
    int checked = 0;
    for (int c = 0; c < 2; ++c) {
        rt_space *space = make_space(constraints[c]);
        rt_recorded *r = space ? record(space) : NULL;
        RT_CHECK(space && r);
        if (!space || !r) {
            rt_recorded_free(r);
            rt_space_free(space);
            continue;
        }
        RT_CHECK(c == 0 ? r->n_points * 4 > rt_space_size(space)
                        : r->n_points * 4 < rt_space_size(space));
        for (int k = 0; k < rt_strategy_count(); ++k) {
            const char *name = rt_strategy_at(k)->name;
            for (uint64_t seed = 1; seed <= 3; ++seed) {
                check_same_path(space, r, name, 25, seed, NULL);
                check_same_path(space, r, name, 0, seed, NULL);
            }
            /* Options travel both ways: every option of the strategy at its range's top. */
            rt_strategy_opts opts = {0};
            const rt_strategy_info *info = rt_strategy_at(k);
            for (int o = 0; o < info->n_options; ++o) {
                rt_err err;
                const double v = info->options[o].hi < 8 ? info->options[o].hi : 8;
                RT_CHECK(rt_strategy_opts_set(&opts, name, info->options[o].name, v, &err) == 0);
            }
            check_same_path(space, r, name, 40, 9, &opts);
            checked++;
        }
        rt_recorded_free(r);
        rt_space_free(space);
    }
    RT_CHECK(checked == 2 * rt_strategy_count());
#ifdef RT_TEST_TOY
    /* The toy build's table holds the test strategy, after the project's. */
    RT_CHECK(rt_strategy_find("toy") != NULL);
    RT_CHECK(strcmp(rt_strategy_at(rt_strategy_count() - 1)->name, "toy") == 0);
#else
    RT_CHECK(rt_strategy_find("toy") == NULL);
#endif
    printf("%d strategies: live and replay visit the same points in the same order\n",
           rt_strategy_count());
    return RT_TEST_RESULT();
}
