/* rt_strategy: every strategy on a small grid with a known optimum, infeasible points (a
 * constraint) and failing points (reported as INFINITY): with the whole grid as budget it yields
 * every feasible point exactly once and finds the optimum; it never yields an infeasible point or
 * one twice; a budget is honoured; the same seed gives the same sequence (test_search.c drives
 * them through a config's search section). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_strategy.h"
#include "rt_test.h"
#include "rt_test_walk.h"

enum { NX = 6, NY = 5, NZ = 4, SIZE = NX * NY * NZ };

static void coords_of(int64_t i, int *x, int *y, int *z)
{
    *x = (int)(i / (NY * NZ));
    *y = (int)((i / NZ) % NY);
    *z = (int)(i % NZ);
}

/* A constraint that cuts holes through the grid, the optimum's neighbourhood included. */
static int grid_feasible(void *ctx, int64_t i)
{
    int x, y, z;
    coords_of(i, &x, &y, &z);
    return (x + 2 * y + z) % 5 != 4;
}

/* Smooth bowl with a unique minimum at (4, 2, 2), a second basin at (1, 4, 0), and failures. */
static double objective(int64_t i)
{
    int x, y, z;
    coords_of(i, &x, &y, &z);
    if ((x * 3 + y) % 11 == 4)
        return INFINITY; /* a configuration that fails at run time */
    const double a = (x - 4) * (x - 4) + 2.0 * (y - 2) * (y - 2) + (z - 2) * (z - 2);
    const double b = (x - 1) * (x - 1) + (y - 4) * (y - 4) + z * z + 0.5;
    return 1.0 + 0.1 * (a < b ? a : b);
}

/* The best feasible point, by enumeration (the bowl's centre (4, 2, 2) itself is feasible). */
static int64_t optimum_index(void)
{
    int64_t best = -1;
    for (int64_t i = 0; i < SIZE; ++i)
        if (grid_feasible(NULL, i) && (best < 0 || objective(i) < objective(best)))
            best = i;
    return best;
}

static rt_grid make_grid(void)
{
    rt_grid g = {.n_dims = 3, .feasible = grid_feasible};
    g.dim_size[0] = NX;
    g.dim_size[1] = NY;
    g.dim_size[2] = NZ;
    return g;
}

static int count_feasible(void)
{
    int n = 0;
    for (int64_t i = 0; i < SIZE; ++i)
        n += grid_feasible(NULL, i);
    return n;
}

/* Runs a strategy; writes the sequence to seq (SIZE entries) and returns its length. */
static int run(const char *name, int64_t budget, uint64_t seed, int64_t *seq)
{
    const rt_grid g = make_grid();
    const rt_strategy_args args = {.name = name, .budget = budget, .seed = seed};
    return rt_test_walk(&args, &g, objective, seq, SIZE, NULL);
}

static void test_strategy(const char *name)
{
    const int n_feasible = count_feasible();
    int64_t seq[SIZE], again[SIZE];
    RT_CHECK(optimum_index() == (int64_t)4 * NY * NZ + 2 * NZ + 2);
    const int n = run(name, 0, 7, seq);
    RT_CHECK_MSG(n == n_feasible, "%s yielded %d points of %d feasible", name, n, n_feasible);
    unsigned char seen[SIZE] = {0};
    int found_optimum = 0, repeats = 0, infeasible = 0;
    for (int k = 0; k < n && k < SIZE; ++k) {
        repeats += seen[seq[k]];
        seen[seq[k]] = 1;
        infeasible += !grid_feasible(NULL, seq[k]);
        found_optimum |= seq[k] == optimum_index();
    }
    RT_CHECK_MSG(repeats == 0, "%s repeated %d points", name, repeats);
    RT_CHECK_MSG(infeasible == 0, "%s yielded %d infeasible points", name, infeasible);
    RT_CHECK_MSG(found_optimum, "%s never measured the optimum", name);

    const int nb = run(name, 40, 11, seq);
    RT_CHECK_MSG(nb == 40, "%s yielded %d points for a budget of 40", name, nb);
    const int nb2 = run(name, 40, 11, again);
    RT_CHECK(nb2 == 40 && memcmp(seq, again, sizeof(int64_t) * 40) == 0);
    const int nb3 = run(name, 40, 12, again);
    const int same = nb3 == 40 && memcmp(seq, again, sizeof(int64_t) * 40) == 0;
    RT_CHECK_MSG(nb3 == 40 && same == rt_strategy_find(name)->ignores_seed,
                 "%s gave %s sequence for seeds 11 and 12", name, same ? "the same" : "another");
}

