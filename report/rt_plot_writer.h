/* rt_plot_writer: the one .dat/.gp writer every figure type uses, and what the figure writers share
 * (rt_plot.c draws line and bar figures and dispatches; rt_plot_types.c draws stacked bars, box
 * plots, heat maps and scaling figures). Not for other modules: they call rt_plot_experiment
 * (rt_plot.h).
 *
 * Every writer produces the same three kinds of file (<stem>.dat, <stem>.gp, and the images the
 * script renders), with the same header comments, the same style and the same number format, so
 * that every figure regenerates the same way and its data file is byte-for-byte stable: rows in a
 * fixed order, numbers printed with %.10g, nothing that depends on the time or the host. */
#ifndef RT_PLOT_WRITER_H
#define RT_PLOT_WRITER_H

#include <stddef.h>
#include <stdio.h>

#include "rt_config.h"
#include "rt_outdir.h"
#include "rt_outfile.h"
#include "rt_plot_data.h"

typedef struct rt_plot_result {
    int n_figures;       /* figures written (.dat and .gp, and the images when gnuplot ran) */
    int gnuplot_missing; /* 1: gnuplot was not on PATH, so no PNG/SVG were drawn */
    char message[512];   /* one line for the user: what was written, skipped and why */
} rt_plot_result;

#define RT_PLOT_STEM_MAX 128
#define RT_PLOT_PATH_MAX 4096

/* How a scaling figure turns its y into what it draws. */
typedef enum rt_plot_scaling_mode {
    RT_PLOT_SCALE_RAW = 0,       /* y itself, with the ideal line when y is a time or a rate */
    RT_PLOT_SCALE_SPEEDUP = 1,   /* T(p0) / T(p) over the smallest rank count p0 */
    RT_PLOT_SCALE_EFFICIENCY = 2 /* T(p0) p0 / (T(p) p): 1 is perfect strong scaling */
} rt_plot_scaling_mode;

/* One figure, resolved: what to query and how to draw it. */
typedef struct rt_plot_figure {
    char stem[RT_PLOT_STEM_MAX];
    char type[16];
    rt_plot_field x, y, series;
    int has_series;
    char title[256];
    int title_given; /* 1: the title is the config's, not one made by the plot stage */
    int logx, logy;
    const char *matrix; /* only these points when not NULL (the default per-matrix figures) */
    const char *where;  /* the config's `where` as SQL over points when it has one, or NULL */
    char context[700];  /* "file:line:col: plots[2] (name)" for error messages */
    char baseline[96];  /* bars: speedup labels relative to this series value ("" = none) */
    int n_stack;        /* stacked: the values stacked in each bar */
    rt_plot_field stack[RT_PLOT_STACK_MAX];
    char family[64];              /* heatmap: metrics <family>_<i>_<j> */
    rt_plot_scaling_mode scaling; /* scaling figures */
} rt_plot_figure;

/* Everything one rt_plot_experiment call shares between its figures. */
typedef struct rt_plot_job {
    struct sqlite3 *db;
    const char *experiment;
    const char *out_dir;
    int have_gnuplot;
    rt_plot_result *res;
    char notes[400]; /* skipped figures and why, for res->message */
} rt_plot_job;

/* The start of every figure-writing call: job->out_dir made (with its missing parents, which
 * rt_outdir_undo(made) removes again while empty) and gnuplot looked for (job->have_gnuplot,
 * job->res->gnuplot_missing). */
int rt_plot_job_begin(rt_plot_job *job, rt_outdir *made, rt_err *err);

