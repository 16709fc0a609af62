/* rt_search: exhaustive order, random sampling without replacement (budget, determinism,
 * infeasible points), and annealing that finds the minimum of a synthetic objective. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_fake_kernel.h"
#include "rt_search.h"
#include "rt_test_grid.h"
#include "rt_test.h"

/* An nx x ny (x nz when nz > 0) grid with values 0..n-1 and an optional constraint. */
static rt_space *make_grid(int nx, int ny, int nz, const char *constraint)
{
    return rt_test_grid_space(nx, ny, nz, 0, 1, constraint);
}

static rt_search_cfg search_cfg(const char *strategy, int budget, uint64_t seed)
{
    rt_search_cfg c;
    memset(&c, 0, sizeof c);
    snprintf(c.strategy, sizeof c.strategy, "%s", strategy);
    c.budget = budget;
    c.seed = seed;
    return c;
}

static int is_feasible(const rt_space *s, int64_t i)
{
    rt_params p;
    int ok = 0;
    rt_err err;
    return rt_space_point(s, i, &p, &ok, NULL, 0, &err) == 0 && ok;
}

/* Drains a search (reporting objective 1.0), recording the sequence; returns its length. */
static int drain(rt_search *se, int64_t *seq, int cap)
{
    int n = 0;
    int64_t idx;
    while (rt_search_next(se, &idx) == 1) {
        if (n < cap)
            seq[n] = idx;
        ++n;
        rt_search_report(se, idx, 1.0);
        if (n > 100000)
            break; /* a search that never ends is a failure, not a hang */
    }
    return n;
}

static int has_repeats(const int64_t *seq, int n, int64_t size)
{
    unsigned char *seen = calloc((size_t)size, 1);
    int rep = 0;
    for (int i = 0; i < n; ++i) {
        if (seq[i] < 0 || seq[i] >= size || seen[seq[i]]) {
            rep = 1;
            break;
        }
        seen[seq[i]] = 1;
    }
    free(seen);
    return rep;
}

static void test_exhaustive(void)
{
    rt_space *s = make_grid(4, 5, 0, "x + y <= 4");
    if (!s) {
        RT_CHECK(0);
        return;
    }
    rt_search *se = NULL;
    rt_err err;
    rt_search_cfg c = search_cfg("exhaustive", 0, 1);
    RT_CHECK(rt_search_create(&c, s, &se, &err) == 0);
    int64_t seq[64];
    const int n = drain(se, seq, 64);
    RT_CHECK(n == 20);
    for (int i = 0; i < n && i < 64; ++i)
        RT_CHECK(seq[i] == i);
    RT_CHECK(rt_search_budget(se) == 20 &&
             (rt_strategy_counts_of(rt_search_driver(se)).yielded +
              rt_strategy_counts_of(rt_search_driver(se)).passed) == 20);
    rt_search_free(se);

    /* With a budget: in order, infeasible points included but not counted. */
    c = search_cfg("exhaustive", 6, 1);
    RT_CHECK(rt_search_create(&c, s, &se, &err) == 0);
    const int m = drain(se, seq, 64);
    int feas = 0;
    for (int i = 0; i < m; ++i) {
        RT_CHECK(seq[i] == i);
        feas += is_feasible(s, seq[i]);
    }
    RT_CHECK_MSG(feas == 6, "feasible %d", feas);
    RT_CHECK(is_feasible(s, seq[m - 1]));
    RT_CHECK(m == 6); /* x=0: y=0..4 are 5 feasible points; x=1, y=0 (index 5) is the 6th */
    rt_search_free(se);

    /* An empty strategy name means exhaustive. */
    c = search_cfg("", 0, 1);
    RT_CHECK(rt_search_create(&c, s, &se, &err) == 0);
    if (se) {
        RT_CHECK(strcmp(rt_strategy_name(rt_search_driver(se)), "exhaustive") == 0);
        rt_search_free(se);
    }
    rt_space_free(s);
}