static void test_unreported_counts_as_failed(void)
{
    const rt_grid g = make_grid();
    rt_strategy *s = NULL;
    rt_err err;
    const rt_strategy_args ils = {.name = "ils", .budget = 10, .seed = 3};
    RT_CHECK(rt_strategy_create(&ils, &g, &s, &err) == 0);
    int64_t i;
    int n = 0;
    while (rt_strategy_next(s, &i) == 1)
        ++n; /* never reported */
    RT_CHECK(n == 10);
    RT_CHECK(rt_strategy_best(s, NULL, NULL) == -1);
    rt_strategy_free(s);
}

static void test_errors(void)
{
    const rt_grid g = make_grid();
    rt_strategy *s = NULL;
    rt_err err;
    rt_strategy_args a = {.name = "genetc", .budget = 10, .seed = 3};
    RT_CHECK(rt_strategy_create(&a, &g, &s, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "did you mean 'genetic'"));
    a.name = "bayes";
    a.budget = -1;
    RT_CHECK(rt_strategy_create(&a, &g, &s, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "budget"));
    /* Options: unknown, out of range, not whole, or given to a strategy without options. */
    rt_strategy_opts o = {.n = 1, .name = {"populaton"}, .value = {8}};
    a = (rt_strategy_args){.name = "genetic", .budget = 10, .options = &o};
    RT_CHECK(rt_strategy_create(&a, &g, &s, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "no option 'populaton' (did you mean 'population'?)"),
                 "%s", err.msg);
    snprintf(o.name[0], sizeof o.name[0], "population");
    o.value[0] = 1000;
    RT_CHECK(rt_strategy_create(&a, &g, &s, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "population must be an integer in [2, 64]"), "%s",
                 err.msg);
    o.value[0] = 7.5;
    RT_CHECK(rt_strategy_create(&a, &g, &s, &err) != 0);
    o.value[0] = NAN;
    RT_CHECK(rt_strategy_create(&a, &g, &s, &err) != 0);
    a.name = "random";
    RT_CHECK(rt_strategy_create(&a, &g, &s, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "strategy random has no options"), "%s", err.msg);
    /* A valid option changes the search: a population of 2 breeds from the start. */
    int64_t seq_default[40], seq_small[40];
    a = (rt_strategy_args){.name = "genetic", .budget = 40, .seed = 5};
    o.value[0] = 2;
    for (int pass = 0; pass < 2; ++pass) {
        a.options = pass ? &o : NULL;
        RT_CHECK(rt_strategy_create(&a, &g, &s, &err) == 0);
        int64_t i;
        int n = 0;
        while (s && rt_strategy_next(s, &i) == 1 && n < 40) {
            (pass ? seq_small : seq_default)[n++] = i;
            rt_strategy_report(s, i, objective(i));
        }
        RT_CHECK(n == 40);
        rt_strategy_free(s);
    }
    RT_CHECK(memcmp(seq_default, seq_small, sizeof seq_default) != 0);
}

int main(void)
{
    for (int k = 0; k < rt_strategy_count(); ++k)
        test_strategy(rt_strategy_at(k)->name);
    test_unreported_counts_as_failed();
    test_errors();
    return RT_TEST_RESULT();
}
