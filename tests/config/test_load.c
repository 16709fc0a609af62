/* Good configs: every key of full.yaml, defaults, include merge order, --set overrides, the
 * config hash, domain expansion, the registry check, and the device field table.
 * Usage: test_config_load <tests/config/good> <configs/quickstart.yaml> */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_config.h"
#include "rt_device.h"
#include "rt_test.h"
#include "test_registry.h"

static const char *g_dir;
static rt_registry g_reg;

static void path_in(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", g_dir, name);
}

static int load(const char *name, const char *const *sets, int n_sets, rt_config *cfg, rt_err *err)
{
    char path[1024];
    path_in(path, sizeof path, name);
    rt_err_clear(err);
    return rt_config_load(path, sets, n_sets, cfg, err);
}

/* Writes text to a scratch file in the working directory and loads it. */
static int load_text(const char *text, const char *const *sets, int n_sets, rt_config *cfg,
                     rt_err *err)
{
    const char *path = "test_config_load_scratch.yaml";
    FILE *f = fopen(path, "w");
    if (!f) {
        RT_CHECK_MSG(0, "cannot write %s", path);
        return -1;
    }
    fputs(text, f);
    fclose(f);
    rt_err_clear(err);
    const int rc = rt_config_load(path, sets, n_sets, cfg, err);
    remove(path);
    return rc;
}

static const rt_param_domain *find_domain(const rt_param_domain *d, int n, const char *name)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(d[i].name, name) == 0)
            return &d[i];
    return NULL;
}

/* Compares a domain's values with a list of integers. */
static int ints_are(const rt_param_domain *d, const int64_t *want, int n)
{
    if (!d || d->n_values != n)
        return 0;
    for (int i = 0; i < n; ++i)
        if (d->values[i].kind != RT_V_INT || d->values[i].i != want[i])
            return 0;
    return 1;
}