static void test_random(void)
{
    rt_space *s = make_grid(30, 30, 0, "x != y"); /* 900 points, 870 feasible */
    if (!s) {
        RT_CHECK(0);
        return;
    }
    rt_err err;
    rt_search *se = NULL;
    int64_t a[1000], b[1000];

    rt_search_cfg c = search_cfg("random", 100, 42);
    RT_CHECK(rt_search_create(&c, s, &se, &err) == 0);
    const int na = drain(se, a, 1000);
    RT_CHECK(na == 100);
    RT_CHECK(!has_repeats(a, na, 900));
    for (int i = 0; i < na; ++i)
        RT_CHECK(is_feasible(s, a[i]));
    rt_search_free(se);

    /* Same seed, same sequence; another seed, another sequence. */
    RT_CHECK(rt_search_create(&c, s, &se, &err) == 0);
    const int nb = drain(se, b, 1000);
    RT_CHECK(nb == na && memcmp(a, b, sizeof a[0] * (size_t)na) == 0);
    rt_search_free(se);
    c = search_cfg("random", 100, 43);
    RT_CHECK(rt_search_create(&c, s, &se, &err) == 0);
    const int nc = drain(se, b, 1000);
    RT_CHECK(nc == 100 && memcmp(a, b, sizeof a[0] * 100) != 0);
    rt_search_free(se);
    /* Not the identity order either. */
    int in_order = 1;
    for (int i = 1; i < na; ++i)
        in_order &= a[i] > a[i - 1];
    RT_CHECK(!in_order);

    /* Budget 0 = 50 points. */
    c = search_cfg("random", 0, 7);
    RT_CHECK(rt_search_create(&c, s, &se, &err) == 0);
    RT_CHECK(drain(se, a, 1000) == 50);
    rt_search_free(se);

    /* A budget beyond the space: every feasible point once, the infeasible skipped. */
    c = search_cfg("random", 5000, 9);
    RT_CHECK(rt_search_create(&c, s, &se, &err) == 0);
    const int nall = drain(se, a, 1000);
    RT_CHECK(nall == 870 && !has_repeats(a, nall, 900));
    RT_CHECK(rt_strategy_counts_of(rt_search_driver(se)).skipped == 30);
    rt_search_free(se);
    rt_space_free(s);

    /* No feasible point at all: the search ends without yielding. */
    s = make_grid(10, 10, 0, "x > 100");
    c = search_cfg("random", 20, 1);
    RT_CHECK(s && rt_search_create(&c, s, &se, &err) == 0);
    if (se) {
        RT_CHECK(drain(se, a, 1000) == 0);
        RT_CHECK(rt_strategy_counts_of(rt_search_driver(se)).skipped == 100);
        rt_search_free(se);
    }
    rt_space_free(s);

    /* A large space is sampled without enumerating it. */
    s = make_grid(1000, 1000, 5, NULL);
    c = search_cfg("random", 200, 3);
    RT_CHECK(s && rt_search_create(&c, s, &se, &err) == 0);
    if (se) {
        const int n = drain(se, a, 1000);
        RT_CHECK(n == 200 && !has_repeats(a, n, rt_space_size(s)));
        rt_search_free(se);
    }
    rt_space_free(s);

    /* Small spaces of every size 1..40: the permutation covers each exactly once. */
    for (int n = 1; n <= 40; ++n) {
        s = make_grid(n, 1, 0, NULL);
        c = search_cfg("random", 1000, (uint64_t)n * 77);
        if (!s || rt_search_create(&c, s, &se, &err) != 0) {
            RT_CHECK(0);
            rt_space_free(s);
            continue;
        }
        const int got = drain(se, a, 1000);
        RT_CHECK_MSG(got == n && !has_repeats(a, got, n), "size %d: got %d", n, got);
        rt_search_free(se);
        rt_space_free(s);
    }
}

/* A bowl with its minimum at (7, 3) in seconds, like a timing. */
static double bowl(const rt_space *s, int64_t idx)
{
    int64_t c[RT_MAX_PARAMS];
    rt_space_coords(s, idx, c);
    const double dx = (double)c[0] - 7, dy = (double)c[1] - 3;
    return 1e-3 * (1.0 + dx * dx + 0.5 * dy * dy);
}

