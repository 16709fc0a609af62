/* rt_report: the static HTML report; see rt_report.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_plot.h"
#include "rt_plot_gnuplot.h"
#include "rt_outdir.h"
#include "rt_outfile.h"
#include "rt_path.h"
#include "rt_readonly.h"
#include "rt_store.h"
#include "rt_store_read.h"

/* Everything the page needs is in it or beside it: the policy makes the browser refuse (and log)
 * anything else, so a stray external reference cannot go unnoticed. */
static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src 'self'; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<title>rooftune report</title>\n<style>\n"
    "body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:80em;padding:0 1em;"
    "color:#202020;line-height:1.4}\n"
    "h1,h2,h3{font-weight:600}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}\n"
    "table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}\n"
    "th,td{border:1px solid #d0d0d0;padding:.25em .5em;text-align:left;vertical-align:top}\n"
    "th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "code{font-size:.9em;overflow-wrap:anywhere}details{margin:.5em 0 1em}summary{cursor:pointer}\n"
    "figure{display:inline-block;margin:.5em 1em 1em 0;max-width:100%}\n"
    "figure img{max-width:100%;height:auto;border:1px solid #e0e0e0}\n"
    "figcaption{font-size:.85em;color:#505050}\n"
    ".SLOWER,.fail{color:#b00020;font-weight:600}.FASTER,.pass{color:#006d2c;font-weight:600}\n"
    ".UNSURE{color:#8a5a00}.note{color:#505050;font-size:.9em}\n"
    "</style>\n</head>\n<body>\n";

static const char page_tail[] =
    "<script>\n"
    "window.addEventListener('load', function () {\n"
    "  var n = 0;\n"
    "  for (var k = 0; k < document.images.length; ++k) {\n"
    "    var img = document.images[k];\n"
    "    if (!img.complete || img.naturalWidth === 0)\n"
    "      console.error('figure failed to load: ' + img.getAttribute('src'));\n"
    "    ++n;\n"
    "  }\n"
    "  document.body.setAttribute('data-figures-checked', String(n));\n"
    "});\n"
    "</script>\n</body>\n</html>\n";

static void html(FILE *f, const char *text)
{
    for (const char *c = text ? text : ""; *c; ++c) {
        switch (*c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*c, f);
        }
    }
}

/* A relative URL of a path under DIR: each segment percent-encoded where it is not plain. */
static void url(FILE *f, const char *path)
{
    for (const unsigned char *c = (const unsigned char *)path; *c; ++c) {
        const int plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                          (*c >= '0' && *c <= '9') || strchr("-_./", *c);
        if (plain)
            fputc(*c, f);
        else
            fprintf(f, "%%%02X", *c);
    }
}

static void cell_text(FILE *f, const char *t)
{
    fputs("<td>", f);
    html(f, t);
    fputs("</td>", f);
}

static void cell_num(FILE *f, double v, const char *fmt)
{
    fputs("<td class=\"num\">", f);
    if (isnan(v))
        fputs("&ndash;", f);
    else
        fprintf(f, fmt, v);
    fputs("</td>", f);
}

/* ------------------------------------------------------------------------------------------- */
/* One store */

static int write_run(void *ctx, const rt_store_run *r, rt_err *err)
{
    (void)err;
    FILE *f = ctx;
    fprintf(f, "<tr><td class=\"num\">%lld</td>", (long long)r->id);
    cell_text(f, r->experiment);
    cell_text(f, r->status);
    cell_text(f, r->started_at);
    cell_text(f, r->ended_at);
    cell_text(f, r->device);
    fputs("<td><code>", f);
    html(f, r->git_revision);
    fputs(r->git_dirty ? "+dirty" : "", f);
    fputs("</code></td>", f);
    cell_text(f, r->compiler);
    fputs("<td>", f);
    html(f, r->has_cuda_runtime ? r->cuda_runtime : "none");
    fputs(" / ", f);
    html(f, r->has_cuda_driver ? r->cuda_driver : "none");
    fputs("</td>", f);
    cell_text(f, r->topology);
    fputs("<td><code>", f);
    html(f, r->config_path);
    fputs("</code> (", f);
    html(f, r->config_hash);
    fputs(")</td></tr>\n", f);
    return 0;
}