static void test_full(void)
{
    rt_config cfg;
    rt_err err;
    if (load("full.yaml", NULL, 0, &cfg, &err) != 0) {
        RT_CHECK_MSG(0, "full.yaml: %s", err.msg);
        return;
    }
    RT_CHECK(strcmp(cfg.name, "full-example_1.0") == 0);
    RT_CHECK(strcmp(cfg.description, "Every key, for the loader test") == 0);
    RT_CHECK(strcmp(cfg.machine, "roofline/machines/h100.yaml") == 0);
    RT_CHECK(cfg.text && rt_test_contains(cfg.text, "Uses every key"));
    RT_CHECK(strlen(cfg.hash) == 16 && strspn(cfg.hash, "0123456789abcdef") == 16);

    RT_CHECK(cfg.n_matrices == 3);
    if (cfg.n_matrices == 3) {
        const rt_matrix_cfg *m = &cfg.matrices[0];
        RT_CHECK(strcmp(m->name, "band") == 0 && strcmp(m->generator, "banded") == 0);
        RT_CHECK(strcmp(m->ordering, "natural") == 0 && m->file[0] == '\0');
        RT_CHECK(rt_params_int(&m->gen, "rows", 0) == 2000 &&
                 rt_params_int(&m->gen, "bandwidth", 0) == 16 && m->gen.n == 3);
        RT_CHECK(m->loc.line == 7 && m->source_loc.line == 7 && m->source_loc.col == 29);
        RT_CHECK(m->gen_locs[1].line == 7 && m->gen_locs[1].col == 49); /* bandwidth */
        m = &cfg.matrices[1];
        char want[1100];
        path_in(want, sizeof want, "data/web.mtx");
        RT_CHECK_MSG(strcmp(m->file, want) == 0, "file resolved to %s", m->file);
        RT_CHECK(m->generator[0] == '\0' && strcmp(m->ordering, "rcm") == 0 && m->gen.n == 0);
        RT_CHECK(m->loc.line == 8 && m->source_loc.line == 9);
        m = &cfg.matrices[2];
        RT_CHECK(strcmp(m->ordering, "random:9") == 0);
        const rt_value *density = rt_params_get(&m->gen, "density");
        RT_CHECK(density && density->kind == RT_V_REAL && density->r == 0.01);
    }

    RT_CHECK(cfg.n_problem == 2);
    const int64_t k_values[] = {32, 128};
    RT_CHECK(ints_are(find_domain(cfg.problem, cfg.n_problem, "K"), k_values, 2));
    const rt_param_domain *prec = find_domain(cfg.problem, cfg.n_problem, "precision");
    RT_CHECK(prec && prec->kind == RT_DOMAIN_LIST && prec->n_values == 1 &&
             prec->values[0].kind == RT_V_STR && strcmp(prec->values[0].s, "fp64") == 0);
    RT_CHECK(prec && prec->loc.line == 14 && prec->loc.col == 3);

    RT_CHECK(cfg.n_kernels == 2);
    if (cfg.n_kernels == 2) {
        const rt_kernel_cfg *k = &cfg.kernels[0];
        RT_CHECK(strcmp(k->name, "fake.cpu.tiled") == 0 && k->name_loc.line == 16 &&
                 k->name_loc.col == 11);
        RT_CHECK(k->n_params == 3);
        const rt_param_domain *rb = find_domain(k->params, k->n_params, "row_block");
        const int64_t rb_values[] = {64, 128, 256, 512, 1024};
        RT_CHECK(rb && rb->kind == RT_DOMAIN_POW2 && rb->lo == 64 && rb->hi == 1024 &&
                 ints_are(rb, rb_values, 5));
        const rt_param_domain *cb = find_domain(k->params, k->n_params, "col_block");
        const int64_t cb_values[] = {8, 16, 24, 32};
        RT_CHECK(cb && cb->kind == RT_DOMAIN_RANGE && cb->step == 8 && ints_are(cb, cb_values, 4));
        const rt_param_domain *var = find_domain(k->params, k->n_params, "variant");
        RT_CHECK(var && var->n_values == 2 && var->values[1].kind == RT_V_STR &&
                 strcmp(var->values[1].s, "b") == 0);
        RT_CHECK(k->n_constraints == 2);
        if (k->n_constraints == 2) {
            RT_CHECK(strcmp(k->constraints[0], "row_block * col_block <= 16384") == 0);
            RT_CHECK(strcmp(k->constraints[1],
                            "row_block % 64 == 0 && K <= device.max_threads_per_block") == 0);
            RT_CHECK(k->constraint_locs[1].line == 23 && k->constraint_locs[1].col == 9);
        }
        RT_CHECK(strcmp(cfg.kernels[1].name, "fake.cpu.basic") == 0 &&
                 cfg.kernels[1].n_params == 0 && cfg.kernels[1].n_constraints == 0);
    }

    RT_CHECK(cfg.measure.mode == RT_MEASURE_COLD && cfg.measure.warmup == 0);
    RT_CHECK(cfg.measure.min_reps == 3 && cfg.measure.max_reps == 7);
    RT_CHECK(cfg.measure.max_time_s == 0.5 && cfg.measure.target_rel_ci == 0.1);
    RT_CHECK(cfg.measure.confidence == 0.99 && cfg.measure.point_timeout_s == 5);
    RT_CHECK(strcmp(cfg.search.strategy, "random") == 0 && cfg.search.budget == 10 &&
             cfg.search.seed == 42);
    RT_CHECK(cfg.n_counters == 2 && strcmp(cfg.counters[0], "papi:perf::TASK-CLOCK") == 0);
    RT_CHECK(cfg.n_plots == 3);
    if (cfg.n_plots == 3) {
        const rt_plot_cfg *p = &cfg.plots[0];
        RT_CHECK(strcmp(p->type, "bars") == 0 && strcmp(p->x, "row_block") == 0 &&
                 strcmp(p->y, "gflops") == 0 && strcmp(p->series, "col_block") == 0);
        RT_CHECK(strcmp(p->title, "Throughput") == 0 && p->logx == 1 && p->logy == -1);
        RT_CHECK(strcmp(p->name, "bars-row_block-gflops") == 0);
        p = &cfg.plots[1];
        RT_CHECK(strcmp(p->type, "line") == 0 && strcmp(p->name, "line-K-time_median_s") == 0);
        RT_CHECK(p->series[0] == '\0' && p->loc.line == 32 && p->logx == 0 && p->logy == 0);
        RT_CHECK(p->title[0] == '\0');
        p = &cfg.plots[2]; /* bars default to x: matrix, y: gflops */
        RT_CHECK(strcmp(p->x, "matrix") == 0 && strcmp(p->y, "gflops") == 0 &&
                 strcmp(p->name, "bars-matrix-gflops") == 0);
    }
    RT_CHECK(cfg.expect_min_efficiency == 0.25);

    RT_CHECK_MSG(rt_config_check(&cfg, &g_reg, &err) == 0, "check: %s", err.msg);
    char buf[600];
    rt_src_loc_format(&cfg.kernels[0].name_loc, buf, sizeof buf);
    char want[700];
    snprintf(want, sizeof want, "%s/full.yaml:16:11", g_dir);
    RT_CHECK_MSG(strcmp(buf, want) == 0, "%s", buf);
    rt_config_free(&cfg);
    RT_CHECK(cfg.text == NULL && cfg.kernels == NULL && cfg.n_kernels == 0);
    rt_config_free(&cfg); /* twice is harmless */
}

