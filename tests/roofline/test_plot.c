/* The roofline figure: a store written by hand, points read back with their intensities, the
 * local and inter-node figures written (.dat, .gp, .png, .svg), gnuplot missing handled, bad
 * input rejected. Usage: test_plot <scratch-dir> <machines-dir> */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_machine.h"
#include "rt_plot_gnuplot.h"
#include "rt_roofline_plot.h"
#include "rt_store.h"
#include "rt_test.h"

static void add_point(rt_store *st, int64_t run, const char *kernel, const char *problem,
                      int ranks, double gflops, double flops, double dram, double net,
                      double counted, rt_point_status status)
{
    rt_point_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.experiment, sizeof r.experiment, "roof");
    snprintf(r.kernel, sizeof r.kernel, "%s", kernel);
    snprintf(r.backend, sizeof r.backend, "cpu");
    snprintf(r.family, sizeof r.family, "spmm");
    snprintf(r.matrix, sizeof r.matrix, "band");
    snprintf(r.params_json, sizeof r.params_json, "{\"row_block\":64}");
    snprintf(r.problem_json, sizeof r.problem_json, "%s", problem);
    snprintf(r.device, sizeof r.device, "test");
    snprintf(r.point_key, sizeof r.point_key, "%016llx", (unsigned long long)(gflops * 1000));
    r.ranks = ranks;
    r.status = status;
    r.verified = 1;
    const double sample = flops / (gflops * 1e9);
    r.n_samples = 1;
    r.samples = &sample;
    r.time_median_s = r.time_min_s = r.time_max_s = r.time_mean_s = sample;
    r.time_stddev_s = 0;
    r.rel_error = 0;
    r.flops = flops;
    r.gflops = gflops;
    r.gnnz_s = NAN;
    r.bound_s = NAN;
    r.efficiency = NAN;
    r.ci_rel = 0;
    rt_metrics m;
    rt_metrics_init(&m);
    rt_metrics_add(&m, "model_flops", "flop", flops, 1);
    if (dram > 0)
        rt_metrics_add(&m, "model_dram_bytes", "bytes", dram, 1);
    if (net > 0)
        rt_metrics_add(&m, "model_net_bytes_global", "bytes", net, 1);
    if (counted > 0) {
        rt_metrics_add(&m, "dram_bytes_read", "bytes", counted * 0.75, 0);
        rt_metrics_add(&m, "dram_bytes_write", "bytes", counted * 0.25, 0);
    } else {
        rt_metrics_unavailable(&m, "dram_bytes_read", "bytes", "no counters here");
    }
    r.metrics = &m;
    int64_t id;
    rt_err err;
    RT_CHECK_MSG(rt_store_add_point(st, run, &r, &id, &err) == 0, "%s", err.msg);
}

static long file_size(const char *dir, const char *name)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

static int file_starts_with(const char *dir, const char *name, const char *magic, size_t n)
{
    char path[2048], buf[64] = {0};
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    const size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    return got >= n && memcmp(buf, magic, n) == 0;
}

