#include "rt_store_tuning.h"

#include <ctype.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char k_schema[] =
    "CREATE TABLE IF NOT EXISTS tuning ("
    "  id INTEGER PRIMARY KEY,"
    "  kernel TEXT NOT NULL, device TEXT NOT NULL, arch TEXT NOT NULL,"
    "  input_class TEXT NOT NULL, matrix TEXT NOT NULL, problem TEXT NOT NULL,"
    "  rows INTEGER NOT NULL, nnz_per_row REAL NOT NULL, k REAL NOT NULL,"
    "  params TEXT NOT NULL CHECK (json_valid(params)),"
    "  time_s REAL NOT NULL CHECK (time_s > 0), gflops REAL,"
    "  evidence TEXT NOT NULL CHECK (json_valid(evidence)),"
    "  provenance TEXT NOT NULL CHECK (json_valid(provenance)),"
    "  recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
    "  memory_bytes INTEGER CHECK (memory_bytes IS NULL OR memory_bytes > 0),"
    "  UNIQUE (kernel, device, arch, input_class))";

/* The fastest verified point of every sweep, with its matrix, run and evidence. */
static const char k_best_sql[] =
    "WITH good AS (SELECT * FROM points WHERE status = 'ok' AND verified = 1"
    "  AND time_median_s > 0),"
    " ranked AS (SELECT g.*, ROW_NUMBER() OVER (PARTITION BY kernel, device, matrix, problem"
    "  ORDER BY time_median_s, id) AS rk FROM good g)"
    " SELECT r.kernel, r.device, r.matrix, r.problem, r.params, r.time_median_s, r.gflops,"
    "  m.rows, m.nnz, COALESCE(json_extract(r.problem, '$.K'), 0),"
    "  json_object('source', ?1, 'run', r.run_id, 'point', r.id, 'experiment', r.experiment,"
    "   'git_revision', u.git_revision, 'git_dirty', u.git_dirty, 'config', u.config_path,"
    "   'measured_at', r.measured_at),"
    "  (SELECT json_group_array(json_object('point', e.id, 'params', json(e.params),"
    "    'time_s', e.time_median_s)) FROM good e WHERE e.kernel = r.kernel"
    "    AND e.device = r.device AND e.matrix = r.matrix AND e.problem = r.problem)"
    "  , r.backend,"
    "  (SELECT m.value FROM metrics m WHERE m.point_id = r.id AND m.name = 'device_memory_bytes'"
    "    AND m.available = 1)"
    " FROM ranked r JOIN runs u ON u.id = r.run_id"
    " JOIN matrices m ON m.run_id = r.run_id AND m.name = r.matrix"
    " WHERE r.rk = 1 ORDER BY r.kernel, r.device, r.matrix, r.problem";

static const char k_upsert_sql[] =
    "INSERT INTO tuning (kernel, device, arch, input_class, matrix, problem, rows, nnz_per_row,"
    " k, params, time_s, gflops, evidence, provenance, memory_bytes)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
    " ON CONFLICT (kernel, device, arch, input_class) DO UPDATE SET"
    "  matrix = excluded.matrix, problem = excluded.problem, params = excluded.params,"
    "  time_s = excluded.time_s, gflops = excluded.gflops, evidence = excluded.evidence,"
    "  provenance = excluded.provenance, recorded_at = excluded.recorded_at,"
    "  memory_bytes = COALESCE(excluded.memory_bytes, tuning.memory_bytes)"
    " WHERE excluded.time_s < tuning.time_s";

/* 1 when the tuning table has the column memory_bytes (added in the second version of the table;
 * a table recorded before it lacks it until a write migrates it). */
static int has_memory_column(sqlite3 *db)
{
    sqlite3_stmt *s = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM pragma_table_info('tuning') WHERE name = "
                           "'memory_bytes'",
                           -1, &s, NULL) == SQLITE_OK)
        found = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    return found;
}