/* Appends "; <text>" style notes (the caller writes the separator) to job->notes. */
void rt_plot_note(rt_plot_job *job, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Opens out_dir/<stem>.<ext> for writing (rt_outfile: written whole or not at all); write to o->f,
 * whose final name is o->path. */
int rt_plot_open_output(const rt_plot_job *job, const char *stem, const char *ext, rt_outfile *o,
                        rt_err *err);
/* Commits o (any write error is reported with its reason, and the file is then not created). */
int rt_plot_close_output(rt_outfile *o, rt_err *err);
/* The step from a figure's data to its script: commits dat (rt_plot_close_output), then opens
 * out_dir/<stem>.gp into gp. -1 (err set) when either fails; the caller aborts both either way. */
int rt_plot_data_to_script(const rt_plot_job *job, const char *stem, rt_outfile *dat,
                           rt_outfile *gp, rt_err *err);

/* Text on a comment line (control characters become spaces, so it stays one line). */
void rt_plot_write_comment(FILE *f, const char *text);
/* Text as one double-quoted data column that gnuplot reads as a single field. */
void rt_plot_write_data_text(FILE *f, const char *text);
/* " <v>" as a data column, or " ?" where v is NaN (the scripts' `set datafile missing '?'`). */
void rt_plot_write_value(FILE *f, double v);
/* Text as a gnuplot single-quoted string literal. */
void rt_plot_write_quoted(FILE *f, const char *text);
/* The first comment lines of a .dat: figure, experiment, matrix filter, query. */
void rt_plot_write_data_intro(FILE *f, const rt_plot_job *job, const rt_plot_figure *fig,
                              const char *query);
/* The common head of a .gp script: comments, reset, style, title and axis labels. */
void rt_plot_write_gp_header(FILE *gp, const rt_plot_job *job, const rt_plot_figure *fig,
                             const char *what);
/* Text x tics at 0, 1, ..., n - 1 and the x range around them, rotated when the labels would
 * overlap. The g-th label is the x_text of the rt_plot_row at row_offset in record at[g] of the
 * array records (records of stride bytes: a figure's rows, or larger records holding one). */
void rt_plot_write_text_xtics(FILE *gp, const void *records, size_t stride, size_t row_offset,
                              const int *at, int n);
/* "lt N dt M" of the k-th series: the palette has 8 colours, then the dash pattern changes. */
void rt_plot_write_series_style(FILE *cmd, int k);
/* The start of the k-th item of a plot command: "plot '<stem>.dat' " for the first, a
 * continuation (a comma, gnuplot's line-continuing backslash, a new line, then "     '' ": the
 * same data file) for the others. */
void rt_plot_write_plot_item(FILE *cmd, const char *stem, int k);
/* The plot item of series k, whose rows are block k of the data file (gnuplot's `index k`):
 * "index k using <how> ", the series' style and its title. */
void rt_plot_write_series_item(FILE *cmd, const char *stem, int k, const char *how,
                               const char *title);
/* Finishes a figure: the render tail, committing the script, drawing the images when gnuplot is
 * present (rt_plot_render: they replace the old ones only when both are drawn). gp is committed or
 * abandoned whatever happens. */
int rt_plot_finish_figure(rt_plot_job *job, const rt_plot_figure *fig, rt_outfile *gp,
                          const char *plot_command, rt_err *err);

/* A figure's plot command, written to f (a memory stream) while the .gp is still open, since the
 * script's render tail repeats it for each image format. Start it as {0}, so that
 * rt_plot_release_figure may run on any path. */
typedef struct rt_plot_command {
    FILE *f;
    char *text;
    size_t len;
} rt_plot_command;

/* Opens c->f (path: the script's, for the message). */
int rt_plot_command_open(rt_plot_command *c, const char *path, rt_err *err);
/* Ends the command (closing c->f) and finishes the figure with it (rt_plot_finish_figure). */
int rt_plot_command_finish(rt_plot_job *job, const rt_plot_figure *fig, rt_outfile *gp,
                           rt_plot_command *c, rt_err *err);
/* The end of every figure writer, on success and on error alike: whatever of the .dat and the .gp
 * is still open is abandoned, its temporary removed (rt_plot_finish_figure already committed gp
 * when the figure was finished), and the plot command is closed and freed. */
void rt_plot_release_figure(rt_outfile *dat, rt_outfile *gp, rt_plot_command *cmd);
/* 1 when v is a positive integral power of two. */
int rt_plot_is_power_of_two(double v);

#endif