static int write_runs(FILE *f, struct sqlite3 *db, const char *label, rt_err *err)
{
    fputs("<h3>Runs</h3>\n<table>\n<tr><th>run</th><th>experiment</th><th>status</th><th>started"
          "</th><th>ended</th><th>device</th><th>git</th><th>compiler</th><th>CUDA runtime / "
          "driver</th><th>topology</th><th>config</th></tr>\n",
          f);
    if (rt_store_each_run(db, write_run, f, err) != 0)
        return rt_err_prefix(err, "%s", label);
    fputs("</table>\n", f);
    return 0;
}

typedef struct status_line {
    FILE *f;
    int any;
} status_line;

static int write_status(void *ctx, const char *status, int64_t count, rt_err *err)
{
    (void)err;
    status_line *s = ctx;
    fputs(s->any++ ? ", " : " ", s->f);
    html(s->f, status);
    fprintf(s->f, " %lld", (long long)count);
    return 0;
}

static int write_statuses(FILE *f, struct sqlite3 *db, const char *label, const char *experiment,
                          rt_err *err)
{
    fputs("<p>Points by status:", f);
    status_line s = {f, 0};
    if (rt_store_each_status_count(db, experiment, write_status, &s, err) != 0)
        return rt_err_prefix(err, "%s", label);
    fputs(s.any ? ".</p>\n" : " none.</p>\n", f);
    return 0;
}

typedef struct best_table {
    FILE *f;
    int rows;
} best_table;

static int write_best_row(void *ctx, const rt_store_best *b, rt_err *err)
{
    (void)err;
    best_table *t = ctx;
    FILE *f = t->f;
    if (!t->rows++)
        fputs("<table>\n<tr><th>matrix</th><th>kernel</th><th>median time (ms)</th><th>"
              "GFLOP/s</th><th>roofline efficiency</th><th>params</th><th>problem</th><th>"
              "ranks</th></tr>\n",
              f);
    fputs("<tr>", f);
    cell_text(f, b->matrix);
    cell_text(f, b->kernel);
    fputs("<td class=\"num\">", f);
    fprintf(f, "%.4g", b->time_median_s * 1e3);
    fputs("</td>", f);
    cell_num(f, b->gflops, "%.4g");
    cell_num(f, b->efficiency, "%.3f");
    fputs("<td><code>", f);
    html(f, b->params);
    fputs("</code></td><td><code>", f);
    html(f, b->problem);
    fprintf(f, "</code></td><td class=\"num\">%d</td></tr>\n", b->ranks);
    return 0;
}

static int write_best(FILE *f, struct sqlite3 *db, const char *label, const char *experiment,
                      rt_err *err)
{
    best_table t = {f, 0};
    if (rt_store_each_best(db, experiment, write_best_row, &t, err) != 0)
        return rt_err_prefix(err, "%s", label);
    if (t.rows)
        fputs("</table>\n", f);
    else
        fputs("<p class=\"note\">No verified point: nothing to rank.</p>\n", f);
    return 0;
}

/* Draws the experiment's figures into DIR/<rel> and shows every SVG there. */
static int write_figures(FILE *f, const rt_report_opts *o, struct sqlite3 *db, const char *label,
                         const char *experiment, const char *rel, rt_report_result *res,
                         rt_err *err)
{
    char dir[4200];
    rt_outdir made;
    if (rt_path_format(dir, sizeof dir, err, "%s/%s", o->out_dir, rel) != 0 ||
        rt_outdir_make(&made, dir, err) != 0)
        return -1;
    rt_config cfg;
    int found = 0;
    if (rt_figures_recorded_plots(db, experiment, &cfg, &found, err) != 0) {
        rt_outdir_undo(&made);
        return rt_err_prefix(err, "%s", label);
    }
    rt_plot_result pr;
    const int rc = rt_plot_experiment(db, experiment, found ? cfg.plots : NULL,
                                      found ? cfg.n_plots : 0, dir, &pr, err);
    if (found)
        rt_config_free(&cfg);
    if (rc != 0 || (o->extra && o->extra(o->extra_ctx, db, experiment, dir, err) != 0)) {
        rt_outdir_undo(&made);
        return rt_err_prefix(err, "%s: experiment '%s'", label, experiment);
    }
    res->gnuplot_missing |= pr.gnuplot_missing;

    const char *kind = pr.gnuplot_missing ? ".gp" : ".svg";
    rt_figures_name *names = NULL;
    int n = 0;
    if (rt_figures_list(dir, kind, &names, &n, err) != 0) {
        free(names);
        return -1;
    }
    if (pr.gnuplot_missing)
        fputs("<p class=\"note\">gnuplot was not found when this report was written: the figures' "
              "data and scripts are linked below; <code>gnuplot NAME.gp</code> in their folder "
              "draws them.</p>\n",
              f);
    else if (n == 0)
        fputs("<p class=\"note\">No figure: no verified point to draw.</p>\n", f);
    for (int k = 0; k < n; ++k) {
        char stem[256];
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(names[k]) - strlen(kind)), names[k]);
        char path[600];
        fputs("<figure>", f);
        if (!pr.gnuplot_missing) {
            if (rt_path_format(path, sizeof path, err, "%s/%s.svg", rel, stem) != 0) {
                free(names);
                return -1;
            }
            fputs("<img src=\"", f);
            url(f, path);
            fputs("\" alt=\"", f);
            html(f, stem);
            fputs("\" width=\"1024\" height=\"640\">", f);
            ++res->n_figures;
        }
        fputs("<figcaption>", f);
        html(f, stem);
        fputs(": <a href=\"", f);
        if (rt_path_format(path, sizeof path, err, "%s/%s.dat", rel, stem) != 0) {
            free(names);
            return -1;
        }
        url(f, path);
        fputs("\">data</a>, <a href=\"", f);
        if (rt_path_format(path, sizeof path, err, "%s/%s.gp", rel, stem) != 0) {
            free(names);
            return -1;
        }
        url(f, path);
        fputs("\">script</a></figcaption></figure>\n", f);
    }
    free(names);
    return 0;
}

