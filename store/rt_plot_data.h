/* rt_plot_data: what a figure shows, read out of the result store.
 *
 * A figure names its axes and series by plain words ("gflops", "row_block", "K", "kernel",
 * "dram_bytes_read"). rt_plot_data_resolve turns such a word into an SQL expression over the
 * points table, looking in this order at:
 *   1. a column of points (kernel, matrix, backend, device, ranks, gflops, gnnz_s, time_median_s,
 *      time_min_s, time_max_s, efficiency, bound_s);
 *   2. a key of the params JSON, then of the problem JSON (json_extract);
 *   3. a metric name (metrics.name of the experiment's points).
 * An unknown word is an error that lists every name the experiment actually has.
 *
 * rt_plot_data_fetch then reads (x, series, y) for the experiment's status-ok points. Several
 * points can share one (series, x) (other parameters, other problems): the table keeps the best of
 * them, the smallest y for times and the largest otherwise, with how many points it chose from.
 * Rows come back sorted by series, then x (numbers numerically, before text). */
#ifndef RT_PLOT_DATA_H
#define RT_PLOT_DATA_H

#include <stdint.h>

#include "rt_error.h"

struct sqlite3;

/* The status text the store writes for a verified, timed point: rt_point_status_name(RT_POINT_OK).
 * Spelled out here so that plotting a store does not depend on the writer's code. */
#define RT_PLOT_STATUS_OK "ok"

#define RT_PLOT_TEXT_MAX 128

typedef enum rt_plot_source {
    RT_PLOT_SRC_NONE = 0,   /* no field: everything is one series */
    RT_PLOT_SRC_POINTS = 1, /* a column of points */
    RT_PLOT_SRC_PARAM = 2,  /* a key of the params (or problem) JSON */
    RT_PLOT_SRC_METRIC = 3  /* a metric of the point */
} rt_plot_source;

typedef struct rt_plot_field {
    char name[64];
    rt_plot_source source;
    char sql[640];       /* SQL expression over `points AS p`; literals already quoted */
    char label[160];     /* axis label, with the unit when one is known */
    int lower_is_better; /* times: the best of several points is the smallest */
    int numeric;         /* 1: known to hold numbers (points columns); 0: unknown or text */
} rt_plot_field;

typedef struct rt_plot_row {
    double x; /* when x_numeric */
    int x_numeric;
    char x_text[RT_PLOT_TEXT_MAX]; /* the value as stored, numbers included */
    double series_value;           /* when series_numeric */
    int series_numeric;
    char series[RT_PLOT_TEXT_MAX];
    double y;
    int64_t n_points; /* how many status-ok points share this (series, x) */
} rt_plot_row;

typedef struct rt_plot_table {
    int n;
    int cap;
    rt_plot_row *rows;
    char *query; /* the SQL that produced the rows (sqlite3_malloc'd), for the .dat header */
} rt_plot_table;

typedef struct rt_plot_names {
    int n;
    int cap;
    char (*items)[RT_PLOT_TEXT_MAX];
} rt_plot_names;

/* The field called `name` for experiment's points. On an unknown name the error says which names
 * exist (points columns, parameters, problem parameters, metrics) and the nearest one. */
int rt_plot_data_resolve(struct sqlite3 *db, const char *experiment, const char *name,
                         rt_plot_field *out, rt_err *err);

/* A field that puts every point in one series named label. */
void rt_plot_data_constant(const char *label, rt_plot_field *out);

/* Copies column `col` of a figure query's row as text (at most len bytes) and tells whether it
 * holds a finite number (1, *value set) or not (0): a numeric column as stored, a text column
 * when all of it is a number, trailing spaces allowed. The one reader of the figure data and of
 * rt_plot_query, so both take a value the same way. */
struct sqlite3_stmt;
int rt_plot_read_value(struct sqlite3_stmt *stmt, int col, char *text, size_t len, double *value);
/* Column `col` of a figure query's row as the figure's y (named y->name in the message): 1 and
 * *value when it is a finite number; 0 when it is a number no figure can place (infinite: the
 * caller skips the row); -1 (err set, naming the value) when it is text, which cannot be plotted.
 * The figure data and rt_plot_query take y through it, so both refuse the same values. */
int rt_plot_read_y(struct sqlite3_stmt *stmt, int col, const rt_plot_field *y, double *value,
                   rt_err *err);

/* Reads the best y per (series, x) of experiment's status-ok points, optionally only those on
 * matrix (NULL: all). y must hold numbers; text in y is an error naming the value. t is
 * initialized here; free it with rt_plot_data_table_free (also after an error). */
int rt_plot_data_fetch(struct sqlite3 *db, const char *experiment, const rt_plot_field *x,
                       const rt_plot_field *y, const rt_plot_field *series, const char *matrix,
                       rt_plot_table *t, rt_err *err);
void rt_plot_data_table_free(rt_plot_table *t);

/* Orders two rows by x as the table does (numbers by value and before text, text byte-wise but
 * with runs of digits by value: "dnn-4096" before "dnn-16384");
 * 0 when they share x. */
int rt_plot_data_compare_x(const rt_plot_row *a, const rt_plot_row *b);

/* Counts experiment's points, all and status-ok. When it has none the error lists the
 * experiments the store does have. */
int rt_plot_data_count(struct sqlite3 *db, const char *experiment, int64_t *total, int64_t *ok,
                       rt_err *err);

/* The distinct matrices of experiment's status-ok points, sorted. */
int rt_plot_data_matrices(struct sqlite3 *db, const char *experiment, rt_plot_names *out,
                          rt_err *err);

/* The first parameter that takes more than one value among experiment's status-ok points:
 * params keys in name order, then problem keys in name order. found = 0 when none varies. */
int rt_plot_data_first_varying(struct sqlite3 *db, const char *experiment, char *name, size_t len,
                               int *found, rt_err *err);

void rt_plot_data_names_free(rt_plot_names *names);

#endif
