/* rt_store_read: reading a result store without knowing its schema.
 *
 * Every query the layers above the store (report, roofline, app) run on a store is here or in
 * the other store read modules (rt_store_rows.h for wide row tables, rt_plot_data.h and
 * rt_store_figure.h for what figures show), so that the SQLite schema has one owner: a change of
 * a table changes store/ and nothing else. Callers hold the store as an opaque `struct sqlite3 *`
 * (rt_readonly_open, rt_store_read_open or rt_store_db) and never call SQLite themselves.
 *
 * Text columns that are NULL in the store read as "" unless a has_* flag says otherwise; real
 * columns that are NULL read as NAN. Errors name what was being read and SQLite's message; the
 * caller adds which store (its label) it was. */
#ifndef RT_STORE_READ_H
#define RT_STORE_READ_H

#include <stdint.h>

#include "rt_error.h"

struct sqlite3;

/* Opens path read-only the ordinary SQLite way (no check that it is a rooftune store: export and
 * plot check it themselves, with their own messages). On failure err holds SQLite's message
 * (the caller names the file) and *db is NULL. Close with rt_store_read_close. */
int rt_store_read_open(const char *path, struct sqlite3 **db, rt_err *err);
/* Closes a handle from rt_store_read_open or rt_readonly_open; NULL is harmless. */
void rt_store_read_close(struct sqlite3 *db);

/* ---- experiments --------------------------------------------------------------------------- */

/* 1 when a run or a point of the store names experiment. */
int rt_store_experiment_known(struct sqlite3 *db, const char *experiment, int *known, rt_err *err);
/* 1 when at least one point of the store belongs to experiment. */
int rt_store_experiment_has_points(struct sqlite3 *db, const char *experiment, int *has,
                                   rt_err *err);
/* The experiments that have points, sorted, as one text "'a', 'b'" of at most len bytes (names
 * that do not fit are left out); "" when none or when the store cannot be read. */
void rt_store_point_experiments_text(struct sqlite3 *db, char *out, size_t len);

/* ---- runs (provenance) ----------------------------------------------------------------------- */

typedef struct rt_store_run {
    int64_t id;
    char experiment[64];
    char status[24];
    char started_at[40];
    char ended_at[40];
    char device[256];
    char git_revision[48];
    int git_dirty;
    char compiler[128];
    char cuda_runtime[32];
    int has_cuda_runtime; /* 0: NULL in the store (no CUDA) */
    char cuda_driver[32];
    int has_cuda_driver;
    char topology[256];
    char config_path[1024];
    char config_hash[24];
    char *config_text; /* malloc'd, NULL when not recorded; rt_store_run_free */
} rt_store_run;

void rt_store_run_free(rt_store_run *run);

/* The newest run (largest id) of experiment; *found = 0 (and run cleared) when it has none.
 * Free run with rt_store_run_free. */
int rt_store_newest_run(struct sqlite3 *db, const char *experiment, rt_store_run *run, int *found,
                        rt_err *err);

/* Calls fn for every run of the store in id order (config_text left NULL); stops at the first
 * non-zero return of fn and returns it. */
typedef int (*rt_store_run_fn)(void *ctx, const rt_store_run *run, rt_err *err);
int rt_store_each_run(struct sqlite3 *db, rt_store_run_fn fn, void *ctx, rt_err *err);

/* ---- points -------------------------------------------------------------------------------- */

/* A point's identity and outcome, as comparisons match points across stores. */
typedef struct rt_store_point {
    int64_t id;
    char experiment[64];
    char kernel[96];
    char matrix[64];
    char params[1024];
    char problem[512];
    int ranks;
    char device[256];
    char status[24];
} rt_store_point;

/* Calls fn for every point of experiment (NULL: all) in id order; stops at the first non-zero
 * return of fn and returns it. */
typedef int (*rt_store_point_fn)(void *ctx, const rt_store_point *p, rt_err *err);
int rt_store_each_point(struct sqlite3 *db, const char *experiment, rt_store_point_fn fn, void *ctx,
                        rt_err *err);

/* How many points of experiment have each status, by status name. */
typedef int (*rt_store_status_fn)(void *ctx, const char *status, int64_t count, rt_err *err);
int rt_store_each_status_count(struct sqlite3 *db, const char *experiment, rt_store_status_fn fn,
                               void *ctx, rt_err *err);

/* The fastest (smallest median) status-ok point of each (kernel, matrix) of experiment, ordered
 * by matrix, then kernel. */
typedef struct rt_store_best {
    char kernel[96];
    char matrix[64];
    double time_median_s;
    double gflops;     /* NAN when NULL */
    double efficiency; /* NAN when NULL */
    char params[1024];
    char problem[512];
    int ranks;
} rt_store_best;
typedef int (*rt_store_best_fn)(void *ctx, const rt_store_best *b, rt_err *err);
int rt_store_each_best(struct sqlite3 *db, const char *experiment, rt_store_best_fn fn, void *ctx,
                       rt_err *err);

/* What a roofline figure needs of a point: the status-ok or above_roofline points of experiment
 * (NULL: all) with a positive GFLOP/s, in id order. Metrics that are missing or unavailable read
 * as NAN. */
typedef struct rt_store_roofline_point {
    int64_t id;
    char kernel[96];
    char matrix[64];
    char params[1024];
    char precision[16]; /* problem's precision, "fp32" when it has none */
    int ranks;
    double gflops;
    int above;    /* status above_roofline */
    double flops; /* nominal */
    double intensity, model_flops, model_dram_bytes, model_net_bytes_global;
    double dram_bytes_read, dram_bytes_write;
} rt_store_roofline_point;
typedef int (*rt_store_roofline_fn)(void *ctx, const rt_store_roofline_point *p, rt_err *err);
int rt_store_each_roofline_point(struct sqlite3 *db, const char *experiment,
                                 rt_store_roofline_fn fn, void *ctx, rt_err *err);

/* The median time of a point (NAN when it has none or is not there). */
int rt_store_point_time_median(struct sqlite3 *db, int64_t point_id, double *median, rt_err *err);

/* ---- samples and metrics of one point ------------------------------------------------------ */

/* The recorded seconds (max over ranks) of a point in repetition order, into a growing array:
 * *x is realloc'd as needed (*cap its capacity), *n set to the count. Samples that are not
 * finite positive times are left out (they can never be compared or plotted as times). */
int rt_store_samples(struct sqlite3 *db, int64_t point_id, double **x, int *n, int *cap,
                     rt_err *err);

/* Checks the times of a point whose status says it was timed (ok, above_roofline): its median
 * and every sample must be finite positive seconds, and it must have a sample. A store edited by
 * hand or damaged can hold anything; a reader that skipped such a point would pass it as "not
 * timed". Returns 0, or -1 with err naming the point and the value. */
int rt_store_check_timed_point(struct sqlite3 *db, int64_t point_id, rt_err *err);

typedef struct rt_store_metric {
    char name[64];
    char unit[32];
    int available;
    int deterministic;
    int has_value;
    double value; /* NAN when has_value is 0 */
    char reason[256];
    int has_reason; /* 0: NULL in the store */
} rt_store_metric;

/* The metrics of a point ordered by name, optionally only those whose name starts with prefix
 * (NULL: all), into a growing array like rt_store_samples. */
int rt_store_metrics(struct sqlite3 *db, int64_t point_id, const char *prefix, rt_store_metric **m,
                     int *n, int *cap, rt_err *err);

#endif
