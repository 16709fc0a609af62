/* rt_plot_query: the reads of the figure types beyond line and bars (stacked, box, heatmap,
 * scaling; report/rt_plot_types.c draws them): every status-ok point with its (x, series, y)
 * and id, a point's breakdown values, a metric family's best point. Queries whose text a figure
 * quotes in its .dat header come back with it (malloc'd), so the data file names its source. */
#ifndef RT_PLOT_QUERY_H
#define RT_PLOT_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_plot_data.h"

struct sqlite3;

/* One status-ok point of a figure: its (x, series, y) and its id. */
typedef struct rt_plot_point {
    rt_plot_row row;
    int64_t id;
} rt_plot_point;

/* Every status-ok point of experiment (only matrix's when not NULL) whose x and y are not NULL,
 * in id order, with (x, series, y) read as rt_plot_data_fetch reads them (y must hold numbers:
 * text is an error naming y; an infinite y is left out). *items grows as needed (*cap its
 * capacity, *n the count); *query receives the query text (malloc'd; free it). */
int rt_plot_query_points(struct sqlite3 *db, const char *experiment, const rt_plot_field *x,
                         const rt_plot_field *y, const rt_plot_field *series, const char *matrix,
                         rt_plot_point **items, int *n, int *cap, char **query, rt_err *err);

/* The values of fields[0..n-1] for point id: values[k] NAN where missing or not a number;
 * *text_col is the first field holding text (-1: none), its value in text. *found = 0 when the
 * point is not there. */
int rt_plot_query_values(struct sqlite3 *db, const rt_plot_field *fields, int n, int64_t id,
                         double *values, int *text_col, char *text, size_t len, int *found,
                         rt_err *err);

/* How many metrics of experiment's points have a name starting with prefix. */
int rt_plot_query_family_count(struct sqlite3 *db, const char *experiment, const char *prefix,
                               int64_t *count, rt_err *err);

/* The distinct metric names of experiment's points, "a, b, c" (cut with "..." past len). */
void rt_plot_query_metric_names(struct sqlite3 *db, const char *experiment, char *out, size_t len);

/* The status-ok point (only matrix's when not NULL) with a readable metric starting with prefix
 * and the shortest median time (ties: the lowest id). *found = 0 when there is none. *query
 * receives the query text (malloc'd; free it), also when nothing is found. */
typedef struct rt_plot_family_point {
    int64_t id;
    char kernel[128];
    char matrix[128];
    char params[1024];
    char problem[512];
    int ranks;
} rt_plot_family_point;
int rt_plot_query_family_point(struct sqlite3 *db, const char *experiment, const char *matrix,
                               const char *prefix, rt_plot_family_point *p, int *found,
                               char **query, rt_err *err);

#endif
