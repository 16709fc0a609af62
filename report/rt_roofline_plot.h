/* rt_roofline_plot: the roofline figures of an experiment, drawn with gnuplot like every other
 * rooftune figure (report/rt_plot_gnuplot.h: <stem>.dat, <stem>.gp, <stem>.png, <stem>.svg in one
 * folder; `cd <folder> && gnuplot <stem>.gp` redraws).
 *
 * Local roofline: log-log, arithmetic intensity (flop per DRAM byte of the traffic model) on x,
 * GFLOP/s on y; one ceiling per memory level (bandwidth x intensity, capped at the peak) and the
 * fp32 and fp64 peaks, spec dashed and measured solid; one point per result, with one marker and
 * colour per kernel (the legend names the kernels), plus a hollow point at the intensity the
 * hardware counters saw when dram_bytes_read/write were collected.
 *
 * Labels: with dozens of results the full labels overlap into a blob, so only the best point
 * (highest GFLOP/s per rank) of each (kernel, matrix) is tagged, with a number; the numbers are
 * the key table, written into the .dat (comment lines "# key N ...", and column `key` of every
 * row) and drawn beside the plot. Tags are placed greedily around their points, avoiding each
 * other and the other markers. Every point's full label stays in the .dat.
 *
 * Inter-node roofline (distributed results only), after Brock, Buluc and Yelick (ICS'24, Fig. 2):
 * x = flop per byte sent over the network (global tier), slope = the per-GPU network bandwidth,
 * roof = the local peak; each point's own local roofline peak is marked by a cross above it.
 * Points the roofline check flagged are drawn red on both figures.
 *
 * Performance is per rank (GFLOP/s / ranks) because the ceilings are per device and the traffic
 * models are per (busiest) rank. */
#ifndef RT_ROOFLINE_PLOT_H
#define RT_ROOFLINE_PLOT_H

#include "rt_error.h"
#include "rt_machine.h"
#include "rt_matrix.h"

struct sqlite3;

typedef struct rt_roofline_point {
    long long id;    /* points.id, or any number for points built by hand */
    char kernel[64]; /* full kernel name: one marker and colour per kernel */
    char matrix[64]; /* with kernel: the group whose best point is labelled */
    char label[128];
    rt_precision precision;
    int ranks;
    double gflops;            /* of the whole job */
    double intensity;         /* model flop / model DRAM byte; NAN when not modelled */
    double counted_intensity; /* flop / counted DRAM byte (counters); NAN when not counted */
    double net_intensity;     /* flop / model network byte (global tier); NAN when none */
    int above;                /* 1: flagged above the roofline */
} rt_roofline_point;

typedef struct rt_roofline_plot_opts {
    const char *out_dir; /* must exist */
    const char *stem;    /* NULL: "roofline" (the inter-node figure adds "-internode") */
    const char *title;   /* NULL: "Roofline: <machine name>" */
    int run_gnuplot;     /* 1: render the images now (0: write .dat and .gp only) */
} rt_roofline_plot_opts;

typedef struct rt_roofline_plot_result {
    int n_figures;       /* figures whose files were written (1 or 2) */
    int n_points;        /* points drawn on the local figure */
    int n_internode;     /* points drawn on the inter-node figure */
    int n_skipped;       /* results without a traffic model (no intensity) */
    int n_labelled;      /* tagged points of the local figure: one per (kernel, matrix) */
    int gnuplot_missing; /* 1: gnuplot not on PATH; .dat/.gp written, no images */
    char message[256];
} rt_roofline_plot_result;

/* Reads the results of an experiment (NULL: every experiment) from a result store: points with
 * status ok or above_roofline and a GFLOP/s value; intensity from the metric `intensity`, else
 * model_flops / model_dram_bytes; counted intensity from dram_bytes_read + dram_bytes_write;
 * network intensity from model_flops / model_net_bytes_global. *pts is malloc'ed (free it). An
 * unknown experiment is an error listing the ones in the store. */
int rt_roofline_load_points(struct sqlite3 *db, const char *experiment, rt_roofline_point **pts,
                            int *n, rt_err *err);

/* Writes the figure(s) for the given points against machine m. */
int rt_roofline_plot_points(const rt_machine *m, const rt_roofline_point *pts, int n,
                            const rt_roofline_plot_opts *opt, rt_roofline_plot_result *res,
                            rt_err *err);

/* rt_roofline_load_points + rt_roofline_plot_points. */
int rt_roofline_plot_store(struct sqlite3 *db, const char *experiment, const rt_machine *m,
                           const rt_roofline_plot_opts *opt, rt_roofline_plot_result *res,
                           rt_err *err);

#endif
