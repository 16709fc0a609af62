/* Figures with gnuplot: a store built by hand (only the columns rt_plot relies on), line, bars and
 * default figures checked down to the numbers in the .dat files and the bytes of the images, and
 * every bad input fed in. Run as `test_plot <case>`; each case works in its own temp folder.
 *
 * gnuplot is looked up on PATH as the library does. Where it is missing (the GPU hosts), every
 * check of a rendered image becomes the opposite check: no PNG/SVG was drawn and the result says
 * "gnuplot not found"; the .dat and .gp files are checked the same either way. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "rt_plot.h"
#include "rt_test.h"

/* ------------------------------------------------------------------------------------------- */
/* Fixture */

/* Whether gnuplot is on PATH, looked up once in main (before any case changes PATH). */
static int have_gnuplot;

static const char schema[] =
    "CREATE TABLE points (id INTEGER PRIMARY KEY, run_id INTEGER, experiment TEXT, kernel TEXT,"
    " backend TEXT, matrix TEXT, params TEXT, problem TEXT, ranks INTEGER, device TEXT,"
    " status TEXT, verified INTEGER, time_median_s REAL, time_min_s REAL, time_max_s REAL,"
    " gflops REAL, gnnz_s REAL, bound_s REAL, efficiency REAL);"
    "CREATE TABLE metrics (point_id INTEGER, name TEXT, value REAL, unit TEXT, reason TEXT);"
    "CREATE TABLE samples (point_id INTEGER, rep INTEGER, seconds REAL);";

static int exec_sql(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "fixture SQL failed: %s\n  %s\n", msg ? msg : "?", sql);
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static sqlite3_int64 add_point(sqlite3 *db, const char *experiment, const char *kernel,
                               const char *matrix, const char *params, const char *problem,
                               const char *status, double gflops)
{
    char *sql = sqlite3_mprintf(
        "INSERT INTO points (run_id, experiment, kernel, backend, matrix, params, problem, ranks,"
        " device, status, verified, time_median_s, time_min_s, time_max_s, gflops, gnnz_s,"
        " bound_s, efficiency) VALUES (1, %Q, %Q, 'cpu', %Q, %Q, %Q, 1, 'test-cpu', %Q, 1,"
        " %.17g, %.17g, %.17g, %.17g, %.17g, NULL, NULL)",
        experiment, kernel, matrix, params, problem, status, 1.0 / gflops, 0.9 / gflops,
        1.1 / gflops, gflops, gflops / 2);
    const int rc = exec_sql(db, sql);
    sqlite3_free(sql);
    return rc == 0 ? sqlite3_last_insert_rowid(db) : -1;
}

static void add_metric(sqlite3 *db, sqlite3_int64 point, const char *name, double value,
                       const char *unit)
{
    char *sql = sqlite3_mprintf("INSERT INTO metrics VALUES (%lld, %Q, %.17g, %Q, NULL)",
                                (long long)point, name, value, unit);
    exec_sql(db, sql);
    sqlite3_free(sql);
}

/* The sweep: kernels csr (base 1) and ell (base 2), matrices band (+0) and web (+10), row_block
 * 64/128/256 (+1/+2/+4), col_block 8/16 (+0.5/+1), K = 32. time_median_s = 1 / gflops. Also a
 * failed-verification point and a point of another experiment, both far faster, which no
 * figure may show. */
static sqlite3 *make_store(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/store.db", dir);
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK || exec_sql(db, schema) != 0) {
        sqlite3_close(db);
        return NULL;
    }
    static const char *const kernels[] = {"spmm.cpu.csr", "spmm.cpu.ell"};
    static const char *const matrices[] = {"band", "web"};
    static const int row_blocks[] = {64, 128, 256};
    static const int col_blocks[] = {8, 16};
    exec_sql(db, "BEGIN");
    for (int k = 0; k < 2; ++k)
        for (int m = 0; m < 2; ++m)
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 2; ++c) {
                    char params[128];
                    snprintf(params, sizeof params, "{\"col_block\":%d,\"row_block\":%d}",
                             col_blocks[c], row_blocks[r]);
                    const double gflops =
                        (k + 1) + 10.0 * m + row_blocks[r] / 64.0 + col_blocks[c] / 16.0;
                    const sqlite3_int64 id = add_point(db, "exp1", kernels[k], matrices[m], params,
                                                       "{\"K\":32}", "ok", gflops);
                    add_metric(db, id, "dram_bytes", 1000.0 * row_blocks[r], "bytes");
                    add_metric(db, id, "kernel_s", 1.0 / gflops, "s");
                }
    const sqlite3_int64 wrong =
        add_point(db, "exp1", "spmm.cpu.csr", "band", "{\"col_block\":8,\"row_block\":64}",
                  "{\"K\":32}", "wrong", 1000.0);
    add_metric(db, wrong, "only_on_wrong", 1.0, "count");
    add_point(db, "other", "spmm.cpu.csr", "band", "{\"col_block\":8,\"row_block\":64}",
              "{\"K\":32}", "ok", 500.0);
    exec_sql(db, "COMMIT");
    return db;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static char *make_temp_dir(void)
{
    const char *base = getenv("TMPDIR");
    char templ[1024];
    snprintf(templ, sizeof templ, "%s/rt_plot_test_XXXXXX", base && *base ? base : "/tmp");
    char *dir = mkdtemp(templ);
    return dir ? strdup(dir) : NULL;
}