static void test_anneal(void)
{
    rt_space *s = make_grid(12, 12, 0, NULL);
    if (!s) {
        RT_CHECK(0);
        return;
    }
    rt_err err;
    int64_t target;
    const int64_t tc[RT_MAX_PARAMS] = {7, 3};
    rt_space_index(s, tc, &target);
    int found = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        rt_search_cfg c = search_cfg("anneal", 60, seed);
        rt_search *se = NULL;
        if (rt_search_create(&c, s, &se, &err) != 0) {
            RT_CHECK_MSG(0, "%s", err.msg);
            continue;
        }
        int64_t seq[200], idx;
        int n = 0;
        while (rt_search_next(se, &idx) == 1 && n < 200) {
            seq[n++] = idx;
            rt_search_report(se, idx, bowl(s, idx));
        }
        RT_CHECK(n == 60);
        RT_CHECK(!has_repeats(seq, n, 144));
        int64_t best = -1;
        double best_obj = 0;
        RT_CHECK(rt_search_best(se, &best, &best_obj) == 0);
        found += best == target;
        RT_CHECK(best_obj == bowl(s, best));
        rt_search_free(se);
    }
    /* 60 of 144 points: local moves must find the bottom every time. */
    RT_CHECK_MSG(found == 20, "anneal found the minimum for %d of 20 seeds", found);

    /* Random search with the same budget does not (a sanity check of the test's difficulty). */
    int random_found = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        rt_search_cfg c = search_cfg("random", 20, seed);
        rt_search *se = NULL;
        if (rt_search_create(&c, s, &se, &err) != 0)
            continue;
        int64_t idx;
        while (rt_search_next(se, &idx) == 1)
            rt_search_report(se, idx, bowl(s, idx));
        int64_t best = -1;
        rt_search_best(se, &best, NULL);
        random_found += best == target;
        rt_search_free(se);
    }
    RT_CHECK_MSG(random_found < 20, "random found it %d times", random_found);

    /* Determinism: same seed and feedback, same path. */
    int64_t p1[60], p2[60];
    for (int run = 0; run < 2; ++run) {
        rt_search_cfg c = search_cfg("anneal", 60, 5);
        rt_search *se = NULL;
        RT_CHECK(rt_search_create(&c, s, &se, &err) == 0);
        int64_t idx;
        int n = 0;
        while (se && rt_search_next(se, &idx) == 1 && n < 60) {
            (run ? p2 : p1)[n++] = idx;
            rt_search_report(se, idx, bowl(s, idx));
        }
        rt_search_free(se);
    }
    RT_CHECK(memcmp(p1, p2, sizeof p1) == 0);

    /* Without feedback the search still ends and never repeats (unreported = failed). */
    rt_search_cfg c = search_cfg("anneal", 0, 3);
    rt_search *se = NULL;
    RT_CHECK(rt_search_create(&c, s, &se, &err) == 0);
    if (se) {
        int64_t seq[200], idx;
        int n = 0;
        while (rt_search_next(se, &idx) == 1 && n < 200)
            seq[n++] = idx;
        RT_CHECK(n == 50 && !has_repeats(seq, n, 144));
        RT_CHECK(rt_search_best(se, NULL, NULL) != 0);
        rt_search_free(se);
    }
    /* A budget above the space: every point exactly once, then it finishes. */
    c = search_cfg("anneal", 1000, 4);
    RT_CHECK(rt_search_create(&c, s, &se, &err) == 0);
    if (se) {
        int64_t seq[200], idx;
        int n = 0;
        while (rt_search_next(se, &idx) == 1 && n < 200) {
            seq[n++] = idx;
            rt_search_report(se, idx, (idx % 3) ? bowl(s, idx) : INFINITY);
        }
        RT_CHECK(n == 144 && !has_repeats(seq, n, 144));
        rt_search_free(se);
    }
    rt_space_free(s);

    /* Infeasible regions are skipped and not counted; the feasible minimum is still found. */
    s = make_grid(12, 12, 0, "x + y <= 12 && x != 5");
    const int64_t fc[RT_MAX_PARAMS] = {7, 3};
    rt_space_index(s, fc, &target);
    found = 0;
    for (uint64_t seed = 1; s && seed <= 10; ++seed) {
        c = search_cfg("anneal", 60, seed);
        if (rt_search_create(&c, s, &se, &err) != 0)
            continue;
        int64_t idx;
        int n = 0;
        while (rt_search_next(se, &idx) == 1 && n < 500) {
            ++n;
            RT_CHECK(is_feasible(s, idx));
            rt_search_report(se, idx, bowl(s, idx));
        }
        RT_CHECK(n == 60);
        int64_t best = -1;
        rt_search_best(se, &best, NULL);
        found += best == target;
        rt_search_free(se);
    }
    RT_CHECK_MSG(found == 10, "constrained anneal found the minimum for %d of 10 seeds", found);
    rt_space_free(s);
}

