/* rt_timeline_plot: the timeline figure (`rooftune figures --timeline`), a Gantt chart drawn with
 * gnuplot like every rooftune figure (rt_plot_gnuplot.h: <stem>.dat, <stem>.gp, <stem>.png and
 * <stem>.svg in one folder; `cd <folder> && gnuplot <stem>.gp` redraws).
 *
 * Four lanes per GPU, top to bottom: kernels, host-to-device copies, device-to-host copies, and
 * copies between or within devices (p2p and d2d, told apart by colour); one box per record, from
 * its start to its end, in milliseconds from the first record of the file. Where a kernel box
 * sits above a copy box of the same GPU, the copy was hidden behind the computation. The .dat
 * holds every record (lane, times, device, stream, bytes, name, point), a block per kind, rows by
 * start time, so it is byte-for-byte stable for a given CSV. */
#ifndef RT_TIMELINE_PLOT_H
#define RT_TIMELINE_PLOT_H

#include "rt_error.h"
#include "rt_timeline.h"

typedef struct rt_timeline_plot_opts {
    const char *out_dir; /* made when missing (with its parents) */
    const char *stem;    /* the files' name; NULL: "timeline" */
    const char *title;   /* NULL: "GPU timeline" */
    int run_gnuplot;     /* 1: draw the PNG and SVG now (0: .dat and .gp only) */
} rt_timeline_plot_opts;

typedef struct rt_timeline_plot_result {
    int n_records;       /* records drawn */
    int n_devices;       /* GPUs (four lanes each) */
    int gnuplot_missing; /* 1: gnuplot is not on PATH: .dat and .gp written, no images */
    char stem[128];      /* the files' name as written (sanitized) */
} rt_timeline_plot_result;

/* Writes the figure of the records of l (at least one). */
int rt_timeline_plot(const rt_timeline_list *l, const rt_timeline_plot_opts *opt,
                     rt_timeline_plot_result *res, rt_err *err);

#endif
