/* rt_report: a static HTML report of one or more result stores (`rooftune report --html DIR`).
 *
 * DIR/index.html holds, per store, the provenance of its runs, per experiment the points by status
 * and the best verified point per kernel and matrix, and the experiment's figures (SVG, drawn into
 * DIR/figures/<n>-<store>/<experiment>/ with the plots the store recorded, like `rooftune
 * figures`), each linked to its .dat and .gp. With exactly two stores it adds the verdict of
 * `rooftune compare` (first = baseline, second = new) with its per-point table.
 *
 * The page needs nothing outside DIR: no CDN, no web font, no remote script; a Content Security
 * Policy in the page makes any attempt to load one fail (and show in the browser console). A
 * small inline script reports a figure that failed to load on the console, so a headless browser
 * can check that the page renders cleanly (tests/regress/test_report_html.sh). */
#ifndef RT_REPORT_H
#define RT_REPORT_H

#include "rt_compare.h"
#include "rt_error.h"
#include "rt_figures.h"

typedef struct rt_report_opts {
    const char *out_dir;       /* created when missing */
    const char *const *stores; /* store paths, in order */
    int n_stores;              /* >= 1 */
    rt_compare_opts compare;   /* used when n_stores == 2 */
    rt_figures_extra_fn extra; /* extra figures per experiment (the roofline); may be NULL */
    void *extra_ctx;
} rt_report_opts;

typedef struct rt_report_result {
    char index_path[4200];
    int n_figures;       /* SVG figures shown */
    int gnuplot_missing; /* 1: no SVG could be drawn (the page says so and links the scripts) */
    int compared;        /* 1: the two stores were compared */
    int compare_failed;  /* the comparison's verdict, when compared */
} rt_report_result;

/* Writes DIR/index.html and the figures. Bad input (a missing store, not a store, no store at all)
 * is an error naming it; nothing is half-written into index.html (it is written to a temporary
 * name and renamed). */
int rt_report_html(const rt_report_opts *o, rt_report_result *res, rt_err *err);

#endif
