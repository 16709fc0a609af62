/* rt_figures: the committed figures, regenerated from the committed result stores.
 *
 * Layout (results/figures/README.md says which paper figure each one reproduces):
 *   <results>/baselines/<device>/<name>.db      committed stores, one folder per device
 *   <out>/<device>/<experiment>/<figure>.{dat,gp,png,svg}
 *
 * Each store's experiments are drawn with the plots of the config the store recorded (the
 * `plots:` section of runs.config_text of the experiment's newest run: the top file's, else the
 * last included file's that has one), or with the default set when it recorded none. The data
 * files are byte-for-byte stable: the same store gives the same .dat files on every machine
 * (fixed ordering and number format, no time, host or path in them).
 *
 * Library code prints nothing; what was drawn is in rt_figures_result. */
#ifndef RT_FIGURES_H
#define RT_FIGURES_H

#include "rt_config.h"
#include "rt_error.h"

struct sqlite3;

/* The plots a store recorded for an experiment, as rt_config_load reads them. *found = 0 (and
 * cfg zeroed, nothing to free) when the store recorded no config text or no plots: the caller
 * then draws the defaults. On success with *found = 1, free cfg with rt_config_free. Errors in
 * the recorded plots name the recorded file and line (e.g. configs/paper/x.yaml:27:5). */
int rt_figures_recorded_plots(struct sqlite3 *db, const char *experiment, rt_config *cfg,
                              int *found, rt_err *err);

/* Called once per drawn experiment with the folder its figures went to, for figures the results
 * library cannot draw itself (the CLI draws the roofline there). May be NULL. */
typedef int (*rt_figures_extra_fn)(void *ctx, struct sqlite3 *db, const char *experiment,
                                   const char *out_dir, rt_err *err);

typedef struct rt_figures_item {
    char device[64];
    char store[1024]; /* the .db path */
    char experiment[64];
    char out_dir[2048];
    int n_figures;      /* experiment figures written (the extra ones not counted) */
    int recorded_plots; /* 2: the store's plots file (STORE.plots.yaml); 1: the recorded
                           config's plots; 0: the default set */
    char message[600];  /* rt_plot's one-line account */
} rt_figures_item;

typedef struct rt_figures_result {
    int n_items;
    rt_figures_item *items;
    int gnuplot_missing; /* 1: no PNG/SVG were drawn (data and scripts were) */
} rt_figures_result;

/* Regenerates every figure of every store under <results_dir>/baselines/<device>/<name>.db into
 * <out_dir>/<device>/<experiment>/ (out_dir NULL: <results_dir>/figures), with the plots of the
 * store's plots file <name>.plots.yaml (experiment.name and plots:, declared after the run; a file
 * naming none of the store's experiments is an error), else those its recorded config declares,
 * else the default set. Devices and stores are
 * visited in name order. Each figure file is replaced only when drawn whole (rt_outfile); once an
 * experiment's figures are all drawn, its folder's other .dat/.gp/.png/.svg files (a renamed or
 * dropped figure) are removed, and a failure leaves the old figures in place and removes the
 * folders it made that are still empty. No store at all is an error naming the folder
 * searched. Free the result with rt_figures_result_free (also after an error). */
int rt_figures_regenerate(const char *results_dir, const char *out_dir, rt_figures_extra_fn extra,
                          void *extra_ctx, rt_figures_result *res, rt_err *err);
void rt_figures_result_free(rt_figures_result *res);

/* The regular files of dir whose names end in suffix (NULL: every file), sorted byte-wise;
 * *names is malloc'd (free it, also after an error), *n its count. */
typedef char rt_figures_name[256];
int rt_figures_list(const char *dir, const char *suffix, rt_figures_name **names, int *n,
                    rt_err *err);

#endif
