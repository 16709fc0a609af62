/* rt_store_rows: cursors over computed tables; see rt_store_rows.h. */
#include "rt_store_rows.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rt_store_rows {
    sqlite3 *db;
    sqlite3_stmt *st;
    int own_transaction; /* 1: the cursor began a read transaction and ends it */
    long long n_read;
};

int rt_store_rows_next(rt_store_rows *r, rt_err *err)
{
    const int rc = sqlite3_step(r->st);
    if (rc == SQLITE_ROW) {
        ++r->n_read;
        return 1;
    }
    if (rc == SQLITE_DONE)
        return 0;
    return rt_err_set(err, "reading point row %lld: %s", r->n_read + 1, sqlite3_errmsg(r->db));
}

int rt_store_rows_is_null(const rt_store_rows *r, int col)
{
    return sqlite3_column_type(r->st, col) == SQLITE_NULL;
}

int64_t rt_store_rows_int64(const rt_store_rows *r, int col)
{
    return sqlite3_column_int64(r->st, col);
}

double rt_store_rows_double(const rt_store_rows *r, int col)
{
    return sqlite3_column_double(r->st, col);
}

const char *rt_store_rows_text(const rt_store_rows *r, int col, size_t *bytes)
{
    const char *s = (const char *)sqlite3_column_text(r->st, col);
    if (bytes)
        *bytes = s ? (size_t)sqlite3_column_bytes(r->st, col) : 0;
    return s;
}

void rt_store_rows_close(rt_store_rows *r)
{
    if (!r)
        return;
    sqlite3_finalize(r->st);
    if (r->own_transaction)
        sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL);
    free(r);
}

/* ---- the flat points table ----------------------------------------------------------------- */

typedef struct flat_column {
    const char *name;
    const char *sql;
} flat_column;

/* The public column order of `rooftune export` (users' scripts index CSV columns by position). */
static const flat_column flat_columns[] = {
    {"experiment", "p.experiment"},
    {"run_id", "p.run_id"},
    {"kernel", "p.kernel"},
    {"backend", "p.backend"},
    {"matrix", "p.matrix"},
    /* json() fails on text that is not JSON, so a hand-damaged row stops the export instead of
     * producing a file no parser accepts. */
    {"params", "json(p.params)"},
    {"problem", "json(p.problem)"},
    {"ranks", "p.ranks"},
    {"device", "p.device"},
    {"status", "p.status"},
    {"reason", "p.reason"},
    {"verified", "p.verified"},
    {"rel_error", "p.rel_error"},
    {"samples", "(SELECT count(*) FROM samples s WHERE s.point_id = p.id)"},
    {"time_median_s", "p.time_median_s"},
    {"time_min_s", "p.time_min_s"},
    {"time_max_s", "p.time_max_s"},
    {"ci_rel", "p.ci_rel"},
    {"gflops", "p.gflops"},
    {"gnnz_s", "p.gnnz_s"},
    {"bound_s", "p.bound_s"},
    {"efficiency", "p.efficiency"},
    {"setup_s", "p.setup_s"},
    {"metrics", "p.id"},
    {"git_revision", "r.git_revision"},
};
#define N_FLAT ((int)(sizeof flat_columns / sizeof flat_columns[0]))

const char *const *rt_store_flat_point_columns(int *n_columns)
{
    static const char *names[N_FLAT];
    for (int k = 0; k < N_FLAT; ++k)
        names[k] = flat_columns[k].name;
    *n_columns = N_FLAT;
    return names;
}

int rt_store_flat_points(sqlite3 *db, const char *experiment, rt_store_rows **rows, rt_err *err)
{
    *rows = NULL;
    /* The row query, generated from the column table so the two cannot disagree. */
    size_t len = 256;
    for (int k = 0; k < N_FLAT; ++k)
        len += strlen(flat_columns[k].sql) + 2;
    char *sql = malloc(len);
    rt_store_rows *r = calloc(1, sizeof *r);
    if (!sql || !r) {
        free(sql);
        free(r);
        return rt_err_set(err, "out of memory");
    }
    size_t used = (size_t)snprintf(sql, len, "SELECT ");
    for (int k = 0; k < N_FLAT; ++k)
        used +=
            (size_t)snprintf(sql + used, len - used, "%s%s", k ? ", " : "", flat_columns[k].sql);
    snprintf(sql + used, len - used,
             " FROM points p JOIN runs r ON r.id = p.run_id"
             " WHERE ?1 IS NULL OR p.experiment = ?1 ORDER BY p.id");
    r->db = db;
    const int prepared = sqlite3_prepare_v2(db, sql, -1, &r->st, NULL);
    free(sql);
    if (prepared != SQLITE_OK) {
        rt_err_set(err, "preparing the query: %s", sqlite3_errmsg(db));
        sqlite3_finalize(r->st);
        free(r);
        return -1;
    }
    if (experiment)
        sqlite3_bind_text(r->st, 1, experiment, -1, SQLITE_TRANSIENT);
    /* One read transaction (WAL lets this reader proceed without blocking the writer). */
    if (sqlite3_get_autocommit(db)) {
        if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
            rt_err_set(err, "starting a read transaction: %s", sqlite3_errmsg(db));
            sqlite3_finalize(r->st);
            free(r);
            return -1;
        }
        r->own_transaction = 1;
    }
    *rows = r;
    return 0;
}
