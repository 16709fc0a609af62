/* rt_roofline_plot: roofline figures (local and inter-node) from stored results. */
#include "rt_roofline_plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_outfile.h"
#include "rt_path.h"
#include "rt_plot_gnuplot.h"
#include "rt_store_read.h"

/* ---- loading points from the store -------------------------------------------------------- */

static int list_experiments(struct sqlite3 *db, const char *experiment, rt_err *err)
{
    char known[1024];
    rt_store_point_experiments_text(db, known, sizeof known);
    return rt_err_set(err, "roofline plot: no experiment '%s' in the store (experiments: %s)",
                      experiment, known[0] ? known : "none");
}

/* Short label: kernel without its family prefix, matrix, and the tuning parameters. */
static void make_label(char *out, size_t len, const char *kernel, const char *matrix,
                       const char *params, const char *precision)
{
    const char *dot = kernel ? strchr(kernel, '.') : NULL;
    const char *k = dot ? dot + 1 : (kernel ? kernel : "?");
    char p[96] = "";
    if (params && strcmp(params, "{}") != 0) {
        size_t j = 0;
        for (const char *s = params; *s && j + 1 < sizeof p; ++s)
            if (*s != '"' && *s != '{' && *s != '}')
                p[j++] = *s == ',' ? ' ' : *s;
        p[j] = '\0';
    }
    snprintf(out, len, "%s %s %s%s%s", k, matrix ? matrix : "?", precision, p[0] ? " " : "", p);
}

typedef struct point_array {
    rt_roofline_point *v;
    int n, cap;
} point_array;

static int add_point(void *ctx, const rt_store_roofline_point *sp, rt_err *err)
{
    point_array *a = ctx;
    if (a->n == a->cap) {
        const int cap = a->cap ? 2 * a->cap : 64;
        rt_roofline_point *grown = realloc(a->v, sizeof *a->v * (size_t)cap);
        if (!grown)
            return rt_err_set(err, "roofline plot: out of memory for %d points", cap);
        a->v = grown;
        a->cap = cap;
    }
    rt_roofline_point *p = &a->v[a->n++];
    memset(p, 0, sizeof *p);
    p->id = sp->id;
    snprintf(p->kernel, sizeof p->kernel, "%s", sp->kernel);
    snprintf(p->matrix, sizeof p->matrix, "%s", sp->matrix);
    const char *prec = sp->precision;
    p->precision = strcmp(prec, "fp64") == 0 ? RT_FP64 : RT_FP32;
    make_label(p->label, sizeof p->label, sp->kernel, sp->matrix, sp->params, prec);
    p->ranks = sp->ranks;
    p->gflops = sp->gflops;
    p->above = sp->above;
    const double nominal = sp->flops;
    const double intensity = sp->intensity;
    double model_flops = sp->model_flops;
    const double dram = sp->model_dram_bytes;
    const double net = sp->model_net_bytes_global;
    const double rd = sp->dram_bytes_read, wr = sp->dram_bytes_write;
    if (!(model_flops > 0))
        model_flops = nominal;
    p->intensity = intensity > 0                   ? intensity
                   : (model_flops > 0 && dram > 0) ? model_flops / dram
                                                   : NAN;
    /* Counters count what one execution of the whole point moved on this rank's device, which
     * is what the model's flops describe too. */
    p->counted_intensity = (model_flops > 0 && rd + wr > 0) ? model_flops / (rd + wr) : NAN;
    p->net_intensity = (model_flops > 0 && net > 0) ? model_flops / net : NAN;
    return 0;
}

int rt_roofline_load_points(struct sqlite3 *db, const char *experiment, rt_roofline_point **pts,
                            int *n, rt_err *err)
{
    *pts = NULL;
    *n = 0;
    point_array a = {0};
    if (rt_store_each_roofline_point(db, experiment, add_point, &a, err) != 0) {
        free(a.v);
        if (strncmp(err->msg, "roofline plot:", 14) != 0)
            rt_err_prefix(err, "roofline plot");
        return -1;
    }
    if (a.n == 0 && experiment) {
        /* Tell "no such experiment" apart from "no plottable point in it". */
        int exists = 0;
        rt_err ignored;
        if (rt_store_experiment_has_points(db, experiment, &exists, &ignored) != 0 || !exists) {
            free(a.v);
            return list_experiments(db, experiment, err);
        }
    }
    *pts = a.v;
    *n = a.n;
    return 0;
}