static void test_defaults(void)
{
    rt_config cfg;
    rt_err err;
    if (load("minimal.yaml", NULL, 0, &cfg, &err) != 0) {
        RT_CHECK_MSG(0, "minimal.yaml: %s", err.msg);
        return;
    }
    RT_CHECK(strcmp(cfg.name, "tiny") == 0 && cfg.description[0] == '\0');
    RT_CHECK(strcmp(cfg.machine, "auto") == 0);
    RT_CHECK(cfg.measure.mode == RT_MEASURE_HOT && cfg.measure.warmup == 2);
    RT_CHECK(cfg.measure.min_reps == 5 && cfg.measure.max_reps == 100);
    RT_CHECK(cfg.measure.max_time_s == 2.0 && cfg.measure.target_rel_ci == 0.02);
    RT_CHECK(cfg.measure.confidence == 0.95 && cfg.measure.point_timeout_s == 30);
    RT_CHECK(strcmp(cfg.search.strategy, "exhaustive") == 0 && cfg.search.budget == 0 &&
             cfg.search.seed == 1);
    RT_CHECK(cfg.n_matrices == 0 && cfg.n_problem == 0 && cfg.n_kernels == 0 &&
             cfg.n_counters == 0 && cfg.n_plots == 0);
    RT_CHECK(isnan(cfg.expect_min_efficiency));
    RT_CHECK(cfg.text && strcmp(cfg.text, "experiment: {name: tiny}\n") == 0);
    /* It loads, but a config with no matrix or no kernel would measure nothing: check refuses. */
    RT_CHECK(rt_config_check(&cfg, &g_reg, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "matrices: no matrix is listed"), "%s", err.msg);
    rt_config_free(&cfg);
}

