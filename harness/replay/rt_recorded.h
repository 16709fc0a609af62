/* rt_recorded: a recorded, fully measured tuning space, for replaying search strategies without
 * the hardware: every configuration that was run, with its time or its failure.
 *
 * Formats read (plain or gzip-compressed JSON, detected by content):
 *   - a Kernel Tuner cache file: tune_params gives the parameters and their values in order;
 *     `cache` holds one entry per configuration, its "time" a number or a failure string
 *     ("CompilationFailedConfig", "RuntimeFailedConfig", "InvalidConfig", ...);
 *   - a T4 results file (the autotuning-methodology community's schema): `results`, each with
 *     `configuration`, `invalidity` ("correct" or why not) and `measurements`; the objective is
 *     the measurement named by `objectives`[0]. A configuration invalid because of "constraints"
 *     is outside the space. Parameter values are the distinct values seen, sorted numerically.
 *   - a rooftune store (SQLite): one sweep (kernel, matrix, problem, device) of its points table;
 *     the parameters are the keys of the points' params, ok and above_roofline points have their
 *     median time and roofline bound (seconds), wrong/error/timeout points failed, infeasible
 *     points are outside the space; a configuration recorded by several runs counts once (the
 *     latest).
 * The space's grid is the product of the parameters' value lists; the recorded configurations
 * are its feasible points (which is what Kernel Tuner's simulation mode restricts to), so a
 * replayed strategy can only ask for configurations that were recorded. A failed configuration
 * is feasible but costs an evaluation and yields no time, as it did on the GPU.
 * Times keep the file's unit (milliseconds for Kernel Tuner and T4). */
#ifndef RT_RECORDED_H
#define RT_RECORDED_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_params.h"
#include "rt_strategy.h"

#define RT_RECORDED_NAME_MAX 64
/* The most JSON text a recorded space may hold (after decompression): the reader keeps it and
 * json-c's tree in memory, several times the text, so a 10 MB gzip that expands to gigabytes is
 * refused at this size instead of exhausting the host. Real Kernel Tuner caches are a few MB. */
#define RT_RECORDED_MAX_BYTES ((long long)64 << 20)
/* Recorded times and bounds lie in (0, RT_RECORDED_TIME_MAX] in the file's unit: 1e9 ms is 11
 * days. Zero, negatives, NaN and the like are refused (the scores divide by them). */
#define RT_RECORDED_TIME_MAX 1e9
/* The largest grid (product of the parameters' value counts) a recorded space may span: what the
 * search strategies address (GRID_MAX_POINTS of harness/search/rt_strategy.c). */
#define RT_RECORDED_MAX_GRID ((int64_t)1 << 30)

typedef struct rt_recorded_dim {
    char name[RT_RECORDED_NAME_MAX];
    int n_values;
    char **values; /* as text: numbers as written, strings without quotes */
    int numeric;   /* every value is a number */
} rt_recorded_dim;

typedef struct rt_recorded {
    char kernel[128];
    char device[128];
    char unit[16];
    int n_dims;
    rt_recorded_dim dims[RT_MAX_PARAMS];
    int64_t n_points;
    int64_t *index; /* ascending grid indices of the recorded configurations */
    double *time;   /* their objective; INFINITY for a failed configuration */
    /* Optional lower bounds on the time (roofline bound), NAN when unknown. */
    double *bound;
    rt_grid grid; /* feasible = recorded; feasible_list = index */
} rt_recorded;

/* Which sweep of a rooftune store to replay; NULL or "" fields match anything, and the selection
 * must leave exactly one (kernel, matrix, problem, device). Ignored for JSON files. */
typedef struct rt_recorded_select {
    const char *kernel;
    const char *matrix;
    const char *problem; /* the problem's JSON as stored, e.g. {"K":32,...} */
} rt_recorded_select;

/* Reads a Kernel Tuner cache or a T4 results file (rooftune stores: rt_store_recorded_load in
 * store/). Errors name the file and the entry. sel is ignored here. */
int rt_recorded_load(const char *path, const rt_recorded_select *sel, rt_recorded **out,
                     rt_err *err);

/* Builds a recorded space from parallel arrays (used by the loaders and the tests): dims with
 * their value lists, then add configurations one by one with rt_recorded_add (coordinates), then
 * rt_recorded_finish sorts them and refuses duplicates. rt_recorded_new refuses a grid larger than
 * RT_RECORDED_MAX_GRID; rt_recorded_add refuses a time that is neither INFINITY (a failed
 * configuration) nor in (0, RT_RECORDED_TIME_MAX], and a bound that is neither NAN (none) nor in
 * that range. */
int rt_recorded_new(const char *kernel, const char *device, const char *unit, int n_dims,
                    const rt_recorded_dim *dims, rt_recorded **out, rt_err *err);
int rt_recorded_add(rt_recorded *r, const int64_t *coords, double time, double bound, rt_err *err);
int rt_recorded_finish(rt_recorded *r, const char *what, rt_err *err);

/* The recorded time of a grid index: the time, INFINITY for a failed configuration, NAN for an
 * index that was not recorded. */
double rt_recorded_time(const rt_recorded *r, int64_t index);
double rt_recorded_bound(const rt_recorded *r, int64_t index);

/* The best recorded time (INFINITY when every configuration failed) and the number of
 * configurations that ran. */
double rt_recorded_optimum(const rt_recorded *r, int64_t *n_valid);

/* The JSON reader behind rt_recorded_load. text is the whole file, already decompressed. */
int rt_recorded_parse_json(const char *path, const char *text, size_t len, rt_recorded **out,
                           rt_err *err);

/* Writes the space as a T4 results file (gzip-compressed when path ends in .gz). */
int rt_recorded_write_t4(const rt_recorded *r, const char *path, rt_err *err);

void rt_recorded_free(rt_recorded *r);

#endif
