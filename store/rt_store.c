/* rt_store: the SQLite result store. Schema and resume rules are documented in
 * docs/reference/store.md. */
#define _XOPEN_SOURCE 700 /* strnlen */

#include "rt_store.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_sqlite_why.h"

/* Marks the file as ours in the SQLite header ("RTUN"), so a foreign database is recognised
 * before anything is written to it. */
#define RT_STORE_APPLICATION_ID 0x5254554E

/* A run on a shared filesystem may wait on another writer (a second rooftune, a user's sqlite3
 * shell); ten seconds covers a point commit, beyond that the user should hear about it. */
#define RT_STORE_BUSY_TIMEOUT_MS 10000

#define RT_STORE_PATH_MAX 4096 /* PATH_MAX */

struct rt_store {
    sqlite3 *db;
    char path[RT_STORE_PATH_MAX];
    /* Statements used once per point or per sample, prepared once per handle. */
    sqlite3_stmt *insert_point;
    sqlite3_stmt *insert_metric;
    sqlite3_stmt *insert_sample;
    sqlite3_stmt *point_done;
};

static const char *const status_names[] = {
    [RT_POINT_OK] = "ok",
    [RT_POINT_WRONG] = "wrong",
    [RT_POINT_INFEASIBLE] = "infeasible",
    [RT_POINT_ERROR] = "error",
    [RT_POINT_TIMEOUT] = "timeout",
    [RT_POINT_ABOVE_ROOFLINE] = "above_roofline",
    [RT_POINT_PRUNED] = "pruned",
};
#define N_STATUS ((int)(sizeof status_names / sizeof status_names[0]))

static const char *const run_final_statuses[] = {"complete", "failed", "interrupted"};
#define N_RUN_FINAL ((int)(sizeof run_final_statuses / sizeof run_final_statuses[0]))

/* The points table, named `name` so the migration from version 1 can build it beside the old one
 * (version 2 added the status 'pruned'), and its indexes. */
#define POINTS_TABLE_SQL(name)                                                                     \
    "CREATE TABLE " name " ("                                                                      \
    "  id INTEGER PRIMARY KEY,"                                                                    \
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"                             \
    "  experiment TEXT NOT NULL,"                                                                  \
    "  kernel TEXT NOT NULL,"                                                                      \
    "  backend TEXT NOT NULL,"                                                                     \
    "  family TEXT NOT NULL,"                                                                      \
    "  matrix TEXT NOT NULL,"                                                                      \
    "  params TEXT NOT NULL CONSTRAINT params_is_json_object"                                      \
    "    CHECK (CASE WHEN json_valid(params) THEN json_type(params) = 'object' ELSE 0 END),"       \
    "  problem TEXT NOT NULL CONSTRAINT problem_is_json_object"                                    \
    "    CHECK (CASE WHEN json_valid(problem) THEN json_type(problem) = 'object' ELSE 0 END),"     \
    "  ranks INTEGER NOT NULL CHECK (ranks >= 1),"                                                 \
    "  device TEXT NOT NULL,"                                                                      \
    "  point_key TEXT NOT NULL,"                                                                   \
    "  status TEXT NOT NULL"                                                                       \
    "    CHECK (status IN "                                                                        \
    "('ok','wrong','infeasible','error','timeout','above_roofline','pruned')),"                    \
    "  reason TEXT,"                                                                               \
    "  verified INTEGER NOT NULL CHECK (verified IN (0,1)),"                                       \
    "  rel_error REAL,"                                                                            \
    "  tolerance REAL,"                                                                            \
    "  time_median_s REAL,"                                                                        \
    "  time_min_s REAL,"                                                                           \
    "  time_max_s REAL,"                                                                           \
    "  time_mean_s REAL,"                                                                          \
    "  time_stddev_s REAL,"                                                                        \
    "  ci_rel REAL,"                                                                               \
    "  flops REAL,"                                                                                \
    "  gflops REAL,"                                                                               \
    "  gnnz_s REAL,"                                                                               \
    "  bound_s REAL,"                                                                              \
    "  efficiency REAL,"                                                                           \
    "  setup_s REAL,"                                                                              \
    "  measured_at TEXT NOT NULL"                                                                  \
    ");"
#define POINTS_INDEX_SQL                                                                           \
    "CREATE INDEX points_by_key ON points(point_key);"                                             \
    "CREATE INDEX points_by_run ON points(run_id);"

/* The schema (version RT_STORE_SCHEMA_VERSION). Units are in the column names where they are not
 * obvious; every REAL that has no finite value is NULL. CHECKs keep hand-written rows (sqlite3
 * shell, scripts) from producing a store that export or compare would misread. */