static void test_includes(void)
{
    rt_config cfg;
    rt_err err;
    if (load("include_main.yaml", NULL, 0, &cfg, &err) != 0) {
        RT_CHECK_MSG(0, "include_main.yaml: %s", err.msg);
        return;
    }
    /* Own keys win, later includes beat earlier ones, maps merge, lists are replaced. */
    RT_CHECK(strcmp(cfg.name, "merged") == 0);
    RT_CHECK(strcmp(cfg.description, "from base") == 0);
    RT_CHECK(cfg.measure.warmup == 1 && cfg.measure.min_reps == 4 && cfg.measure.max_reps == 20);
    RT_CHECK(cfg.measure.mode == RT_MEASURE_COLD && cfg.measure.max_time_s == 9);
    RT_CHECK(strcmp(cfg.search.strategy, "anneal") == 0 && cfg.search.seed == 6);
    const int64_t k64[] = {64};
    RT_CHECK(ints_are(find_domain(cfg.problem, cfg.n_problem, "K"), k64, 1));
    RT_CHECK(find_domain(cfg.problem, cfg.n_problem, "precision") != NULL);
    RT_CHECK(cfg.n_kernels == 1 && strcmp(cfg.kernels[0].name, "fake.cpu.basic") == 0);
    RT_CHECK(cfg.n_matrices == 1);
    if (cfg.n_matrices == 1) {
        char want[1100];
        path_in(want, sizeof want, "inc/../data/x.mtx");
        RT_CHECK_MSG(strcmp(cfg.matrices[0].file, want) == 0, "%s", cfg.matrices[0].file);
        /* Locations point into the file that wrote the value. */
        char inc[1100];
        path_in(inc, sizeof inc, "inc/override.yaml");
        RT_CHECK_MSG(strcmp(cfg.matrices[0].loc.file, inc) == 0 && cfg.matrices[0].loc.line == 5,
                     "%s:%d", cfg.matrices[0].loc.file, cfg.matrices[0].loc.line);
    }
    /* Text: the top file first, then each include with a marker. */
    RT_CHECK(cfg.text && strncmp(cfg.text, "# Merge order", 13) == 0);
    RT_CHECK(
        rt_test_contains(cfg.text, "# --- rooftune include: inc/base.yaml\ninclude: deep.yaml"));
    RT_CHECK(rt_test_contains(cfg.text, "# --- rooftune include: deep.yaml\nsearch:"));
    RT_CHECK(rt_test_contains(cfg.text, "# --- rooftune include: inc/override.yaml\n"));
    RT_CHECK(rt_config_check(&cfg, &g_reg, &err) == 0);
    rt_config_free(&cfg);

    /* An error in a merged value names the included file that wrote it. */
    const char *sets[] = {"measure.min_reps=50"};
    RT_CHECK(load("include_main.yaml", sets, 1, &cfg, &err) != 0);
    char want[1200];
    snprintf(want, sizeof want,
             "%s/inc/override.yaml:1:21: measure.max_reps: must be >= "
             "measure.min_reps (50), got 20",
             g_dir);
    RT_CHECK_MSG(strcmp(err.msg, want) == 0, "%s", err.msg);
}