/* Keeps the folder when a check failed (or RT_PLOT_TEST_KEEP is set), so the files can be
 * inspected. */
static void drop_temp_dir(char *dir)
{
    if (rt_test_failures == 0 && !getenv("RT_PLOT_TEST_KEEP"))
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    else
        fprintf(stderr, "files kept in %s\n", dir);
    free(dir);
}

static int file_exists(const char *dir, const char *name)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0;
}

/* name.dat and name.gp non-empty; with images expected: name.png a PNG and name.svg an SVG
 * document where gnuplot is installed, and neither file where it is not. */
static void check_figure_files(const char *dir, const char *stem, int with_images)
{
    static const char *const exts[] = {"dat", "gp", "png", "svg"};
    if (with_images && !have_gnuplot) {
        for (int e = 2; e < 4; ++e) {
            char name[256];
            snprintf(name, sizeof name, "%s.%s", stem, exts[e]);
            RT_CHECK_MSG(!file_exists(dir, name), "%s/%s drawn although gnuplot is not on PATH",
                         dir, name);
        }
        with_images = 0;
    }
    for (int e = 0; e < (with_images ? 4 : 2); ++e) {
        char name[256];
        snprintf(name, sizeof name, "%s.%s", stem, exts[e]);
        long size = 0;
        char *data = rt_test_read_file(dir, name, &size);
        RT_CHECK_MSG(data && size > 0, "%s/%s missing or empty", dir, name);
        if (data && e == 2)
            RT_CHECK_MSG(size > 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0, "%s is not a PNG",
                         name);
        if (data && e == 3)
            RT_CHECK_MSG(rt_test_contains(data, "<svg") && rt_test_contains(data, "</svg>"),
                         "%s has no <svg> root element", name);
        free(data);
    }
}

/* The result says what was rendered: nothing missing with gnuplot; without it the flag and the
 * "gnuplot not found" note with the number of figures whose data and scripts were written. */
static void check_render(const rt_plot_result *res, int n_figures, int line)
{
    if (have_gnuplot) {
        RT_CHECK_MSG(!res->gnuplot_missing && rt_test_contains(res->message, ".png, .svg"),
                     "line %d: %s", line, res->message);
        return;
    }
    char note[64];
    snprintf(note, sizeof note, "(%d figure%s in ", n_figures, n_figures == 1 ? "" : "s");
    RT_CHECK_MSG(res->gnuplot_missing == 1 &&
                     rt_test_contains(res->message, "gnuplot not found: wrote data and scripts, "
                                                    "skipped PNG/SVG") &&
                     rt_test_contains(res->message, note),
                 "line %d: %s", line, res->message);
}

/* needles appear in text in this order. */
static int in_order(const char *text, const char *const *needles, int n)
{
    const char *at = text;
    for (int k = 0; k < n; ++k) {
        const char *hit = at ? strstr(at, needles[k]) : NULL;
        if (!hit) {
            fprintf(stderr, "expected, in order, \"%s\"\n", needles[k]);
            return 0;
        }
        at = hit + strlen(needles[k]);
    }
    return 1;
}

static rt_plot_cfg plot_spec(const char *name, const char *type, const char *x, const char *y,
                             const char *series)
{
    rt_plot_cfg c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", name);
    snprintf(c.type, sizeof c.type, "%s", type);
    snprintf(c.x, sizeof c.x, "%s", x);
    snprintf(c.y, sizeof c.y, "%s", y);
    snprintf(c.series, sizeof c.series, "%s", series);
    return c;
}

/* ------------------------------------------------------------------------------------------- */
/* Cases */

