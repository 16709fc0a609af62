/* The model-only mode as a per-point family hook (rt_family_model.h) and the app's one loop
 * (rt_model_run): two test families with hooks, driven over a config of two matrices, two
 * problem points and three kernels. Checks the walk's order, the rows the app writes for every
 * family (CSV and JSON byte for byte: the app's columns, quoting, empty and null results, a list
 * column, infeasible points from the space's constraints and from the hook), a kernel the model
 * does not cover, one file pair per family, the terminal lines, and the errors: a config without
 * a modelled kernel, a hook that fails.
 *
 * Usage: test_model_run WORK_DIR */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_config.h"
#include "rt_fake_kernel.h"
#include "rt_family_model.h"
#include "rt_model_run.h"
#include "rt_test.h"

static const rt_param_schema problem_params[] = {{"K", RT_V_INT, "1..64", "2", 0, "columns"}};

/* toy: columns of every kind the app writes. */
enum {
    T_EXP,
    T_MATRIX,
    T_KERNEL,
    T_K,
    T_X,
    T_NOTE,
    T_STATUS,
    T_REASON,
    T_ROWS,
    T_RATIO,
    T_TAGS,
    T_MACHINE,
    T_N
};
static const rt_model_column toy_columns[] = {
    RT_MODEL_COLUMN_EXPERIMENT,
    RT_MODEL_COLUMN_MATRIX,
    RT_MODEL_COLUMN_KERNEL,
    {"K", RT_MODEL_INT, RT_MODEL_OWN, 0, 0},
    {"x", RT_MODEL_INT, RT_MODEL_OWN, 0, 0},
    {"note", RT_MODEL_TEXT, RT_MODEL_OWN, 0, 0},
    RT_MODEL_COLUMNS_STATUS,
    {"rows", RT_MODEL_INT, RT_MODEL_OWN, 1, 0},
    {"ratio", RT_MODEL_REAL, RT_MODEL_OWN, 1, 0},
    {"tags", RT_MODEL_INTS, RT_MODEL_OWN, 1, 3},
    RT_MODEL_COLUMN_MACHINE,
};

static int toy_covers(const rt_kernel_desc *k)
{
    return strcmp(k->name, "toy.cpu.b") != 0;
}

static int toy_point(const rt_model_point *pt, rt_model_row *row, rt_err *err)
{
    const int64_t k = rt_params_int(pt->problem, "K", -1);
    const int64_t x = rt_params_int(pt->params, "x", -1);
    if (x == 5)
        return rt_err_set(err, "the toy model fails at x = 5");
    rt_model_cell *c = row->cell;
    c[T_K].i = k;
    c[T_X].i = x;
    snprintf(c[T_NOTE].s, sizeof c[T_NOTE].s, "a,b");
    const int n = snprintf(row->line, sizeof row->line, "%s K=%lld x=%lld", pt->matrix_name,
                           (long long)k, (long long)x);
    if (!row->ok)
        return 0;
    if (x == 3 && k == 4) {
        row->ok = 0;
        snprintf(row->reason, sizeof row->reason, "x = 3 does not fit K = 4");
        return 0;
    }
    c[T_ROWS].i = pt->matrix->rows;
    c[T_RATIO].r = x == 3 ? NAN : 0.5 * (double)x;
    c[T_TAGS].n = 2;
    c[T_TAGS].list[0] = x;
    c[T_TAGS].list[1] = k;
    snprintf(row->line + n, sizeof row->line - (size_t)n, " | rows %lld",
             (long long)pt->matrix->rows);
    return 0;
}

static const rt_family_model toy_model = {
    .columns = toy_columns, .n_columns = T_N, .covers = toy_covers, .point = toy_point};

/* other: a second family with a table of its own. */
static const rt_model_column other_columns[] = {
    {"experiment", RT_MODEL_TEXT, RT_MODEL_EXPERIMENT, 0, 0},
    {"kernel", RT_MODEL_TEXT, RT_MODEL_KERNEL, 0, 0},
    {"ranks", RT_MODEL_INT, RT_MODEL_RANKS, 0, 0},
    {"y", RT_MODEL_INT, RT_MODEL_OWN, 0, 0},
    {"status", RT_MODEL_TEXT, RT_MODEL_STATUS, 0, 0},
};

