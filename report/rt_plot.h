/* rt_plot: the figures of an experiment, drawn with gnuplot from the result store.
 *
 * Each figure is written into out_dir as
 *   <name>.dat  the data: whitespace-separated, with a commented header naming the columns and
 *               quoting the SQL that produced them (runnable with the sqlite3 shell);
 *   <name>.gp   a gnuplot script that reads <name>.dat by relative path and sets its terminals,
 *               so `cd out_dir && gnuplot <name>.gp` regenerates both images;
 *   <name>.png  pngcairo (libgd png when cairo is missing) and <name>.svg, drawn by running the
 *               script, when gnuplot is on PATH.
 *
 * Figure types (rt_plot_cfg.type; keys documented in docs/guides/figures.md):
 *   "line"  y against x, one series per distinct value of `series`, points sorted by x; only
 *           status-ok points; several points with one (series, x) show their best y (the
 *           minimum for times, the maximum otherwise). x on a log2 axis when its values are
 *           powers of two, unless logx < 0.
 *   "bars"  grouped bars: a group per distinct x, a bar per distinct series, the best y of each
 *           (group, bar) printed on its bar; with rt_plot_cfg.baseline, each bar is labelled
 *           with its speedup over the baseline series' bar of its group instead.
 *   "stacked", "box", "heatmap", "scaling" (rt_plot_types.c): breakdown bars of the values in
 *           rt_plot_cfg.stack; Tukey box plots of the samples; a P x P matrix of the metric family
 *           <y>_<i>_<j> of one point; time, speedup or parallel efficiency against ranks.
 * x, y and series name a points column (kernel, matrix, backend, device, ranks, gflops, gnnz_s,
 * time_median_s, time_min_s, time_max_s, efficiency, bound_s), a parameter (params JSON, then
 * problem JSON) or a metric. An unknown name is an error listing the names that exist.
 *
 * rt_plot_cfg.logx / logy: 0 = automatic (log2 x for powers of two; linear y), > 0 = log axis
 * (base 2 when every value is a power of two, else 10), < 0 = never a log axis.
 *
 * With n_plots == 0 the default set is drawn: gflops against the first parameter that varies,
 * one series per kernel, one figure per matrix ("gflops-vs-<param>-<matrix>"), and grouped bars
 * of the best gflops per (matrix, kernel) ("best-gflops-per-matrix").
 *
 * Library code prints nothing: what happened is in rt_plot_result.message. */
#ifndef RT_PLOT_H
#define RT_PLOT_H

#include "rt_config.h"
#include "rt_error.h"
#include "rt_plot_writer.h"

struct sqlite3;
#include "rt_plot_gnuplot.h"

/* Draws the figures of experiment (plots[0..n_plots-1], or the default set when n_plots == 0)
 * into out_dir, creating the folder when needed. gnuplot missing is not an error: the .dat and
 * .gp files are written, res->gnuplot_missing is set and 0 is returned. A figure without any
 * status-ok point to show is skipped and named in res->message. Errors (unknown names, text as
 * y, two figures with one file name, unwritable folder, gnuplot failing, with its stderr) return
 * -1 with the message naming the plot (its config file:line:col when known). */
int rt_plot_experiment(struct sqlite3 *db, const char *experiment, const rt_plot_cfg *plots,
                       int n_plots, const char *out_dir, rt_plot_result *res, rt_err *err);

#endif