static void test_bad_config(void)
{
    rt_space *s = make_grid(3, 3, 0, NULL);
    rt_err err;
    rt_search *se = (rt_search *)0x1;
    rt_search_cfg c = search_cfg("aneal", 0, 1);
    RT_CHECK(rt_search_create(&c, s, &se, &err) != 0 && se == NULL);
    RT_CHECK_MSG(rt_test_contains(err.msg, "did you mean 'anneal'"), "%s", err.msg);
    c = search_cfg("\x7f\x01garbage", 0, 1);
    RT_CHECK(rt_search_create(&c, s, &se, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "exhaustive, random, anneal, genetic, diffevo, ils, "
                                       "basinhop, pso, bayes, tpe, hybrid or tpeils"));
    c = search_cfg("baye", 0, 1);
    RT_CHECK(rt_search_create(&c, s, &se, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "did you mean 'bayes'"), "%s", err.msg);
    c = search_cfg("random", -5, 1);
    RT_CHECK(rt_search_create(&c, s, &se, &err) != 0 && rt_test_contains(err.msg, "-5"));
    RT_CHECK(rt_search_create(NULL, s, &se, &err) != 0);
    /* Reports for indices never yielded or out of range are ignored. */
    c = search_cfg("anneal", 5, 1);
    RT_CHECK(rt_search_create(&c, s, &se, &err) == 0);
    if (se) {
        rt_search_report(se, -3, 1.0);
        rt_search_report(se, 1000, 1.0);
        rt_search_report(se, 4, NAN);
        RT_CHECK(rt_search_best(se, NULL, NULL) != 0);
        rt_search_free(se);
    }
    rt_search_free(NULL);
    rt_space_free(s);
}

/* The strategies of rt_strategy.h through a config's search section: every feasible point of a
 * constrained space exactly once, the strategy named back, never an infeasible point. */
static void test_delegated(void)
{
    static const char *const names[] = {"genetic", "diffevo", "ils", "basinhop", "pso", "bayes"};
    rt_space *sp = make_grid(6, 5, 0, "x + y != 4");
    RT_CHECK(sp != NULL);
    if (!sp)
        return;
    int n_feasible = 0;
    for (int64_t i = 0; i < rt_space_size(sp); ++i)
        n_feasible += is_feasible(sp, i);
    for (int k = 0; k < 6; ++k) {
        const rt_search_cfg c = search_cfg(names[k], 0, 3);
        rt_search *se = NULL;
        rt_err err;
        RT_CHECK(rt_search_create(&c, sp, &se, &err) == 0);
        if (!se)
            continue;
        RT_CHECK(strcmp(rt_strategy_name(rt_search_driver(se)), names[k]) == 0);
        int64_t seq[64];
        const int n = drain(se, seq, 64);
        RT_CHECK_MSG(n == n_feasible, "%s yielded %d of %d feasible points", names[k], n,
                     n_feasible);
        RT_CHECK(!has_repeats(seq, n, rt_space_size(sp)));
        for (int i = 0; i < n && i < 64; ++i)
            RT_CHECK(is_feasible(sp, seq[i]));
        RT_CHECK(rt_strategy_counts_of(rt_search_driver(se)).skipped ==
                 rt_space_size(sp) - n_feasible);
        RT_CHECK(rt_search_best(se, NULL, NULL) == 0);
        rt_search_free(se);
    }
    rt_space_free(sp);
}

/* A kernel whose schema has no parameter: its space is one point, index 0, which every strategy
 * of the table yields once (the user family's kernel specs may have no parameters). */
static void test_no_parameters(void)
{
    static const rt_kernel_desc bare = {
        .name = "spmm.cpu.bare", .family = "spmm", .backend = "cpu", RT_FAKE_KERNEL_HOOKS};
    rt_kernel_cfg k;
    memset(&k, 0, sizeof k);
    snprintf(k.name, sizeof k.name, "spmm.cpu.bare");
    rt_space *sp = NULL;
    rt_err err;
    RT_CHECK(rt_space_build(&k, &bare, NULL, 1, 1, 1, NULL, &sp, &err) == 0);
    if (!sp)
        return;
    RT_CHECK(rt_space_n_dims(sp) == 0 && rt_space_size(sp) == 1);
    for (int i = 0; i < rt_strategy_count(); ++i) {
        const char *name = rt_strategy_at(i)->name;
        const rt_search_cfg c = search_cfg(name, 0, 2);
        rt_search *se = NULL;
        RT_CHECK_MSG(rt_search_create(&c, sp, &se, &err) == 0, "%s: %s", name, err.msg);
        if (!se)
            continue;
        int64_t seq[4];
        const int n = drain(se, seq, 4);
        RT_CHECK_MSG(n == 1 && seq[0] == 0, "%s yielded %d point(s) of a one-point space", name, n);
        RT_CHECK(rt_search_budget(se) == 1);
        rt_search_free(se);
    }
    rt_space_free(sp);
}

int main(void)
{
    test_no_parameters();
    test_delegated();
    test_exhaustive();
    test_random();
    test_anneal();
    test_bad_config();
    return RT_TEST_RESULT();
}