static void test_overrides(void)
{
    rt_config base, cfg;
    rt_err err;
    if (load("full.yaml", NULL, 0, &base, &err) != 0) {
        RT_CHECK_MSG(0, "full.yaml: %s", err.msg);
        return;
    }
    const char *sets[] = {
        "problem.K=[32,64]",
        "measure.max_reps=3",
        "kernels.0.params.row_block=[64]",
        "experiment.name=foo",
        "search.strategy=exhaustive",
        "matrices.0.rows=500",
        "plots.0.logy=true",
        "kernels.0.constraints.1=row_block <= 64",
        "problem.precision=fp32",
        "kernels.1.params={}",
        "measure={max_reps: 3, min_reps: 2}",
        "counters.1=  perf:cycles ",
        "experiment.description=",
    };
    const int n_sets = (int)(sizeof sets / sizeof sets[0]);
    if (load("full.yaml", sets, n_sets, &cfg, &err) != 0) {
        RT_CHECK_MSG(0, "overrides: %s", err.msg);
        rt_config_free(&base);
        return;
    }
    const int64_t k_values[] = {32, 64};
    RT_CHECK(ints_are(find_domain(cfg.problem, cfg.n_problem, "K"), k_values, 2));
    const int64_t rb[] = {64};
    RT_CHECK(
        ints_are(find_domain(cfg.kernels[0].params, cfg.kernels[0].n_params, "row_block"), rb, 1));
    RT_CHECK(strcmp(cfg.name, "foo") == 0 && strcmp(cfg.search.strategy, "exhaustive") == 0);
    RT_CHECK(rt_params_int(&cfg.matrices[0].gen, "rows", 0) == 500);
    RT_CHECK(cfg.plots[0].logy == 1);
    RT_CHECK(strcmp(cfg.kernels[0].constraints[1], "row_block <= 64") == 0);
    /* Replaced whole: measure now has only the two keys given, the rest are defaults. */
    RT_CHECK(cfg.measure.max_reps == 3 && cfg.measure.min_reps == 2 && cfg.measure.warmup == 2);
    RT_CHECK(cfg.measure.mode == RT_MEASURE_HOT);
    RT_CHECK(strcmp(cfg.counters[1], "perf:cycles") == 0);
    RT_CHECK(cfg.description[0] == '\0');
    /* A value from --set is located in the override. */
    const rt_param_domain *k = find_domain(cfg.problem, cfg.n_problem, "K");
    RT_CHECK(k && strcmp(k->loc.file, "--set problem.K") == 0 && k->loc.line == 1);
    /* The hash covers the overrides; the text is the files only. */
    RT_CHECK(strcmp(cfg.hash, base.hash) != 0);
    RT_CHECK(strcmp(cfg.text, base.text) == 0);
    rt_config again;
    if (load("full.yaml", sets, n_sets, &again, &err) == 0) {
        RT_CHECK(strcmp(again.hash, cfg.hash) == 0);
        rt_config_free(&again);
    }
    /* Order matters to the hash (a later --set wins). */
    const char *swapped[] = {"measure.max_reps=4", "measure.max_reps=5"};
    if (load("full.yaml", swapped, 2, &again, &err) == 0) {
        RT_CHECK(again.measure.max_reps == 5);
        RT_CHECK(strcmp(again.hash, base.hash) != 0);
        rt_config_free(&again);
    }
    /* The registry check sees override values and reports them at the override. */
    const char *out_of_domain[] = {"kernels.0.params.row_block=[64, 4096]"};
    if (load("full.yaml", out_of_domain, 1, &again, &err) == 0) {
        RT_CHECK(rt_config_check(&again, &g_reg, &err) != 0);
        RT_CHECK_MSG(strcmp(err.msg, "--set kernels.0.params.row_block:1:1: "
                                     "kernels[0].params.row_block: row_block = 4096 is outside "
                                     "its domain 1..1024 (kernel 'fake.cpu.tiled')") == 0,
                     "%s", err.msg);
        rt_config_free(&again);
    }
    rt_config_free(&cfg);
    rt_config_free(&base);
}

static void override_fails(const char *set, const char *expected_prefix, const char *fragment)
{
    rt_config cfg;
    rt_err err;
    const char *sets[] = {set};
    RT_CHECK_MSG(load("full.yaml", sets, 1, &cfg, &err) != 0, "--set %s should fail", set);
    RT_CHECK_MSG(strncmp(err.msg, expected_prefix, strlen(expected_prefix)) == 0,
                 "[%s] should start with [%s]", err.msg, expected_prefix);
    RT_CHECK_MSG(rt_test_contains(err.msg, fragment), "[%s] lacks [%s]", err.msg, fragment);
    RT_CHECK(cfg.text == NULL && cfg.kernels == NULL); /* nothing left to free */
}