static void store_folder(int index, const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char raw[300], clean[300];
    snprintf(raw, sizeof raw, "%d-%s", index + 1, base);
    char *dot = strrchr(raw, '.');
    if (dot && strcmp(dot, ".db") == 0)
        *dot = '\0';
    rt_plot_sanitize_name(raw, clean, sizeof clean);
    snprintf(out, len, "figures/%s", clean);
}

static int write_store(FILE *f, const rt_report_opts *o, int index, struct sqlite3 *db,
                       rt_report_result *res, rt_err *err)
{
    const char *label = o->stores[index];
    fprintf(f, "<section id=\"store-%d\">\n<h2>", index + 1);
    if (o->n_stores == 2)
        fputs(index == 0 ? "Baseline: " : "New: ", f);
    fputs("<code>", f);
    html(f, label);
    fputs("</code></h2>\n", f);
    if (write_runs(f, db, label, err) != 0)
        return -1;
    char names[64][64];
    int n_names = 0;
    if (rt_store_experiments(db, names, 64, &n_names, err) != 0)
        return rt_err_prefix(err, "%s", label);
    char folder[400];
    store_folder(index, label, folder, sizeof folder);
    for (int e = 0; e < n_names; ++e) {
        fputs("<h3>Experiment <code>", f);
        html(f, names[e]);
        fputs("</code></h3>\n", f);
        char rel[600], clean[128];
        rt_plot_sanitize_name(names[e], clean, sizeof clean);
        snprintf(rel, sizeof rel, "%s/%s", folder, clean);
        if (write_statuses(f, db, label, names[e], err) != 0 ||
            write_best(f, db, label, names[e], err) != 0 ||
            write_figures(f, o, db, label, names[e], rel, res, err) != 0)
            return -1;
    }
    if (n_names == 0)
        fputs("<p class=\"note\">The store holds no experiment yet.</p>\n", f);
    fputs("</section>\n", f);
    return 0;
}

/* ------------------------------------------------------------------------------------------- */
/* The comparison */

static void format_ms(FILE *f, double s)
{
    if (isfinite(s))
        fprintf(f, "%.4g", s * 1e3);
    else
        fputs("&ndash;", f);
}

typedef enum entry_set { ENTRIES_CHANGED, ENTRIES_MATCHED, ENTRIES_ONE_SIDED } entry_set;

/* A matched point worth a look: a timing verdict other than SAME, a status or metric change. */
static int entry_changed(const rt_compare_entry *e)
{
    return e->verdict == RT_VERDICT_SLOWER || e->verdict == RT_VERDICT_FASTER ||
           e->verdict == RT_VERDICT_UNSURE || e->status_change != RT_STATUS_UNCHANGED ||
           e->n_metric_changes > 0;
}

