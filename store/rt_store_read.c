/* rt_store_read: the store's read API; see rt_store_read.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_store_read.h"

#include "rt_readonly.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers --------------------------------------------------------------------------------- */

static void text_col(sqlite3_stmt *st, int col, char *buf, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(buf, len, "%s", t ? (const char *)t : "");
}

static double real_col(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, const char *what, rt_err *err)
{
    *st = NULL;
    if (!db)
        return rt_err_set(err, "reading %s: no store is open", what);
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
        /* A fixed query that does not compile means the tables are not there. */
        rt_err_set(err, "reading %s: %s (is this a rooftune store?)", what, sqlite3_errmsg(db));
        sqlite3_finalize(*st);
        *st = NULL;
        return -1;
    }
    return 0;
}

/* Finishes a statement stepped until rc: SQLITE_DONE is success, anything else an error. */
static int finish(sqlite3 *db, sqlite3_stmt *st, int rc, const char *what, rt_err *err)
{
    if (rc != SQLITE_DONE)
        rt_err_set(err, "reading %s: %s", what, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- opening --------------------------------------------------------------------------------- */

int rt_store_read_open(const char *path, sqlite3 **db, rt_err *err)
{
    /* rt_readonly_open: the schema version is checked, and a store not being written is opened
     * immutable so that reading it leaves no -wal/-shm beside a committed store. */
    return rt_readonly_open(path, db, err);
}

void rt_store_read_close(sqlite3 *db)
{
    sqlite3_close(db);
}

/* ---- experiments ----------------------------------------------------------------------------- */

static int exists_query(sqlite3 *db, const char *sql, const char *experiment, int *yes, rt_err *err)
{
    *yes = 0;
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(s, 1, experiment, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
            *yes = sqlite3_column_int(s, 0);
        else if (rc == SQLITE_DONE)
            rc = SQLITE_ROW; /* no row: no */
    }
    if (rc != SQLITE_ROW)
        rt_err_set(err, "looking up experiment '%s': %s", experiment, sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 0 : -1;
}

int rt_store_experiment_known(sqlite3 *db, const char *experiment, int *known, rt_err *err)
{
    return exists_query(db,
                        "SELECT EXISTS (SELECT 1 FROM runs WHERE experiment = ?1)"
                        " OR EXISTS (SELECT 1 FROM points WHERE experiment = ?1)",
                        experiment, known, err);
}

int rt_store_experiment_has_points(sqlite3 *db, const char *experiment, int *has, rt_err *err)
{
    return exists_query(db, "SELECT 1 FROM points WHERE experiment = ?1 LIMIT 1", experiment, has,
                        err);
}

void rt_store_point_experiments_text(sqlite3 *db, char *out, size_t len)
{
    out[0] = '\0';
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT DISTINCT experiment FROM points ORDER BY experiment", -1,
                           &st, NULL) == SQLITE_OK) {
        size_t used = 0;
        while (sqlite3_step(st) == SQLITE_ROW && used + 70 < len) {
            const char *e = (const char *)sqlite3_column_text(st, 0);
            used +=
                (size_t)snprintf(out + used, len - used, "%s'%s'", used ? ", " : "", e ? e : "");
        }
    }
    sqlite3_finalize(st);
}

/* ---- runs ------------------------------------------------------------------------------------ */

#define RUN_COLUMNS                                                                                \
    "id, experiment, status, started_at, ended_at, device, git_revision, git_dirty, compiler, "    \
    "cuda_runtime, cuda_driver, topology, config_path, config_hash, config_text"

static int read_run(sqlite3_stmt *st, rt_store_run *r, int with_text)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    text_col(st, 1, r->experiment, sizeof r->experiment);
    text_col(st, 2, r->status, sizeof r->status);
    text_col(st, 3, r->started_at, sizeof r->started_at);
    text_col(st, 4, r->ended_at, sizeof r->ended_at);
    text_col(st, 5, r->device, sizeof r->device);
    text_col(st, 6, r->git_revision, sizeof r->git_revision);
    r->git_dirty = sqlite3_column_int(st, 7);
    text_col(st, 8, r->compiler, sizeof r->compiler);
    r->has_cuda_runtime = sqlite3_column_type(st, 9) != SQLITE_NULL;
    text_col(st, 9, r->cuda_runtime, sizeof r->cuda_runtime);
    r->has_cuda_driver = sqlite3_column_type(st, 10) != SQLITE_NULL;
    text_col(st, 10, r->cuda_driver, sizeof r->cuda_driver);
    text_col(st, 11, r->topology, sizeof r->topology);
    text_col(st, 12, r->config_path, sizeof r->config_path);
    text_col(st, 13, r->config_hash, sizeof r->config_hash);
    if (with_text && sqlite3_column_text(st, 14)) {
        r->config_text = strdup((const char *)sqlite3_column_text(st, 14));
        if (!r->config_text)
            return -1;
    }
    return 0;
}