static const char schema_current[] =
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  experiment TEXT NOT NULL,"
    "  status TEXT NOT NULL DEFAULT 'running'"
    "    CHECK (status IN ('running','complete','failed','interrupted')),"
    "  started_at TEXT NOT NULL,"
    "  ended_at TEXT,"
    "  git_revision TEXT NOT NULL,"
    "  git_dirty INTEGER NOT NULL CHECK (git_dirty IN (0,1)),"
    "  compiler TEXT NOT NULL,"
    "  build_id TEXT NOT NULL,"
    "  cuda_runtime TEXT,"
    "  cuda_driver TEXT,"
    "  device TEXT,"
    "  host TEXT,"
    "  mpi_library TEXT,"
    "  topology TEXT,"
    "  nranks INTEGER NOT NULL CHECK (nranks >= 1),"
    "  config_path TEXT,"
    "  config_text TEXT,"
    "  config_hash TEXT NOT NULL,"
    "  command_line TEXT"
    ");" POINTS_TABLE_SQL("points") POINTS_INDEX_SQL
    "CREATE TABLE metrics ("
    "  id INTEGER PRIMARY KEY,"
    "  point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL,"
    "  unit TEXT NOT NULL,"
    "  available INTEGER NOT NULL CHECK (available IN (0,1)),"
    "  deterministic INTEGER NOT NULL CHECK (deterministic IN (0,1)),"
    "  value REAL,"
    "  reason TEXT,"
    "  UNIQUE (point_id, name)"
    ");"
    "CREATE TABLE samples ("
    "  id INTEGER PRIMARY KEY,"
    "  point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,"
    "  rep INTEGER NOT NULL CHECK (rep >= 0),"
    "  seconds REAL NOT NULL,"
    "  rank_min_s REAL,"
    "  rank_avg_s REAL"
    ");"
    /* Serves every lookup by point_id (its leading column) and keeps repetitions unique. */
    "CREATE UNIQUE INDEX samples_by_point ON samples(point_id, rep);"
    "CREATE TABLE matrices ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL,"
    "  rows INTEGER NOT NULL CHECK (rows >= 0),"
    "  cols INTEGER NOT NULL CHECK (cols >= 0),"
    "  nnz INTEGER NOT NULL CHECK (nnz >= 0),"
    "  generator TEXT,"
    "  args TEXT,"
    "  file TEXT,"
    "  ordering TEXT,"
    "  load_s REAL,"
    "  UNIQUE (run_id, name)"
    ");";

/* ISO 8601 UTC, second resolution: sorts as text and reads unambiguously anywhere. */
#define NOW_UTC_SQL "strftime('%Y-%m-%dT%H:%M:%SZ','now')"

const char *rt_point_status_name(rt_point_status s)
{
    if ((int)s < 0 || (int)s >= N_STATUS)
        return "unknown";
    return status_names[s];
}

/* ------------------------------------------------------------------------------------------ */
/* Small helpers around the sqlite3 API. */