static void write_entries(FILE *f, const rt_compare_report *r, entry_set which)
{
    fputs("<div "
          "style=\"overflow-x:auto\"><table>\n<tr><th>verdict</th><th>kernel</th><th>matrix</"
          "th><th>params</th><th>"
          "problem</th><th>ranks</th><th>baseline (ms)</th><th>new (ms)</th><th>change</th><th>"
          "p</th><th>status</th><th>metric changes</th></tr>\n",
          f);
    /* Failures first (slower, newly failing, changed metrics), then the rest in identity order. */
    for (int pass = 0; pass < 2; ++pass) {
        for (int k = 0; k < r->n_entries; ++k) {
            const rt_compare_entry *e = &r->entries[k];
            const int wanted = which == ENTRIES_ONE_SIDED ? e->side != RT_COMPARE_BOTH
                               : which == ENTRIES_CHANGED
                                   ? e->side == RT_COMPARE_BOTH && entry_changed(e)
                                   : e->side == RT_COMPARE_BOTH;
            const int loud = e->verdict == RT_VERDICT_SLOWER ||
                             e->status_change == RT_STATUS_FAILED || e->n_metric_changes > 0;
            if (!wanted || (pass == 0) != loud)
                continue;
            const char *verdict = e->side == RT_COMPARE_BASE_ONLY  ? "only baseline"
                                  : e->side == RT_COMPARE_NEW_ONLY ? "only new"
                                                                   : rt_verdict_name(e->verdict);
            fprintf(f, "<tr><td class=\"%s\">%s</td>", rt_verdict_name(e->verdict), verdict);
            cell_text(f, e->key.kernel);
            cell_text(f, e->key.matrix);
            fputs("<td><code>", f);
            html(f, e->key.params);
            fputs("</code></td><td><code>", f);
            html(f, e->key.problem);
            fprintf(f, "</code></td><td class=\"num\">%d</td><td class=\"num\">", e->key.ranks);
            format_ms(f, e->base_median);
            fputs("</td><td class=\"num\">", f);
            format_ms(f, e->new_median);
            fputs("</td><td class=\"num\">", f);
            if (isfinite(e->ratio))
                fprintf(f, "%+.1f%%", (e->ratio - 1) * 100);
            else
                fputs("&ndash;", f);
            fputs("</td><td class=\"num\">", f);
            if (isfinite(e->p_value))
                fprintf(f, "%.2g", e->p_value);
            else
                fputs("&ndash;", f);
            fprintf(f, "</td><td%s>",
                    e->status_change == RT_STATUS_FAILED ? " class=\"fail\"" : "");
            if (e->side != RT_COMPARE_BOTH)
                html(f, e->side == RT_COMPARE_BASE_ONLY ? e->base_status : e->new_status);
            else if (e->status_change == RT_STATUS_UNCHANGED)
                html(f, e->new_status);
            else {
                html(f, e->base_status);
                fputs(" &rarr; ", f);
                html(f, e->new_status);
            }
            fputs("</td><td>", f);
            int listed = 0;
            for (int m = 0; m < r->n_metric_changes; ++m) {
                if (r->metric_changes[m].entry != k)
                    continue;
                fputs(listed++ ? ", " : "", f);
                html(f, r->metric_changes[m].name);
                fprintf(f, " %.17g &rarr; %.17g", r->metric_changes[m].base_value,
                        r->metric_changes[m].new_value);
            }
            fputs("</td></tr>\n", f);
        }
    }
    fputs("</table></div>\n", f);
}

static void write_compare(FILE *f, const rt_compare_report *r, const char *base, const char *fresh)
{
    fputs("<section id=\"compare\">\n<h2>Comparison</h2>\n<p>Baseline <code>", f);
    html(f, base);
    fputs("</code>, new <code>", f);
    html(f, fresh);
    fprintf(f,
            "</code>: threshold %.3g%%, alpha %g%s. Verdict: <span class=\"%s\">%s</span>"
            "</p>\n",
            r->opts.threshold * 100, r->opts.alpha,
            r->opts.timings_informational ? ", timings informational" : "",
            r->failed ? "fail" : "pass", r->failed ? "FAIL" : "PASS");
    fprintf(f, "<table>\n<tr><th>matched</th><th>same</th><th>faster</th><th>slower</th><th>"
               "unsure</th><th>not timed</th><th>only baseline</th><th>only new</th><th>status "
               "failures</th><th>metric changes</th></tr>\n<tr>");
    const int counts[] = {r->n_matched,       r->n_same,
                          r->n_faster,        r->n_slower,
                          r->n_unsure,        r->n_not_timed,
                          r->n_base_only,     r->n_new_only,
                          r->n_status_failed, r->n_points_metric_changed};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k)
        fprintf(f, "<td class=\"num\">%d</td>", counts[k]);
    fputs("</tr>\n</table>\n", f);
    /* What needs a look first (regressions, changes, unsure verdicts), then everything else
     * folded away: a store of a few hundred points would otherwise bury the one that matters. */
    int n_changed = 0;
    for (int k = 0; k < r->n_entries; ++k)
        n_changed += r->entries[k].side == RT_COMPARE_BOTH && entry_changed(&r->entries[k]);
    if (n_changed > 0) {
        fputs("<h3>Changes</h3>\n", f);
        write_entries(f, r, ENTRIES_CHANGED);
    } else {
        fputs("<p>No point changed beyond the threshold.</p>\n", f);
    }
    if (r->n_matched > 0) {
        fprintf(f, "<details><summary>All %d matched points</summary>\n", r->n_matched);
        write_entries(f, r, ENTRIES_MATCHED);
        fputs("</details>\n", f);
    }
    if (r->n_base_only + r->n_new_only > 0) {
        fprintf(f,
                "<details><summary>Points in one store only (%d in the baseline, %d in the "
                "new store)</summary>\n",
                r->n_base_only, r->n_new_only);
        write_entries(f, r, ENTRIES_ONE_SIDED);
        fputs("</details>\n", f);
    }
    fputs("</section>\n", f);
}