void rt_store_run_free(rt_store_run *run)
{
    if (!run)
        return;
    free(run->config_text);
    run->config_text = NULL;
}

int rt_store_newest_run(sqlite3 *db, const char *experiment, rt_store_run *run, int *found,
                        rt_err *err)
{
    memset(run, 0, sizeof *run);
    *found = 0;
    sqlite3_stmt *st = NULL;
    if (prepare(db,
                "SELECT " RUN_COLUMNS " FROM runs WHERE experiment = ?1 ORDER BY id DESC LIMIT 1",
                &st, "the newest run", err) != 0)
        return -1;
    sqlite3_bind_text(st, 1, experiment, -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        if (read_run(st, run, 1) != 0) {
            sqlite3_finalize(st);
            return rt_err_set(err, "out of memory reading the recorded config");
        }
        *found = 1;
        sqlite3_finalize(st);
        return 0;
    }
    return finish(db, st, rc, "the newest run", err);
}

int rt_store_each_run(sqlite3 *db, rt_store_run_fn fn, void *ctx, rt_err *err)
{
    sqlite3_stmt *st = NULL;
    if (prepare(db, "SELECT " RUN_COLUMNS " FROM runs ORDER BY id", &st, "its runs", err) != 0)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        rt_store_run r;
        read_run(st, &r, 0);
        const int stop = fn(ctx, &r, err);
        if (stop) {
            sqlite3_finalize(st);
            return stop;
        }
    }
    return finish(db, st, rc, "its runs", err);
}

/* ---- points ---------------------------------------------------------------------------------- */

int rt_store_each_point(sqlite3 *db, const char *experiment, rt_store_point_fn fn, void *ctx,
                        rt_err *err)
{
    sqlite3_stmt *st = NULL;
    const char *sql = experiment ? "SELECT id, experiment, kernel, matrix, params, problem, ranks, "
                                   "device, status FROM points WHERE experiment = ?1 ORDER BY id"
                                 : "SELECT id, experiment, kernel, matrix, params, problem, ranks, "
                                   "device, status FROM points ORDER BY id";
    if (prepare(db, sql, &st, "its points", err) != 0)
        return -1;
    if (experiment)
        sqlite3_bind_text(st, 1, experiment, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        rt_store_point p;
        memset(&p, 0, sizeof p);
        p.id = sqlite3_column_int64(st, 0);
        text_col(st, 1, p.experiment, sizeof p.experiment);
        text_col(st, 2, p.kernel, sizeof p.kernel);
        text_col(st, 3, p.matrix, sizeof p.matrix);
        text_col(st, 4, p.params, sizeof p.params);
        text_col(st, 5, p.problem, sizeof p.problem);
        p.ranks = sqlite3_column_int(st, 6);
        text_col(st, 7, p.device, sizeof p.device);
        text_col(st, 8, p.status, sizeof p.status);
        const int stop = fn(ctx, &p, err);
        if (stop) {
            sqlite3_finalize(st);
            return stop;
        }
    }
    return finish(db, st, rc, "its points", err);
}

int rt_store_each_status_count(sqlite3 *db, const char *experiment, rt_store_status_fn fn,
                               void *ctx, rt_err *err)
{
    sqlite3_stmt *st = NULL;
    if (prepare(db,
                "SELECT status, COUNT(*) FROM points WHERE experiment = ?1 GROUP BY status ORDER "
                "BY status",
                &st, "the points by status", err) != 0)
        return -1;
    sqlite3_bind_text(st, 1, experiment, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char status[64];
        text_col(st, 0, status, sizeof status);
        const int stop = fn(ctx, status, sqlite3_column_int64(st, 1), err);
        if (stop) {
            sqlite3_finalize(st);
            return stop;
        }
    }
    return finish(db, st, rc, "the points by status", err);
}