/* ---- figures ------------------------------------------------------------------------------ */

static double per_rank(const rt_roofline_point *p)
{
    return p->gflops / (p->ranks > 1 ? p->ranks : 1);
}

static double highest_peak(const rt_ceilings *c)
{
    return c->fp32_gflops > c->fp64_gflops ? c->fp32_gflops : c->fp64_gflops;
}

/* Labels go into the .dat between double quotes: keep them free of quotes and control bytes. */
static void dat_label(FILE *f, const char *label)
{
    fputc('"', f);
    for (const char *s = label; *s; ++s)
        fputc((*s == '"' || (unsigned char)*s < 0x20) ? '\'' : *s, f);
    fputc('"', f);
}

static void pow10_range(double lo, double hi, double *out_lo, double *out_hi)
{
    *out_lo = pow(10, floor(log10(lo)));
    *out_hi = pow(10, ceil(log10(hi)));
    if (*out_hi <= *out_lo)
        *out_hi = *out_lo * 10;
}

/* Starts <dir>/<stem>.<ext> as an rt_outfile: the old file stays until the new one is whole (and
 * a rewritten figure is a new file, which `rooftune figures` keeps; it removes the old files it
 * did not draw again). */
static int open_file(const char *dir, const char *stem, const char *ext, rt_outfile *o, rt_err *err)
{
    char path[2048];
    if (rt_path_format(path, sizeof path, err, "%s/%s.%s", dir, stem, ext) != 0 ||
        rt_outfile_open(o, path, err) != 0)
        return rt_err_prefix(err, "roofline plot");
    return 0;
}

/* The network slope of the inter-node roofline for one set of ceilings: the global tier, or, for
 * a machine file of one node (the hosts on which rooftune emulates nodes with --ranks-per-node),
 * the link between the emulated nodes, i.e. the socket tier, as the runner's bound uses it
 * (*emulated = 1). 0 when the set has neither. */
static double network_gbs(const rt_ceilings *c, int *emulated)
{
    *emulated = 0;
    if (c->tier_gbs[RT_TIER_GLOBAL] > 0)
        return c->tier_gbs[RT_TIER_GLOBAL];
    *emulated = c->tier_gbs[RT_TIER_SOCKET] > 0;
    return c->tier_gbs[RT_TIER_SOCKET];
}

/* The ceilings as gnuplot plot items: a roof per memory level (dashed spec, solid measured), then
 * the two peaks. Levels use colours 1-3, peaks 4-5. */
static void ceiling_items(const rt_machine *m, int internode, char *cmd, size_t len)
{
    size_t used = strlen(cmd);
    const rt_ceilings *sets[2] = {&m->spec, &m->measured};
    const char *set_names[2] = {"spec", "measured"};
    const int dash[2] = {2, 1};
    for (int s = 0; s < 2; ++s) {
        const rt_ceilings *c = sets[s];
        const double cap = highest_peak(c) > 0 ? highest_peak(c) : highest_peak(&m->effective);
        if (internode) {
            int emulated = 0;
            const double bw = network_gbs(c, &emulated);
            if (bw > 0)
                used += (size_t)snprintf(cmd + used, len - used,
                                         "  roof(x, %.6g, %.6g) dt %d lc 1 title 'network "
                                         "(%s) %s %.5g GB/s', \\\n",
                                         bw, cap, dash[s],
                                         emulated ? "emulated nodes: socket link" : "global",
                                         set_names[s], bw);
            /* What rooftune's GPU transports get between nodes: device buffers staged through
             * pinned host memory (probe: measured.mpi_staged). */
            const double staged = m->staged_gbs[RT_TIER_GLOBAL];
            if (s == 1 && staged > 0)
                used += (size_t)snprintf(cmd + used, len - used,
                                         "  roof(x, %.6g, %.6g) dt 1 lc 6 title 'MPI staged device "
                                         "buffers measured %.5g GB/s', \\\n",
                                         staged, cap, staged);
        } else {
            for (int l = 0; l < RT_LEVEL_COUNT; ++l) {
                const double bw = c->level_gbs[l];
                if (bw > 0)
                    used +=
                        (size_t)snprintf(cmd + used, len - used,
                                         "  roof(x, %.6g, %.6g) dt %d lc %d title '%s %s "
                                         "%.5g GB/s', \\\n",
                                         bw, cap, dash[s], l + 1,
                                         rt_machine_level_name((rt_mem_level)l), set_names[s], bw);
            }
        }
        if (c->fp32_gflops > 0)
            used += (size_t)snprintf(cmd + used, len - used,
                                     "  %.6g dt %d lc 4 title 'fp32 peak %s %.5g GFLOP/s', \\\n",
                                     c->fp32_gflops, dash[s], set_names[s], c->fp32_gflops);
        if (c->fp64_gflops > 0)
            used += (size_t)snprintf(cmd + used, len - used,
                                     "  %.6g dt %d lc 5 title 'fp64 peak %s %.5g GFLOP/s', \\\n",
                                     c->fp64_gflops, dash[s], set_names[s], c->fp64_gflops);
    }
}

