/* rt_roofline_plot: roofline figures (local and inter-node) from stored results. */
#include "rt_roofline_plot.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_plot_gnuplot.h"

/* ---- loading points from the store -------------------------------------------------------- */

static const char points_sql[] =
    "SELECT p.id, p.kernel, p.matrix, p.params, "
    "       coalesce(json_extract(p.problem, '$.precision'), 'fp32'), p.ranks, p.gflops, "
    "       p.status = 'above_roofline', p.flops,"
    "       (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.available = 1 "
    "          AND m.name = 'intensity'),"
    "       (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.available = 1 "
    "          AND m.name = 'model_flops'),"
    "       (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.available = 1 "
    "          AND m.name = 'model_dram_bytes'),"
    "       (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.available = 1 "
    "          AND m.name = 'model_net_bytes_global'),"
    "       (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.available = 1 "
    "          AND m.name = 'dram_bytes_read'),"
    "       (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.available = 1 "
    "          AND m.name = 'dram_bytes_write') "
    "FROM points p "
    "WHERE (?1 IS NULL OR p.experiment = ?1) AND p.status IN ('ok', 'above_roofline') "
    "  AND p.gflops IS NOT NULL AND p.gflops > 0 "
    "ORDER BY p.id";

static double column_or_nan(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

static int list_experiments(sqlite3 *db, const char *experiment, rt_err *err)
{
    sqlite3_stmt *st = NULL;
    char known[1024] = "";
    if (sqlite3_prepare_v2(db, "SELECT DISTINCT experiment FROM points ORDER BY experiment", -1,
                           &st, NULL) == SQLITE_OK) {
        size_t used = 0;
        while (sqlite3_step(st) == SQLITE_ROW && used + 70 < sizeof known) {
            const char *e = (const char *)sqlite3_column_text(st, 0);
            used += (size_t)snprintf(known + used, sizeof known - used, "%s'%s'", used ? ", " : "",
                                     e ? e : "");
        }
    }
    sqlite3_finalize(st);
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

int rt_roofline_load_points(sqlite3 *db, const char *experiment, rt_roofline_point **pts, int *n,
                            rt_err *err)
{
    *pts = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, points_sql, -1, &st, NULL) != SQLITE_OK)
        return rt_err_set(err, "roofline plot: reading points: %s (is this a rooftune store?)",
                          sqlite3_errmsg(db));
    if (experiment)
        sqlite3_bind_text(st, 1, experiment, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 1);
    int cap = 0, rc;
    rt_roofline_point *v = NULL;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            rt_roofline_point *grown = realloc(v, sizeof *v * (size_t)cap);
            if (!grown) {
                free(v);
                sqlite3_finalize(st);
                return rt_err_set(err, "roofline plot: out of memory for %d points", cap);
            }
            v = grown;
        }
        rt_roofline_point *p = &v[(*n)++];
        memset(p, 0, sizeof *p);
        p->id = sqlite3_column_int64(st, 0);
        const char *prec = (const char *)sqlite3_column_text(st, 4);
        p->precision = prec && strcmp(prec, "fp64") == 0 ? RT_FP64 : RT_FP32;
        make_label(p->label, sizeof p->label, (const char *)sqlite3_column_text(st, 1),
                   (const char *)sqlite3_column_text(st, 2),
                   (const char *)sqlite3_column_text(st, 3), prec ? prec : "fp32");
        p->ranks = sqlite3_column_int(st, 5);
        p->gflops = sqlite3_column_double(st, 6);
        p->above = sqlite3_column_int(st, 7);
        const double nominal = column_or_nan(st, 8);
        const double intensity = column_or_nan(st, 9);
        double model_flops = column_or_nan(st, 10);
        const double dram = column_or_nan(st, 11);
        const double net = column_or_nan(st, 12);
        const double rd = column_or_nan(st, 13), wr = column_or_nan(st, 14);
        if (!(model_flops > 0))
            model_flops = nominal;
        p->intensity = intensity > 0 ? intensity
                       : (model_flops > 0 && dram > 0) ? model_flops / dram
                                                       : NAN;
        /* Counters count what one execution of the whole point moved on this rank's device,
         * which is what the model's flops describe too. */
        p->counted_intensity = (model_flops > 0 && rd + wr > 0) ? model_flops / (rd + wr) : NAN;
        p->net_intensity = (model_flops > 0 && net > 0) ? model_flops / net : NAN;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(v);
        return rt_err_set(err, "roofline plot: reading points: %s", sqlite3_errmsg(db));
    }
    if (*n == 0 && experiment) {
        /* Tell "no such experiment" apart from "no plottable point in it". */
        sqlite3_stmt *q = NULL;
        int exists = 0;
        if (sqlite3_prepare_v2(db, "SELECT 1 FROM points WHERE experiment = ?1 LIMIT 1", -1, &q,
                               NULL) == SQLITE_OK) {
            sqlite3_bind_text(q, 1, experiment, -1, SQLITE_TRANSIENT);
            exists = sqlite3_step(q) == SQLITE_ROW;
        }
        sqlite3_finalize(q);
        if (!exists) {
            free(v);
            return list_experiments(db, experiment, err);
        }
    }
    *pts = v;
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