static int db_fail(const rt_store *st, rt_err *err, const char *what)
{
    return rt_err_set(err, "result store '%s': %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

/* Runs a prepared write to its end and frees it: 0, or -1 with err saying what failed and why
 * (db_fail). */
static int step_write(rt_store *st, sqlite3_stmt *s, const char *what, rt_err *err)
{
    const int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : db_fail(st, err, what);
}

/* The *_bare helpers leave the store path out of the message: they run inside operations
 * (a point) whose caller puts the path and the point's identity in front. */
static int exec_bare(rt_store *st, const char *sql, const char *what, rt_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        rt_err_set(err, "%s: %s", what, msg ? msg : sqlite3_errmsg(st->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int exec_sql(rt_store *st, const char *sql, const char *what, rt_err *err)
{
    if (exec_bare(st, sql, what, err) != 0)
        return rt_err_prefix(err, "result store '%s'", st->path);
    return 0;
}

/* Undoes an open transaction after a failure. SQLite may already have rolled back by itself
 * (disk full, I/O error), in which case there is nothing left to undo. */
static void rollback(rt_store *st)
{
    if (!sqlite3_get_autocommit(st->db))
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Fixed-size char fields may come unterminated from a careless caller: never read past them. */
static int bind_field(sqlite3_stmt *s, int idx, const char *text, size_t cap)
{
    return sqlite3_bind_text(s, idx, text, (int)strnlen(text, cap), SQLITE_TRANSIENT);
}

/* Empty optional text is stored as NULL so that queries can test `IS NULL`. */
static int bind_opt_field(sqlite3_stmt *s, int idx, const char *text, size_t cap)
{
    if (!text || strnlen(text, cap) == 0)
        return sqlite3_bind_null(s, idx);
    return bind_field(s, idx, text, cap);
}

/* NAN (and infinities, which no measurement or model produces legitimately) become NULL. */
static int bind_real(sqlite3_stmt *s, int idx, double v)
{
    if (!isfinite(v))
        return sqlite3_bind_null(s, idx);
    return sqlite3_bind_double(s, idx, v);
}

#define BIND_FIELD(stmt, idx, arr) bind_field(stmt, idx, arr, sizeof(arr))
#define BIND_OPT(stmt, idx, arr)   bind_opt_field(stmt, idx, arr, sizeof(arr))

/* Runs a prepared statement that returns no rows, then resets it for reuse. */
static int step_done(rt_store *st, sqlite3_stmt *s, const char *what, rt_err *err)
{
    const int rc = sqlite3_step(s);
    if (rc != SQLITE_DONE) {
        rt_err_set(err, "%s: %s", what, sqlite3_errmsg(st->db));
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
        return -1;
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return 0;
}

static int prepare(rt_store *st, const char *sql, sqlite3_stmt **out, rt_err *err)
{
    if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) != SQLITE_OK)
        return db_fail(st, err, "preparing a statement");
    return 0;
}

/* Reading the header is where SQLite first notices a file that is not a database. */
static int header_fail(const rt_store *st, rt_err *err)
{
    if ((sqlite3_errcode(st->db) & 0xff) == SQLITE_NOTADB)
        return rt_err_set(err,
                          "'%s' is not a SQLite database, so it cannot be a rooftune result "
                          "store; name a new file or an existing store",
                          st->path);
    return db_fail(st, err, "reading the file header");
}

static int query_int(rt_store *st, const char *sql, long long *value, rt_err *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK ||
        sqlite3_step(s) != SQLITE_ROW) {
        header_fail(st, err);
        sqlite3_finalize(s);
        return -1;
    }
    *value = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Opening: recognise the file, then create or accept the schema. */

typedef enum store_kind {
    STORE_EMPTY,   /* a new file or an empty database: ours to initialise */
    STORE_CURRENT, /* a rooftune store of this schema version */
    STORE_V1,      /* a rooftune store of version 1: migrated when opened for writing */
} store_kind;

static int classify(rt_store *st, store_kind *kind, rt_err *err)
{
    long long app_id = 0, version = 0, n_objects = 0;
    if (query_int(st, "PRAGMA application_id", &app_id, err) != 0 ||
        query_int(st, "PRAGMA user_version", &version, err) != 0 ||
        query_int(st, "SELECT count(*) FROM sqlite_master", &n_objects, err) != 0)
        return -1;
    if (app_id != RT_STORE_APPLICATION_ID) {
        if (app_id == 0 && version == 0 && n_objects == 0) {
            *kind = STORE_EMPTY;
            return 0;
        }
        return rt_err_set(err,
                          "'%s' is a SQLite database but not a rooftune result store "
                          "(application_id 0x%08llx, %lld schema objects); name a new file or an "
                          "existing store",
                          st->path, (unsigned long long)app_id & 0xffffffffULL, n_objects);
    }
    if (version > RT_STORE_SCHEMA_VERSION)
        return rt_err_set(err,
                          "result store '%s' has schema version %lld, newer than this rooftune "
                          "understands (%d); use a newer rooftune or another store file",
                          st->path, version, RT_STORE_SCHEMA_VERSION);
    if (version == 1) {
        *kind = STORE_V1;
        return 0;
    }
    if (version < RT_STORE_SCHEMA_VERSION)
        /* Version 1 is the first schema: anything lower with our id is a damaged file. */
        return rt_err_set(err,
                          "result store '%s' has schema version %lld, which no rooftune release "
                          "wrote (expected %d); the file is damaged",
                          st->path, version, RT_STORE_SCHEMA_VERSION);
    *kind = STORE_CURRENT;
    return 0;
}

static int create_schema(rt_store *st, rt_err *err)
{
    /* Another process may be creating the same store: take the write lock, then look again. */
    if (exec_sql(st, "BEGIN IMMEDIATE", "locking the new store to create its tables", err) != 0)
        return -1;
    store_kind kind;
    if (classify(st, &kind, err) != 0) {
        rollback(st);
        return -1;
    }
    if (kind == STORE_EMPTY) {
        char pragmas[128];
        snprintf(pragmas, sizeof pragmas, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
                 RT_STORE_APPLICATION_ID, RT_STORE_SCHEMA_VERSION);
        if (exec_sql(st, schema_current, "creating the tables", err) != 0 ||
            exec_sql(st, pragmas, "recording the schema version", err) != 0) {
            rollback(st);
            return -1;
        }
    }
    return exec_sql(st, "COMMIT", "committing the new schema", err);
}

/* Version 1 -> 2: the points table gains the status 'pruned'. SQLite cannot change a CHECK in
 * place, so the table is rebuilt beside the old one, filled, and renamed (SQLite's documented
 * procedure for table changes). Foreign keys must be off while the old table is dropped, or the
 * drop would cascade to every metric and sample; the caller turns them on afterwards. One
 * transaction: a failure leaves the version 1 store as it was. */
static int migrate_v1(rt_store *st, rt_err *err)
{
    if (exec_sql(st, "PRAGMA foreign_keys = OFF", "disabling foreign keys to migrate", err) != 0 ||
        exec_sql(st, "BEGIN IMMEDIATE", "locking the store to migrate its schema", err) != 0)
        return -1;
    store_kind kind;
    if (classify(st, &kind, err) != 0) {
        rollback(st);
        return -1;
    }
    if (kind == STORE_V1) { /* another process may have migrated it meanwhile */
        char version[64];
        snprintf(version, sizeof version, "PRAGMA user_version = %d;", RT_STORE_SCHEMA_VERSION);
        if (exec_sql(st, POINTS_TABLE_SQL("points_v2"), "migrating: creating the new points table",
                     err) != 0 ||
            exec_sql(st, "INSERT INTO points_v2 SELECT * FROM points",
                     "migrating: copying the points", err) != 0 ||
            exec_sql(st, "DROP TABLE points", "migrating: dropping the old points table", err) !=
                0 ||
            exec_sql(st, "ALTER TABLE points_v2 RENAME TO points",
                     "migrating: renaming the new points table", err) != 0 ||
            exec_sql(st, POINTS_INDEX_SQL, "migrating: indexing the points", err) != 0 ||
            exec_sql(st, version, "migrating: recording the schema version", err) != 0) {
            rollback(st);
            return rt_err_prefix(err, "result store '%s': schema version 1 -> %d", st->path,
                                 RT_STORE_SCHEMA_VERSION);
        }
    }
    return exec_sql(st, "COMMIT", "committing the schema migration", err);
}

static int enable_wal(rt_store *st, rt_err *err)
{
    sqlite3_stmt *s = NULL;
    if (prepare(st, "PRAGMA journal_mode=WAL", &s, err) != 0)
        return -1;
    if (sqlite3_step(s) != SQLITE_ROW) {
        db_fail(st, err, "enabling WAL journal mode");
        sqlite3_finalize(s);
        return -1;
    }
    const char *mode = (const char *)sqlite3_column_text(s, 0);
    const int is_wal = mode && strcmp(mode, "wal") == 0;
    /* An in-memory database (tests, dry runs) cannot use WAL and needs no concurrent readers. */
    const int is_memory = mode && strcmp(mode, "memory") == 0 && strcmp(st->path, ":memory:") == 0;
    char got[32];
    snprintf(got, sizeof got, "%s", mode ? mode : "none");
    sqlite3_finalize(s);
    if (!is_wal && !is_memory)
        return rt_err_set(err,
                          "result store '%s': SQLite could not switch to WAL journal mode (still "
                          "'%s'); WAL needs a local filesystem with shared-memory support, so put "
                          "the store on a local disk",
                          st->path, got);
    return 0;
}

static int prepare_statements(rt_store *st, rt_err *err)
{
    static const char insert_point[] =
        "INSERT INTO points (run_id, experiment, kernel, backend, family, matrix, params, problem,"
        " ranks, device, point_key, status, reason, verified, rel_error, tolerance, time_median_s,"
        " time_min_s, time_max_s, time_mean_s, time_stddev_s, ci_rel, flops, gflops, gnnz_s,"
        " bound_s, efficiency, setup_s, measured_at)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
        " ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, " NOW_UTC_SQL ")";
    static const char insert_metric[] =
        "INSERT INTO metrics (point_id, name, unit, available, deterministic, value, reason)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
    static const char insert_sample[] =
        "INSERT INTO samples (point_id, rep, seconds, rank_min_s, rank_avg_s)"
        " VALUES (?1, ?2, ?3, ?4, ?5)";
    static const char point_done[] =
        "SELECT EXISTS (SELECT 1 FROM points p JOIN runs r ON r.id = p.run_id"
        " WHERE p.point_key = ?1 AND r.build_id = ?2 AND r.config_hash = ?3)";
    if (prepare(st, insert_point, &st->insert_point, err) != 0 ||
        prepare(st, insert_metric, &st->insert_metric, err) != 0 ||
        prepare(st, insert_sample, &st->insert_sample, err) != 0 ||
        prepare(st, point_done, &st->point_done, err) != 0)
        return -1;
    return 0;
}

int rt_store_open(const char *path, rt_store **out, rt_err *err)
{
    if (!out)
        return rt_err_set(err, "rt_store_open: no output handle given");
    *out = NULL;
    if (!path || !path[0])
        return rt_err_set(err, "rt_store_open: no store path given");
    if (strlen(path) >= RT_STORE_PATH_MAX)
        return rt_err_set(err, "result store path is longer than %d characters: '%.80s...'",
                          RT_STORE_PATH_MAX - 1, path);
    rt_store *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "result store '%s': out of memory", path);
    snprintf(st->path, sizeof st->path, "%s", path);

    const int rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        char why[1024];
        rt_sqlite_open_why(path, st->db, rc, why, sizeof why);
        rt_err_set(err, "cannot open result store '%s': %s", path, why);
        rt_store_close(st);
        return -1;
    }
    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_busy_timeout(st->db, RT_STORE_BUSY_TIMEOUT_MS);

    /* Look before writing anything: switching a foreign database to WAL would modify it. */
    store_kind kind;
    if (classify(st, &kind, err) != 0 || enable_wal(st, err) != 0 ||
        (kind == STORE_V1 && migrate_v1(st, err) != 0) ||
        exec_sql(st, "PRAGMA foreign_keys = ON", "enabling foreign keys", err) != 0 ||
        (kind == STORE_EMPTY && create_schema(st, err) != 0) || prepare_statements(st, err) != 0) {
        rt_store_close(st);
        return -1;
    }
    *out = st;
    return 0;
}

void rt_store_close(rt_store *st)
{
    if (!st)
        return;
    sqlite3_finalize(st->insert_point);
    sqlite3_finalize(st->insert_metric);
    sqlite3_finalize(st->insert_sample);
    sqlite3_finalize(st->point_done);
    sqlite3_close(st->db);
    free(st);
}

struct sqlite3 *rt_store_db(rt_store *st)
{
    return st ? st->db : NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Runs. */

int rt_store_begin_run(rt_store *st, const rt_provenance *prov, const char *experiment,
                       int64_t *run_id, rt_err *err)
{
    if (!st || !prov || !run_id)
        return rt_err_set(err, "rt_store_begin_run: missing store, provenance or run id output");
    if (!experiment || !experiment[0])
        return rt_err_set(err, "result store '%s': a run needs an experiment name", st->path);
    if (prov->nranks < 1)
        return rt_err_set(err, "result store '%s': provenance has nranks = %d, expected >= 1",
                          st->path, prov->nranks);
    static const char sql[] =
        "INSERT INTO runs (experiment, status, started_at, git_revision, git_dirty, compiler,"
        " build_id, cuda_runtime, cuda_driver, device, host, mpi_library, topology, nranks,"
        " config_path, config_text, config_hash, command_line)"
        " VALUES (?1, 'running', " NOW_UTC_SQL ", ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
        " ?13, ?14, ?15, ?16)";
    sqlite3_stmt *s = NULL;
    if (prepare(st, sql, &s, err) != 0)
        return -1;
    sqlite3_bind_text(s, 1, experiment, -1, SQLITE_TRANSIENT);
    BIND_FIELD(s, 2, prov->git_revision);
    sqlite3_bind_int(s, 3, prov->git_dirty ? 1 : 0);
    BIND_FIELD(s, 4, prov->compiler);
    BIND_FIELD(s, 5, prov->build_id);
    BIND_OPT(s, 6, prov->cuda_runtime);
    BIND_OPT(s, 7, prov->cuda_driver);
    BIND_OPT(s, 8, prov->device);
    BIND_OPT(s, 9, prov->host);
    BIND_OPT(s, 10, prov->mpi_library);
    BIND_OPT(s, 11, prov->topology);
    sqlite3_bind_int(s, 12, prov->nranks);
    BIND_OPT(s, 13, prov->config_path);
    if (prov->config_text)
        sqlite3_bind_text(s, 14, prov->config_text, -1, SQLITE_TRANSIENT);
    BIND_FIELD(s, 15, prov->config_hash);
    BIND_OPT(s, 16, prov->command_line);
    if (step_write(st, s, "recording the start of a run", err) != 0)
        return -1;
    *run_id = sqlite3_last_insert_rowid(st->db);
    return 0;
}

int rt_store_end_run(rt_store *st, int64_t run_id, const char *status, rt_err *err)
{
    if (!st)
        return rt_err_set(err, "rt_store_end_run: no store given");
    int known = 0;
    for (int k = 0; k < N_RUN_FINAL && status; ++k)
        known |= strcmp(status, run_final_statuses[k]) == 0;
    if (!known)
        return rt_err_set(err,
                          "result store '%s': run %lld cannot end with status '%s' (expected "
                          "complete, failed or interrupted)",
                          st->path, (long long)run_id, status ? status : "(null)");
    static const char sql[] =
        "UPDATE runs SET status = ?1, ended_at = " NOW_UTC_SQL " WHERE id = ?2";
    sqlite3_stmt *s = NULL;
    if (prepare(st, sql, &s, err) != 0)
        return -1;
    sqlite3_bind_text(s, 1, status, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 2, run_id);
    if (step_write(st, s, "recording the end of a run", err) != 0)
        return -1;
    if (sqlite3_changes(st->db) != 1)
        return rt_err_set(err, "result store '%s': there is no run with id %lld to end", st->path,
                          (long long)run_id);
    return 0;
}

int rt_store_mark_stale_runs(rt_store *st, int *n_marked, rt_err *err)
{
    *n_marked = 0;
    if (!st)
        return rt_err_set(err, "rt_store_mark_stale_runs: no store given");
    static const char sql[] = "UPDATE runs SET status = 'interrupted', ended_at = " NOW_UTC_SQL
                              " WHERE status = 'running'";
    sqlite3_stmt *s = NULL;
    if (prepare(st, sql, &s, err) != 0)
        return -1;
    if (step_write(st, s, "marking runs left 'running' as interrupted", err) != 0)
        return -1;
    *n_marked = sqlite3_changes(st->db);
    return 0;
}

int rt_store_add_matrix(rt_store *st, int64_t run_id, const rt_matrix_record *m, rt_err *err)
{
    if (!st || !m)
        return rt_err_set(err, "rt_store_add_matrix: missing store or matrix record");
    if (strnlen(m->name, sizeof m->name) == 0)
        return rt_err_set(err, "result store '%s': a matrix record needs a name", st->path);
    if (m->rows < 0 || m->cols < 0 || m->nnz < 0)
        return rt_err_set(err,
                          "result store '%s': matrix '%.*s' has negative dimensions (rows %lld, "
                          "cols %lld, nnz %lld)",
                          st->path, (int)sizeof m->name, m->name, (long long)m->rows,
                          (long long)m->cols, (long long)m->nnz);
    /* The runner may load a matrix again (another kernel, a retry): the latest record wins
     * rather than failing the run over a duplicate. */
    static const char sql[] =
        "INSERT INTO matrices (run_id, name, rows, cols, nnz, generator, args, file, ordering,"
        " load_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
        " ON CONFLICT (run_id, name) DO UPDATE SET rows = excluded.rows, cols = excluded.cols,"
        " nnz = excluded.nnz, generator = excluded.generator, args = excluded.args,"
        " file = excluded.file, ordering = excluded.ordering, load_s = excluded.load_s";
    sqlite3_stmt *s = NULL;
    if (prepare(st, sql, &s, err) != 0)
        return -1;
    sqlite3_bind_int64(s, 1, run_id);
    BIND_FIELD(s, 2, m->name);
    sqlite3_bind_int64(s, 3, m->rows);
    sqlite3_bind_int64(s, 4, m->cols);
    sqlite3_bind_int64(s, 5, m->nnz);
    BIND_OPT(s, 6, m->generator);
    BIND_OPT(s, 7, m->args_json);
    BIND_OPT(s, 8, m->file);
    BIND_OPT(s, 9, m->ordering);
    bind_real(s, 10, m->load_s);
    if (step_write(st, s, "recording a matrix", err) != 0)
        return rt_err_prefix(err, "matrix '%.*s' of run %lld", (int)sizeof m->name, m->name,
                             (long long)run_id);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Points. */

int rt_store_point_done(rt_store *st, const char *build_id, const char *config_hash,
                        const char *point_key, int *done, rt_err *err)
{
    if (!st || !build_id || !config_hash || !point_key || !done)
        return rt_err_set(err, "rt_store_point_done: missing store, build id, config hash, point "
                               "key or output");
    *done = 0;
    sqlite3_stmt *s = st->point_done;
    sqlite3_bind_text(s, 1, point_key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, build_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, config_hash, -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *done = sqlite3_column_int(s, 0) != 0;
    else
        db_fail(st, err, "looking up a point for resume");
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc == SQLITE_ROW ? 0 : -1;
}

int rt_store_point_resume(rt_store *st, const char *build_id, const char *config_hash,
                          const char *point_key, int *done, int *pruned, double *time_s,
                          double *bound_s, rt_err *err)
{
    if (!st || !build_id || !config_hash || !point_key || !done || !pruned || !time_s || !bound_s)
        return rt_err_set(err, "rt_store_point_resume: missing store, build id, config hash, "
                               "point key or output");
    *done = 0;
    *pruned = 0;
    *time_s = INFINITY;
    *bound_s = NAN;
    static const char sql[] =
        "SELECT p.status, p.time_median_s, p.bound_s FROM points p JOIN runs r ON r.id = p.run_id"
        " WHERE p.point_key = ?1 AND r.build_id = ?2 AND r.config_hash = ?3 ORDER BY p.id LIMIT 1";
    sqlite3_stmt *s = NULL;
    if (prepare(st, sql, &s, err) != 0)
        return -1;
    sqlite3_bind_text(s, 1, point_key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, build_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, config_hash, -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *done = 1;
        const char *status = (const char *)sqlite3_column_text(s, 0);
        /* Only a verified, timed point has an objective; pruned and failed points have none. */
        if (status && strcmp(status, status_names[RT_POINT_OK]) == 0 &&
            sqlite3_column_type(s, 1) != SQLITE_NULL)
            *time_s = sqlite3_column_double(s, 1);
        *pruned = status && strcmp(status, status_names[RT_POINT_PRUNED]) == 0;
        if (sqlite3_column_type(s, 2) != SQLITE_NULL)
            *bound_s = sqlite3_column_double(s, 2);
    } else if (rc != SQLITE_DONE) {
        db_fail(st, err, "looking up a point for resume");
    }
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* Checks what SQL constraints cannot express or would report less clearly. */
static int check_point(const rt_point_record *pt, rt_err *err)
{
    if ((int)pt->status < 0 || (int)pt->status >= N_STATUS)
        return rt_err_set(err, "status %d is not a rt_point_status", (int)pt->status);
    if (pt->n_samples < 0)
        return rt_err_set(err, "n_samples is %d, expected >= 0", pt->n_samples);
    if (pt->n_samples > 0 && !pt->samples)
        return rt_err_set(err, "n_samples is %d but the samples array is NULL", pt->n_samples);
    for (int k = 0; k < pt->n_samples; ++k)
        if (!isfinite(pt->samples[k]) || pt->samples[k] < 0)
            return rt_err_set(err,
                              "sample %d is %g seconds; a timed repetition needs a finite "
                              "time >= 0",
                              k, pt->samples[k]);
    if (pt->metrics && (pt->metrics->n < 0 || pt->metrics->n > RT_MAX_METRICS))
        return rt_err_set(err, "metrics count %d is outside 0..%d", pt->metrics->n, RT_MAX_METRICS);
    if (strnlen(pt->point_key, sizeof pt->point_key) == 0)
        return rt_err_set(err, "the point has no point_key");
    return 0;
}

static int insert_point_row(rt_store *st, int64_t run_id, const rt_point_record *pt, rt_err *err)
{
    sqlite3_stmt *s = st->insert_point;
    sqlite3_bind_int64(s, 1, run_id);
    BIND_FIELD(s, 2, pt->experiment);
    BIND_FIELD(s, 3, pt->kernel);
    BIND_FIELD(s, 4, pt->backend);
    BIND_FIELD(s, 5, pt->family);
    BIND_FIELD(s, 6, pt->matrix);
    BIND_FIELD(s, 7, pt->params_json);
    BIND_FIELD(s, 8, pt->problem_json);
    sqlite3_bind_int(s, 9, pt->ranks);
    BIND_FIELD(s, 10, pt->device);
    BIND_FIELD(s, 11, pt->point_key);
    sqlite3_bind_text(s, 12, rt_point_status_name(pt->status), -1, SQLITE_STATIC);
    BIND_OPT(s, 13, pt->reason);
    sqlite3_bind_int(s, 14, pt->verified ? 1 : 0);
    bind_real(s, 15, pt->rel_error);
    bind_real(s, 16, pt->tolerance);
    bind_real(s, 17, pt->time_median_s);
    bind_real(s, 18, pt->time_min_s);
    bind_real(s, 19, pt->time_max_s);
    bind_real(s, 20, pt->time_mean_s);
    bind_real(s, 21, pt->time_stddev_s);
    bind_real(s, 22, pt->ci_rel);
    bind_real(s, 23, pt->flops);
    bind_real(s, 24, pt->gflops);
    bind_real(s, 25, pt->gnnz_s);
    bind_real(s, 26, pt->bound_s);
    bind_real(s, 27, pt->efficiency);
    bind_real(s, 28, pt->setup_s);
    return step_done(st, s, "writing the point", err);
}

static int insert_metrics(rt_store *st, int64_t point_id, const rt_metrics *m, rt_err *err)
{
    sqlite3_stmt *s = st->insert_metric;
    for (int k = 0; m && k < m->n; ++k) {
        const rt_metric *x = &m->item[k];
        sqlite3_bind_int64(s, 1, point_id);
        BIND_FIELD(s, 2, x->name);
        BIND_FIELD(s, 3, x->unit);
        sqlite3_bind_int(s, 4, x->available ? 1 : 0);
        sqlite3_bind_int(s, 5, x->deterministic ? 1 : 0);
        if (x->available) {
            bind_real(s, 6, x->value);
        } else {
            sqlite3_bind_null(s, 6);
            if (strnlen(x->reason, sizeof x->reason) > 0)
                BIND_FIELD(s, 7, x->reason);
            else
                sqlite3_bind_text(s, 7, "unavailable", -1, SQLITE_STATIC);
        }
        if (step_done(st, s, "writing a metric", err) != 0)
            return rt_err_prefix(err, "metric '%.*s'", (int)sizeof x->name, x->name);
    }
    return 0;
}

static int insert_samples(rt_store *st, int64_t point_id, const rt_point_record *pt, rt_err *err)
{
    sqlite3_stmt *s = st->insert_sample;
    for (int k = 0; k < pt->n_samples; ++k) {
        sqlite3_bind_int64(s, 1, point_id);
        sqlite3_bind_int(s, 2, k);
        bind_real(s, 3, pt->samples[k]);
        bind_real(s, 4, pt->samples_rank_min ? pt->samples_rank_min[k] : NAN);
        bind_real(s, 5, pt->samples_rank_avg ? pt->samples_rank_avg[k] : NAN);
        if (step_done(st, s, "writing a sample", err) != 0)
            return rt_err_prefix(err, "sample %d", k);
    }
    return 0;
}

int rt_store_add_point(rt_store *st, int64_t run_id, const rt_point_record *pt, int64_t *point_id,
                       rt_err *err)
{
    if (!st || !pt)
        return rt_err_set(err, "rt_store_add_point: missing store or point record");
    int64_t id = 0;
    int rc = check_point(pt, err);
    /* All or nothing: a run killed mid-point must not leave a point that resume would skip. */
    if (rc == 0)
        rc = exec_bare(st, "BEGIN IMMEDIATE", "starting the point's transaction", err);
    if (rc == 0) {
        rc = insert_point_row(st, run_id, pt, err);
        if (rc == 0) {
            id = sqlite3_last_insert_rowid(st->db);
            rc = insert_metrics(st, id, pt->metrics, err);
        }
        if (rc == 0)
            rc = insert_samples(st, id, pt, err);
        if (rc == 0)
            rc = exec_bare(st, "COMMIT", "committing the point", err);
        if (rc != 0)
            rollback(st);
    }
    if (rc != 0)
        return rt_err_prefix(err,
                             "result store '%s': run %lld, point %.*s (kernel '%.*s', "
                             "matrix '%.*s')",
                             st->path, (long long)run_id, (int)sizeof pt->point_key, pt->point_key,
                             (int)sizeof pt->kernel, pt->kernel, (int)sizeof pt->matrix,
                             pt->matrix);
    if (point_id)
        *point_id = id;
    return 0;
}

int rt_store_set_bound(rt_store *st, int64_t point_id, double bound_s, double efficiency,
                       rt_point_status status, const char *reason, rt_err *err)
{
    if (!st)
        return rt_err_set(err, "rt_store_set_bound: no store given");
    if ((int)status < 0 || (int)status >= N_STATUS)
        return rt_err_set(err,
                          "result store '%s': point %lld: status %d is not a "
                          "rt_point_status",
                          st->path, (long long)point_id, (int)status);
    /* A NULL reason keeps the stored one: the roofline check only explains what it changes. */
    static const char sql[] = "UPDATE points SET bound_s = ?1, efficiency = ?2, status = ?3,"
                              " reason = coalesce(?4, reason) WHERE id = ?5";
    sqlite3_stmt *s = NULL;
    if (prepare(st, sql, &s, err) != 0)
        return -1;
    bind_real(s, 1, bound_s);
    bind_real(s, 2, efficiency);
    sqlite3_bind_text(s, 3, rt_point_status_name(status), -1, SQLITE_STATIC);
    if (reason)
        sqlite3_bind_text(s, 4, reason, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 5, point_id);
    if (step_write(st, s, "updating a point's roofline bound", err) != 0)
        return -1;
    if (sqlite3_changes(st->db) != 1)
        return rt_err_set(err, "result store '%s': there is no point with id %lld to update",
                          st->path, (long long)point_id);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Queries shared by export, plot and compare. */

static int pragma_int(sqlite3 *db, const char *sql, long long *value)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(s);
        if (rc == SQLITE_ROW) {
            *value = sqlite3_column_int64(s, 0);
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(s);
    return rc;
}

int rt_store_check(struct sqlite3 *db, rt_err *err)
{
    if (!db)
        return rt_err_set(err, "rt_store_check: no database handle given");
    long long app_id = 0, version = 0;
    if (pragma_int(db, "PRAGMA application_id", &app_id) != SQLITE_OK ||
        pragma_int(db, "PRAGMA user_version", &version) != SQLITE_OK) {
        if ((sqlite3_errcode(db) & 0xff) == SQLITE_NOTADB)
            return rt_err_set(err, "not a SQLite database, so not a rooftune result store");
        return rt_err_set(err, "reading the file header: %s", sqlite3_errmsg(db));
    }
    if (app_id != RT_STORE_APPLICATION_ID)
        return rt_err_set(err,
                          "not a rooftune result store (SQLite application_id 0x%08llx, "
                          "expected 0x%08x)",
                          (unsigned long long)app_id & 0xffffffffULL, RT_STORE_APPLICATION_ID);
    /* Version 1 reads as version 2 does (it only lacks the status 'pruned'), so read-only
     * commands take committed version 1 stores as they are. */
    if (version < 1 || version > RT_STORE_SCHEMA_VERSION)
        return rt_err_set(
            err, "result store schema version %lld, this rooftune reads versions 1 to %d%s",
            version, RT_STORE_SCHEMA_VERSION,
            version > RT_STORE_SCHEMA_VERSION ? "; use a newer rooftune" : "");
    return 0;
}

int rt_store_experiments(struct sqlite3 *db, char (*names)[64], int max, int *n, rt_err *err)
{
    if (!db || !n || max < 0 || (max > 0 && !names))
        return rt_err_set(err, "rt_store_experiments: missing database, output array or count");
    *n = 0;
    static const char sql[] =
        "SELECT experiment FROM runs UNION SELECT experiment FROM points ORDER BY 1";
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        rt_err_set(err, "listing experiments: %s", sqlite3_errmsg(db));
        sqlite3_finalize(s);
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && *n < max) {
        const unsigned char *name = sqlite3_column_text(s, 0);
        snprintf(names[*n], sizeof names[*n], "%s", name ? (const char *)name : "");
        ++*n;
    }
    const int ok = rc == SQLITE_ROW || rc == SQLITE_DONE;
    if (!ok)
        rt_err_set(err, "listing experiments: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return ok ? 0 : -1;
}