typedef struct axis_range {
    double xlo, xhi, ylo, yhi;
} axis_range;

static axis_range ranges(const rt_machine *m, const rt_roofline_point *pts, int n, int internode)
{
    const rt_ceilings *e = &m->effective;
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = highest_peak(e);
    /* Ridge points of every ceiling: the interesting part of a roofline is around them. */
    const rt_ceilings *sets[2] = {&m->spec, &m->measured};
    for (int s = 0; s < 2; ++s) {
        const double peak = highest_peak(sets[s]) > 0 ? highest_peak(sets[s]) : yhi;
        const double low_peak = sets[s]->fp64_gflops > 0 ? sets[s]->fp64_gflops : peak;
        if (sets[s]->fp32_gflops > yhi)
            yhi = sets[s]->fp32_gflops;
        for (int l = 0; l < (internode ? 1 : RT_LEVEL_COUNT); ++l) {
            int emulated = 0;
            const double bw = internode ? network_gbs(sets[s], &emulated) : sets[s]->level_gbs[l];
            if (!(bw > 0))
                continue;
            xlo = fmin(xlo, low_peak / bw / 20);
            xhi = fmax(xhi, peak / bw * 4);
        }
    }
    for (int i = 0; i < n; ++i) {
        const double x = internode ? pts[i].net_intensity : pts[i].intensity;
        if (!(x > 0))
            continue;
        xlo = fmin(xlo, x / 2);
        xhi = fmax(xhi, x * 2);
        if (pts[i].counted_intensity > 0 && !internode) {
            xlo = fmin(xlo, pts[i].counted_intensity / 2);
            xhi = fmax(xhi, pts[i].counted_intensity * 2);
        }
        ylo = fmin(ylo, per_rank(&pts[i]) / 2);
        yhi = fmax(yhi, per_rank(&pts[i]) * 2);
    }
    if (!(xlo < INFINITY) || !(xhi > 0)) {
        xlo = 0.01;
        xhi = 100;
    }
    if (!(ylo < INFINITY))
        ylo = yhi / 1e4;
    /* Show at least four decades below the peak so the memory roofs are visible. */
    ylo = fmin(ylo, yhi / 1e4);
    axis_range r;
    pow10_range(xlo, xhi, &r.xlo, &r.xhi);
    pow10_range(ylo, yhi * 1.5, &r.ylo, &r.yhi);
    return r;
}

/* ---- layout: one style per kernel, the labelled points and where their tags go ------------- */

/* Geometry in screen fractions of rt_plot_gnuplot's canvas (1024 x 640 pixels). The plot area is
 * pinned with explicit margins so that a tag placed here in pixels lands where gnuplot draws it;
 * the right part of the canvas holds the legend and, below it, the key table. */
#define FIG_W_PX   1024.0
#define FIG_H_PX   640.0
#define FIG_LEFT   0.10
#define FIG_RIGHT  0.60
#define FIG_BOTTOM 0.11
#define FIG_TOP    0.91
/* Approximate sizes in pixels for the overlap tests: a tag character (font ',9'), a tag's
 * height, a marker, a legend line (font ',10', spacing 1) and a key-table line (font ',8'). */
#define TAG_CHAR_PX   7.0
#define TAG_H_PX      12.0
#define TAG_GAP_PX    3.0
#define MARK_PX       10.0
#define KEY_LINE_PX   16.5
#define TABLE_LINE_PX 12.5
/* Characters of a point's label in the key table (the .dat keeps the whole label). */
#define TABLE_LABEL_CHARS 56

/* Kernel styles: colour cycles over 8, the marker over 6 filled shapes, so the first 24 kernels
 * all differ. Shared-look colours (rt_plot_gnuplot) in the same order; the roofs are lines, so
 * the same colours on markers do not mix them up. */
