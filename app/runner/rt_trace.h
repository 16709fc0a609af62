/* rt_trace: `rooftune run --timeline FILE.csv`, the device activity timeline of the points a
 * process measures. Each point's timed repetitions (not its warm-up, verification or counter
 * passes) run inside the CUDA plugin's activity timeline (rt_plugin_api.timeline_start/stop,
 * CUPTI); the records get the point's key (the store's points.point_key) and, at the end of the
 * run, go to one CSV per process (report/rt_timeline_csv.h): FILE itself for a run of one rank,
 * FILE.rank<r>.csv (a trailing .csv of FILE replaced) for rank r of an MPI job, since every rank
 * traces its own devices on its own clock.
 *
 * A tracing failure does not stop the run or touch its points (their measurements are as good as
 * without a timeline): it is kept, tracing stops, and rt_trace_close reports it, so the command
 * ends in error naming CUPTI's reason. */
#ifndef RT_TRACE_H
#define RT_TRACE_H

#include "rt_backend.h"
#include "rt_error.h"

typedef struct rt_trace rt_trace;

/* The file rank `rank` of `nranks` writes for --timeline path, into out[len]. */
int rt_trace_path(const char *path, int rank, int nranks, char *out, size_t len, rt_err *err);

/* A tracer writing to path (as rt_trace_path makes it; its folder is made now, as --db's is).
 * Refused (-1, err saying so and naming --timeline) when the CUDA backend is not loaded here, its
 * plugin has no timeline, or the file could not be written (a folder, a read-only file): that is
 * tried now, the file left as it was, so a bad name fails before the run rather than after. */
int rt_trace_open(const char *path, const rt_backend *be, int rank, int nranks, rt_trace **out,
                  rt_err *err);

/* Around one point's timed repetitions; point_key is its store key. No-ops on a NULL tracer and
 * after a failure. */
void rt_trace_point_begin(rt_trace *t, const char *point_key);
void rt_trace_point_end(rt_trace *t);

/* Writes the CSV (written whole or not at all) and frees t. *n_records gets the records written.
 * -1 with err when tracing failed during the run (nothing is written then) or the file cannot be
 * written. */
int rt_trace_close(rt_trace *t, long long *n_records, rt_err *err);
/* Frees t without writing anything (a run that could not start). NULL is fine. */
void rt_trace_free(rt_trace *t);

#endif