static int other_point(const rt_model_point *pt, rt_model_row *row, rt_err *err)
{
    (void)err;
    row->cell[3].i = rt_params_int(pt->params, "y", -1);
    snprintf(row->line, sizeof row->line, "other %s", pt->matrix_name);
    return 0;
}

static const rt_family_model other_model = {
    .columns = other_columns, .n_columns = 5, .point = other_point};

static const rt_family_desc toy_family = {.name = "toy",
                                          .summary = "model hook test",
                                          .problem_params = problem_params,
                                          .n_problem_params = 1,
                                          .model = &toy_model};
static const rt_family_desc other_family = {.name = "other",
                                            .summary = "model hook test",
                                            .problem_params = problem_params,
                                            .n_problem_params = 1,
                                            .model = &other_model};
static const rt_family_desc plain_family = {.name = "plain",
                                            .summary = "no model",
                                            .problem_params = problem_params,
                                            .n_problem_params = 1};

static const rt_param_schema x_params[] = {{"x", RT_V_INT, "1..9", "1", 0, "x"}};
static const rt_param_schema y_params[] = {{"y", RT_V_INT, "1..9", "1", 0, "y"}};
static const rt_kernel_desc kernels[] = {
    {RT_FAKE_KERNEL("toy.cpu.a", "toy", x_params), .summary = "a"},
    {RT_FAKE_KERNEL("toy.cpu.b", "toy", x_params), .summary = "b"},
    {RT_FAKE_KERNEL("other.cpu.c", "other", y_params), .summary = "c"},
    {RT_FAKE_KERNEL("plain.cpu.d", "plain", y_params), .summary = "d"},
};

static const char *g_work;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *copy = malloc(n + 1);
    if (copy)
        memcpy(copy, buf, n + 1);
    return copy;
}

