#include "rt_store_tuning.h"

#include <math.h>
#include <sqlite3.h>
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
    "  , r.backend"
    " FROM ranked r JOIN runs u ON u.id = r.run_id"
    " JOIN matrices m ON m.run_id = r.run_id AND m.name = r.matrix"
    " WHERE r.rk = 1 ORDER BY r.kernel, r.device, r.matrix, r.problem";

static const char k_upsert_sql[] =
    "INSERT INTO tuning (kernel, device, arch, input_class, matrix, problem, rows, nnz_per_row,"
    " k, params, time_s, gflops, evidence, provenance)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
    " ON CONFLICT (kernel, device, arch, input_class) DO UPDATE SET"
    "  matrix = excluded.matrix, problem = excluded.problem, params = excluded.params,"
    "  time_s = excluded.time_s, gflops = excluded.gflops, evidence = excluded.evidence,"
    "  provenance = excluded.provenance, recorded_at = excluded.recorded_at"
    " WHERE excluded.time_s < tuning.time_s";

int rt_tuning_ensure(sqlite3 *db, rt_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db, k_schema, NULL, NULL, &msg) != SQLITE_OK) {
        const int rc = rt_err_set(err, "cannot create the tuning table: %s", msg ? msg : "?");
        sqlite3_free(msg);
        return rc;
    }
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
        if (sqlite3_step(up) != SQLITE_DONE)
            rc = rt_err_set(err, "tuning table: %s", sqlite3_errmsg(dst));
        else
            *recorded += sqlite3_changes(dst) > 0;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rt_err_set(err, "%s: reading its points: %s", source_path, sqlite3_errmsg(src));
    if (rc == 0 && sqlite3_exec(dst, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = rt_err_set(err, "tuning table: committing: %s", sqlite3_errmsg(dst));
    if (rc != 0)
        sqlite3_exec(dst, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_finalize(q);
    sqlite3_finalize(up);
    return rc;
}

static const char k_entries_sql[] =
    "SELECT id, kernel, device, arch, matrix, rows, nnz_per_row, k, params, time_s,"
    " COALESCE(gflops, 0), json_array_length(evidence), problem, provenance, input_class"
    " FROM tuning WHERE (?1 IS NULL OR kernel = ?1) ORDER BY kernel, arch, device, input_class";

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
    if (rt_tuning_check(db, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db, k_entries_sql, -1, &s, NULL) != SQLITE_OK)
        return rt_err_set(err, "tuning table: %s", sqlite3_errmsg(db));
    sqlite3_bind_text(s, 1, q->kernel, -1, SQLITE_TRANSIENT);
    const char *qarch = q->arch && *q->arch ? q->arch : rt_tuning_arch_of(q->device);
    const int qa = arch_number(qarch);
    /* The family of sm_XY is the nearest lower sm_W0 (W < X): sm_90 and sm_89 -> sm_80. */
    const int family_arch = qa >= 0 ? ((qa % 10 == 0 ? qa - 10 : qa - qa % 10)) : -1;
    /* Levels: 0 device, 1 architecture, 2 family, 3 any. Best = lowest level, then distance. */
    int best_level = 99;
    double best_dist = INFINITY;
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
        const double dist =
            feature_distance(q, &e) + (level == 3 && qa >= 0 && ea >= 0 ? 1e-3 * abs(qa - ea) : 0);
        if (level < best_level || (level == best_level && dist < best_dist)) {
            best_level = level;
            best_dist = dist;
            *out = e;
            found = 1;
        }
    }
    sqlite3_finalize(s);
    if (!found)
        return 1;
    switch (best_level) {
    case 0: snprintf(out->fallback, sizeof out->fallback, "device %s", out->device); break;
    case 1: snprintf(out->fallback, sizeof out->fallback, "architecture %s", out->arch); break;
    case 2:
        snprintf(out->fallback, sizeof out->fallback, "architecture family %s (from %s)", out->arch,
                 qarch);
        break;
    default:
        snprintf(out->fallback, sizeof out->fallback, "nearest architecture %s (asked %s)",
                 out->arch, qarch && *qarch ? qarch : "none");
    }
    return 0;
}

static void yaml_string(FILE *f, const char *s)
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
    if (rt_tuning_check(db, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db, k_entries_sql, -1, &s, NULL) != SQLITE_OK)
        return rt_err_set(err, "tuning table: %s", sqlite3_errmsg(db));
    sqlite3_bind_null(s, 1);
    fprintf(f, "# rooftune tuning database (generated by `rooftune best --export-yaml`)\n"
               "entries:\n");
    while (sqlite3_step(s) == SQLITE_ROW) {
        rt_tuning_entry e;
        read_entry(s, &e);
        fprintf(f, "  - kernel: ");
        yaml_string(f, e.kernel);
        fprintf(f, "\n    device: ");
        yaml_string(f, e.device);
        fprintf(f, "\n    arch: %s\n    input: {matrix: ", e.arch);
        yaml_string(f, e.matrix);
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

static void c_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    }
    fputc('"', f);
}

int rt_tuning_export_header(sqlite3 *db, FILE *f, rt_err *err)
{
    sqlite3_stmt *s = NULL;
    if (rt_tuning_check(db, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db, k_entries_sql, -1, &s, NULL) != SQLITE_OK)
        return rt_err_set(err, "tuning table: %s", sqlite3_errmsg(db));
    sqlite3_bind_null(s, 1);
    fprintf(
        f,
        "/* rooftune tuning database (generated by `rooftune best --export-header`; do not "
        "edit).\n * One entry per (kernel, device, architecture, input class): the best "
        "verified\n * configuration, its parameters as a JSON object. */\n"
        "#ifndef ROOFTUNE_TUNED_H\n#define ROOFTUNE_TUNED_H\n\n"
        "typedef struct rooftune_tuned {\n"
        "    const char *kernel;\n    const char *device;\n    const char *arch;\n"
        "    const char *matrix;\n    double rows, nnz_per_row, k;\n    const char *problem_json;\n"
        "    const char *params_json;\n    double time_s;\n} rooftune_tuned;\n\n"
        "static const rooftune_tuned rooftune_tuned_table[] = {\n");
    int n = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        rt_tuning_entry e;
        read_entry(s, &e);
        fprintf(f, "    {");
        c_string(f, e.kernel);
        fputs(", ", f);
        c_string(f, e.device);
        fputs(", ", f);
        c_string(f, e.arch);
        fputs(", ", f);
        c_string(f, e.matrix);
        fprintf(f, ", %.0f, %.2f, %g,\n     ", e.rows, e.nnz_per_row, e.k);
        c_string(f, (const char *)sqlite3_column_text(s, 12));
        fputs(",\n     ", f);
        c_string(f, e.params);
        fprintf(f, ", %.9g},\n", e.time_s);
        n++;
    }
    sqlite3_finalize(s);
    if (n == 0)
        fprintf(f, "    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0},\n");
    fprintf(f, "};\n\n#define ROOFTUNE_TUNED_COUNT %d\n\n#endif\n", n);
    return ferror(f) ? rt_err_set(err, "cannot write the C header") : 0;
}