int rt_store_each_best(sqlite3 *db, const char *experiment, rt_store_best_fn fn, void *ctx,
                       rt_err *err)
{
    /* SQLite returns the other columns from the row that holds the MIN(). */
    sqlite3_stmt *st = NULL;
    if (prepare(db,
                "SELECT kernel, matrix, MIN(time_median_s), gflops, efficiency, params, problem, "
                "ranks FROM points WHERE experiment = ?1 AND status = 'ok' GROUP BY kernel, "
                "matrix ORDER BY matrix, kernel",
                &st, "the best points", err) != 0)
        return -1;
    sqlite3_bind_text(st, 1, experiment, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        rt_store_best b;
        memset(&b, 0, sizeof b);
        text_col(st, 0, b.kernel, sizeof b.kernel);
        text_col(st, 1, b.matrix, sizeof b.matrix);
        b.time_median_s = sqlite3_column_double(st, 2);
        b.gflops = real_col(st, 3);
        b.efficiency = real_col(st, 4);
        text_col(st, 5, b.params, sizeof b.params);
        text_col(st, 6, b.problem, sizeof b.problem);
        b.ranks = sqlite3_column_int(st, 7);
        const int stop = fn(ctx, &b, err);
        if (stop) {
            sqlite3_finalize(st);
            return stop;
        }
    }
    return finish(db, st, rc, "the best points", err);
}

static const char roofline_sql[] =
    "SELECT p.id, p.kernel, p.matrix, p.params, "
    "       coalesce(json_extract(p.problem, '$.precision'), 'fp32'), p.ranks, p.gflops, "
    "       p.status = 'above_roofline', p.flops,"
    "       (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.available = 1 "
    "          AND m.name = 'intensity'),"
    "       (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.available = 1 "
    "          AND m.name = 'model_flops'),"
    "       (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.available = 1 "
    "          AND m.name = 'model_dram_bytes'),"
    "       (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.available = 1 "
    "          AND m.name = 'model_net_bytes_global'),"
    "       (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.available = 1 "
    "          AND m.name = 'dram_bytes_read'),"
    "       (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.available = 1 "
    "          AND m.name = 'dram_bytes_write') "
    "FROM points p "
    "WHERE (?1 IS NULL OR p.experiment = ?1) AND p.status IN ('ok', 'above_roofline') "
    "  AND p.gflops IS NOT NULL AND p.gflops > 0 "
    "ORDER BY p.id";

int rt_store_each_roofline_point(sqlite3 *db, const char *experiment, rt_store_roofline_fn fn,
                                 void *ctx, rt_err *err)
{
    sqlite3_stmt *st = NULL;
    if (prepare(db, roofline_sql, &st, "points", err) != 0)
        return -1;
    if (experiment)
        sqlite3_bind_text(st, 1, experiment, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 1);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        rt_store_roofline_point p;
        memset(&p, 0, sizeof p);
        p.id = sqlite3_column_int64(st, 0);
        text_col(st, 1, p.kernel, sizeof p.kernel);
        text_col(st, 2, p.matrix, sizeof p.matrix);
        text_col(st, 3, p.params, sizeof p.params);
        text_col(st, 4, p.precision, sizeof p.precision);
        p.ranks = sqlite3_column_int(st, 5);
        p.gflops = sqlite3_column_double(st, 6);
        p.above = sqlite3_column_int(st, 7);
        p.flops = real_col(st, 8);
        p.intensity = real_col(st, 9);
        p.model_flops = real_col(st, 10);
        p.model_dram_bytes = real_col(st, 11);
        p.model_net_bytes_global = real_col(st, 12);
        p.dram_bytes_read = real_col(st, 13);
        p.dram_bytes_write = real_col(st, 14);
        const int stop = fn(ctx, &p, err);
        if (stop) {
            sqlite3_finalize(st);
            return stop;
        }
    }
    return finish(db, st, rc, "points", err);
}

