/* rt_plot_types: the figure types beyond line and bars (stacked, box, heat map, scaling), each
 * drawn through the shared writer (rt_plot_writer.h). */
#ifndef RT_PLOT_TYPES_H
#define RT_PLOT_TYPES_H

#include "rt_error.h"
#include "rt_plot_writer.h"

/* The writers of rt_plot_types.c. Each fetches its own data; a figure without anything to show
 * is skipped with a note (returns 0 without writing). */
int rt_plot_draw_stacked(rt_plot_job *job, const rt_plot_figure *fig, rt_err *err);
int rt_plot_draw_box(rt_plot_job *job, const rt_plot_figure *fig, rt_err *err);
int rt_plot_draw_heatmap(rt_plot_job *job, const rt_plot_figure *fig, rt_err *err);
int rt_plot_draw_scaling(rt_plot_job *job, const rt_plot_figure *fig, rt_err *err);

#endif