static void test_override_errors(void)
{
    /* the --set, the start of its message and a fragment of the rest */
    static const struct {
        const char *set, *prefix, *fragment;
    } cases[] = {
        {"measure.max_rep=3", "--set 'measure.max_rep=3': ",
         "unknown setting 'measure.max_rep' (did you mean 'measure.max_reps'?)"},
        {"mesure.warmup=1", "--set 'mesure.warmup=1': ", "did you mean 'measure'?"},
        {"kernels.5.name=x", "--set 'kernels.5.name=x': ",
         "'kernels' has 2 items (numbered from 0); there is no item 5"},
        {"kernels.x.name=y", "--set 'kernels.x.name=y': ", "write an item number"},
        {"kernels.0.nme=y", "--set 'kernels.0.nme=y': ", "did you mean 'kernels.0.name'?"},
        {"problem.K", "--set 'problem.K': ", "expected dotted.path=value"},
        {"=3", "--set '=3': ", "malformed path"},
        {"measure..warmup=3", "--set 'measure..warmup=3': ", "malformed path"},
        {"include=x.yaml", "--set 'include=x.yaml': ", "unknown setting 'include'"},
        {"measure.max_reps=abc",
         "--set measure.max_reps:1:1: ", "measure.max_reps: expected an integer >= 1, got 'abc'"},
        {"problem.K=[32,", "--set problem.K:2:1: YAML syntax error: ", "flow node"},
        {"problem.precision.range=[1,2]",
         "--set 'problem.precision.range=[1,2]': ", "'problem.precision' is a single value"},
        {"counters.7=x", "--set 'counters.7=x': ", "there is no item 7"},
        {"measure.warmup.x=1", "--set 'measure.warmup.x=1': ", "unknown setting"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        override_fails(cases[i].set, cases[i].prefix, cases[i].fragment);
    rt_config cfg;
    rt_err err;
    RT_CHECK(load("minimal.yaml", (const char *const[]){"kernels.0.name=x"}, 1, &cfg, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "the config has no 'kernels', so it has no item 0"),
                 "%s", err.msg);
    /* Created sections work when nothing forbids them. */
    const char *sets[] = {"measure.max_reps=3", "measure.min_reps=1", "problem.K={range: [1, 3]}"};
    if (load("minimal.yaml", sets, 3, &cfg, &err) == 0) {
        RT_CHECK(cfg.measure.max_reps == 3 && cfg.n_problem == 1 && cfg.problem[0].n_values == 3);
        rt_config_free(&cfg);
    } else {
        RT_CHECK_MSG(0, "%s", err.msg);
    }
}

static void test_domains(void)
{
    rt_config cfg;
    rt_err err;
    const char *text = "experiment: {name: domains}\n"
                       "problem:\n"
                       "  a: {range: [1, 4]}\n"
                       "  b: {range: [0, 1, 0.25]}\n"
                       "  c: {range: [0, 0.3, 0.1]}\n"
                       "  d: {pow2: [1, 1]}\n"
                       "  e: 7\n"
                       "  f: [1.5, x, '3', -2]\n"
                       "  g: {range: [-3, 3, 3]}\n"
                       "  h: {range: [5, 5]}\n"
                       "  i: {pow2: [1, 4611686018427387904]}\n"
                       "  j: {range: [0, 99999]}\n";
    if (load_text(text, NULL, 0, &cfg, &err) != 0) {
        RT_CHECK_MSG(0, "domains: %s", err.msg);
        return;
    }
    const int64_t a[] = {1, 2, 3, 4};
    RT_CHECK(ints_are(find_domain(cfg.problem, cfg.n_problem, "a"), a, 4));
    const rt_param_domain *b = find_domain(cfg.problem, cfg.n_problem, "b");
    RT_CHECK(b && b->n_values == 5 && b->values[0].kind == RT_V_REAL && b->values[4].r == 1.0 &&
             b->values[1].r == 0.25);
    const rt_param_domain *c = find_domain(cfg.problem, cfg.n_problem, "c");
    RT_CHECK_MSG(c && c->n_values == 4 && fabs(c->values[3].r - 0.3) < 1e-12, "c has %d values",
                 c ? c->n_values : -1);
    const int64_t d[] = {1};
    RT_CHECK(ints_are(find_domain(cfg.problem, cfg.n_problem, "d"), d, 1));
    const int64_t e[] = {7};
    RT_CHECK(ints_are(find_domain(cfg.problem, cfg.n_problem, "e"), e, 1));
    const rt_param_domain *f = find_domain(cfg.problem, cfg.n_problem, "f");
    RT_CHECK(f && f->n_values == 4 && f->values[0].kind == RT_V_REAL &&
             f->values[1].kind == RT_V_STR && f->values[2].kind == RT_V_STR &&
             strcmp(f->values[2].s, "3") == 0 && f->values[3].kind == RT_V_INT &&
             f->values[3].i == -2);
    const int64_t g[] = {-3, 0, 3};
    RT_CHECK(ints_are(find_domain(cfg.problem, cfg.n_problem, "g"), g, 3));
    const int64_t h[] = {5};
    RT_CHECK(ints_are(find_domain(cfg.problem, cfg.n_problem, "h"), h, 1));
    const rt_param_domain *i = find_domain(cfg.problem, cfg.n_problem, "i");
    RT_CHECK(i && i->n_values == 63 && i->values[62].i == 4611686018427387904LL);
    const rt_param_domain *j = find_domain(cfg.problem, cfg.n_problem, "j");
    RT_CHECK(j && j->n_values == 100000 && j->values[99999].i == 99999);
    rt_config_free(&cfg);

    /* Each malformed domain fails at its own line. */
    static const struct {
        const char *domain;
        const char *fragment;
    } bad[] = {
        {"{range: [0, 100000]}", "expands to 100001 values (at most 100000)"},
        {"{range: [0, 1e18, 1]}", "expands to"},
        {"{range: [0, 1, 1e-9]}", "expands to"},
        {"{range: [1, 2, -1]}", "step must be > 0, got -1"},
        {"{range: [2, 1]}", "lo (2) is greater than hi (1)"},
        {"{range: [1]}", "expected [lo, hi] or [lo, hi, step], got a list of 1 value"},
        {"{range: 5}", "expected [lo, hi] or [lo, hi, step], got '5'"},
        {"{range: [a, 2]}", "x.range[0] (lo): expected a number, got 'a'"},
        {"{pow2: [0, 8]}", "expected an integer >= 1, got '0'"},
        {"{pow2: [2, 6]}", "bounds must be powers of two, got 6"},
        {"{pow2: [2.0, 8]}", "expected an integer >= 1, got '2.0'"},
        {"{pow2: [1, 2, 4]}", "expected [lo, hi], got a list of 3 values"},
        {"{range: [1, 2], pow2: [1, 2]}", "expected exactly one of"},
        {"{}", "got an empty map"},
        {"{steps: [1, 2]}", "unknown key 'steps'"},
        {"[[1, 2]]", "x[0]: expected a value (a number or a word), got a list"},
        {"[1, {a: 1}]", "x[1]: expected a value"},
        {"", "expected a value (a number or a word), got nothing"},
        {"[1, 1.0]", "is listed twice"},
    };
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; ++t) {
        char doc[512];
        snprintf(doc, sizeof doc, "experiment: {name: bad}\nproblem:\n  x: %s\n", bad[t].domain);
        RT_CHECK_MSG(load_text(doc, NULL, 0, &cfg, &err) != 0, "domain %s should fail",
                     bad[t].domain);
        RT_CHECK_MSG(strncmp(err.msg, "test_config_load_scratch.yaml:3:", 32) == 0 &&
                         rt_test_contains(err.msg, bad[t].fragment),
                     "domain %s: [%s] lacks [%s]", bad[t].domain, err.msg, bad[t].fragment);
    }
}

/* Random edits of full.yaml (bytes dropped, duplicated or replaced by YAML punctuation): each
 * variant either loads and checks, or fails with a message located in the file; the sanitizers
 * catch anything worse. */
static void test_mutations(void)
{
    char path[1024];
    path_in(path, sizeof path, "full.yaml");
    FILE *f = fopen(path, "rb");
    if (!f) {
        RT_CHECK_MSG(0, "cannot read %s", path);
        return;
    }
    char original[4096];
    const size_t len = fread(original, 1, sizeof original - 1, f);
    fclose(f);
    original[len] = '\0';
    static const char punctuation[] = ":-[]{},'\"&*!|>#? \n\t0a.";
    /* The scratch copy is read from the working folder: its matrix file must be there too. */
    mkdir("data", 0777);
    FILE *mtx = fopen("data/web.mtx", "w");
    RT_CHECK(mtx != NULL);
    if (mtx) {
        fputs("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0\n", mtx);
        fclose(mtx);
    }
    uint64_t state = 2024;
    int loaded = 0, failed = 0;
    for (int iter = 0; iter < 1500; ++iter) {
        char text[8192];
        memcpy(text, original, len + 1);
        size_t n = len;
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const int edits = 1 + (int)((state >> 33) % 4);
        for (int e = 0; e < edits && n > 1; ++e) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            const size_t at = (size_t)((state >> 33) % n);
            const int op = (int)((state >> 20) % 3);
            if (op == 0) { /* drop a byte */
                memmove(text + at, text + at + 1, n - at);
                --n;
            } else if (op == 1 && n + 1 < sizeof text) { /* duplicate a byte */
                memmove(text + at + 1, text + at, n - at + 1);
                ++n;
            } else { /* replace by punctuation */
                text[at] = punctuation[(state >> 40) % (sizeof punctuation - 1)];
            }
        }
        rt_config cfg;
        rt_err err;
        int rc = load_text(text, NULL, 0, &cfg, &err);
        if (rc == 0) {
            rc = rt_config_check(&cfg, &g_reg, &err);
            rt_config_free(&cfg);
        }
        if (rc == 0) {
            ++loaded;
            continue;
        }
        ++failed;
        RT_CHECK_MSG(strncmp(err.msg, "test_config_load_scratch.yaml:", 30) == 0,
                     "mutation %d: unlocated error: %s", iter, err.msg);
    }
    RT_CHECK(loaded > 0 && failed > 0);
}