/* ------------------------------------------------------------------------------------------- */

int rt_report_html(const rt_report_opts *o, rt_report_result *res, rt_err *err)
{
    if (!res)
        return rt_err_set(err, "rt_report_html: no result to fill");
    memset(res, 0, sizeof *res);
    if (!o || !o->out_dir || !*o->out_dir)
        return rt_err_set(err, "report: no output folder given (--html DIR)");
    if (o->n_stores < 1 || !o->stores)
        return rt_err_set(err, "report: no store given (--db FILE, one or more)");
    if (o->n_stores == 2 && rt_compare_opts_check(&o->compare, err) != 0)
        return -1;

    struct sqlite3 **dbs = calloc((size_t)o->n_stores, sizeof *dbs);
    if (!dbs)
        return rt_err_set(err, "out of memory opening the stores");
    rt_outfile page = RT_OUTFILE_NONE;
    rt_outdir made = {{0}, {0}};
    FILE *f = NULL;
    int rc = -1;
    rt_compare_report cmp;
    memset(&cmp, 0, sizeof cmp);
    for (int k = 0; k < o->n_stores; ++k)
        if (rt_readonly_open(o->stores[k], &dbs[k], err) != 0)
            goto done;
    if (rt_outdir_make(&made, o->out_dir, err) != 0 ||
        rt_path_format(res->index_path, sizeof res->index_path, err, "%s/index.html", o->out_dir) !=
            0 ||
        rt_outfile_open(&page, res->index_path, err) != 0)
        goto done;
    f = page.f;
    fputs(page_head, f);
    fputs("<h1>rooftune report</h1>\n<p>", f);
    fprintf(f, "%d result store%s", o->n_stores, o->n_stores == 1 ? "" : "s");
    if (o->n_stores == 2)
        fputs(", compared below (the first is the baseline)", f);
    fputs(". Every figure is drawn from its store and links its data and gnuplot script.</p>\n"
          "<nav><ul>\n",
          f);
    for (int k = 0; k < o->n_stores; ++k) {
        fprintf(f, "<li><a href=\"#store-%d\">", k + 1);
        html(f, o->stores[k]);
        fputs("</a></li>\n", f);
    }
    if (o->n_stores == 2)
        fputs("<li><a href=\"#compare\">Comparison</a></li>\n", f);
    fputs("</ul></nav>\n", f);
    if (o->n_stores == 2) {
        if (rt_compare_stores(dbs[0], o->stores[0], dbs[1], o->stores[1], &o->compare, &cmp, err) !=
            0)
            goto done;
        write_compare(f, &cmp, o->stores[0], o->stores[1]);
        res->compared = 1;
        res->compare_failed = cmp.failed;
    }
    for (int k = 0; k < o->n_stores; ++k)
        if (write_store(f, o, k, dbs[k], res, err) != 0)
            goto done;
    fputs(page_tail, f);
    f = NULL;
    if (rt_outfile_commit(&page, err) != 0) /* never a half-written page */
        goto done;
    rc = 0;
done:
    rt_outfile_abort(&page);
    if (rc != 0)
        rt_outdir_undo(&made);
    rt_compare_report_free(&cmp);
    for (int k = 0; k < o->n_stores; ++k)
        rt_store_read_close(dbs[k]);
    free(dbs);
    return rc;
}
