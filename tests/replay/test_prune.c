/* rt_prune, property test: on random spaces whose bounds are known lower bounds of the times,
 * pruning never skips a point that would have improved the best time (its time is above the
 * best at that moment), every strategy still finds the exact optimum with the whole space as
 * budget while measuring fewer points, and the stop rule fires only within the stated fraction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt_prune.h"
#include "rt_recorded.h"
#include "rt_replay.h"
#include "rt_test.h"

enum { NA = 8, NB = 10 };

static double unit(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static rt_recorded *random_space(uint64_t seed)
{
    char text[NB][8];
    char *va[NA], *vb[NB];
    for (int i = 0; i < NB; ++i) {
        snprintf(text[i], sizeof text[i], "%d", i);
        vb[i] = text[i];
        if (i < NA)
            va[i] = text[i];
    }
    const rt_recorded_dim dims[2] = {{.name = "a", .n_values = NA, .values = va, .numeric = 1},
                                     {.name = "b", .n_values = NB, .values = vb, .numeric = 1}};
    rt_recorded *r = NULL;
    rt_err err;
    if (rt_recorded_new("k", "d", "s", 2, dims, &r, &err) != 0)
        return NULL;
    uint64_t s = seed;
    for (int a = 0; a < NA; ++a)
        for (int b = 0; b < NB; ++b) {
            if (unit(&s) < 0.1)
                continue; /* not in the space */
            const int64_t c[2] = {a, b};
            const double t = 1.0 + 0.2 * (a - 3) * (a - 3) + 0.1 * (b - 6) * (b - 6) + unit(&s);
            const double failed = unit(&s) < 0.05;
            /* a bound is a lower bound: anywhere from a third of the time to the time itself */
            const double bound = t * (0.33 + 0.67 * unit(&s));
            rt_recorded_add(r, c, failed ? INFINITY : t, unit(&s) < 0.1 ? NAN : bound, &err);
        }
    if (rt_recorded_finish(r, "random", &err) != 0) {
        rt_recorded_free(r);
        return NULL;
    }
    return r;
}

static void check_space(const rt_recorded *r, const char *strategy, uint64_t seed,
                        int64_t *pruned_total)
{
    rt_strategy *s = NULL;
    rt_err err;
    const rt_strategy_args args = {.name = strategy, .seed = seed};
    RT_CHECK(rt_strategy_create(&args, &r->grid, &s, &err) == 0);
    if (!s)
        return;
    rt_prune p;
    rt_prune_init(&p, 1, 0);
    int64_t i, measured = 0;
    double best = INFINITY;
    while (rt_strategy_next(s, &i) == 1) {
        const double t = rt_recorded_time(r, i), bound = rt_recorded_bound(r, i);
        if (rt_prune_skip(&p, bound)) {
            RT_CHECK_MSG(!(t < best), "%s pruned a point of time %g below the best %g", strategy, t,
                         best);
            rt_strategy_report(s, i, INFINITY);
            continue;
        }
        rt_prune_observe(&p, t, bound);
        if (t < best)
            best = t;
        rt_strategy_report(s, i, t);
        measured++;
    }
    int64_t valid = 0;
    RT_CHECK_MSG(best == rt_recorded_optimum(r, &valid), "%s missed the optimum with pruning",
                 strategy);
    RT_CHECK(measured + p.pruned == r->n_points);
    *pruned_total += p.pruned;
    rt_strategy_free(s);
}

static void test_stop_rule(void)
{
    rt_prune p;
    rt_prune_init(&p, 1, 0.1);
    RT_CHECK(!rt_prune_done(&p));
    rt_prune_observe(&p, 2.0, 1.0); /* twice its bound */
    RT_CHECK(!rt_prune_done(&p));
    rt_prune_observe(&p, 1.5, 1.4); /* within 10% of its bound */
    RT_CHECK(rt_prune_done(&p));
    RT_CHECK(!rt_prune_skip(&p, NAN) && !rt_prune_skip(&p, 1.5) && rt_prune_skip(&p, 1.51));
    rt_prune off;
    rt_prune_init(&off, 0, 0.1);
    rt_prune_observe(&off, 1.0, 1.0);
    RT_CHECK(!rt_prune_skip(&off, 5.0) && !rt_prune_done(&off));
}

int main(void)
{
    int64_t pruned = 0;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        rt_recorded *r = random_space(seed);
        RT_CHECK(r != NULL);
        if (!r)
            continue;
        for (int k = 0; k < rt_strategy_count(); ++k)
            check_space(r, rt_strategy_at(k)->name, seed, &pruned);
        rt_replay_result res;
        rt_prune cfg;
        rt_prune_init(&cfg, 1, 0);
        rt_err err;
        RT_CHECK(rt_replay_run(r, "ils", NULL, r->n_points, 2, seed, &cfg, &res, &err) == 0);
        RT_CHECK(res.frac_optimum == 1.0);
        RT_CHECK(res.mean_evals + res.mean_pruned == (double)r->n_points);
        rt_recorded_free(r);
    }
    RT_CHECK_MSG(pruned > 0, "no point was ever pruned: the property was not exercised");
    test_stop_rule();
    return RT_TEST_RESULT();
}
