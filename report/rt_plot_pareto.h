/* rt_plot_pareto: the figure of two-objective tuning, one per sweep of an rt_pareto_set
 * (store/rt_store_pareto.h): every candidate point, and the Pareto front drawn through its points
 * along the first objective. Written through the one .dat/.gp writer (rt_plot_writer.h) like every
 * figure: <stem>.dat, <stem>.gp and, with gnuplot, <stem>.png and .svg, the stem
 * pareto-<objective a>-<objective b>-<n> (n counts the sweeps from 1, in the set's order). */
#ifndef RT_PLOT_PARETO_H
#define RT_PLOT_PARETO_H

#include "rt_error.h"
#include "rt_plot_writer.h"
#include "rt_store_pareto.h"

/* Draws every sweep of set that has a point into out_dir (made when missing). */
int rt_plot_pareto(const rt_pareto_set *set, const char *out_dir, rt_plot_result *res, rt_err *err);

#endif