/* The migration of a tuning table recorded before memory_bytes: the column is added and each
 * entry's memory taken from its device's name (rt_tuning_memory_of), NULL where it gives none. */
static int migrate_memory(sqlite3 *db, rt_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db,
                     "ALTER TABLE tuning ADD COLUMN memory_bytes INTEGER CHECK (memory_bytes IS "
                     "NULL OR memory_bytes > 0)",
                     NULL, NULL, &msg) != SQLITE_OK) {
        const int rc = rt_err_set(err, "tuning table: adding memory_bytes: %s", msg ? msg : "?");
        sqlite3_free(msg);
        return rc;
    }
    sqlite3_stmt *q = NULL, *up = NULL;
    int rc = 0;
    if (sqlite3_prepare_v2(db, "SELECT id, device FROM tuning", -1, &q, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "UPDATE tuning SET memory_bytes = ?2 WHERE id = ?1", -1, &up,
                           NULL) != SQLITE_OK)
        rc = rt_err_set(err, "tuning table: %s", sqlite3_errmsg(db));
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
        const double mem = rt_tuning_memory_of((const char *)sqlite3_column_text(q, 1));
        if (mem <= 0)
            continue;
        sqlite3_reset(up);
        sqlite3_bind_int64(up, 1, sqlite3_column_int64(q, 0));
        sqlite3_bind_int64(up, 2, (sqlite3_int64)mem);
        if (sqlite3_step(up) != SQLITE_DONE)
            rc = rt_err_set(err, "tuning table: %s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(q);
    sqlite3_finalize(up);
    return rc;
}

int rt_tuning_ensure(sqlite3 *db, rt_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db, k_schema, NULL, NULL, &msg) != SQLITE_OK) {
        const int rc = rt_err_set(err, "cannot create the tuning table: %s", msg ? msg : "?");
        sqlite3_free(msg);
        return rc;
    }
    return has_memory_column(db) ? 0 : migrate_memory(db, err);
}