int rt_store_point_time_median(sqlite3 *db, int64_t point_id, double *median, rt_err *err)
{
    *median = NAN;
    sqlite3_stmt *st = NULL;
    if (prepare(db, "SELECT time_median_s FROM points WHERE id = ?1", &st, "a point's median",
                err) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, point_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        *median = real_col(st, 0);
    sqlite3_finalize(st);
    return 0;
}

/* ---- samples and metrics ------------------------------------------------------------------- */

int rt_store_samples(sqlite3 *db, int64_t point_id, double **x, int *n, int *cap, rt_err *err)
{
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (prepare(db, "SELECT seconds FROM samples WHERE point_id = ?1 AND seconds > 0 ORDER BY rep",
                &st, "samples", err) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, point_id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == *cap) {
            const int grown_cap = *cap ? 2 * *cap : 128;
            void *grown = realloc(*x, (size_t)grown_cap * sizeof **x);
            if (!grown) {
                sqlite3_finalize(st);
                return rt_err_set(err, "out of memory reading samples");
            }
            *x = grown;
            *cap = grown_cap;
        }
        (*x)[(*n)++] = sqlite3_column_double(st, 0);
    }
    if (rc != SQLITE_DONE) {
        rt_err_set(err, "reading samples of point %lld: %s", (long long)point_id,
                   sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

int rt_store_check_timed_point(sqlite3 *db, int64_t point_id, rt_err *err)
{
    /* The first offending value: the median, else a sample (NULL, not a number, or <= 0), else
     * "no sample at all". A NULL median reads as NaN, which the check refuses too. */
    static const char sql[] =
        "SELECT p.kernel, p.matrix, p.status, p.time_median_s,"
        " (SELECT count(*) FROM samples s WHERE s.point_id = p.id),"
        " (SELECT s.rep FROM samples s WHERE s.point_id = p.id AND NOT"
        "   (typeof(s.seconds) IN ('real', 'integer') AND s.seconds > 0 AND s.seconds < 1e300)"
        "   ORDER BY s.rep LIMIT 1),"
        " (SELECT quote(s.seconds) FROM samples s WHERE s.point_id = p.id AND NOT"
        "   (typeof(s.seconds) IN ('real', 'integer') AND s.seconds > 0 AND s.seconds < 1e300)"
        "   ORDER BY s.rep LIMIT 1)"
        " FROM points p WHERE p.id = ?1";
    sqlite3_stmt *st = NULL;
    if (prepare(db, sql, &st, "a point's times", err) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, point_id);
    int rc = 0;
    if (sqlite3_step(st) != SQLITE_ROW) {
        rc = rt_err_set(err, "point %lld vanished while it was read", (long long)point_id);
    } else {
        char who[300];
        snprintf(who, sizeof who, "point %lld (kernel %s, matrix %s, status %s)",
                 (long long)point_id, (const char *)sqlite3_column_text(st, 0),
                 (const char *)sqlite3_column_text(st, 1),
                 (const char *)sqlite3_column_text(st, 2));
        const int median_null = sqlite3_column_type(st, 3) == SQLITE_NULL;
        const double median = median_null ? NAN : sqlite3_column_double(st, 3);
        const int64_t n = sqlite3_column_int64(st, 4);
        char value[64];
        if (median_null)
            snprintf(value, sizeof value, "NULL");
        else
            snprintf(value, sizeof value, "%g s", median);
        if (!(median > 0) || !isfinite(median))
            rc = rt_err_set(err,
                            "%s: its median time is %s: a timed point needs a positive time "
                            "(the store is damaged or was edited)",
                            who, value);
        else if (n == 0)
            rc = rt_err_set(err, "%s: no timed sample (the store is damaged or was edited)", who);
        else if (sqlite3_column_type(st, 5) != SQLITE_NULL)
            rc = rt_err_set(err,
                            "%s: sample %lld is %s: a time must be a positive number of seconds "
                            "(the store is damaged or was edited)",
                            who, (long long)sqlite3_column_int64(st, 5),
                            (const char *)sqlite3_column_text(st, 6));
    }
    sqlite3_finalize(st);
    return rc;
}

int rt_store_metrics(sqlite3 *db, int64_t point_id, const char *prefix, rt_store_metric **m, int *n,
                     int *cap, rt_err *err)
{
    *n = 0;
    sqlite3_stmt *st = NULL;
    /* substr rather than LIKE: a prefix may hold '_' and '%', which LIKE would interpret. */
    if (prepare(db,
                "SELECT name, unit, available, deterministic, value, reason FROM metrics WHERE "
                "point_id = ?1 AND (?2 IS NULL OR substr(name, 1, length(?2)) = ?2) ORDER BY name",
                &st, "metrics", err) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, point_id);
    if (prefix)
        sqlite3_bind_text(st, 2, prefix, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 2);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == *cap) {
            const int grown_cap = *cap ? 2 * *cap : 64;
            void *grown = realloc(*m, (size_t)grown_cap * sizeof **m);
            if (!grown) {
                sqlite3_finalize(st);
                return rt_err_set(err, "out of memory reading metrics");
            }
            *m = grown;
            *cap = grown_cap;
        }
        rt_store_metric *r = &(*m)[(*n)++];
        memset(r, 0, sizeof *r);
        text_col(st, 0, r->name, sizeof r->name);
        text_col(st, 1, r->unit, sizeof r->unit);
        r->available = sqlite3_column_int(st, 2);
        r->deterministic = sqlite3_column_int(st, 3);
        r->has_value = sqlite3_column_type(st, 4) != SQLITE_NULL;
        r->value = r->has_value ? sqlite3_column_double(st, 4) : NAN;
        r->has_reason = sqlite3_column_type(st, 5) != SQLITE_NULL;
        text_col(st, 5, r->reason, sizeof r->reason);
    }
    if (rc != SQLITE_DONE) {
        rt_err_set(err, "reading metrics of point %lld: %s", (long long)point_id,
                   sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}