static int open_file(const char *dir, const char *stem, const char *ext, FILE **f, rt_err *err)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s.%s", dir, stem, ext);
    *f = fopen(path, "w");
    if (!*f)
        return rt_err_set(err, "roofline plot: cannot write '%s' (does the folder exist?)", path);
    return 0;
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
            const double bw = c->tier_gbs[RT_TIER_GLOBAL];
            if (bw > 0)
                used += (size_t)snprintf(cmd + used, len - used,
                                         "  roof(x, %.6g, %.6g) dt %d lc 1 title 'network "
                                         "(global) %s %.5g GB/s', \\\n",
                                         bw, cap, dash[s], set_names[s], bw);
        } else {
            for (int l = 0; l < RT_LEVEL_COUNT; ++l) {
                const double bw = c->level_gbs[l];
                if (bw > 0)
                    used += (size_t)snprintf(cmd + used, len - used,
                                             "  roof(x, %.6g, %.6g) dt %d lc %d title '%s %s "
                                             "%.5g GB/s', \\\n",
                                             bw, cap, dash[s], l + 1,
                                             rt_machine_level_name((rt_mem_level)l),
                                             set_names[s], bw);
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
            const double bw = internode ? sets[s]->tier_gbs[RT_TIER_GLOBAL] : sets[s]->level_gbs[l];
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

/* One figure: its .dat (the points) and .gp (ceilings as functions, points from the .dat). */
static int write_figure(const rt_machine *m, const rt_roofline_point *pts, int n, int internode,
                        const char *dir, const char *stem, const char *title, int *drawn,
                        rt_err *err)
{
    FILE *dat = NULL, *gp = NULL;
    if (open_file(dir, stem, "dat", &dat, err) != 0)
        return -1;
    fprintf(dat, "# Roofline points (%s) against machine '%s'%s\n",
            internode ? "inter-node: x = flop per network byte" : "x = flop per DRAM byte",
            m->name, m->path[0] ? "" : " (in memory)");
    fprintf(dat, "# id\tintensity\tgflops_per_rank\tcounted_intensity\tlocal_roof_gflops\t"
                 "above\tlabel\n");
    *drawn = 0;
    const rt_ceilings *e = &m->effective;
    for (int i = 0; i < n; ++i) {
        const rt_roofline_point *p = &pts[i];
        const double x = internode ? p->net_intensity : p->intensity;
        if (!(x > 0))
            continue;
        const double peak = p->precision == RT_FP64 ? e->fp64_gflops : e->fp32_gflops;
        /* The point's own local roofline peak: what the inter-node figure uses as its roof. */
        const double local_roof = p->intensity > 0 && e->level_gbs[RT_LEVEL_DRAM] > 0
                                      ? fmin(peak, p->intensity * e->level_gbs[RT_LEVEL_DRAM])
                                      : peak;
        fprintf(dat, "%lld\t%.9g\t%.9g\t%.9g\t%.9g\t%d\t", p->id, x, per_rank(p),
                internode ? NAN : p->counted_intensity, local_roof, p->above);
        dat_label(dat, p->label);
        fputc('\n', dat);
        ++*drawn;
    }
    if (fclose(dat) != 0)
        return rt_err_set(err, "roofline plot: writing %s/%s.dat failed", dir, stem);
    if (open_file(dir, stem, "gp", &gp, err) != 0)
        return -1;
    char qtitle[512];
    rt_plot_quote(title, qtitle, sizeof qtitle);
    const axis_range r = ranges(m, pts, n, internode);
    fprintf(gp, "# Roofline figure written by rooftune; regenerate with: gnuplot %s.gp\n", stem);
    fprintf(gp, "reset\n");
    rt_plot_write_style(gp);
    fprintf(gp, "set title %s\n", qtitle);
    fprintf(gp, "set logscale xy\n");
    fprintf(gp, "set xlabel '%s'\n", internode ? "inter-node arithmetic intensity (flop / "
                                                 "network byte, global tier)"
                                               : "arithmetic intensity (flop / DRAM byte)");
    fprintf(gp, "set ylabel 'GFLOP/s per rank'\n");
    fprintf(gp, "set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\n", r.xlo, r.xhi, r.ylo, r.yhi);
    fprintf(gp, "set format x '%%g'\nset format y '%%g'\nset samples 1000\n");
    fprintf(gp, "# A roof: bandwidth (GB/s) x intensity, capped at the peak (GFLOP/s).\n");
    fprintf(gp, "roof(x, bw, peak) = (x * bw < peak) ? x * bw : peak\n");
    fprintf(gp, "set datafile separator '\\t'\n");

    char cmd[8192];
    snprintf(cmd, sizeof cmd, "plot \\\n");
    ceiling_items(m, internode, cmd, sizeof cmd);
    size_t used = strlen(cmd);
    if (*drawn > 0) {
        if (internode)
            used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                     "  '%s.dat' using 2:5 with points pt 1 ps 1.5 lc rgb "
                                     "'#808080' title 'local roofline peak of the point', \\\n",
                                     stem);
        used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                 "  '%s.dat' using 2:3 with points pt 7 ps 1.3 lc rgb '#000000' "
                                 "title 'results (model traffic)', \\\n",
                                 stem);
        if (!internode)
            used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                     "  '%s.dat' using 4:3 with points pt 6 ps 1.3 lc rgb "
                                     "'#000000' title 'results (counted DRAM traffic)', \\\n",
                                     stem);
        used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                 "  '%s.dat' using 2:($6 > 0 ? $3 : NaN) with points pt 7 ps 1.6 "
                                 "lc rgb '#d62728' title 'flagged above the roofline', \\\n",
                                 stem);
        used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                 "  '%s.dat' using 2:3:7 with labels offset char 0.6,0.6 left "
                                 "font ',8' notitle, \\\n",
                                 stem);
    }
    /* Drop the trailing ", \" continuation. */
    if (used >= 4 && strcmp(cmd + used - 4, ", \\\n") == 0)
        snprintf(cmd + used - 4, sizeof cmd - (used - 4), "\n");
    rt_plot_write_render(gp, stem, cmd);
    if (fclose(gp) != 0)
        return rt_err_set(err, "roofline plot: writing %s/%s.gp failed", dir, stem);
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
    if (n_inter_candidates > 0 && !(m->effective.tier_gbs[RT_TIER_GLOBAL] > 0))
        return rt_err_set(err, "roofline plot: %d distributed results but machine '%s' has no "
                          "global network tier to draw the inter-node roofline against",
                          n_inter_candidates, m->name);
    if (write_figure(m, pts, n, 0, opt->out_dir, stem, title, &res->n_points, err) != 0)
        return -1;
    res->n_figures = 1;
    if (n_inter_candidates > 0) {
        char t2[300];
        snprintf(t2, sizeof t2, "%s (inter-node)", title);
        if (write_figure(m, pts, n, 1, opt->out_dir, stem_inter, t2, &res->n_internode, err) != 0)
            return -1;
        res->n_figures = 2;
    }
    if (opt->run_gnuplot) {
        char gnuplot[1024];
        if (rt_plot_find_gnuplot(gnuplot, sizeof gnuplot) != 0) {
            res->gnuplot_missing = 1;
            snprintf(res->message, sizeof res->message, "gnuplot not found on PATH: wrote "
                     "%s.dat/.gp (run `gnuplot %s.gp` in %.80s later)", stem, stem, opt->out_dir);
            return 0;
        }
        char script[200];
        snprintf(script, sizeof script, "%s.gp", stem);
        if (rt_plot_run_gnuplot(opt->out_dir, script, err) != 0)
            return -1;
        if (res->n_figures == 2) {
            snprintf(script, sizeof script, "%s.gp", stem_inter);
            if (rt_plot_run_gnuplot(opt->out_dir, script, err) != 0)
                return -1;
        }
    }
    snprintf(res->message, sizeof res->message, "%d point(s) on %s%s%s; %d without a traffic "
             "model", res->n_points, stem, res->n_figures == 2 ? " and " : "",
             res->n_figures == 2 ? stem_inter : "", res->n_skipped);
    return 0;
}

int rt_roofline_plot_store(sqlite3 *db, const char *experiment, const rt_machine *m,
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