double rt_tuning_memory_of(const char *device)
{
    if (!device)
        return 0;
    /* A size in the name: "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB". */
    for (const char *c = device; *c; ++c) {
        if (!isdigit((unsigned char)*c) || (c > device && isdigit((unsigned char)c[-1])))
            continue;
        char *end = NULL;
        const double gb = strtod(c, &end);
        if (end && end[0] == 'G' && end[1] == 'B' && gb > 0)
            return gb * 1e9;
    }
    /* Models whose name carries none: their memory as sold (the first match wins). */
    static const struct {
        const char *needle;
        double gb;
    } table[] = {{"H100 NVL", 94}, {"H100 PCIe", 80}, {"GH200", 96}, {"H200", 141},
                 {"B200", 180},    {"L40", 48},       {"L4", 24},    {"A40", 48},
                 {"A30", 24},      {"A10", 24},       {"T4", 16},    {"P100", 16}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
        if (strstr(device, table[i].needle))
            return table[i].gb * 1e9;
    return 0;
}

int rt_tuning_check(sqlite3 *db, rt_err *err)
{
    sqlite3_stmt *s = NULL;
    int present = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name"
                           " = 'tuning'",
                           -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        present = sqlite3_column_int(s, 0) > 0;
    else
        present = -1;
    sqlite3_finalize(s);
    if (present < 0)
        return rt_err_set(err, "cannot read its tables: %s", sqlite3_errmsg(db));
    if (!present)
        return rt_err_set(err, "a rooftune store with no tuning table, so not a tuning database "
                               "(record one with `rooftune tune`)");
    return 0;
}

const char *rt_tuning_arch_of(const char *device)
{
    static const struct {
        const char *needle, *arch;
    } table[] = {{"B200", "sm_100"}, {"GB200", "sm_100"}, {"H100", "sm_90"},   {"H200", "sm_90"},
                 {"GH200", "sm_90"}, {"L40", "sm_89"},    {"L4", "sm_89"},     {"RTX 40", "sm_89"},
                 {"A100", "sm_80"},  {"A30", "sm_80"},    {"A40", "sm_86"},    {"A10", "sm_86"},
                 {"A4000", "sm_86"}, {"A6000", "sm_86"},  {"RTX 30", "sm_86"}, {"V100", "sm_70"},
                 {"T4", "sm_75"},    {"RTX 20", "sm_75"}, {"P100", "sm_60"}};
    if (!device)
        return "";
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
        if (strstr(device, table[i].needle))
            return table[i].arch;
    return "";
}

static int arch_number(const char *arch)
{
    return arch && strncmp(arch, "sm_", 3) == 0 ? atoi(arch + 3) : -1;
}

/* A column's text for an error message ("(none)" for NULL). */
static const char *shown_text(sqlite3_stmt *q, int c)
{
    const char *t = (const char *)sqlite3_column_text(q, c);
    return t ? t : "(none)";
}

/* The entries of src's own tuning table (a tuning database of another device, say), through the
 * prepared upsert `up` into dst: each kept as it was recorded (architecture, memory, provenance and
 * evidence included), an existing entry of the same key replaced only by a faster one. A src with
 * no tuning table adds nothing; one recorded before memory_bytes gives the memory of the device's
 * name. So `rooftune tune --from` merges two devices' tuning databases into one. */
static int merge_entries(sqlite3 *src, sqlite3_stmt *up, sqlite3 *dst, const char *source_path,
                         int *recorded, rt_err *err)
{
    rt_err why;
    if (rt_tuning_check(src, &why) != 0)
        return 0; /* no tuning table: nothing to merge */
    char sql[400];
    snprintf(sql, sizeof sql,
             "SELECT kernel, device, arch, input_class, matrix, problem, rows, nnz_per_row, k,"
             " params, time_s, gflops, evidence, provenance, %s, id FROM tuning ORDER BY id",
             has_memory_column(src) ? "memory_bytes" : "NULL");
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(src, sql, -1, &q, NULL) != SQLITE_OK) {
        const int rc =
            rt_err_set(err, "%s: its tuning table: %s", source_path, sqlite3_errmsg(src));
        sqlite3_finalize(q);
        return rc;
    }
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(q)) == SQLITE_ROW) {
        const long long id = sqlite3_column_int64(q, 15);
        /* The table's CHECK lets text through (text sorts above every number in SQLite): an
         * entry whose time is not a number would then win or lose every comparison. */
        const int time_type = sqlite3_column_type(q, 10);
        if ((time_type != SQLITE_FLOAT && time_type != SQLITE_INTEGER) ||
            !(sqlite3_column_double(q, 10) > 0)) {
            rc =
                rt_err_set(err, "%s: tuning entry %lld (%s on %s): time_s is not a positive number",
                           source_path, id, shown_text(q, 0), shown_text(q, 1));
            break;
        }
        sqlite3_reset(up);
        for (int c = 0; c < 14; ++c)
            sqlite3_bind_value(up, c + 1, sqlite3_column_value(q, c));
        if (sqlite3_column_type(q, 14) != SQLITE_NULL) {
            sqlite3_bind_value(up, 15, sqlite3_column_value(q, 14));
        } else {
            const double mem = rt_tuning_memory_of((const char *)sqlite3_column_text(q, 1));
            if (mem > 0)
                sqlite3_bind_int64(up, 15, (sqlite3_int64)mem);
            else
                sqlite3_bind_null(up, 15);
        }
        if (sqlite3_step(up) != SQLITE_DONE)
            rc = rt_err_set(err, "%s: tuning entry %lld (%s on %s): %s", source_path, id,
                            shown_text(q, 0), shown_text(q, 1), sqlite3_errmsg(dst));
        else
            *recorded += sqlite3_changes(dst) > 0;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rt_err_set(err, "%s: reading its tuning table: %s", source_path, sqlite3_errmsg(src));
    sqlite3_finalize(q);
    return rc;
}

