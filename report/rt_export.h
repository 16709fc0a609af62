/* rt_export: the stored points as one flat table, in CSV (RFC 4180) or JSON.
 *
 * One row per point, ordered by point id, with these columns in this order:
 *   experiment, run_id, kernel, backend, matrix, params, problem, ranks, device, status, reason,
 *   verified, rel_error, samples, time_median_s, time_min_s, time_max_s, ci_rel, gflops, gnnz_s,
 *   bound_s, efficiency, setup_s, metrics, git_revision
 * params and problem are the stored JSON objects; samples is the number of timed repetitions;
 * metrics is a JSON object name -> value, with {"unavailable": "reason"} for metrics the machine
 * could not read. Times are in seconds.
 *
 * CSV: a header line, CRLF line ends, fields quoted when they hold a comma, quote, CR or LF
 * (quotes doubled), empty cells for NULL. JSON: an array of objects with params, problem and
 * metrics nested as objects, null for NULL, verified as a boolean, numbers printed with %.17g
 * (they read back bit-exact), invalid UTF-8 in text replaced by U+FFFD. */
#ifndef RT_EXPORT_H
#define RT_EXPORT_H

#include <stdio.h>

#include "rt_error.h"

struct sqlite3;

/* Writes the points of experiment (NULL: every experiment) to out. format is "csv" or "json".
 * An experiment the store does not hold is an error that lists the ones it does. */
int rt_export(struct sqlite3 *db, const char *format, const char *experiment, FILE *out,
              rt_err *err);

#endif