static void case_line(const char *dir, sqlite3 *db)
{
    rt_plot_cfg specs[3];
    specs[0] = plot_spec("perf-vs-rb", "line", "row_block", "gflops", "kernel");
    /* series by a numeric parameter: 8 must come before 16 (not text order) */
    specs[1] = plot_spec("time-vs-rb", "line", "row_block", "kernel_s", "col_block");
    /* text on x: positions on the axis, labels from the data */
    specs[2] = plot_spec("perf-vs-matrix", "line", "matrix", "gflops", "kernel");
    rt_plot_result res;
    rt_err err;
    rt_err_clear(&err);
    const int rc = rt_plot_experiment(db, "exp1", specs, 3, dir, &res, &err);
    RT_CHECK_MSG(rc == 0, "%s", err.msg);
    RT_CHECK_MSG(res.n_figures == 3, "%d figures: %s", res.n_figures, res.message);
    check_render(&res, 3, __LINE__);
    check_figure_files(dir, "perf-vs-rb", 1);
    check_figure_files(dir, "time-vs-rb", 1);
    check_figure_files(dir, "perf-vs-matrix", 1);

    /* Best gflops per (kernel, row_block) over matrices and col_block: 4 points each; the
     * wrong point (1000) and the other experiment (500) must not show. */
    char *dat = rt_test_read_file(dir, "perf-vs-rb.dat", NULL);
    RT_CHECK(dat != NULL);
    if (dat) {
        static const char *const expect[] = {"# query: SELECT",
                                             "# columns: row_block gflops",
                                             "# index 0: kernel = spmm.cpu.csr\n",
                                             "64 13 4\n128 14 4\n256 16 4\n\n\n",
                                             "# index 1: kernel = spmm.cpu.ell\n",
                                             "64 14 4\n128 15 4\n256 17 4\n"};
        RT_CHECK_MSG(in_order(dat, expect, 6), "perf-vs-rb.dat:\n%s", dat);
        RT_CHECK(!rt_test_contains(dat, "\n1000 ") && !rt_test_contains(dat, " 1000 "));
        RT_CHECK(!rt_test_contains(dat, " 500 "));
    }
    free(dat);
    char *gp = rt_test_read_file(dir, "perf-vs-rb.gp", NULL);
    RT_CHECK(gp != NULL);
    if (gp) {
        RT_CHECK_MSG(rt_test_contains(gp, "set logscale x 2"), "powers of two get a log2 axis");
        RT_CHECK(rt_test_contains(gp, "plot 'perf-vs-rb.dat' index 0"));
        RT_CHECK(rt_test_contains(gp, "title 'spmm.cpu.ell'"));
        RT_CHECK(rt_test_contains(gp, "set ylabel 'performance (GFLOP/s)'"));
        RT_CHECK(rt_test_contains(gp, "pngcairo") && rt_test_contains(gp, "set terminal png "));
        RT_CHECK(rt_test_contains(gp, "set output 'perf-vs-rb.svg'"));
    }
    free(gp);

    /* kernel_s is a time (unit s): the best is the minimum, 1 / max gflops. */
    dat = rt_test_read_file(dir, "time-vs-rb.dat", NULL);
    if (dat) {
        static const char *const expect[] = {"# index 0: col_block = 8\n", "64 0.07407407407 4\n",
                                             "128 0.06896551724 4\n", "# index 1: col_block = 16\n",
                                             "64 0.07142857143 4\n"};
        RT_CHECK_MSG(in_order(dat, expect, 5), "time-vs-rb.dat:\n%s", dat);
    }
    free(dat);
    gp = rt_test_read_file(dir, "time-vs-rb.gp", NULL);
    RT_CHECK(gp && rt_test_contains(gp, "set ylabel 'kernel_s (seconds)'"));
    free(gp);

    dat = rt_test_read_file(dir, "perf-vs-matrix.dat", NULL);
    if (dat) {
        static const char *const expect[] = {"# columns: x_index matrix gflops n_points",
                                             "0 \"band\" 6 6\n1 \"web\" 16 6\n\n\n",
                                             "0 \"band\" 7 6\n1 \"web\" 17 6\n"};
        RT_CHECK_MSG(in_order(dat, expect, 3), "perf-vs-matrix.dat:\n%s", dat);
    }
    free(dat);
    gp = rt_test_read_file(dir, "perf-vs-matrix.gp", NULL);
    RT_CHECK(gp && rt_test_contains(gp, "set xtics ('band' 0, 'web' 1)"));
    RT_CHECK(gp && !rt_test_contains(gp, "logscale x"));
    free(gp);

    /* logx < 0 forbids the log axis even for powers of two. */
    rt_plot_cfg linear = plot_spec("linear", "line", "row_block", "gflops", "");
    linear.logx = -1;
    RT_CHECK_MSG(rt_plot_experiment(db, "exp1", &linear, 1, dir, &res, &err) == 0, "%s", err.msg);
    gp = rt_test_read_file(dir, "linear.gp", NULL);
    RT_CHECK(gp && !rt_test_contains(gp, "logscale x") && rt_test_contains(gp, "unset key"));
    free(gp);
}