static const char *const kernel_colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                             "#E69F00", "#56B4E9", "#000000", "#8C564B"};
#define N_KERNEL_COLOURS ((int)(sizeof kernel_colours / sizeof kernel_colours[0]))
static const int kernel_markers[] = {7, 5, 9, 11, 13, 15};
#define N_KERNEL_MARKERS ((int)(sizeof kernel_markers / sizeof kernel_markers[0]))

typedef struct fig_point {
    int i;         /* index into the points */
    double x, y;   /* data coordinates */
    double px, py; /* pixels from the plot area's lower left corner */
    int kernel;    /* style index: kernels in order of first appearance */
    int key;       /* 1..n_keys: the best point of its (kernel, matrix); 0: no tag */
    double lx, ly; /* tag position in data coordinates (left end of the text); NAN: none */
    double ex, ey; /* end of a leader line from the point to a tag placed away from it (on
                      the tag's nearest side); NAN when the tag sits next to its point */
} fig_point;

typedef struct fig_layout {
    int n; /* drawn points */
    fig_point *fp;
    int n_kernels;
    const char **kernels; /* names, borrowed from the points ("?" when a point has none) */
    int n_keys;
    int *key_fp; /* key k (1-based) is fp[key_fp[k - 1]] */
} fig_layout;

static void layout_free(fig_layout *L)
{
    free(L->fp);
    free(L->kernels);
    free(L->key_fp);
    memset(L, 0, sizeof *L);
}

static const char *kernel_of(const rt_roofline_point *p)
{
    return p->kernel[0] ? p->kernel : "?";
}

/* What the grouping sorts: qsort has no context argument, so each entry carries its keys. */
typedef struct group_entry {
    int kernel;
    const char *matrix;
    double y;
    int fp;
} group_entry;

static int group_cmp(const void *pa, const void *pb)
{
    const group_entry *a = pa, *b = pb;
    if (a->kernel != b->kernel)
        return a->kernel < b->kernel ? -1 : 1;
    const int c = strcmp(a->matrix, b->matrix);
    if (c != 0)
        return c;
    if (a->y != b->y)
        return a->y > b->y ? -1 : 1;             /* best first */
    return a->fp < b->fp ? -1 : (a->fp > b->fp); /* ties: the earlier point */
}

typedef struct box {
    double x0, x1, y0, y1;
} box;