/* Loads text as a config and models it for a job of `ranks`; the terminal lines go to *log. */
static int model(const rt_registry *reg, const char *text, int ranks, char **log, rt_err *err)
{
    char path[1024], log_path[1024];
    snprintf(path, sizeof path, "%s/config.yaml", g_work);
    snprintf(log_path, sizeof log_path, "%s/log.txt", g_work);
    FILE *f = fopen(path, "w");
    if (!f)
        return rt_err_set(err, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
    rt_config cfg;
    if (rt_config_load(path, NULL, 0, &cfg, err) != 0)
        return -1;
    FILE *out = fopen(log_path, "w");
    const rt_model_job job = {.nranks = ranks, .machine_name = ""};
    int n = 0;
    const int rc = rt_model_run(&cfg, reg, &job, g_work, out, &n, err);
    if (out)
        fclose(out);
    rt_config_free(&cfg);
    *log = slurp(log_path);
    return rc;
}

static const char *const k_config =
    "experiment: {name: hooktest}\n"
    "matrices:\n"
    "  - {name: m1, generator: banded, rows: 6, bandwidth: 1}\n"
    "  - {name: m2, generator: banded, rows: 8, bandwidth: 1}\n"
    "problem: {K: [2, 4]}\n"
    "kernels:\n"
    "  - {name: toy.cpu.a, params: {x: [1, 2, 3]}, constraints: ['x != 2']}\n"
    "  - {name: toy.cpu.b}\n"
    "  - {name: other.cpu.c, params: {y: [7]}}\n"
    "  - {name: plain.cpu.d}\n";

/* The toy rows of one matrix, in the walk's order (K slowest, then x); infeasible x = 2 rows
 * carry the space's reason, which the test reads back rather than spells out. */
static void expect_toy_csv(const char *csv)
{
    const char *header = "experiment,matrix,kernel,K,x,note,status,reason,rows,ratio,tags_l0,"
                         "tags_l1,tags_l2,machine\r\n";
    RT_CHECK_MSG(strncmp(csv, header, strlen(header)) == 0, "header: %.200s", csv);
    const char *want[] = {
        "hooktest,m1,toy.cpu.a,2,1,\"a,b\",ok,,6,0.5,1,2,,\r\n",
        "hooktest,m1,toy.cpu.a,2,2,\"a,b\",infeasible,",
        "hooktest,m1,toy.cpu.a,2,3,\"a,b\",ok,,6,,3,2,,\r\n",
        "hooktest,m1,toy.cpu.a,4,1,\"a,b\",ok,,6,0.5,1,4,,\r\n",
        "hooktest,m1,toy.cpu.a,4,2,\"a,b\",infeasible,",
        "hooktest,m1,toy.cpu.a,4,3,\"a,b\",infeasible,x = 3 does not fit K = 4,,,,,,\r\n",
        "hooktest,m2,toy.cpu.a,2,1,\"a,b\",ok,,8,0.5,1,2,,\r\n",
    };
    const char *at = csv + strlen(header);
    for (size_t i = 0; i < sizeof want / sizeof want[0] && at; ++i) {
        RT_CHECK_MSG(strncmp(at, want[i], strlen(want[i])) == 0, "row %zu: want '%s', got '%.120s'",
                     i, want[i], at);
        const char *eol = strstr(at, "\r\n");
        if (eol && want[i][strlen(want[i]) - 1] != '\n') /* an infeasible row: results empty */
            RT_CHECK_MSG(eol - at > 6 && strncmp(eol - 6, ",,,,,,", 6) == 0,
                         "row %zu: results not empty", i);
        at = eol ? eol + 2 : NULL;
    }
    int rows = 0;
    for (const char *p = csv; (p = strstr(p, "\r\n")); p += 2)
        ++rows;
    RT_CHECK_MSG(rows == 1 + 12, "%d CSV lines, want the header and 2 x 2 x 3 rows", rows);
}

static void test_two_families(const rt_registry *reg)
{
    char *log = NULL;
    rt_err err;
    rt_err_clear(&err);
    RT_CHECK_MSG(model(reg, k_config, 4, &log, &err) == 0, "%s", err.msg);
    char path[1100];
    snprintf(path, sizeof path, "%s/hooktest-toy-model.csv", g_work);
    char *csv = slurp(path);
    RT_CHECK_MSG(csv != NULL, "no %s", path);
    if (csv)
        expect_toy_csv(csv);
    free(csv);

    snprintf(path, sizeof path, "%s/hooktest-toy-model.json", g_work);
    char *json = slurp(path);
    RT_CHECK_MSG(json != NULL, "no %s", path);
    if (json) {
        const char *first =
            "[\n  {\"experiment\": \"hooktest\", \"matrix\": \"m1\", \"kernel\": \"toy.cpu.a\", "
            "\"K\": 2, \"x\": 1, \"note\": \"a,b\", \"status\": \"ok\", \"reason\": \"\", "
            "\"machine\": \"\", \"rows\": 6, \"ratio\": 0.5, \"tags\": [1, 2]},\n";
        RT_CHECK_MSG(strncmp(json, first, strlen(first)) == 0, "JSON starts: %.300s", json);
        RT_CHECK(rt_test_contains(json, "\"x\": 3, \"note\": \"a,b\", \"status\": \"ok\", "
                                        "\"reason\": \"\", \"machine\": \"\", \"rows\": 6, "
                                        "\"ratio\": null, \"tags\": [3, 2]}"));
        RT_CHECK(rt_test_contains(json, "\"status\": \"infeasible\", \"reason\": \"x = 3 does not "
                                        "fit K = 4\", \"machine\": \"\"}"));
        const size_t n = strlen(json);
        RT_CHECK(n > 4 && strcmp(json + n - 4, "}\n]\n") == 0);
    }
    free(json);

    /* The other family: its own pair of files, its own columns, one row per matrix and K. */
    snprintf(path, sizeof path, "%s/hooktest-other-model.csv", g_work);
    csv = slurp(path);
    RT_CHECK_MSG(csv && strcmp(csv, "experiment,kernel,ranks,y,status\r\n"
                                    "hooktest,other.cpu.c,4,7,ok\r\n"
                                    "hooktest,other.cpu.c,4,7,ok\r\n"
                                    "hooktest,other.cpu.c,4,7,ok\r\n"
                                    "hooktest,other.cpu.c,4,7,ok\r\n") == 0,
                 "other: %s", csv ? csv : "(none)");
    free(csv);

    RT_CHECK_MSG(log && rt_test_contains(log, "  kernel toy.cpu.b skipped: the toy model does not "
                                              "cover it\n"),
                 "log: %s", log ? log : "");
    RT_CHECK(log && rt_test_contains(log, "  kernel plain.cpu.d skipped: the model covers the "));
    RT_CHECK(log && rt_test_contains(log, "\n  m1 K=2 x=1 | rows 6\n"));
    RT_CHECK(log && rt_test_contains(log, "\n  m1 K=4 x=3 infeasible: x = 3 does not fit K = 4\n"));
    RT_CHECK(log && rt_test_contains(log, "matrix m2: 8 x 8, "));
    RT_CHECK(log && rt_test_contains(log, "model: 12 point(s) for 4 ranks; table in "));
    /* The walk's order: both families' rows interleave as the config lists the kernels. */
    const char *a = log ? strstr(log, "  m1 K=2 x=3") : NULL;
    const char *o = log ? strstr(log, "  other m1") : NULL;
    const char *b = log ? strstr(log, "  m1 K=4 x=1") : NULL;
    RT_CHECK_MSG(a && o && b && a < o && o < b, "order of the terminal lines: %s", log ? log : "");
    free(log);
}

static void test_one_family_and_errors(const rt_registry *reg)
{
    char *log = NULL;
    rt_err err;
    /* One modelled family: the plain file name. */
    rt_err_clear(&err);
    RT_CHECK_MSG(model(reg,
                       "experiment: {name: single}\n"
                       "matrices: [{name: m1, generator: banded, rows: 6, bandwidth: 1}]\n"
                       "kernels: [{name: toy.cpu.a, params: {x: [1]}}]\n",
                       1, &log, &err) == 0,
                 "%s", err.msg);
    free(log);
    char path[1100];
    struct stat st;
    snprintf(path, sizeof path, "%s/single-model.csv", g_work);
    RT_CHECK_MSG(stat(path, &st) == 0 && st.st_size > 0, "no %s", path);
    snprintf(path, sizeof path, "%s/single-model.json", g_work);
    RT_CHECK_MSG(stat(path, &st) == 0 && st.st_size > 0, "no %s", path);

    /* No kernel of a family with a model: an error naming those that have one. */
    rt_err_clear(&err);
    RT_CHECK(model(reg,
                   "experiment: {name: none}\n"
                   "matrices: [{name: m1, generator: banded, rows: 6, bandwidth: 1}]\n"
                   "kernels: [{name: plain.cpu.d}]\n",
                   1, &log, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "has no kernel of the toy and other family"), "%s",
                 err.msg);
    free(log);

    /* A hook that fails stops the mode, naming the kernel and the matrix. */
    rt_err_clear(&err);
    RT_CHECK(model(reg,
                   "experiment: {name: fails}\n"
                   "matrices: [{name: m1, generator: banded, rows: 6, bandwidth: 1}]\n"
                   "kernels: [{name: toy.cpu.a, params: {x: [1, 5]}}]\n",
                   1, &log, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "kernel toy.cpu.a, matrix 'm1'") &&
                     rt_test_contains(err.msg, "the toy model fails at x = 5"),
                 "%s", err.msg);
    free(log);

    /* A matrix that cannot be built names where the config defines it. */
    rt_err_clear(&err);
    RT_CHECK(model(reg,
                   "experiment: {name: nomatrix}\n"
                   "matrices: [{name: gone, file: does-not-exist.mtx}]\n"
                   "kernels: [{name: toy.cpu.a}]\n",
                   1, &log, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "config.yaml:2:") &&
                     rt_test_contains(err.msg, "matrix 'gone'"),
                 "%s", err.msg);
    free(log);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_model_run WORK_DIR\n");
        return 2;
    }
    g_work = argv[1];
    mkdir(g_work, 0777);
    rt_registry reg;
    rt_registry_init(&reg);
    rt_err err;
    RT_CHECK(rt_registry_add_family(&reg, &toy_family, &err) == 0);
    RT_CHECK(rt_registry_add_family(&reg, &other_family, &err) == 0);
    RT_CHECK(rt_registry_add_family(&reg, &plain_family, &err) == 0);
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
        RT_CHECK_MSG(rt_registry_add_kernel(&reg, &kernels[i], &err) == 0, "%s", err.msg);
    test_two_families(&reg);
    test_one_family_and_errors(&reg);
    return RT_TEST_RESULT();
}