static void test_device_fields(void)
{
    int n = 0;
    const char *const *names = rt_config_device_fields(&n);
    RT_CHECK(n == 17);
    int has_optin = 0;
    for (int i = 0; i < n; ++i)
        has_optin |= strcmp(names[i], "max_shared_per_block_optin") == 0;
    RT_CHECK(has_optin);
    const rt_device_info dev = {.max_shared_per_block_optin = 232448,
                                .warp_size = 32,
                                .sm_clock_mhz = 1980.5,
                                .cc_major = 9};
    double v = 0;
    RT_CHECK(rt_config_device_value(&dev, "max_shared_per_block_optin", &v) == 0 && v == 232448);
    RT_CHECK(rt_config_device_value(&dev, "warp_size", &v) == 0 && v == 32);
    RT_CHECK(rt_config_device_value(&dev, "sm_clock_mhz", &v) == 0 && v == 1980.5);
    RT_CHECK(rt_config_device_value(&dev, "cc_major", &v) == 0 && v == 9);
    RT_CHECK(rt_config_device_value(&dev, "name", &v) != 0);
    RT_CHECK(rt_config_device_value(&dev, "nope", &v) != 0);
}

static void test_quickstart(const char *path)
{
    rt_config cfg;
    rt_err err;
    if (rt_config_load(path, NULL, 0, &cfg, &err) != 0) {
        RT_CHECK_MSG(0, "%s: %s", path, err.msg);
        return;
    }
    RT_CHECK(strcmp(cfg.name, "quickstart") == 0 && cfg.n_matrices == 4 && cfg.n_kernels == 6);
    RT_CHECK(cfg.n_plots == 2 && cfg.measure.max_reps == 20);
    rt_config_free(&cfg);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_config_load <tests/config/good> <configs/quickstart.yaml>\n");
        return 2;
    }
    g_dir = argv[1];
    rt_err err;
    if (test_registry_init(&g_reg, &err) != 0) {
        fprintf(stderr, "test registry: %s\n", err.msg);
        return 1;
    }
    test_full();
    test_defaults();
    test_includes();
    test_overrides();
    test_override_errors();
    test_domains();
    test_mutations();
    test_device_fields();
    test_quickstart(argv[2]);
    return RT_TEST_RESULT();
}