static int boxes_overlap(const box *a, const box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* A tag's box, with a gap around it so that two neighbouring numbers never read as one. */
static box tag_box(double tx, double ty, double w)
{
    const box b = {tx - TAG_GAP_PX, tx + w + TAG_GAP_PX, ty - TAG_H_PX / 2, ty + TAG_H_PX / 2};
    return b;
}

/* Greedy tag placement: each tag, in key order, takes the candidate spot around its point that
 * overlaps the fewest earlier tags (weighted heavily), then the fewest markers, staying inside
 * the plot area; nearer rings win ties. Deterministic, O(tags x candidates x points). */
static void place_tags(fig_layout *L, const axis_range *r)
{
    const double w_px = (FIG_RIGHT - FIG_LEFT) * FIG_W_PX, h_px = (FIG_TOP - FIG_BOTTOM) * FIG_H_PX;
    const double lx0 = log10(r->xlo), ly0 = log10(r->ylo);
    const double dx = log10(r->xhi) - lx0, dy = log10(r->yhi) - ly0;
    for (int k = 0; k < L->n; ++k) {
        fig_point *f = &L->fp[k];
        f->px = (log10(f->x) - lx0) / dx * w_px;
        f->py = (log10(f->y) - ly0) / dy * h_px;
    }
    box *placed = malloc(sizeof *placed * (size_t)(L->n_keys > 0 ? L->n_keys : 1));
    if (!placed)
        return; /* tags then keep NAN positions: drawn points, no tags */
    for (int key = 1; key <= L->n_keys; ++key) {
        fig_point *f = &L->fp[L->key_fp[key - 1]];
        char text[16];
        const double w = snprintf(text, sizeof text, "%d", key) * TAG_CHAR_PX;
        /* Right, upper right, lower right, left, above, below, upper left, lower left: the
         * left-middle of the text relative to the point, then the same ring farther out. */
        const double ring[8][2] = {{7, 0},       {5, 9},        {5, -9},     {-7 - w, 0},
                                   {-w / 2, 12}, {-w / 2, -12}, {-5 - w, 9}, {-5 - w, -9}};
        double best_cost = INFINITY, best_x = f->px + 7, best_y = f->py;
        int best_dist = 1, best_c = 0;
        for (int dist = 1; dist <= 3; ++dist)
            for (int c = 0; c < 8; ++c) {
                const double s = dist == 1 ? 1.0 : dist == 2 ? 2.2 : 3.4;
                /* Leftward spots keep the text's right end near the point: scale the gap only. */
                const double ox = ring[c][0] < 0 ? ring[c][0] - (s - 1) * 7 : ring[c][0] * s;
                const double tx = f->px + (c == 4 || c == 5 ? ring[c][0] : ox);
                const double ty = f->py + ring[c][1] * s;
                const box b = tag_box(tx, ty, w);
                double cost = (dist - 1) * 0.5 + c * 0.01;
                if (b.x0 < 0 || b.x1 > w_px || b.y0 < 0 || b.y1 > h_px)
                    cost += 1000;
                for (int q = 0; q < key - 1; ++q)
                    cost += boxes_overlap(&b, &placed[q]) ? 100 : 0;
                for (int q = 0; q < L->n; ++q) {
                    if (&L->fp[q] == f)
                        continue; /* the ring's offsets already keep clear of its own point */
                    const box mk = {L->fp[q].px - MARK_PX / 2, L->fp[q].px + MARK_PX / 2,
                                    L->fp[q].py - MARK_PX / 2, L->fp[q].py + MARK_PX / 2};
                    cost += boxes_overlap(&b, &mk) ? 1 : 0;
                }
                if (cost < best_cost) {
                    best_cost = cost;
                    best_x = tx;
                    best_dist = dist;
                    best_c = c;
                    best_y = ty;
                }
            }
        placed[key - 1] = tag_box(best_x, best_y, w);
        f->lx = pow(10, lx0 + best_x / w_px * dx);
        f->ly = pow(10, ly0 + best_y / h_px * dy);
        if (best_dist > 1) {
            /* Far from its point a tag could belong to a neighbour: a leader line says whose
             * it is, ending on the side of the text that faces the point. */
            const double ex = best_c == 4 || best_c == 5 ? best_x + w / 2
                              : ring[best_c][0] < 0      ? best_x + w + 1
                                                         : best_x - 1;
            const double ey = best_c == 4   ? best_y - TAG_H_PX / 2
                              : best_c == 5 ? best_y + TAG_H_PX / 2
                                            : best_y;
            f->ex = pow(10, lx0 + ex / w_px * dx);
            f->ey = pow(10, ly0 + ey / h_px * dy);
        }
    }
    free(placed);
}

/* The drawn points of one figure, their kernels, and which of them are labelled. */
static int layout_build(const rt_roofline_point *pts, int n, int internode, const axis_range *r,
                        fig_layout *L, rt_err *err)
{
    memset(L, 0, sizeof *L);
    const size_t cap = (size_t)(n > 0 ? n : 1);
    L->fp = calloc(cap, sizeof *L->fp);
    L->kernels = calloc(cap, sizeof *L->kernels);
    L->key_fp = calloc(cap, sizeof *L->key_fp);
    group_entry *g = calloc(cap, sizeof *g);
    if (!L->fp || !L->kernels || !L->key_fp || !g) {
        free(g);
        layout_free(L);
        return rt_err_set(err, "roofline plot: out of memory laying out %d points", n);
    }
    for (int i = 0; i < n; ++i) {
        const rt_roofline_point *p = &pts[i];
        const double x = internode ? p->net_intensity : p->intensity;
        if (!(x > 0) || !(per_rank(p) > 0))
            continue;
        fig_point *f = &L->fp[L->n];
        f->i = i;
        f->x = x;
        f->y = per_rank(p);
        f->lx = f->ly = f->ex = f->ey = NAN;
        const char *kname = kernel_of(p);
        int k = 0;
        while (k < L->n_kernels && strcmp(L->kernels[k], kname) != 0)
            ++k;
        if (k == L->n_kernels)
            L->kernels[L->n_kernels++] = kname;
        f->kernel = k;
        g[L->n] = (group_entry){k, p->matrix, f->y, L->n};
        ++L->n;
    }
    qsort(g, (size_t)L->n, sizeof *g, group_cmp);
    for (int j = 0; j < L->n; ++j) {
        const int first =
            j == 0 || g[j].kernel != g[j - 1].kernel || strcmp(g[j].matrix, g[j - 1].matrix) != 0;
        if (first) {
            L->key_fp[L->n_keys++] = g[j].fp;
            L->fp[g[j].fp].key = L->n_keys;
        }
    }
    free(g);
    place_tags(L, r);
    return 0;
}

/* One figure: its .dat (the points and the key table) and .gp (ceilings as functions, points and
 * tags from the .dat, the key table beside the plot). */
static int write_figure(const rt_machine *m, const rt_roofline_point *pts, int n, int internode,
                        const char *dir, const char *stem, const char *title, int *drawn,
                        int *labelled, rt_err *err)
{
    const axis_range r = ranges(m, pts, n, internode);
    fig_layout L;
    if (layout_build(pts, n, internode, &r, &L, err) != 0)
        return -1;
    *drawn = L.n;
    *labelled = L.n_keys;
    rt_outfile dat_file = RT_OUTFILE_NONE, gp_file = RT_OUTFILE_NONE;
    if (open_file(dir, stem, "dat", &dat_file, err) != 0) {
        layout_free(&L);
        return -1;
    }
    FILE *dat = dat_file.f;
    fprintf(dat, "# Roofline points (%s) against machine '%s'%s\n",
            internode ? "inter-node: x = flop per network byte" : "x = flop per DRAM byte", m->name,
            m->path[0] ? "" : " (in memory)");
    fprintf(dat, "# Key: the numbered points, the best GFLOP/s per rank of each (kernel, "
                 "matrix); the figure tags them with the number.\n");
    for (int k = 1; k <= L.n_keys; ++k) {
        const rt_roofline_point *p = &pts[L.fp[L.key_fp[k - 1]].i];
        fprintf(dat, "# key %d\tid %lld\t%s\t%s\t%.6g GFLOP/s per rank\t%s\n", k, p->id,
                kernel_of(p), p->matrix[0] ? p->matrix : "?", per_rank(p), p->label);
    }
    fprintf(dat, "# id\tintensity\tgflops_per_rank\tcounted_intensity\tlocal_roof_gflops\t"
                 "above\tlabel\tkernel_style\tkey\ttag_x\ttag_y\tleader_x\tleader_y\n");
    const rt_ceilings *e = &m->effective;
    for (int k = 0; k < L.n; ++k) {
        const fig_point *f = &L.fp[k];
        const rt_roofline_point *p = &pts[f->i];
        const double peak = p->precision == RT_FP64 ? e->fp64_gflops : e->fp32_gflops;
        /* The point's own local roofline peak: what the inter-node figure uses as its roof. */
        const double local_roof = p->intensity > 0 && e->level_gbs[RT_LEVEL_DRAM] > 0
                                      ? fmin(peak, p->intensity * e->level_gbs[RT_LEVEL_DRAM])
                                      : peak;
        fprintf(dat, "%lld\t%.9g\t%.9g\t%.9g\t%.9g\t%d\t", p->id, f->x, f->y,
                internode ? NAN : p->counted_intensity, local_roof, p->above);
        dat_label(dat, p->label);
        fprintf(dat, "\t%d\t%d\t%.9g\t%.9g\t%.9g\t%.9g\n", f->kernel, f->key, f->lx, f->ly, f->ex,
                f->ey);
    }
    if (rt_outfile_commit(&dat_file, err) != 0) {
        layout_free(&L);
        return rt_err_prefix(err, "roofline plot");
    }
    if (open_file(dir, stem, "gp", &gp_file, err) != 0) {
        layout_free(&L);
        return -1;
    }
    FILE *gp = gp_file.f;
    char qtitle[512];
    rt_plot_quote(title, qtitle, sizeof qtitle);
    fprintf(gp, "# Roofline figure written by rooftune; regenerate with: gnuplot %s.gp\n", stem);
    fprintf(gp, "reset\n");
    rt_plot_write_style(gp);
    fprintf(gp, "set title %s\n", qtitle);
    fprintf(gp, "set logscale xy\n");
    fprintf(gp, "set xlabel '%s'\n",
            internode ? "inter-node arithmetic intensity (flop / "
                        "network byte, global tier)"
                      : "arithmetic intensity (flop / DRAM byte)");
    fprintf(gp, "set ylabel 'GFLOP/s per rank'\n");
    fprintf(gp, "set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\n", r.xlo, r.xhi, r.ylo, r.yhi);
    fprintf(gp, "# The plot area is pinned: the tags' places in the .dat were computed for it.\n");
    fprintf(gp, "set lmargin at screen %.3f\nset rmargin at screen %.3f\n", FIG_LEFT, FIG_RIGHT);
    fprintf(gp, "set bmargin at screen %.3f\nset tmargin at screen %.3f\n", FIG_BOTTOM, FIG_TOP);
    fprintf(gp, "set key font ',10' spacing 1\n");
    fprintf(gp, "set format x '%%g'\nset format y '%%g'\nset samples 1000\n");
    fprintf(gp, "# A roof: bandwidth (GB/s) x intensity, capped at the peak (GFLOP/s).\n");
    fprintf(gp, "roof(x, bw, peak) = (x * bw < peak) ? x * bw : peak\n");
    fprintf(gp, "set datafile separator '\\t'\n");

    char cmd[16384];
    snprintf(cmd, sizeof cmd, "plot \\\n");
    ceiling_items(m, internode, cmd, sizeof cmd);
    size_t used = strlen(cmd);
    int key_lines = 0; /* legend entries, to put the key table below the legend */
    for (const char *s = cmd; (s = strstr(s, " title '")) != NULL; ++s)
        ++key_lines;
    if (L.n > 0) {
        if (internode) {
            used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                     "  '%s.dat' using 2:5 with points pt 1 ps 1.5 lc rgb "
                                     "'#808080' title 'local roofline peak of the point', \\\n",
                                     stem);
            ++key_lines;
        }
        for (int k = 0; k < L.n_kernels && used + 600 < sizeof cmd; ++k) {
            char qk[160];
            rt_plot_quote(L.kernels[k], qk, sizeof qk);
            used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                     "  '%s.dat' using 2:($8 == %d ? $3 : NaN) with points pt %d "
                                     "ps 1.2 lc rgb '%s' title %s, \\\n",
                                     stem, k, kernel_markers[k % N_KERNEL_MARKERS],
                                     kernel_colours[k % N_KERNEL_COLOURS], qk);
            ++key_lines;
        }
        if (!internode) {
            used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                     "  '%s.dat' using 4:3 with points pt 6 ps 1.2 lc rgb "
                                     "'#000000' title 'counted DRAM traffic (hollow)', \\\n",
                                     stem);
            ++key_lines;
        }
        used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                 "  '%s.dat' using 2:($6 > 0 ? $3 : NaN) with points pt 6 ps 2.2 "
                                 "lw 2 lc rgb '#d62728' title 'flagged above the roofline', \\\n",
                                 stem);
        ++key_lines;
        used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                 "  '%s.dat' using 2:3:($12 - $2):($13 - $3) with vectors "
                                 "nohead lw 1 lc rgb '#909090' notitle, \\\n",
                                 stem);
        used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                 "  '%s.dat' using 10:11:(stringcolumn(9)) with labels left "
                                 "font ',9' tc rgb '#202020' notitle, \\\n",
                                 stem);
    }
    /* Drop the trailing ", \" continuation. */
    if (used >= 4 && strcmp(cmd + used - 4, ", \\\n") == 0)
        snprintf(cmd + used - 4, sizeof cmd - (used - 4), "\n");

    /* The key table, below the legend in the right margin; what does not fit is in the .dat. */
    if (L.n_keys > 0) {
        const double x = FIG_RIGHT + 0.02;
        double y = FIG_TOP - (key_lines * KEY_LINE_PX + 22) / FIG_H_PX;
        int room = (int)((y - 0.02) * FIG_H_PX / TABLE_LINE_PX) - 1;
        if (room < 1)
            room = 1; /* a legend that fills the margin leaves room for the pointer line only */
        fprintf(gp, "# Key table: the tagged points, the best of each (kernel, matrix).\n");
        fprintf(gp,
                "set label 'tagged: best of each kernel and matrix' at screen %.4f,%.4f "
                "left font ',8'\n",
                x, y);
        for (int k = 1; k <= L.n_keys; ++k) {
            y -= TABLE_LINE_PX / FIG_H_PX;
            char line[TABLE_LABEL_CHARS + 32], q[2 * TABLE_LABEL_CHARS + 80];
            if (k == room && L.n_keys > room) {
                snprintf(line, sizeof line, "... %d more in %s.dat", L.n_keys - room + 1, stem);
                k = L.n_keys;
            } else {
                const rt_roofline_point *p = &pts[L.fp[L.key_fp[k - 1]].i];
                const size_t len = strlen(p->label);
                snprintf(line, sizeof line, "%2d  %.*s%s", k, TABLE_LABEL_CHARS, p->label,
                         len > TABLE_LABEL_CHARS ? "..." : "");
            }
            rt_plot_quote(line, q, sizeof q);
            fprintf(gp, "set label %s at screen %.4f,%.4f left font ',8'\n", q, x, y);
        }
    }
    rt_plot_write_render(gp, stem, cmd);
    layout_free(&L);
    if (rt_outfile_commit(&gp_file, err) != 0)
        return rt_err_prefix(err, "roofline plot");
    return 0;
}

