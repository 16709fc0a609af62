#include "rt_store_phases.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>

/* end_s >= begin_s: a phase cannot end before it began (both are read from one clock). */
static const char k_schema[] = "CREATE TABLE IF NOT EXISTS phases ("
                               "  id INTEGER PRIMARY KEY,"
                               "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                               "  process TEXT NOT NULL,"
                               "  gpu TEXT,"
                               "  phase TEXT NOT NULL,"
                               "  point_key TEXT,"
                               "  begin_s REAL NOT NULL,"
                               "  end_s REAL CHECK (end_s IS NULL OR end_s >= begin_s));"
                               "CREATE INDEX IF NOT EXISTS phases_by_run ON phases(run_id);";

static const char k_insert[] =
    "INSERT INTO phases (run_id, process, gpu, phase, point_key, begin_s, end_s)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *text)
{
    if (text && text[0])
        sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

/* Every row checked before anything is written: a bad row is a bug of the caller, named here. */
static int check_rows(const rt_store_phase_row *rows, int n, rt_err *err)
{
    for (int i = 0; i < n; ++i) {
        const rt_store_phase_row *r = &rows[i];
        if (!r->process || !r->process[0] || !r->phase || !r->phase[0])
            return rt_err_set(err, "phase row %d has no process or phase name", i);
        if (!isfinite(r->begin_s) || isinf(r->end_s) || r->end_s < r->begin_s)
            return rt_err_set(err, "phase '%s' of %s: begins at %g s and ends at %g s", r->phase,
                              r->process, r->begin_s, r->end_s);
    }
    return 0;
}

int rt_store_add_phases(rt_store *st, int64_t run_id, const rt_store_phase_row *rows, int n,
                        rt_err *err)
{
    if (n <= 0)
        return 0;
    if (check_rows(rows, n, err) != 0)
        return rt_err_prefix(err, "the run's phase record");
    sqlite3 *db = rt_store_db(st);
    char *msg = NULL;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK) {
        const int rc =
            rt_err_set(err, "the run's phase record: locking the store: %s", msg ? msg : "?");
        sqlite3_free(msg);
        return rc;
    }
    sqlite3_stmt *s = NULL;
    int rc = 0;
    if (sqlite3_exec(db, k_schema, NULL, NULL, &msg) != SQLITE_OK) {
        rc = rt_err_set(err, "the run's phase record: creating the phases table: %s",
                        msg ? msg : "?");
        sqlite3_free(msg);
    } else if (sqlite3_prepare_v2(db, k_insert, -1, &s, NULL) != SQLITE_OK) {
        rc = rt_err_set(err, "the run's phase record: %s", sqlite3_errmsg(db));
    }
    for (int i = 0; rc == 0 && i < n; ++i) {
        const rt_store_phase_row *r = &rows[i];
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, run_id);
        sqlite3_bind_text(s, 2, r->process, -1, SQLITE_TRANSIENT);
        bind_text_or_null(s, 3, r->gpu);
        sqlite3_bind_text(s, 4, r->phase, -1, SQLITE_TRANSIENT);
        bind_text_or_null(s, 5, r->point_key);
        sqlite3_bind_double(s, 6, r->begin_s);
        if (isnan(r->end_s))
            sqlite3_bind_null(s, 7);
        else
            sqlite3_bind_double(s, 7, r->end_s);
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = rt_err_set(err, "the run's phase record: phase '%s' of %s: %s", r->phase,
                            r->process, sqlite3_errmsg(db));
    }
    sqlite3_finalize(s);
    if (sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK && rc == 0)
        rc = rt_err_set(err, "the run's phase record: committing: %s", sqlite3_errmsg(db));
    return rc;
}
