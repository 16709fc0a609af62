/* The roofline figure: a store written by hand, points read back with their intensities, the
 * local and inter-node figures written (.dat, .gp, .png, .svg), gnuplot missing handled, bad
 * input rejected. Usage: test_roofline_plot <scratch-dir> <machines-dir> */
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
#include "rt_test_point.h"

static void add_point(rt_store *st, int64_t run, const char *kernel, const char *problem, int ranks,
                      double gflops, double flops, double dram, double net, double counted,
                      rt_point_status status)
{
    rt_point_record r;
    char key[sizeof r.point_key];
    snprintf(key, sizeof key, "%016llx", (unsigned long long)(gflops * 1000));
    const double sample = flops / (gflops * 1e9);
    rt_test_point(&r, "roof", key, &sample, 1);
    /* What the roofline reads: kernel, problem, ranks, status, time and flops (the traffic is in
     * the metrics below). */
    snprintf(r.kernel, sizeof r.kernel, "%s", kernel);
    snprintf(r.params_json, sizeof r.params_json, "{\"row_block\":64}");
    snprintf(r.problem_json, sizeof r.problem_json, "%s", problem);
    snprintf(r.device, sizeof r.device, "test");
    r.ranks = ranks;
    r.status = status;
    r.time_median_s = r.time_min_s = r.time_max_s = r.time_mean_s = sample;
    r.time_stddev_s = 0;
    r.rel_error = 0;
    r.flops = flops;
    r.gflops = gflops;
    r.gnnz_s = NAN;
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

/* The labelling rule on points built by hand: 5 kernels x 3 matrices x 4 parameter settings.
 * Every point is drawn, one style per kernel; exactly the best point (GFLOP/s per rank) of each
 * (kernel, matrix) gets a tag, numbered 1..15 in the .dat's key table and drawn in the figure's
 * table; tags of two best points that sit on the same spot do not land on the same spot. */
static void test_labels(const char *dir, const rt_machine *m)
{
    static const char *const kernels[] = {"spmm.cuda.csr", "spmm.cuda.ell", "spmm.cuda.tiled",
                                          "spmm.cuda.cusparse", "spmm.cpu.csr"};
    static const char *const matrices[] = {"banded", "rmat", "xct"};
    enum { NK = 5, NM = 3, NP = 4, N = NK * NM * NP };
    rt_roofline_point pts[N];
    memset(pts, 0, sizeof pts);
    double best[NK][NM];
    int n = 0;
    for (int k = 0; k < NK; ++k)
        for (int j = 0; j < NM; ++j) {
            best[k][j] = 0;
            for (int q = 0; q < NP; ++q) {
                rt_roofline_point *p = &pts[n];
                p->id = 100 + n;
                snprintf(p->kernel, sizeof p->kernel, "%s", kernels[k]);
                snprintf(p->matrix, sizeof p->matrix, "%s", matrices[j]);
                snprintf(p->label, sizeof p->label, "%s %s fp32 block:%d", kernels[k] + 5,
                         matrices[j], 32 << q);
                p->precision = RT_FP32;
                p->ranks = 1;
                /* The best setting moves around: q = (k + j) % NP. */
                p->gflops = 100.0 * (1 + j) + 10.0 * k + (q == (k + j) % NP ? 9.0 : q);
                p->intensity = 0.5 * (1 + j) + 0.01 * q;
                p->counted_intensity = NAN;
                p->net_intensity = NAN;
                if (p->gflops > best[k][j])
                    best[k][j] = p->gflops;
                ++n;
            }
        }
    /* Two best points on the very same spot: spmm.cuda.csr and spmm.cuda.ell on rmat. */
    pts[1 * NP + 1].gflops = 500;
    pts[1 * NP + 1].intensity = 3;
    pts[NM * NP + 1 * NP + 2].gflops = 500;
    pts[NM * NP + 1 * NP + 2].intensity = 3;
    best[0][1] = best[1][1] = 500;

    rt_roofline_plot_opts o = {dir, "labels", NULL, 1};
    rt_roofline_plot_result res;
    rt_err err;
    RT_CHECK_MSG(rt_roofline_plot_points(m, pts, N, &o, &res, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(res.n_points == N && res.n_labelled == NK * NM, "%d points, %d labelled",
                 res.n_points, res.n_labelled);

    char path[2100];
    snprintf(path, sizeof path, "%s/labels.dat", dir);
    FILE *f = fopen(path, "r");
    RT_CHECK(f != NULL);
    if (!f)
        return;
    int rows = 0, key_lines = 0, key_seen[NK * NM + 1] = {0}, labelled[NK][NM] = {{0}};
    int style_of[NK], leaders = 0;
    for (int k = 0; k < NK; ++k)
        style_of[k] = -1;
    double tag[NK * NM + 1][2];
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "# key ", 6) == 0 && line[6] >= '0' && line[6] <= '9') {
            ++key_lines;
            continue;
        }
        if (line[0] == '#')
            continue;
        /* id, x, y, counted, local roof, above, "label", style, key, tag_x, tag_y */
        long long id = 0;
        double x = 0, y = 0, tx = 0, ty = 0;
        int style = -1, key = -1;
        const char *q2 = strrchr(line, '"');
        double ex = 0, ey = 0;
        if (sscanf(line, "%lld\t%lf\t%lf", &id, &x, &y) != 3 || !q2 ||
            sscanf(q2 + 1, "\t%d\t%d\t%lf\t%lf\t%lf\t%lf", &style, &key, &tx, &ty, &ex, &ey) != 6) {
            RT_CHECK_MSG(0, "unreadable row: %s", line);
            continue;
        }
        ++rows;
        const int i = (int)(id - 100);
        RT_CHECK(i >= 0 && i < N);
        if (i < 0 || i >= N)
            continue;
        const int k = i / (NM * NP), j = (i / NP) % NM;
        /* One style per kernel, different kernels different styles. */
        if (style_of[k] < 0)
            style_of[k] = style;
        RT_CHECK_MSG(style_of[k] == style, "%s has styles %d and %d", kernels[k], style_of[k],
                     style);
        if (key > 0) {
            RT_CHECK_MSG(key <= NK * NM && !key_seen[key], "key %d twice or out of range", key);
            if (key <= NK * NM) {
                key_seen[key] = 1;
                tag[key][0] = tx;
                tag[key][1] = ty;
            }
            ++labelled[k][j];
            RT_CHECK_MSG(y == best[k][j], "%s %s: tagged %g, best %g", kernels[k], matrices[j], y,
                         best[k][j]);
            RT_CHECK_MSG(tx > 0 && ty > 0 && isfinite(tx) && isfinite(ty), "key %d at %g,%g", key,
                         tx, ty);
            /* A leader line, when there is one, ends near the tag, not at the point. */
            RT_CHECK_MSG(isnan(ex) == isnan(ey) && (isnan(ex) || (ex > 0 && ey > 0)),
                         "key %d leader %g,%g", key, ex, ey);
            leaders += !isnan(ex);
        } else {
            RT_CHECK_MSG(key == 0 && isnan(tx) && isnan(ty) && isnan(ex) && isnan(ey),
                         "untagged row %lld: key %d", id, key);
        }
    }
    fclose(f);
    RT_CHECK_MSG(rows == N, "%d rows: every point is drawn", rows);
    /* Five points on one spot cannot all keep a tag beside them. */
    RT_CHECK_MSG(leaders > 0, "no tag was moved away from its point");
    RT_CHECK_MSG(key_lines == NK * NM, "%d key lines", key_lines);
    for (int k = 0; k < NK; ++k) {
        for (int j = 0; j < NM; ++j)
            RT_CHECK_MSG(labelled[k][j] == 1, "%s %s: %d tags", kernels[k], matrices[j],
                         labelled[k][j]);
        for (int k2 = 0; k2 < k; ++k2)
            RT_CHECK(style_of[k] != style_of[k2]);
    }
    /* No two tags on one spot: in particular the two best points that coincide. */
    for (int a = 1; a <= NK * NM; ++a)
        for (int b = 1; b < a; ++b)
            RT_CHECK_MSG(key_seen[a] && key_seen[b] &&
                             (tag[a][0] != tag[b][0] || tag[a][1] != tag[b][1]),
                         "tags %d and %d at the same place", a, b);
    /* The script: one titled point item per kernel, tags from the key column, the key table. */
    for (int k = 0; k < NK; ++k) {
        char item[128];
        snprintf(item, sizeof item, "($8 == %d ? $3 : NaN) with points", style_of[k]);
        RT_CHECK_MSG(file_contains(dir, "labels.gp", item), "no item for style %d", style_of[k]);
        snprintf(item, sizeof item, "title '%s'", kernels[k]);
        RT_CHECK_MSG(file_contains(dir, "labels.gp", item), "no legend entry %s", item);
    }
    RT_CHECK(file_contains(dir, "labels.gp", "using 10:11:(stringcolumn(9)) with labels"));
    /* Keys follow the kernels' first appearance, then the matrix name. */
    RT_CHECK(file_contains(dir, "labels.gp", "set label ' 1  cuda.csr banded fp32 block:"));
    RT_CHECK(file_contains(dir, "labels.gp", "set label '12  cuda.cusparse xct fp32 block:"));
    RT_CHECK(file_contains(dir, "labels.gp", "set label '15  cpu.csr xct fp32 block:"));
    RT_CHECK(file_contains(dir, "labels.dat",
                           "# key 2\tid 105\tspmm.cuda.csr\trmat\t500 GFLOP/s per rank"));
    RT_CHECK(!file_contains(dir, "labels.gp", "set label '16 "));
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
        RT_CHECK(strcmp(pts[0].kernel, "spmm.cpu.csr") == 0 && strcmp(pts[0].matrix, "band") == 0);
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
    const char *files[] = {"fig.dat", "fig.gp",  "fig-internode.dat", "fig-internode.gp",
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

    test_labels(dir, &m);

    rt_store_close(st);
    return RT_TEST_RESULT();
}
