/* Figures from a store written through rt_store (not by hand): guards the columns, JSON and
 * status text that rt_plot reads against what the store actually writes. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_plot.h"
#include "rt_plot_data.h"
#include "rt_store.h"
#include "rt_test.h"
#include "rt_test_point.h"

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int add(rt_store *st, int64_t run, const char *kernel, int row_block, double gflops,
               rt_point_status status, rt_err *err)
{
    static const double samples[3] = {0.001, 0.002, 0.003};
    rt_metrics metrics;
    rt_metrics_init(&metrics);
    rt_metrics_add(&metrics, "dram_bytes", "bytes", 100.0 * row_block, 1);
    rt_metrics_unavailable(&metrics, "l2_misses", "count", "perf_event_paranoid=3");
    rt_point_record pt;
    char key[sizeof pt.point_key];
    snprintf(key, sizeof key, "%s-%d-%d", kernel, row_block, (int)status);
    rt_test_point(&pt, "real", key, samples, 3);
    /* What the figures tell apart: kernel, row_block, status and speed. */
    snprintf(pt.kernel, sizeof pt.kernel, "%s", kernel);
    snprintf(pt.params_json, sizeof pt.params_json, "{\"row_block\":%d}", row_block);
    snprintf(pt.problem_json, sizeof pt.problem_json, "{\"K\":32}");
    pt.status = status;
    pt.verified = status == RT_POINT_OK;
    pt.rel_error = status == RT_POINT_OK ? 1e-7 : 0.5;
    pt.time_median_s = 1.0 / gflops;
    pt.time_min_s = pt.time_max_s = pt.time_mean_s = pt.time_median_s;
    pt.time_stddev_s = 0;
    pt.flops = 1e9;
    pt.gflops = gflops;
    pt.gnnz_s = gflops / 2;
    pt.metrics = &metrics;
    return rt_store_add_point(st, run, &pt, NULL, err);
}

/* Text on an axis sorts with runs of digits by value; numbers stay before text. */
static void test_natural_x_order(void)
{
    static const char *const sorted[] = {
        "dnn-1024", "dnn-4096", "dnn-16384", "dnn-65536",       "rank-9",
        "rank-010", "rank-10",  "xct-256",   "xct-256-hilbert", "xct-512-hilbert"};
    const int n = (int)(sizeof sorted / sizeof sorted[0]);
    rt_plot_row a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            snprintf(a.x_text, sizeof a.x_text, "%s", sorted[i]);
            snprintf(b.x_text, sizeof b.x_text, "%s", sorted[j]);
            const int c = rt_plot_data_compare_x(&a, &b);
            RT_CHECK_MSG((c < 0) == (i < j) && (c == 0) == (i == j), "%s vs %s: %d", sorted[i],
                         sorted[j], c);
        }
    a.x_numeric = 1;
    a.x = 1e9;
    RT_CHECK(rt_plot_data_compare_x(&a, &b) < 0); /* a number before any text */
}

int main(void)
{
    test_natural_x_order();
    char templ[] = "/tmp/rt_plot_store_XXXXXX";
    char *dir = mkdtemp(templ);
    RT_CHECK(dir != NULL);
    if (!dir)
        return RT_TEST_RESULT();
    char path[1024];
    snprintf(path, sizeof path, "%s/results.db", dir);
    rt_err err;
    rt_err_clear(&err);
    rt_store *st = NULL;
    RT_CHECK_MSG(rt_store_open(path, &st, &err) == 0, "%s", err.msg);
    if (!st)
        return RT_TEST_RESULT();
    rt_provenance prov;
    rt_provenance_init(&prov);
    snprintf(prov.config_hash, sizeof prov.config_hash, "0123456789abcdef");
    snprintf(prov.config_path, sizeof prov.config_path, "configs/plot-test.yaml");
    prov.config_text = "experiment: {name: real}\n";
    snprintf(prov.device, sizeof prov.device, "cpu");
    prov.nranks = 1;
    int64_t run = 0;
    RT_CHECK_MSG(rt_store_begin_run(st, &prov, "real", &run, &err) == 0, "%s", err.msg);
    static const int blocks[] = {32, 64, 128};
    for (int b = 0; b < 3; ++b) {
        RT_CHECK_MSG(add(st, run, "spmm.cpu.csr", blocks[b], 1.0 + b, RT_POINT_OK, &err) == 0, "%s",
                     err.msg);
        RT_CHECK_MSG(add(st, run, "spmm.cpu.ell", blocks[b], 2.5 + b, RT_POINT_OK, &err) == 0, "%s",
                     err.msg);
    }
    RT_CHECK_MSG(add(st, run, "spmm.cpu.csr", 32, 999.0, RT_POINT_WRONG, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(rt_store_end_run(st, run, "complete", &err) == 0, "%s", err.msg);

    char out[1100];
    snprintf(out, sizeof out, "%s/figures", dir);
    rt_plot_result res;
    RT_CHECK_MSG(rt_plot_experiment(rt_store_db(st), "real", NULL, 0, out, &res, &err) == 0, "%s",
                 err.msg);
    RT_CHECK_MSG(res.n_figures == 2, "%s", res.message);
    /* Rendering depends on gnuplot being on PATH (the GPU hosts have none): the result must say
     * which it was; the .dat checks below hold either way. */
    char gnuplot[4096];
    const int have_gnuplot = rt_plot_find_gnuplot(gnuplot, sizeof gnuplot) == 0;
    RT_CHECK_MSG(
        res.gnuplot_missing == !have_gnuplot &&
            rt_test_contains(res.message, have_gnuplot ? ".png, .svg" : "gnuplot not found"),
        "gnuplot %s: %s", have_gnuplot ? "found" : "missing", res.message);
    char *dat = rt_test_read_file(out, "gflops-vs-row_block-band.dat", NULL);
    RT_CHECK_MSG(dat && rt_test_contains(dat, "32 1 1\n64 2 1\n128 3 1\n") &&
                     rt_test_contains(dat, "32 2.5 1\n64 3.5 1\n128 4.5 1\n") &&
                     !rt_test_contains(dat, "999"),
                 "%s", dat ? dat : "(missing)");
    free(dat);

    rt_plot_cfg spec;
    memset(&spec, 0, sizeof spec);
    snprintf(spec.type, sizeof spec.type, "line");
    snprintf(spec.x, sizeof spec.x, "K");
    snprintf(spec.y, sizeof spec.y, "dram_bytes");
    snprintf(spec.series, sizeof spec.series, "kernel");
    RT_CHECK_MSG(rt_plot_experiment(rt_store_db(st), "real", &spec, 1, out, &res, &err) == 0, "%s",
                 err.msg);
    dat = rt_test_read_file(out, "line-K-dram_bytes.dat", NULL);
    RT_CHECK_MSG(dat && rt_test_contains(dat, "32 12800 3\n"), "%s", dat ? dat : "(missing)");
    free(dat);
    /* An unavailable metric is NULL in the store: nothing to draw, so the figure is skipped. */
    snprintf(spec.y, sizeof spec.y, "l2_misses");
    RT_CHECK_MSG(rt_plot_experiment(rt_store_db(st), "real", &spec, 1, out, &res, &err) == 0, "%s",
                 err.msg);
    RT_CHECK_MSG(res.n_figures == 0 && rt_test_contains(res.message, "skipped"), "%s", res.message);

    rt_store_close(st);
    if (rt_test_failures == 0)
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    else
        fprintf(stderr, "files kept in %s\n", dir);
    return RT_TEST_RESULT();
}