int rt_roofline_plot_points(const rt_machine *m, const rt_roofline_point *pts, int n,
                            const rt_roofline_plot_opts *opt, rt_roofline_plot_result *res,
                            rt_err *err)
{
    memset(res, 0, sizeof *res);
    if (!opt || !opt->out_dir)
        return rt_err_set(err, "roofline plot: no output folder given");
    if (n < 0 || (n > 0 && !pts))
        return rt_err_set(err, "roofline plot: bad point list");
    char stem[128], stem_inter[160];
    if (rt_plot_sanitize_name(opt->stem ? opt->stem : "roofline", stem, sizeof stem) != 0)
        return rt_err_set(err, "roofline plot: figure name '%s' is too long", opt->stem);
    snprintf(stem_inter, sizeof stem_inter, "%s-internode", stem);
    char title[256];
    snprintf(title, sizeof title, "%s", opt->title ? opt->title : "");
    if (!opt->title)
        snprintf(title, sizeof title, "Roofline: %s", m->name);

    int n_inter_candidates = 0;
    for (int i = 0; i < n; ++i) {
        if (!(pts[i].intensity > 0))
            ++res->n_skipped;
        if (pts[i].net_intensity > 0 && pts[i].ranks > 1)
            ++n_inter_candidates;
    }
    /* Checked before anything is written, so a failed call leaves no half-updated figure. */
    int emulated = 0;
    if (n_inter_candidates > 0 && !(network_gbs(&m->effective, &emulated) > 0))
        return rt_err_set(err,
                          "roofline plot: %d distributed results but machine '%s' has no "
                          "global network tier (nor a socket link between emulated nodes) to draw "
                          "the inter-node roofline against",
                          n_inter_candidates, m->name);
    if (write_figure(m, pts, n, 0, opt->out_dir, stem, title, &res->n_points, &res->n_labelled,
                     err) != 0)
        return -1;
    res->n_figures = 1;
    if (n_inter_candidates > 0) {
        char t2[300];
        snprintf(t2, sizeof t2, "%s (inter-node)", title);
        int inter_labelled = 0;
        if (write_figure(m, pts, n, 1, opt->out_dir, stem_inter, t2, &res->n_internode,
                         &inter_labelled, err) != 0)
            return -1;
        res->n_figures = 2;
    }
    if (opt->run_gnuplot) {
        char gnuplot[1024];
        if (rt_plot_find_gnuplot(gnuplot, sizeof gnuplot) != 0) {
            res->gnuplot_missing = 1;
            snprintf(res->message, sizeof res->message,
                     "gnuplot not found on PATH: wrote "
                     "%s.dat/.gp (run `gnuplot %s.gp` in %.80s later)",
                     stem, stem, opt->out_dir);
            return 0;
        }
        if (rt_plot_render(opt->out_dir, stem, err) != 0)
            return -1;
        if (res->n_figures == 2 && rt_plot_render(opt->out_dir, stem_inter, err) != 0)
            return -1;
    }
    snprintf(res->message, sizeof res->message,
             "%d point(s) on %s%s%s; %d without a traffic "
             "model",
             res->n_points, stem, res->n_figures == 2 ? " and " : "",
             res->n_figures == 2 ? stem_inter : "", res->n_skipped);
    return 0;
}

int rt_roofline_plot_store(struct sqlite3 *db, const char *experiment, const rt_machine *m,
                           const rt_roofline_plot_opts *opt, rt_roofline_plot_result *res,
                           rt_err *err)
{
    rt_roofline_point *pts = NULL;
    int n = 0;
    if (rt_roofline_load_points(db, experiment, &pts, &n, err) != 0)
        return -1;
    const int rc = rt_roofline_plot_points(m, pts, n, opt, res, err);
    free(pts);
    return rc;
}