static int file_contains(const char *dir, const char *name, const char *needle)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char *buf = calloc(1, 1 << 20);
    const size_t got = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    const int found = buf && got > 0 && strstr(buf, needle) != NULL;
    free(buf);
    return found;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <scratch> <machines>\n", argv[0]);
        return 2;
    }
    char dir[2048], db_path[2048], machine_path[2048];
    snprintf(dir, sizeof dir, "%s/plot", argv[1]);
    mkdir(dir, 0755);
    snprintf(db_path, sizeof db_path, "%s/roof.db", dir);
    remove(db_path);
    snprintf(machine_path, sizeof machine_path, "%s/summit-node.yaml", argv[2]);

    rt_err err;
    rt_machine m;
    if (rt_machine_load(machine_path, &m, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    rt_store *st = NULL;
    if (rt_store_open(db_path, &st, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    rt_provenance prov;
    rt_provenance_init(&prov);
    prov.nranks = 1;
    snprintf(prov.config_hash, sizeof prov.config_hash, "0123456789abcdef");
    int64_t run = 0;
    RT_CHECK_MSG(rt_store_begin_run(st, &prov, "roof", &run, &err) == 0, "%s", err.msg);
    /* intensity 0.25 flop/B (memory-bound), 8 flop/B with counters at 4 flop/B, a distributed
     * fp64 point (net intensity 2), one without a traffic model, one that failed. */
    add_point(st, run, "spmm.cpu.csr", "{\"K\":8,\"precision\":\"fp32\"}", 1, 100, 1e9, 4e9, 0, 0,
              RT_POINT_OK);
    add_point(st, run, "spmm.cpu.tiled", "{\"K\":64,\"precision\":\"fp32\"}", 1, 2000, 8e9, 1e9, 0,
              2e9, RT_POINT_ABOVE_ROOFLINE);
    add_point(st, run, "spmm.cpu.dist", "{\"K\":32,\"precision\":\"fp64\"}", 4, 400, 2e9, 5e8, 1e9,
              0, RT_POINT_OK);
    add_point(st, run, "spmm.cpu.nomodel", "{\"K\":8,\"precision\":\"fp32\"}", 1, 50, 1e9, 0, 0, 0,
              RT_POINT_OK);
    add_point(st, run, "spmm.cpu.bad", "{\"K\":8,\"precision\":\"fp32\"}", 1, 10, 1e9, 1e9, 0, 0,
              RT_POINT_WRONG);
    sqlite3 *db = rt_store_db(st);

    rt_roofline_point *pts = NULL;
    int n = 0;
    RT_CHECK_MSG(rt_roofline_load_points(db, "roof", &pts, &n, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(n == 4, "%d points (the wrong one must be left out)", n);
    if (n == 4) {
        RT_CHECK(fabs(pts[0].intensity - 0.25) < 1e-12 && isnan(pts[0].counted_intensity));
        RT_CHECK(fabs(pts[1].intensity - 8) < 1e-12 && fabs(pts[1].counted_intensity - 4) < 1e-12);
        RT_CHECK(pts[1].above == 1 && pts[0].above == 0);
        RT_CHECK(pts[2].precision == RT_FP64 && pts[2].ranks == 4);
        RT_CHECK(fabs(pts[2].net_intensity - 2) < 1e-12 && isnan(pts[0].net_intensity));
        RT_CHECK(isnan(pts[3].intensity));
        RT_CHECK_MSG(rt_test_contains(pts[0].label, "cpu.csr band fp32"), "%s", pts[0].label);
    }
    free(pts);
    RT_CHECK(rt_roofline_load_points(db, "nope", &pts, &n, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "'nope'") && rt_test_contains(err.msg, "'roof'"), "%s",
                 err.msg);

    /* Images only where gnuplot is installed (CI and this host have it; a GPU node may not). */
    char gnuplot[1024];
    const int have_gnuplot = rt_plot_find_gnuplot(gnuplot, sizeof gnuplot) == 0;
    if (!have_gnuplot)
        printf("NOTE: gnuplot not on PATH: checking .dat/.gp only, not the images\n");
    rt_roofline_plot_opts o = {dir, "fig", NULL, 1};
    rt_roofline_plot_result res;
    RT_CHECK_MSG(rt_roofline_plot_store(db, "roof", &m, &o, &res, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(res.n_figures == 2 && res.n_points == 3 && res.n_internode == 1 &&
                     res.n_skipped == 1 && res.gnuplot_missing == !have_gnuplot,
                 "%d figures, %d points, %d internode, %d skipped", res.n_figures, res.n_points,
                 res.n_internode, res.n_skipped);
    const char *files[] = {"fig.dat", "fig.gp", "fig-internode.dat", "fig-internode.gp",
                           "fig.png", "fig.svg", "fig-internode.png", "fig-internode.svg"};
    for (int i = 0; i < (have_gnuplot ? 8 : 4); ++i)
        RT_CHECK_MSG(file_size(dir, files[i]) > 0, "%s/%s missing or empty", dir, files[i]);
    if (have_gnuplot) {
        RT_CHECK(file_starts_with(dir, "fig.png", "\x89PNG", 4));
        RT_CHECK(file_contains(dir, "fig.svg", "<svg"));
    }
    /* The ceilings, spec and measured, are in the script; the points in the data. */
    RT_CHECK(file_contains(dir, "fig.gp", "dram spec 900 GB/s"));
    RT_CHECK(file_contains(dir, "fig.gp", "fp64 peak spec 7800"));
    RT_CHECK(file_contains(dir, "fig-internode.gp", "network (global) measured 3.83 GB/s"));
    RT_CHECK(file_contains(dir, "fig-internode.gp", "network (global) spec 4.17 GB/s"));
    RT_CHECK(file_contains(dir, "fig.dat", "\t0.25\t100\t"));
    RT_CHECK(file_contains(dir, "fig-internode.dat", "\t2\t100\t")); /* 400 GFLOP/s / 4 ranks */

    /* gnuplot missing: data and scripts still written, success with the flag set. */
    const char *old_path = getenv("PATH");
    char *saved = old_path ? strdup(old_path) : NULL;
    setenv("PATH", dir, 1);
    rt_roofline_plot_opts o2 = {dir, "nognuplot", "custom title", 1};
    RT_CHECK_MSG(rt_roofline_plot_store(db, NULL, &m, &o2, &res, &err) == 0, "%s", err.msg);
    RT_CHECK(res.gnuplot_missing == 1 && rt_test_contains(res.message, "gnuplot"));
    RT_CHECK(file_size(dir, "nognuplot.gp") > 0 && file_size(dir, "nognuplot.png") < 0);
    RT_CHECK(file_contains(dir, "nognuplot.gp", "custom title"));
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    }

    /* Bad input: no folder, a folder that does not exist, a machine without a global tier for
     * distributed points. */
    rt_roofline_plot_opts bad = {NULL, NULL, NULL, 0};
    RT_CHECK(rt_roofline_plot_store(db, "roof", &m, &bad, &res, &err) != 0);
    rt_roofline_plot_opts nodir = {"/nonexistent/dir", NULL, NULL, 0};
    RT_CHECK(rt_roofline_plot_store(db, "roof", &m, &nodir, &res, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "/nonexistent/dir"), "%s", err.msg);
    rt_machine single;
    char single_path[2048];
    snprintf(single_path, sizeof single_path, "%s/h100-x1.yaml", argv[2]);
    RT_CHECK(rt_machine_load(single_path, &single, &err) == 0);
    RT_CHECK(rt_roofline_plot_store(db, "roof", &single, &o, &res, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "global network tier"), "%s", err.msg);
    rt_roofline_point none;
    RT_CHECK(rt_roofline_plot_points(&m, NULL, 3, &o, &res, &err) != 0);
    (void)none;
    /* A database that is not a rooftune store. */
    sqlite3 *other = NULL;
    RT_CHECK(sqlite3_open(":memory:", &other) == SQLITE_OK);
    RT_CHECK(rt_roofline_load_points(other, NULL, &pts, &n, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "rooftune store"), "%s", err.msg);
    sqlite3_close(other);

    rt_store_close(st);
    return RT_TEST_RESULT();
}
