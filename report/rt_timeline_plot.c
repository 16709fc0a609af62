/* rt_timeline_plot: the Gantt chart of a timeline; see rt_timeline_plot.h. */
#include "rt_timeline_plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_outdir.h"
#include "rt_outfile.h"
#include "rt_path.h"
#include "rt_plot_gnuplot.h"

#define LANES_PER_GPU 4
/* Half a lane's height: boxes of neighbouring lanes keep a gap between them. */
#define BOX_HALF 0.38

static const char *const lane_names[LANES_PER_GPU] = {"kernels", "H2D", "D2H", "P2P/D2D"};
static const char *const kind_colours[RT_TIMELINE_KIND_COUNT] = {"#1f77b4", "#2ca02c", "#d62728",
                                                                 "#9467bd", "#ff7f0e"};

/* The lane of a kind within its GPU's four. */
static int engine_of(rt_timeline_kind k)
{
    switch (k) {
    case RT_TIMELINE_KERNEL: return 0;
    case RT_TIMELINE_H2D: return 1;
    case RT_TIMELINE_D2H: return 2;
    default: return 3; /* d2d and p2p share the copies-between-memories lane */
    }
}

static int by_start(const void *x, const void *y)
{
    const rt_timeline_record *a = *(const rt_timeline_record *const *)x;
    const rt_timeline_record *b = *(const rt_timeline_record *const *)y;
    if (a->kind != b->kind)
        return (a->kind > b->kind) - (a->kind < b->kind);
    if (a->device != b->device)
        return (a->device > b->device) - (a->device < b->device);
    if (a->start_ns != b->start_ns)
        return (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
    if (a->end_ns != b->end_ns)
        return (a->end_ns > b->end_ns) - (a->end_ns < b->end_ns);
    return (a->stream > b->stream) - (a->stream < b->stream);
}

static int int_order(const void *x, const void *y)
{
    const int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* The distinct devices of l, ascending, into dev (room for l->n); returns how many. */
static int devices_of(const rt_timeline_list *l, int *dev)
{
    for (int64_t i = 0; i < l->n; ++i)
        dev[i] = l->v[i].device;
    qsort(dev, (size_t)l->n, sizeof *dev, int_order);
    int n = 0;
    for (int64_t i = 0; i < l->n; ++i)
        if (n == 0 || dev[n - 1] != dev[i])
            dev[n++] = dev[i];
    return n;
}

static int lane_of(const rt_timeline_record *r, const int *dev, int n_dev)
{
    int d = 0;
    while (d < n_dev - 1 && dev[d] != r->device)
        ++d;
    return d * LANES_PER_GPU + engine_of(r->kind);
}

/* out_dir/<stem>.<ext>, opened to be written whole or not at all. */
static int open_output(const char *dir, const char *stem, const char *ext, rt_outfile *o,
                       rt_err *err)
{
    char path[RT_OUTFILE_PATH_MAX];
    const int rc = rt_path_format(path, sizeof path, err, "%s/%s.%s", dir, stem, ext);
    return rc == 0 ? rt_outfile_open(o, path, err) : rc;
}

/* The .dat: one block per kind present (gnuplot's `index`), rows by start; kinds[] receives the
 * kinds in block order, *n_kinds how many. */
static int write_data(const rt_timeline_list *l, const rt_timeline_record **order, const int *dev,
                      int n_dev, const char *dir, const char *stem, int *kinds, int *n_kinds,
                      rt_err *err)
{
    rt_outfile o = RT_OUTFILE_NONE;
    if (open_output(dir, stem, "dat", &o, err) != 0)
        return rt_err_prefix(err, "timeline figure");
    uint64_t t0 = UINT64_MAX;
    for (int64_t i = 0; i < l->n; ++i)
        t0 = l->v[i].start_ns < t0 ? l->v[i].start_ns : t0;
    fprintf(o.f, "# GPU timeline: %lld record(s) on %d GPU(s); times in ms from the first record\n",
            (long long)l->n, n_dev);
    fprintf(o.f, "# lane = GPU index x %d + engine (0 kernels, 1 H2D, 2 D2H, 3 P2P/D2D)\n",
            LANES_PER_GPU);
    fprintf(o.f, "# lane\tstart_ms\tend_ms\tdevice\tstream\tbytes\tname\tpoint\n");
    *n_kinds = 0;
    for (int64_t i = 0; i < l->n; ++i) {
        const rt_timeline_record *r = order[i];
        if (i == 0 || r->kind != order[i - 1]->kind) {
            fprintf(o.f, "%s# block %d: %s\n", i ? "\n\n" : "", *n_kinds,
                    rt_timeline_kind_name(r->kind));
            kinds[(*n_kinds)++] = r->kind;
        }
        char point[RT_TIMELINE_NAME_MAX];
        rt_timeline_set_name(point, r->point); /* a CSV's point may hold anything: keep one line */
        fprintf(o.f, "%d\t%.10g\t%.10g\t%d\t%u\t%llu\t%s\t%s\n", lane_of(r, dev, n_dev),
                (double)(r->start_ns - t0) * 1e-6, (double)(r->end_ns - t0) * 1e-6, r->device,
                (unsigned)r->stream, (unsigned long long)r->bytes, r->name[0] ? r->name : "-",
                point[0] ? point : "-");
    }
    return rt_outfile_commit(&o, err) != 0 ? rt_err_prefix(err, "timeline figure") : 0;
}

static int write_script(const int *dev, int n_dev, const int *kinds, int n_kinds, const char *dir,
                        const char *stem, const char *title, rt_err *err)
{
    rt_outfile o = RT_OUTFILE_NONE;
    if (open_output(dir, stem, "gp", &o, err) != 0)
        return rt_err_prefix(err, "timeline figure");
    FILE *gp = o.f;
    const int lanes = n_dev * LANES_PER_GPU;
    char q[600];
    fprintf(gp, "# Timeline figure written by rooftune; regenerate with: gnuplot %s.gp\n", stem);
    fprintf(gp, "reset\n");
    rt_plot_write_style(gp);
    rt_plot_quote(title, q, sizeof q);
    fprintf(gp, "set title %s\n", q);
    fprintf(gp, "set xlabel 'time (ms) from the first record'\n");
    fprintf(gp, "set xrange [0:*]\n");
    fprintf(gp, "# Lanes top to bottom: each GPU's kernels, H2D, D2H, P2P/D2D copies.\n");
    fprintf(gp, "set yrange [%g:%g]\n", lanes - 0.5, -0.5);
    fprintf(gp, "set ytics (");
    for (int d = 0; d < n_dev; ++d)
        for (int e = 0; e < LANES_PER_GPU; ++e) {
            char label[64];
            snprintf(label, sizeof label, "GPU %d %s", dev[d], lane_names[e]);
            rt_plot_quote(label, q, sizeof q);
            fprintf(gp, "%s%s %d", d || e ? ", " : "", q, d * LANES_PER_GPU + e);
        }
    fprintf(gp, ")\n");
    fprintf(gp, "set grid xtics noytics\n");
    for (int d = 1; d < n_dev; ++d)
        fprintf(gp,
                "set arrow from graph 0, first %g to graph 1, first %g nohead lc rgb '#808080'\n",
                d * LANES_PER_GPU - 0.5, d * LANES_PER_GPU - 0.5);
    fprintf(gp, "set datafile separator '\\t'\n");
    fprintf(gp, "set style fill solid 0.85 noborder\n");
    char cmd[4096];
    size_t used = (size_t)snprintf(cmd, sizeof cmd, "plot \\\n");
    for (int b = 0; b < n_kinds; ++b)
        used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                 "  '%s.dat' index %d using 2:1:2:3:($1 - %g):($1 + %g) with "
                                 "boxxyerror lc rgb '%s' title '%s'%s\n",
                                 stem, b, BOX_HALF, BOX_HALF, kind_colours[kinds[b]],
                                 rt_timeline_kind_name((rt_timeline_kind)kinds[b]),
                                 b + 1 < n_kinds ? ", \\" : "");
    rt_plot_write_render(gp, stem, cmd);
    return rt_outfile_commit(&o, err) != 0 ? rt_err_prefix(err, "timeline figure") : 0;
}

int rt_timeline_plot(const rt_timeline_list *l, const rt_timeline_plot_opts *opt,
                     rt_timeline_plot_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    if (!opt || !opt->out_dir)
        return rt_err_set(err, "timeline figure: no output folder given");
    if (l->n == 0)
        return rt_err_set(err, "timeline figure: the timeline holds no record");
    if (rt_plot_sanitize_name(opt->stem ? opt->stem : "timeline", res->stem, sizeof res->stem) != 0)
        return rt_err_set(err, "timeline figure: name '%s' is too long", opt->stem);
    const rt_timeline_record **order = malloc((size_t)l->n * sizeof *order);
    int *dev = malloc((size_t)l->n * sizeof *dev);
    if (!order || !dev) {
        free(order);
        free(dev);
        return rt_err_set(err, "timeline figure: out of memory for %lld records", (long long)l->n);
    }
    for (int64_t i = 0; i < l->n; ++i)
        order[i] = &l->v[i];
    qsort(order, (size_t)l->n, sizeof *order, by_start);
    const int n_dev = devices_of(l, dev);
    int kinds[RT_TIMELINE_KIND_COUNT], n_kinds = 0;
    rt_outdir made;
    int rc = rt_outdir_make(&made, opt->out_dir, err);
    if (rc == 0)
        rc = write_data(l, order, dev, n_dev, opt->out_dir, res->stem, kinds, &n_kinds, err);
    if (rc == 0)
        rc = write_script(dev, n_dev, kinds, n_kinds, opt->out_dir, res->stem,
                          opt->title ? opt->title : "GPU timeline", err);
    free(order);
    free(dev);
    if (rc == 0 && opt->run_gnuplot) {
        char gnuplot[1024];
        if (rt_plot_find_gnuplot(gnuplot, sizeof gnuplot) != 0)
            res->gnuplot_missing = 1;
        else
            rc = rt_plot_render(opt->out_dir, res->stem, err);
    }
    if (rc != 0) {
        rt_outdir_undo(&made);
        return -1;
    }
    res->n_records = (int)l->n;
    res->n_devices = n_dev;
    return 0;
}
