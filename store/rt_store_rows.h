/* rt_store_rows: a forward-only cursor over a table the store computes (the flat points table of
 * `rooftune export`), for callers that need every cell as stored, NULL included, without knowing
 * the SQL behind it. The columns and their order are defined by the function that opens the
 * cursor. */
#ifndef RT_STORE_ROWS_H
#define RT_STORE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

struct sqlite3;

typedef struct rt_store_rows rt_store_rows;

/* Moves to the next row: 1 when there is one, 0 at the end, -1 on an error (in err). */
int rt_store_rows_next(rt_store_rows *r, rt_err *err);
int rt_store_rows_is_null(const rt_store_rows *r, int col);
int64_t rt_store_rows_int64(const rt_store_rows *r, int col);
double rt_store_rows_double(const rt_store_rows *r, int col);
/* The cell as text (NULL for a NULL cell) and its length in bytes. */
const char *rt_store_rows_text(const rt_store_rows *r, int col, size_t *bytes);
/* Closes the cursor and ends the read transaction it opened. NULL is harmless. */
void rt_store_rows_close(rt_store_rows *r);

/* The names of the flat points table's columns, in order (n_columns of them):
 *   experiment, run_id, kernel, backend, matrix, params, problem, ranks, device, status, reason,
 *   verified, rel_error, samples, time_median_s, time_min_s, time_max_s, ci_rel, gflops, gnnz_s,
 *   bound_s, efficiency, setup_s, metrics, git_revision
 * params and problem are the stored JSON text (checked to be JSON: a hand-damaged row is an
 * error while reading); samples is the number of timed repetitions; metrics holds the point id
 * (read its metrics with rt_store_metrics); git_revision is the run's. */
const char *const *rt_store_flat_point_columns(int *n_columns);

/* Opens the flat table of experiment's points (NULL: every experiment) in point id order, inside
 * one read transaction so that the rows are a consistent snapshot even while a run writes. */
int rt_store_flat_points(struct sqlite3 *db, const char *experiment, rt_store_rows **rows,
                         rt_err *err);

#endif