static void case_bars(const char *dir, sqlite3 *db)
{
    rt_plot_cfg specs[2];
    specs[0] = plot_spec("best-time", "bars", "matrix", "time_median_s", "kernel");
    specs[1] = plot_spec("", "bars", "matrix", "dram_bytes", "kernel"); /* default name */
    rt_plot_result res;
    rt_err err;
    rt_err_clear(&err);
    RT_CHECK_MSG(rt_plot_experiment(db, "exp1", specs, 2, dir, &res, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(res.n_figures == 2, "%s", res.message);
    check_render(&res, 2, __LINE__);
    check_figure_files(dir, "best-time", 1);
    check_figure_files(dir, "bars-matrix-dram_bytes", 1);

    /* Time: the best is the minimum: 1 / (max gflops of each matrix and kernel). */
    char *dat = rt_test_read_file(dir, "best-time.dat", NULL);
    RT_CHECK(dat != NULL);
    if (dat) {
        static const char *const expect[] = {"\"spmm.cpu.csr\" \"spmm.cpu.ell\"\n",
                                             "\"band\" 0.1666666667 0.1428571429\n",
                                             "\"web\" 0.0625 0.05882352941\n"};
        RT_CHECK_MSG(in_order(dat, expect, 3), "best-time.dat:\n%s", dat);
    }
    free(dat);
    char *gp = rt_test_read_file(dir, "best-time.gp", NULL);
    RT_CHECK(gp != NULL);
    if (gp) {
        RT_CHECK(rt_test_contains(gp, "with boxes"));
        RT_CHECK_MSG(rt_test_contains(gp, "with labels"), "value labels on the bars");
        RT_CHECK(rt_test_contains(gp, "set xtics ('band' 0, 'web' 1)"));
        RT_CHECK(rt_test_contains(gp, "set ylabel 'median time (seconds)'"));
    }
    free(gp);
    dat = rt_test_read_file(dir, "bars-matrix-dram_bytes.dat", NULL);
    RT_CHECK(dat && rt_test_contains(dat, "\"band\" 256000 256000\n"));
    free(dat);
}

static void case_defaults(const char *dir, sqlite3 *db)
{
    rt_plot_result res;
    rt_err err;
    rt_err_clear(&err);
    RT_CHECK_MSG(rt_plot_experiment(db, "exp1", NULL, 0, dir, &res, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(res.n_figures == 3, "%d: %s", res.n_figures, res.message);
    RT_CHECK(!have_gnuplot || rt_test_contains(res.message, "wrote 3 figures"));
    check_render(&res, 3, __LINE__);
    /* col_block is the first varying parameter (params keys in name order) */
    check_figure_files(dir, "gflops-vs-col_block-band", 1);
    check_figure_files(dir, "gflops-vs-col_block-web", 1);
    check_figure_files(dir, "best-gflops-per-matrix", 1);
    char *dat = rt_test_read_file(dir, "gflops-vs-col_block-band.dat", NULL);
    if (dat) {
        static const char *const expect[] = {"matrix 'band'", "kernel = spmm.cpu.csr",
                                             "8 5.5 3\n16 6 3\n", "kernel = spmm.cpu.ell",
                                             "8 6.5 3\n16 7 3\n"};
        RT_CHECK_MSG(in_order(dat, expect, 5), "band defaults:\n%s", dat);
        RT_CHECK(!rt_test_contains(dat, " 16 ")); /* no web values leaked in */
    }
    RT_CHECK(dat != NULL);
    free(dat);
    dat = rt_test_read_file(dir, "best-gflops-per-matrix.dat", NULL);
    RT_CHECK(dat && in_order(dat, (const char *const[]){"\"band\" 6 7\n", "\"web\" 16 17\n"}, 2));
    free(dat);

    /* An experiment whose parameters never vary gets only the bars. */
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/fixed", dir);
    add_point(db, "fixed", "spmm.cpu.csr", "band", "{\"col_block\":8}", "{\"K\":32}", "ok", 3.0);
    RT_CHECK_MSG(rt_plot_experiment(db, "fixed", NULL, 0, sub, &res, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(res.n_figures == 1 && rt_test_contains(res.message, "no parameter varies"), "%s",
                 res.message);
    check_render(&res, 1, __LINE__);
    check_figure_files(sub, "best-gflops-per-matrix", 1);
}

static void case_gnuplot_missing(const char *dir, sqlite3 *db)
{
    char empty[1024], out[1024];
    snprintf(empty, sizeof empty, "%s/empty-bin", dir);
    snprintf(out, sizeof out, "%s/figs/nested", dir); /* also: missing folders are created */
    RT_CHECK(mkdir(empty, 0755) == 0);
    const char *old = getenv("PATH");
    char *saved = strdup(old ? old : "/usr/bin:/bin");
    setenv("PATH", empty, 1);

    char found[512] = "x";
    RT_CHECK(rt_plot_find_gnuplot(found, sizeof found) != 0 && found[0] == '\0');
    rt_plot_cfg spec = plot_spec("perf", "line", "row_block", "gflops", "kernel");
    rt_plot_result res;
    rt_err err;
    rt_err_clear(&err);
    RT_CHECK_MSG(rt_plot_experiment(db, "exp1", &spec, 1, out, &res, &err) == 0, "%s", err.msg);
    RT_CHECK(res.gnuplot_missing == 1 && res.n_figures == 1);
    RT_CHECK_MSG(
        rt_test_contains(res.message, "gnuplot not found: wrote data and scripts, skipped PNG/SVG"),
        "%s", res.message);
    check_figure_files(out, "perf", 0);
    RT_CHECK(!file_exists(out, "perf.png") && !file_exists(out, "perf.svg"));
    RT_CHECK(rt_plot_run_gnuplot(out, "perf.gp", &err) != 0 &&
             rt_test_contains(err.msg, "gnuplot not found"));

    /* A gnuplot that fails: the error quotes its stderr and exit status. */
    char fake[1100];
    snprintf(fake, sizeof fake, "%s/gnuplot", empty);
    FILE *f = fopen(fake, "w");
    RT_CHECK(f != NULL);
    if (f) {
        fprintf(f, "#!/bin/sh\necho \"fake gnuplot refuses $1\" >&2\nexit 3\n");
        fclose(f);
        chmod(fake, 0755);
    }
    RT_CHECK(rt_plot_find_gnuplot(found, sizeof found) == 0 && strcmp(found, fake) == 0);
    RT_CHECK(rt_plot_find_gnuplot(found, 4) != 0); /* does not fit */
    rt_err_clear(&err);
    RT_CHECK(rt_plot_experiment(db, "exp1", &spec, 1, out, &res, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "fake gnuplot refuses perf.gp") &&
                     rt_test_contains(err.msg, "exit status 3") &&
                     rt_test_contains(err.msg, "plots[0] (perf)"),
                 "%s", err.msg);

    /* A relative PATH entry still works although gnuplot runs inside the figure folder. */
    char cwd[4096];
    RT_CHECK(getcwd(cwd, sizeof cwd) != NULL);
    RT_CHECK(chdir(dir) == 0);
    setenv("PATH", "empty-bin", 1);
    RT_CHECK_MSG(rt_plot_find_gnuplot(found, sizeof found) == 0 && strcmp(found, fake) == 0,
                 "relative PATH entry resolved to '%s'", found);
    rt_err_clear(&err);
    RT_CHECK(rt_plot_experiment(db, "exp1", &spec, 1, out, &res, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "fake gnuplot refuses perf.gp"), "%s", err.msg);
    RT_CHECK(chdir(cwd) == 0);
    setenv("PATH", saved, 1);
    free(saved);

    /* The real gnuplot failing on a broken script (where there is none: failing to find it). */
    char script[1100];
    snprintf(script, sizeof script, "%s/broken.gp", dir);
    f = fopen(script, "w");
    RT_CHECK(f != NULL);
    if (f) {
        fprintf(f, "plot no_such_variable_xyz\n");
        fclose(f);
    }
    rt_err_clear(&err);
    RT_CHECK(rt_plot_run_gnuplot(dir, "broken.gp", &err) != 0);
    if (have_gnuplot)
        RT_CHECK_MSG(rt_test_contains(err.msg, "no_such_variable_xyz") &&
                         rt_test_contains(err.msg, "broken.gp"),
                     "%s", err.msg);
    else
        RT_CHECK_MSG(rt_test_contains(err.msg, "gnuplot not found") &&
                         rt_test_contains(err.msg, "broken.gp"),
                     "%s", err.msg);
    RT_CHECK(rt_plot_run_gnuplot("/nonexistent/folder", "x.gp", &err) != 0);
    RT_CHECK(rt_plot_run_gnuplot(dir, "", &err) != 0);
}

static void expect_error(sqlite3 *db, const char *experiment, const rt_plot_cfg *specs, int n,
                         const char *dir, const char *needle1, const char *needle2, int line)
{
    rt_plot_result res;
    rt_err err;
    rt_err_clear(&err);
    const int rc = rt_plot_experiment(db, experiment, specs, n, dir, &res, &err);
    RT_CHECK_MSG(rc != 0, "line %d: expected an error", line);
    RT_CHECK_MSG(
        rt_test_contains(err.msg, needle1) && (!needle2 || rt_test_contains(err.msg, needle2)),
        "line %d: message lacks '%s'/'%s': %s", line, needle1, needle2 ? needle2 : "", err.msg);
}

static void case_bad_input(const char *dir, sqlite3 *db)
{
    rt_plot_result res;
    rt_err err;

    /* Unknown names: the error lists what exists and suggests the nearest. */
    rt_plot_cfg spec = plot_spec("p", "line", "row_blok", "gflops", "kernel");
    snprintf(spec.loc.file, sizeof spec.loc.file, "exp.yaml");
    spec.loc.line = 12;
    spec.loc.col = 5;
    rt_err_clear(&err);
    RT_CHECK(rt_plot_experiment(db, "exp1", &spec, 1, dir, &res, &err) != 0);
    static const char *const expect[] = {"exp.yaml:12:5: plots[0] (p): x: unknown name 'row_blok'",
                                         "did you mean 'row_block'?",
                                         "points columns: kernel, matrix",
                                         "parameters: col_block, row_block",
                                         "problem parameters: K",
                                         "metrics: dram_bytes"};
    RT_CHECK_MSG(in_order(err.msg, expect, 6), "%s", err.msg);
    spec = plot_spec("p", "line", "row_block", "gflops", "kernal");
    expect_error(db, "exp1", &spec, 1, dir, "series: unknown name 'kernal'", "'kernel'", __LINE__);
    spec = plot_spec("p", "line", "row_block", "", "kernel");
    snprintf(spec.y, sizeof spec.y, "zzzz_nothing");
    expect_error(db, "exp1", &spec, 1, dir, "y: unknown name 'zzzz_nothing'", "metrics:", __LINE__);
    spec = plot_spec("p", "line", "row_block", "gflops", "bad\"quote");
    expect_error(db, "exp1", &spec, 1, dir, "unknown name 'bad\"quote'", NULL, __LINE__);

    /* Text where numbers are needed; unknown types; a line without x; two plots, one file. */
    spec = plot_spec("p", "line", "row_block", "kernel", "");
    expect_error(db, "exp1", &spec, 1, dir, "'kernel' cannot be plotted as y", NULL, __LINE__);
    spec = plot_spec("p", "pie", "row_block", "gflops", "");
    expect_error(db, "exp1", &spec, 1, dir, "unknown figure type 'pie'", "line, bars", __LINE__);
    spec = plot_spec("p", "bras", "row_block", "gflops", "");
    expect_error(db, "exp1", &spec, 1, dir, "did you mean 'bars'", NULL, __LINE__);
    spec = plot_spec("p", "line", "", "gflops", "");
    expect_error(db, "exp1", &spec, 1, dir, "x: a line figure needs x", NULL, __LINE__);
    rt_plot_cfg twins[2] = {plot_spec("same", "line", "row_block", "gflops", ""),
                            plot_spec("same", "bars", "matrix", "gflops", "")};
    expect_error(db, "exp1", twins, 2, dir, "plots[0] and plots[1] both write 'same'", NULL,
                 __LINE__);
    spec = plot_spec("p", "line", "matrix", "gflops", "");
    spec.logx = 1;
    expect_error(db, "exp1", &spec, 1, dir, "logx needs x values that are positive numbers", NULL,
                 __LINE__);
    add_point(db, "zeros", "k", "m", "{\"b\":1}", "{}", "ok", 1.0);
    exec_sql(db, "UPDATE points SET efficiency = 0 WHERE experiment = 'zeros'");
    spec = plot_spec("p", "line", "b", "efficiency", "");
    spec.logy = 1;
    expect_error(db, "zeros", &spec, 1, dir, "logy needs y values above zero", NULL, __LINE__);
    spec = plot_spec("p", "bars", "matrix", "efficiency", "");
    spec.logy = 1;
    expect_error(db, "zeros", &spec, 1, dir, "logy needs y values above zero", NULL, __LINE__);

    /* Bad arguments and experiments that are not there. */
    spec = plot_spec("p", "line", "row_block", "gflops", "");
    expect_error(db, "nope", &spec, 1, dir, "experiment 'nope' has no points", "'exp1'", __LINE__);
    expect_error(NULL, "exp1", &spec, 1, dir, "no result store", NULL, __LINE__);
    expect_error(db, "", &spec, 1, dir, "experiment name is empty", NULL, __LINE__);
    expect_error(db, "exp1", &spec, 1, "", "plot folder is empty", NULL, __LINE__);
    expect_error(db, "exp1", NULL, 2, dir, "without a list", NULL, __LINE__);
    expect_error(db, "exp1", &spec, -1, dir, "without a list", NULL, __LINE__);
    RT_CHECK(rt_plot_experiment(db, "exp1", &spec, 1, dir, NULL, &err) != 0);
    char file_dir[1100];
    snprintf(file_dir, sizeof file_dir, "%s/store.db", dir);
    expect_error(db, "exp1", &spec, 1, file_dir, "not a folder", NULL, __LINE__);
    snprintf(file_dir, sizeof file_dir, "%s/store.db/sub", dir);
    expect_error(db, "exp1", &spec, 1, file_dir, "cannot create the folder", NULL, __LINE__);

    /* A figure with nothing to show is skipped, not an error. */
    spec = plot_spec("nothing", "line", "row_block", "only_on_wrong", "");
    rt_err_clear(&err);
    RT_CHECK_MSG(rt_plot_experiment(db, "exp1", &spec, 1, dir, &res, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(res.n_figures == 0 && rt_test_contains(res.message, "skipped nothing"), "%s",
                 res.message);
    RT_CHECK(!file_exists(dir, "nothing.dat"));
    add_point(db, "allwrong", "k", "m", "{\"b\":1}", "{}", "wrong", 1.0);
    RT_CHECK(rt_plot_experiment(db, "allwrong", NULL, 0, dir, &res, &err) == 0);
    RT_CHECK_MSG(res.n_figures == 0 && rt_test_contains(res.message, "none of the"), "%s",
                 res.message);

    /* Hostile names and titles: the file name is sanitized into the folder, quotes in titles
     * and series are escaped, and gnuplot still draws. */
    add_point(db, "hostile", "it's \"odd\" \\ k", "m 1", "{\"b\":2}", "{}", "ok", 2.0);
    add_point(db, "hostile", "it's \"odd\" \\ k", "m 1", "{\"b\":4}", "{}", "ok", 3.0);
    add_point(db, "hostile", "plain", "m 1", "{\"b\":4}", "{}", "ok", 1.0);
    add_point(db, "hostile", "it's \"odd\" \\ k", "m 2", "{\"b\":2}", "{}", "ok", 5.0);
    rt_plot_cfg hostile[2] = {plot_spec("../evil name", "line", "b", "gflops", "kernel"),
                              plot_spec("bars", "bars", "matrix", "gflops", "kernel")};
    snprintf(hostile[0].title, sizeof hostile[0].title, "it's a \"title\" \\ with\nnewline");
    rt_err_clear(&err);
    RT_CHECK_MSG(rt_plot_experiment(db, "hostile", hostile, 2, dir, &res, &err) == 0, "%s",
                 err.msg);
    check_render(&res, 2, __LINE__);
    check_figure_files(dir, "_._evil_name", 1);
    check_figure_files(dir, "bars", 1);
    char *gp = rt_test_read_file(dir, "_._evil_name.gp", NULL);
    RT_CHECK(gp && rt_test_contains(gp, "set title 'it''s a \"title\" \\ with newline'"));
    RT_CHECK(gp && rt_test_contains(gp, "title 'it''s \"odd\" \\ k'"));
    free(gp);
    char *dat = rt_test_read_file(dir, "bars.dat", NULL);
    RT_CHECK_MSG(dat && rt_test_contains(dat, "\"m 1\" 3 1\n\"m 2\" 5 ?\n"), "%s",
                 dat ? dat : ""); /* plain never ran on m 2 */
    free(dat);

    /* Damaged stores: params that are not JSON, a database without the tables. */
    add_point(db, "damaged", "k", "m", "not json at all", "{}", "ok", 1.0);
    spec = plot_spec("p", "line", "b", "gflops", "");
    expect_error(db, "damaged", &spec, 1, dir, "JSON", NULL, __LINE__);
    expect_error(db, "damaged", NULL, 0, dir, "JSON", NULL, __LINE__);
    sqlite3 *blank = NULL;
    char blank_path[1100];
    snprintf(blank_path, sizeof blank_path, "%s/blank.db", dir);
    RT_CHECK(sqlite3_open(blank_path, &blank) == SQLITE_OK);
    expect_error(blank, "exp1", &spec, 1, dir, "no such table: points", "rooftune result store",
                 __LINE__);
    sqlite3_close(blank);
}

static void case_helpers(const char *dir, sqlite3 *db)
{
    char out[64];
    RT_CHECK(rt_plot_quote("it's", out, sizeof out) == 0 && strcmp(out, "'it''s'") == 0);
    RT_CHECK(rt_plot_quote("a\nb\\c\"d", out, sizeof out) == 0 && strcmp(out, "'a b\\c\"d'") == 0);
    RT_CHECK(rt_plot_quote(NULL, out, sizeof out) == 0 && strcmp(out, "''") == 0);
    RT_CHECK(rt_plot_quote("abcdefghij", out, 6) != 0 && strcmp(out, "'abc'") == 0);
    /* a doubled quote is never split: two of the four quotes fit */
    RT_CHECK(rt_plot_quote("''''", out, 7) != 0 && strcmp(out, "''''''") == 0);
    RT_CHECK(rt_plot_quote("x", out, 2) != 0);

    RT_CHECK(rt_plot_sanitize_name("gflops vs K/2", out, sizeof out) == 0 &&
             strcmp(out, "gflops_vs_K_2") == 0);
    RT_CHECK(rt_plot_sanitize_name("-rf", out, sizeof out) == 0 && strcmp(out, "_rf") == 0);
    RT_CHECK(rt_plot_sanitize_name(".hidden", out, sizeof out) == 0 && strcmp(out, "_hidden") == 0);
    RT_CHECK(rt_plot_sanitize_name("a.b-c_9", out, sizeof out) == 0 && strcmp(out, "a.b-c_9") == 0);
    RT_CHECK(rt_plot_sanitize_name("", out, sizeof out) == 0 && strcmp(out, "plot") == 0);
    RT_CHECK(rt_plot_sanitize_name("caf\xc3\xa9", out, sizeof out) == 0 &&
             strcmp(out, "caf__") == 0);
    RT_CHECK(rt_plot_sanitize_name("toolongname", out, 5) != 0 && strlen(out) == 4);

    char path[4096];
    if (have_gnuplot)
        RT_CHECK(rt_plot_find_gnuplot(path, sizeof path) == 0 && rt_test_contains(path, "gnuplot"));
    else
        RT_CHECK(rt_plot_find_gnuplot(path, sizeof path) != 0 && path[0] == '\0');
    RT_CHECK(rt_plot_find_gnuplot(NULL, 10) != 0);

    /* The style and render helpers write a script gnuplot accepts. */
    char script[1100];
    snprintf(script, sizeof script, "%s/helper.gp", dir);
    FILE *gp = fopen(script, "w");
    RT_CHECK(gp != NULL);
    if (gp) {
        rt_plot_write_style(gp);
        rt_plot_write_render(gp, "helper", "plot sin(x) title 'sin'");
        fclose(gp);
    }
    rt_err err;
    rt_err_clear(&err);
    if (have_gnuplot) {
        RT_CHECK_MSG(rt_plot_run_gnuplot(dir, "helper.gp", &err) == 0, "%s", err.msg);
        RT_CHECK(file_exists(dir, "helper.png") && file_exists(dir, "helper.svg"));
    } else {
        RT_CHECK(rt_plot_run_gnuplot(dir, "helper.gp", &err) != 0 &&
                 rt_test_contains(err.msg, "gnuplot not found"));
        RT_CHECK(!file_exists(dir, "helper.png") && !file_exists(dir, "helper.svg"));
    }
    (void)db;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(const char *dir, sqlite3 *db);
    } cases[] = {{"line", case_line},           {"bars", case_bars},
                 {"defaults", case_defaults},   {"gnuplot_missing", case_gnuplot_missing},
                 {"bad_input", case_bad_input}, {"helpers", case_helpers}};
    const int n_cases = (int)(sizeof cases / sizeof cases[0]);
    char gnuplot[4096];
    have_gnuplot = rt_plot_find_gnuplot(gnuplot, sizeof gnuplot) == 0;
    if (!have_gnuplot)
        printf("NOTE: gnuplot not on PATH: checking that no image is drawn and that the result "
               "says so, instead of the images\n");
    int ran = 0;
    for (int c = 0; c < n_cases; ++c) {
        if (argc > 1 && strcmp(argv[1], cases[c].name) != 0)
            continue;
        char *dir = make_temp_dir();
        RT_CHECK(dir != NULL);
        if (!dir)
            break;
        sqlite3 *db = make_store(dir);
        RT_CHECK(db != NULL);
        if (db)
            cases[c].run(dir, db);
        sqlite3_close(db);
        drop_temp_dir(dir);
        ++ran;
    }
    RT_CHECK_MSG(ran > 0, "unknown case '%s'", argc > 1 ? argv[1] : "");
    return RT_TEST_RESULT();
}