int rt_tuning_harvest(sqlite3 *src, sqlite3 *dst, const char *source_path, const char *arch,
                      int *recorded, rt_err *err)
{
    *recorded = 0;
    sqlite3_stmt *q = NULL, *up = NULL;
    if (sqlite3_prepare_v2(src, k_best_sql, -1, &q, NULL) != SQLITE_OK) {
        const int rc =
            rt_err_set(err, "%s: not a rooftune store (%s)", source_path, sqlite3_errmsg(src));
        sqlite3_finalize(q);
        return rc;
    }
    /* One transaction, the table's creation included: a harvest that fails changes nothing. */
    if (sqlite3_exec(dst, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        const int rc = rt_err_set(err, "tuning table: %s", sqlite3_errmsg(dst));
        sqlite3_finalize(q);
        return rc;
    }
    int rc = rt_tuning_ensure(dst, err);
    if (rc == 0 && sqlite3_prepare_v2(dst, k_upsert_sql, -1, &up, NULL) != SQLITE_OK)
        rc = rt_err_set(err, "tuning table: %s", sqlite3_errmsg(dst));
    if (rc != 0) {
        sqlite3_exec(dst, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_finalize(q);
        sqlite3_finalize(up);
        return -1;
    }
    sqlite3_bind_text(q, 1, source_path, -1, SQLITE_TRANSIENT);
    int step = SQLITE_ROW;
    while (rc == 0 && (step = sqlite3_step(q)) == SQLITE_ROW) {
        const char *kernel = (const char *)sqlite3_column_text(q, 0);
        const char *device = (const char *)sqlite3_column_text(q, 1);
        const char *backend = (const char *)sqlite3_column_text(q, 12);
        /* A CPU's tuning is keyed by its device (the CPU model) under the architecture "cpu". */
        const char *a = arch && *arch                            ? arch
                        : backend && strcmp(backend, "cpu") == 0 ? "cpu"
                                                                 : rt_tuning_arch_of(device);
        if (!*a) {
            rc = rt_err_set(err,
                            "%s: the architecture of device '%s' is unknown; give it with --arch "
                            "sm_XY",
                            source_path, device);
            break;
        }
        const double rows = sqlite3_column_double(q, 7), nnz = sqlite3_column_double(q, 8);
        const double npr = rows > 0 ? nnz / rows : 0, k = sqlite3_column_double(q, 9);
        char input_class[192];
        snprintf(input_class, sizeof input_class, "%s rows=%.0f nnz_per_row=%.2f K=%g %s",
                 (const char *)sqlite3_column_text(q, 2), rows, npr, k,
                 (const char *)sqlite3_column_text(q, 3));
        sqlite3_reset(up);
        sqlite3_bind_text(up, 1, kernel, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(up, 2, device, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(up, 3, a, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(up, 4, input_class, -1, SQLITE_TRANSIENT);
        sqlite3_bind_value(up, 5, sqlite3_column_value(q, 2));
        sqlite3_bind_value(up, 6, sqlite3_column_value(q, 3));
        sqlite3_bind_double(up, 7, rows);
        sqlite3_bind_double(up, 8, npr);
        sqlite3_bind_double(up, 9, k);
        sqlite3_bind_value(up, 10, sqlite3_column_value(q, 4));
        sqlite3_bind_value(up, 11, sqlite3_column_value(q, 5));
        sqlite3_bind_value(up, 12, sqlite3_column_value(q, 6));
        sqlite3_bind_value(up, 13, sqlite3_column_value(q, 11));
        sqlite3_bind_value(up, 14, sqlite3_column_value(q, 10));
        /* The device's memory: as the run measured it (the point's metric), else from its name,
         * else unknown (NULL). */
        const double mem = sqlite3_column_type(q, 13) != SQLITE_NULL ? sqlite3_column_double(q, 13)
                                                                     : rt_tuning_memory_of(device);
        if (mem > 0)
            sqlite3_bind_int64(up, 15, (sqlite3_int64)mem);
        else
            sqlite3_bind_null(up, 15);
        if (sqlite3_step(up) != SQLITE_DONE)
            rc = rt_err_set(err, "tuning table: %s", sqlite3_errmsg(dst));
        else
            *recorded += sqlite3_changes(dst) > 0;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rt_err_set(err, "%s: reading its points: %s", source_path, sqlite3_errmsg(src));
    if (rc == 0)
        rc = merge_entries(src, up, dst, source_path, recorded, err);
    if (rc == 0 && sqlite3_exec(dst, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = rt_err_set(err, "tuning table: committing: %s", sqlite3_errmsg(dst));
    if (rc != 0)
        sqlite3_exec(dst, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_finalize(q);
    sqlite3_finalize(up);
    return rc;
}

/* Every entry of kernel's (all entries when kernel is NULL), once the table is checked
 * (rt_tuning_check); a table recorded before memory_bytes reads the memory from the device's name
 * instead (rt_tuning_memory_of, in C). */
static int prepare_entries(sqlite3 *db, const char *kernel, sqlite3_stmt **s, rt_err *err)
{
    if (rt_tuning_check(db, err) != 0)
        return -1;
    char sql[640];
    snprintf(sql, sizeof sql,
             "SELECT id, kernel, device, arch, matrix, rows, nnz_per_row, k, params, time_s,"
             " COALESCE(gflops, 0), json_array_length(evidence), problem, provenance, "
             "input_class, %s FROM tuning WHERE (?1 IS NULL OR kernel = ?1) ORDER BY kernel, "
             "arch, device, input_class",
             has_memory_column(db) ? "memory_bytes" : "NULL");
    if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK)
        return rt_err_set(err, "tuning table: %s", sqlite3_errmsg(db));
    if (kernel)
        sqlite3_bind_text(*s, 1, kernel, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(*s, 1);
    return 0;
}

static void read_entry(sqlite3_stmt *s, rt_tuning_entry *e)
{
    memset(e, 0, sizeof *e);
    e->id = sqlite3_column_int64(s, 0);
    snprintf(e->kernel, sizeof e->kernel, "%s", sqlite3_column_text(s, 1));
    snprintf(e->device, sizeof e->device, "%s", sqlite3_column_text(s, 2));
    snprintf(e->arch, sizeof e->arch, "%s", sqlite3_column_text(s, 3));
    snprintf(e->matrix, sizeof e->matrix, "%s", sqlite3_column_text(s, 4));
    e->rows = sqlite3_column_double(s, 5);
    e->nnz_per_row = sqlite3_column_double(s, 6);
    e->k = sqlite3_column_double(s, 7);
    snprintf(e->params, sizeof e->params, "%s", sqlite3_column_text(s, 8));
    e->time_s = sqlite3_column_double(s, 9);
    e->gflops = sqlite3_column_double(s, 10);
    e->evidence_points = sqlite3_column_int(s, 11);
    snprintf(e->problem, sizeof e->problem, "%s", sqlite3_column_text(s, 12));
    e->memory_bytes = sqlite3_column_type(s, 15) != SQLITE_NULL ? sqlite3_column_double(s, 15)
                                                                : rt_tuning_memory_of(e->device);
}

/* |log2| of the memory ratio; an entry of unknown memory ranks after every known one, and when
 * the asked memory is unknown memory does not rank at all. */
static double memory_distance(double asked, double entry)
{
    if (!(asked > 0))
        return 0;
    if (!(entry > 0))
        return 1e6;
    return fabs(log2(asked / entry));
}

static double feature_distance(const rt_tuning_query *q, const rt_tuning_entry *e)
{
    double d = 0;
    if (q->rows > 0 && e->rows > 0)
        d += fabs(log2(q->rows / e->rows));
    if (q->nnz_per_row > 0 && e->nnz_per_row > 0)
        d += fabs(log2(q->nnz_per_row / e->nnz_per_row));
    if (q->k > 0 && e->k > 0)
        d += fabs(log2(q->k / e->k));
    return d;
}

int rt_tuning_lookup(sqlite3 *db, const rt_tuning_query *q, rt_tuning_entry *out, rt_err *err)
{
    if (!q->kernel || !*q->kernel)
        return rt_err_set(err, "rooftune best: --kernel is required");
    sqlite3_stmt *s = NULL;
    if (prepare_entries(db, q->kernel, &s, err) != 0)
        return -1;
    const char *qarch = q->arch && *q->arch ? q->arch : rt_tuning_arch_of(q->device);
    const int qa = arch_number(qarch);
    /* The family of sm_XY is the nearest lower sm_W0 (W < X): sm_90 and sm_89 -> sm_80. */
    const int family_arch = qa >= 0 ? ((qa % 10 == 0 ? qa - 10 : qa - qa % 10)) : -1;
    /* The asked device's memory: given, else from its name, else an entry of that very device. */
    double qmem = q->memory_bytes > 0 ? q->memory_bytes : rt_tuning_memory_of(q->device);
    /* Levels: 0 device, 1 architecture, 2 family, 3 any. The lowest level wins; within it, for
     * other devices, the nearest architecture (level 3), then the nearest memory size, then the
     * nearest input. */
    int best_level = 99;
    double best_key[3] = {INFINITY, INFINITY, INFINITY};
    int found = 0;
    rt_tuning_entry e;
    while (sqlite3_step(s) == SQLITE_ROW) {
        read_entry(s, &e);
        const int ea = arch_number(e.arch);
        int level = 3;
        if (q->device && *q->device && strcmp(q->device, e.device) == 0)
            level = 0;
        else if (qarch && *qarch && strcmp(qarch, e.arch) == 0)
            level = 1;
        else if (family_arch >= 0 && ea == family_arch)
            level = 2;
        if (level == 0 && qmem <= 0)
            qmem = e.memory_bytes;
        const double key[3] = {level == 3 && qa >= 0 && ea >= 0 ? abs(qa - ea) : 0,
                               memory_distance(qmem, e.memory_bytes), feature_distance(q, &e)};
        int better = level < best_level;
        for (int k = 0; k < 3 && !better && level == best_level; ++k) {
            if (key[k] < best_key[k] - 1e-12)
                better = 1;
            else if (key[k] > best_key[k] + 1e-12)
                break;
        }
        if (better) {
            best_level = level;
            memcpy(best_key, key, sizeof best_key);
            *out = e;
            found = 1;
        }
    }
    sqlite3_finalize(s);
    if (!found)
        return 1;
    char memory[96] = "";
    if (best_level > 0 && qmem > 0 && out->memory_bytes > 0)
        snprintf(memory, sizeof memory, ", nearest memory %.0f GB (asked %.0f GB)",
                 out->memory_bytes * 1e-9, qmem * 1e-9);
    switch (best_level) {
    case 0: snprintf(out->fallback, sizeof out->fallback, "device %s", out->device); break;
    case 1:
        snprintf(out->fallback, sizeof out->fallback, "architecture %s%s", out->arch, memory);
        break;
    case 2:
        snprintf(out->fallback, sizeof out->fallback, "architecture family %s (from %s)%s",
                 out->arch, qarch, memory);
        break;
    default:
        snprintf(out->fallback, sizeof out->fallback, "nearest architecture %s (asked %s)%s",
                 out->arch, qarch && *qarch ? qarch : "none", memory);
    }
    return 0;
}

int rt_tuning_each(sqlite3 *db, const char *kernel, int (*fn)(void *ctx, const rt_tuning_entry *e),
                   void *ctx, rt_err *err)
{
    sqlite3_stmt *s = NULL;
    if (prepare_entries(db, kernel, &s, err) != 0)
        return -1;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        rt_tuning_entry e;
        read_entry(s, &e);
        rc = fn(ctx, &e);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rt_err_set(err, "tuning table: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return rc;
}

int rt_tuning_params_split(sqlite3 *db, const char *params_json, rt_tuning_param *out, int cap,
                           int *n, rt_err *err)
{
    *n = 0;
    sqlite3_stmt *s = NULL;
    int object = 0;
    if (sqlite3_prepare_v2(db, "SELECT json_valid(?1) AND json_type(?1) = 'object'", -1, &s,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, params_json, -1, SQLITE_TRANSIENT);
        object = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == 1;
    }
    sqlite3_finalize(s);
    if (!object)
        return rt_err_set(err, "parameters '%.200s' are not a JSON object", params_json);
    if (sqlite3_prepare_v2(db,
                           "SELECT key, CAST(value AS TEXT), type FROM json_each(?1) ORDER BY key",
                           -1, &s, NULL) != SQLITE_OK)
        return rt_err_set(err, "reading parameters: %s", sqlite3_errmsg(db));
    sqlite3_bind_text(s, 1, params_json, -1, SQLITE_TRANSIENT);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(s, 2);
        if (*n >= cap)
            rc = rt_err_set(err, "parameters %s: more than %d", params_json, cap);
        else if (strcmp(type, "integer") != 0 && strcmp(type, "real") != 0 &&
                 strcmp(type, "text") != 0)
            rc = rt_err_set(err, "parameters %s: %s is a %s, not a number or a string", params_json,
                            sqlite3_column_text(s, 0), type);
        else {
            rt_tuning_param *p = &out[(*n)++];
            snprintf(p->name, sizeof p->name, "%s", sqlite3_column_text(s, 0));
            snprintf(p->value, sizeof p->value, "%s", sqlite3_column_text(s, 1));
            p->is_text = strcmp(type, "text") == 0;
        }
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rt_err_set(err, "parameters %s: not a JSON object (%s)", params_json,
                        sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return rc;
}

/* A double-quoted string that both a YAML reader and a C compiler read back as s: quotes and
 * backslashes escaped, control characters (never wanted in names) as spaces. */
static void quoted_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    }
    fputc('"', f);
}

int rt_tuning_export_yaml(sqlite3 *db, FILE *f, rt_err *err)
{
    sqlite3_stmt *s = NULL;
    if (prepare_entries(db, NULL, &s, err) != 0)
        return -1;
    fprintf(f, "# rooftune tuning database (generated by `rooftune best --export-yaml`)\n"
               "entries:\n");
    while (sqlite3_step(s) == SQLITE_ROW) {
        rt_tuning_entry e;
        read_entry(s, &e);
        fprintf(f, "  - kernel: ");
        quoted_string(f, e.kernel);
        fprintf(f, "\n    device: ");
        quoted_string(f, e.device);
        fprintf(f, "\n    arch: ");
        quoted_string(f, e.arch);
        if (e.memory_bytes > 0)
            fprintf(f, "\n    memory_gb: %.6g", e.memory_bytes * 1e-9);
        else
            fprintf(f, "\n    memory_gb: null");
        fprintf(f, "\n    input: {matrix: ");
        quoted_string(f, e.matrix);
        fprintf(f, ", rows: %.0f, nnz_per_row: %.2f, K: %g, problem: %s}\n", e.rows, e.nnz_per_row,
                e.k, sqlite3_column_text(s, 12));
        /* JSON is YAML: the params and provenance objects are written as they are stored. */
        fprintf(f, "    params: %s\n    time_s: %.9g\n    gflops: %.6g\n", e.params, e.time_s,
                e.gflops);
        fprintf(f, "    evidence_points: %d\n    provenance: %s\n", e.evidence_points,
                sqlite3_column_text(s, 13));
    }
    sqlite3_finalize(s);
    return ferror(f) ? rt_err_set(err, "cannot write the YAML export") : 0;
}

int rt_tuning_export_header(sqlite3 *db, FILE *f, rt_err *err)
{
    sqlite3_stmt *s = NULL;
    if (prepare_entries(db, NULL, &s, err) != 0)
        return -1;
    fprintf(f, "/* rooftune tuning database (generated by `rooftune best --export-header`; do not "
               "edit).\n * One entry per (kernel, device, architecture, input class): the best "
               "verified\n * configuration, its parameters as a JSON object. rooftune_tuned_find "
               "picks one\n * for a kernel on a device (docs/guides/tuning.md). */\n"
               "#ifndef ROOFTUNE_TUNED_H\n#define ROOFTUNE_TUNED_H\n\n#include <string.h>\n\n"
               "typedef struct rooftune_tuned {\n"
               "    const char *kernel;\n    const char *device;\n    const char *arch;\n"
               "    double memory_bytes; /* 0: unknown */\n"
               "    const char *matrix;\n    double rows, nnz_per_row, k;\n    const char "
               "*problem_json;\n"
               "    const char *params_json;\n    double time_s;\n} rooftune_tuned;\n\n"
               "static const rooftune_tuned rooftune_tuned_table[] = {\n");
    int n = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        rt_tuning_entry e;
        read_entry(s, &e);
        fprintf(f, "    {");
        quoted_string(f, e.kernel);
        fputs(", ", f);
        quoted_string(f, e.device);
        fputs(", ", f);
        quoted_string(f, e.arch);
        fprintf(f, ", %.0f, ", e.memory_bytes > 0 ? e.memory_bytes : 0);
        quoted_string(f, e.matrix);
        fprintf(f, ", %.0f, %.2f, %g,\n     ", e.rows, e.nnz_per_row, e.k);
        quoted_string(f, (const char *)sqlite3_column_text(s, 12));
        fputs(",\n     ", f);
        quoted_string(f, e.params);
        fprintf(f, ", %.9g},\n", e.time_s);
        n++;
    }
    sqlite3_finalize(s);
    if (n == 0)
        fprintf(f, "    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},\n");
    fprintf(
        f,
        "};\n\n#define ROOFTUNE_TUNED_COUNT %d\n\n"
        "/* The entry of kernel for a device: that device's (by name) if there is one, else its\n"
        " * architecture's (arch, e.g. \"sm_90\"; NULL: none); among several, the one whose K\n"
        " * is nearest k (k <= 0: the first). NULL when there is none. rooftune best applies\n"
        " * the full rule (memory size, the other input features). */\n"
        "static inline const rooftune_tuned *rooftune_tuned_find(const char *kernel,\n"
        "                                                        const char *device,\n"
        "                                                        const char *arch, double k)\n"
        "{\n"
        "    const rooftune_tuned *best = 0;\n"
        "    int best_level = 3;\n"
        "    double best_ratio = 0;\n"
        "    for (int i = 0; i < ROOFTUNE_TUNED_COUNT; ++i) {\n"
        "        const rooftune_tuned *t = &rooftune_tuned_table[i];\n"
        "        if (strcmp(t->kernel, kernel) != 0)\n"
        "            continue;\n"
        "        const int level = device && strcmp(t->device, device) == 0 ? 1\n"
        "                          : arch && strcmp(t->arch, arch) == 0      ? 2\n"
        "                                                                    : 3;\n"
        "        const double ratio =\n"
        "            k > 0 && t->k > 0 ? (k > t->k ? k / t->k : t->k / k) : 1.0;\n"
        "        if (level < best_level || (level == best_level && level < 3 && ratio < "
        "best_ratio)) {\n"
        "            best = t;\n"
        "            best_level = level;\n"
        "            best_ratio = ratio;\n"
        "        }\n"
        "    }\n"
        "    return best;\n"
        "}\n\n#endif\n",
        n);
    return ferror(f) ? rt_err_set(err, "cannot write the C header") : 0;
}
