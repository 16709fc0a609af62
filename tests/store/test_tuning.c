/* rt_store_tuning: the tuning database. Harvest keeps the fastest verified point of each sweep
 * (a faster wrong point never counts), an entry is replaced only by a faster one, lookup answers
 * by device, then architecture, then family (sm_90 -> sm_80), then nearest architecture, and
 * says which; the nearest input wins within a level; YAML and the C header carry every entry. */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_store_tuning.h"
#include "rt_test.h"

/* The columns of the store's tables that the tuning harvest reads. */
static const char k_mini_store[] =
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, git_revision TEXT, git_dirty INTEGER,"
    " config_path TEXT);"
    "CREATE TABLE matrices (run_id INTEGER, name TEXT, rows INTEGER, nnz INTEGER);"
    "CREATE TABLE points (id INTEGER PRIMARY KEY, run_id INTEGER, experiment TEXT, kernel TEXT,"
    " backend TEXT DEFAULT 'cuda',"
    " device TEXT, matrix TEXT, problem TEXT, params TEXT, status TEXT, verified INTEGER,"
    " time_median_s REAL, gflops REAL, measured_at TEXT);"
    "CREATE TABLE metrics (point_id INTEGER, name TEXT, available INTEGER, value REAL);"
    "INSERT INTO runs VALUES (1, 'abc123', 0, 'configs/tune/x.yaml');"
    "INSERT INTO matrices VALUES (1, 'small', 1000, 16000), (1, 'big', 1000000, 8000000);";

static sqlite3 *mem_db(const char *sql)
{
    sqlite3 *db = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        return NULL;
    if (sql && sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

static void add_point(sqlite3 *db, const char *device, const char *matrix, int k, int tile,
                      const char *status, double t)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "INSERT INTO points (run_id, experiment, kernel, device, matrix, problem, params,"
             " status, verified, time_median_s, gflops, measured_at) VALUES (1, 'x', 'spmm.t',"
             " '%s', '%s', '{\"K\":%d}', '{\"tile\":%d}', '%s', %d, %g, 1.0, 'now')",
             device, matrix, k, tile, status, strcmp(status, "ok") == 0, t);
    sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/* A point's device memory as the run recorded it (the metric). */
static void add_memory(sqlite3 *db, const char *device, double bytes)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT INTO metrics SELECT id, 'device_memory_bytes', 1, %.0f FROM points WHERE "
             "device = '%s'",
             bytes, device);
    sqlite3_exec(db, sql, NULL, NULL, NULL);
}

static void expect_device(sqlite3 *db, rt_tuning_query q, const char *device, const char *why)
{
    rt_tuning_entry e;
    rt_err err;
    const int rc = rt_tuning_lookup(db, &q, &e, &err);
    RT_CHECK_MSG(rc == 0 && strcmp(e.device, device) == 0 && rt_test_contains(e.fallback, why),
                 "query %s/%s/%g GB: rc %d, got %s (%s), want %s (%s)", q.device ? q.device : "-",
                 q.arch ? q.arch : "-", q.memory_bytes * 1e-9, rc, rc == 0 ? e.device : "-",
                 rc == 0 ? e.fallback : err.msg, device, why);
}

/* The tuning of one kernel on H100 (80 GB, two inputs), H100 NVL (94 GB), H200 (its memory as
 * the run recorded it) and A100 (80 GB): a device answers for itself; another device of the same
 * architecture gets the entry of the nearest memory size, a device of a newer generation its
 * family's nearest memory, an older one's family the A100. */
static void test_generations(void)
{
    sqlite3 *src = mem_db(k_mini_store), *dst = mem_db(NULL);
    RT_CHECK(src && dst);
    if (!src || !dst)
        return;
    add_point(src, "NVIDIA H100 80GB HBM3", "small", 32, 8, "ok", 2.0);
    add_point(src, "NVIDIA H100 80GB HBM3", "big", 128, 16, "ok", 4.0);
    add_point(src, "NVIDIA H100 NVL", "big", 128, 12, "ok", 3.8);
    add_point(src, "NVIDIA H200", "big", 128, 24, "ok", 3.0);
    add_point(src, "NVIDIA A100-SXM4-80GB", "big", 128, 4, "ok", 7.0);
    add_memory(src, "NVIDIA H200", 150754820096.0); /* what cudaGetDeviceProperties says */
    rt_err err;
    int recorded = 0;
    RT_CHECK(rt_tuning_harvest(src, dst, "gen.db", NULL, &recorded, &err) == 0 && recorded == 5);
    double mem = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(dst, "SELECT memory_bytes FROM tuning WHERE device = 'NVIDIA H200'", -1,
                           &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        mem = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    RT_CHECK_MSG(mem == 150754820096.0, "H200 memory %.0f: the run's metric wins over the name",
                 mem);
    const rt_tuning_query base = {.kernel = "spmm.t", .k = 128};
    rt_tuning_query q = base;
    q.device = "NVIDIA H200";
    expect_device(dst, q, "NVIDIA H200", "device NVIDIA H200");
    q.device = "NVIDIA H100 80GB HBM3";
    expect_device(dst, q, "NVIDIA H100 80GB HBM3", "device");
    /* Not in the table, sm_90, 96 GB by its name: the NVL (94) is nearest. */
    q.device = "NVIDIA GH200 96GB HBM3";
    expect_device(dst, q, "NVIDIA H100 NVL", "architecture sm_90, nearest memory 94 GB (asked 96");
    /* An architecture and a memory size given: 141 GB is the H200, 80 GB the H100. */
    q = base;
    q.arch = "sm_90";
    q.memory_bytes = 141e9;
    expect_device(dst, q, "NVIDIA H200", "architecture sm_90, nearest memory 151 GB");
    q.memory_bytes = 80e9;
    expect_device(dst, q, "NVIDIA H100 80GB HBM3", "nearest memory 80 GB");
    /* No memory known: the input decides among the sm_90 entries (K=128: not the K=32 one). */
    q.memory_bytes = 0;
    rt_tuning_entry e;
    RT_CHECK(rt_tuning_lookup(dst, &q, &e, &err) == 0 && e.k == 128 &&
             !rt_test_contains(e.fallback, "memory"));
    /* A newer generation (sm_100, 180 GB by its name): the sm_90 family, nearest memory H200. */
    q = base;
    q.device = "NVIDIA B200";
    expect_device(dst, q, "NVIDIA H200", "architecture family sm_90 (from sm_100), nearest memory");
    /* An L40 (sm_89): the sm_80 family, the A100. */
    q.device = "NVIDIA L40";
    expect_device(dst, q, "NVIDIA A100-SXM4-80GB", "architecture family sm_80 (from sm_89)");
    RT_CHECK(rt_tuning_memory_of("NVIDIA A100-SXM4-40GB") == 40e9);
    RT_CHECK(rt_tuning_memory_of("NVIDIA H100 NVL") == 94e9);
    RT_CHECK(rt_tuning_memory_of("Mystery GPU") == 0 && rt_tuning_memory_of(NULL) == 0);
    sqlite3_close(src);
    sqlite3_close(dst);
}

/* The tuning table as the first version recorded it (today's without memory_bytes), with an
 * H100 and an H200 entry. */
static const char k_tuning_v1_rows[] =
    "ALTER TABLE tuning DROP COLUMN memory_bytes;"
    "INSERT INTO tuning (kernel, device, arch, input_class, matrix, problem, rows, nnz_per_row, k,"
    " params, time_s, gflops, evidence, provenance) VALUES"
    " ('spmm.t', 'NVIDIA H100 80GB HBM3', 'sm_90', 'big K=128', 'big', '{\"K\":128}', 1000000, 8,"
    "  128, '{\"tile\":16}', 4.0, 1.0, '[]', '{}'),"
    " ('spmm.t', 'NVIDIA H200', 'sm_90', 'big K=128', 'big', '{\"K\":128}', 1000000, 8, 128,"
    "  '{\"tile\":24}', 3.0, 1.0, '[]', '{}');";

static int has_column(sqlite3 *db, const char *column)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT 1 FROM pragma_table_info('tuning') WHERE name = '%s'",
             column);
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK)
        found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* The H100's and the H200's memory as an entry reads them. */
static int memory_of_entry(void *ctx, const rt_tuning_entry *e)
{
    double *m = ctx;
    m[strcmp(e->device, "NVIDIA H200") == 0] = e->memory_bytes;
    return 0;
}

/* A table recorded before memory_bytes is read as it is (the memory from the device names) and,
 * when a harvest writes to it, migrated: the column added, each old entry's memory from its
 * device's name, nothing lost, new entries recorded with theirs. */
static void test_migration(void)
{
    sqlite3 *old = mem_db(NULL), *src = mem_db(k_mini_store);
    rt_err err;
    RT_CHECK(old && src && rt_tuning_ensure(old, &err) == 0);
    if (!old || !src)
        return;
    char *msg = NULL;
    RT_CHECK_MSG(sqlite3_exec(old, k_tuning_v1_rows, NULL, NULL, &msg) == SQLITE_OK, "%s",
                 msg ? msg : "");
    sqlite3_free(msg);
    /* Read as it is: the memory from the names, and the table left unchanged. */
    RT_CHECK(!has_column(old, "memory_bytes"));
    double names[2] = {0, 0};
    RT_CHECK(rt_tuning_each(old, "spmm.t", memory_of_entry, names, &err) == 0);
    RT_CHECK_MSG(names[0] == 80e9 && names[1] == 141e9, "read: H100 %.0f, H200 %.0f", names[0],
                 names[1]);
    RT_CHECK(!has_column(old, "memory_bytes"));
    rt_tuning_query q = {.kernel = "spmm.t", .arch = "sm_90", .memory_bytes = 141e9};
    expect_device(old, q, "NVIDIA H200", "nearest memory 141 GB");
    q.memory_bytes = 80e9;
    expect_device(old, q, "NVIDIA H100 80GB HBM3", "nearest memory 80 GB");
    add_point(src, "NVIDIA H100 NVL", "big", 128, 12, "ok", 3.5);
    add_memory(src, "NVIDIA H100 NVL", 100e9);
    int recorded = 0;
    RT_CHECK_MSG(rt_tuning_harvest(src, old, "new.db", NULL, &recorded, &err) == 0, "%s", err.msg);
    RT_CHECK(recorded == 1);
    sqlite3_stmt *st = NULL;
    int rows = 0, known = 0;
    double h100 = 0, h200 = 0, nvl = 0;
    if (sqlite3_prepare_v2(old, "SELECT device, memory_bytes FROM tuning", -1, &st, NULL) ==
        SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *d = (const char *)sqlite3_column_text(st, 0);
            const double m = sqlite3_column_double(st, 1);
            ++rows;
            known += sqlite3_column_type(st, 1) != SQLITE_NULL;
            h100 = strcmp(d, "NVIDIA H100 80GB HBM3") == 0 ? m : h100;
            h200 = strcmp(d, "NVIDIA H200") == 0 ? m : h200;
            nvl = strcmp(d, "NVIDIA H100 NVL") == 0 ? m : nvl;
        }
    sqlite3_finalize(st);
    RT_CHECK_MSG(rows == 3 && known == 3 && h100 == 80e9 && h200 == 141e9 && nvl == 100e9,
                 "migrated: %d rows, %d with memory, H100 %.0f, H200 %.0f, NVL %.0f", rows, known,
                 h100, h200, nvl);
    q.memory_bytes = 101e9;
    expect_device(old, q, "NVIDIA H100 NVL", "nearest memory 100 GB");
    /* Migrating twice changes nothing. */
    RT_CHECK(rt_tuning_ensure(old, &err) == 0);
    sqlite3_close(old);
    sqlite3_close(src);
}

int main(void)
{
    sqlite3 *src = mem_db(k_mini_store), *dst = mem_db(NULL);
    RT_CHECK(src && dst);
    if (!src || !dst)
        return 1;
    add_point(src, "NVIDIA H100 80GB HBM3", "small", 32, 8, "ok", 3.0);
    add_point(src, "NVIDIA H100 80GB HBM3", "small", 32, 16, "ok", 2.0);
    add_point(src, "NVIDIA H100 80GB HBM3", "small", 32, 32, "wrong", 1.0); /* fast but wrong */
    add_point(src, "NVIDIA H100 80GB HBM3", "big", 128, 8, "ok", 5.0);
    add_point(src, "NVIDIA A100-SXM4-40GB", "big", 128, 4, "ok", 9.0);
    add_point(src, "Mystery GPU", "big", 128, 4, "ok", 9.0);
    rt_err err;
    int recorded = 0;
    /* an unknown device's architecture must be given */
    RT_CHECK(rt_tuning_harvest(src, dst, "src.db", NULL, &recorded, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "Mystery GPU"));
    sqlite3_exec(src, "DELETE FROM points WHERE device = 'Mystery GPU'", NULL, NULL, NULL);
    RT_CHECK(rt_tuning_harvest(src, dst, "src.db", NULL, &recorded, &err) == 0);
    RT_CHECK(recorded == 3);

    rt_tuning_entry e;
    rt_tuning_query q = {.kernel = "spmm.t", .device = "NVIDIA H100 80GB HBM3", .k = 32};
    RT_CHECK(rt_tuning_lookup(dst, &q, &e, &err) == 0);
    RT_CHECK(strcmp(e.params, "{\"tile\":16}") == 0 && e.time_s == 2.0);
    RT_CHECK(e.evidence_points == 2 && rt_test_contains(e.fallback, "device"));
    q.k = 100; /* nearest input: the K=128 entry */
    RT_CHECK(rt_tuning_lookup(dst, &q, &e, &err) == 0 && strcmp(e.params, "{\"tile\":8}") == 0);

    rt_tuning_query h200 = {.kernel = "spmm.t", .device = "NVIDIA H200", .k = 128};
    RT_CHECK(rt_tuning_lookup(dst, &h200, &e, &err) == 0);
    RT_CHECK_MSG(strcmp(e.fallback, "architecture sm_90, nearest memory 80 GB (asked 141 GB)") == 0,
                 "%s", e.fallback);
    RT_CHECK(strcmp(e.device, "NVIDIA H100 80GB HBM3") == 0);

    /* Only an A100 entry for an sm_90 query with no H100 entries: the family answers. */
    sqlite3_exec(dst, "DELETE FROM tuning WHERE arch = 'sm_90'", NULL, NULL, NULL);
    rt_tuning_query sm90 = {.kernel = "spmm.t", .arch = "sm_90"};
    RT_CHECK(rt_tuning_lookup(dst, &sm90, &e, &err) == 0);
    RT_CHECK_MSG(strcmp(e.fallback, "architecture family sm_80 (from sm_90)") == 0, "%s",
                 e.fallback);
    rt_tuning_query sm75 = {.kernel = "spmm.t", .arch = "sm_75"};
    RT_CHECK(rt_tuning_lookup(dst, &sm75, &e, &err) == 0);
    RT_CHECK(rt_test_contains(e.fallback, "nearest architecture sm_80"));
    /* A CPU sweep is keyed under the architecture "cpu", whatever the CPU's name. */
    sqlite3_exec(src,
                 "INSERT INTO points (run_id, experiment, kernel, backend, device, matrix, problem,"
                 " params, status, verified, time_median_s, gflops, measured_at) VALUES (1, 'x',"
                 " 'spmm.c', 'cpu', 'Some CPU', 'small', '{}', '{\"b\":1}', 'ok', 1, 4, 1, 'now')",
                 NULL, NULL, NULL);
    RT_CHECK(rt_tuning_harvest(src, dst, "src.db", NULL, &recorded, &err) == 0);
    rt_tuning_query cpu = {.kernel = "spmm.c", .arch = "cpu"};
    RT_CHECK(rt_tuning_lookup(dst, &cpu, &e, &err) == 0 && strcmp(e.arch, "cpu") == 0);
    RT_CHECK(strcmp(e.fallback, "architecture cpu") == 0);
    rt_tuning_query none = {.kernel = "other"};
    RT_CHECK(rt_tuning_lookup(dst, &none, &e, &err) == 1);

    /* Re-harvest: a slower result never replaces an entry, a faster one does. */
    rt_tuning_query a100 = {.kernel = "spmm.t", .device = "NVIDIA A100-SXM4-40GB"};
    sqlite3_exec(src, "UPDATE points SET time_median_s = 20 WHERE device LIKE '%A100%'", NULL, NULL,
                 NULL);
    RT_CHECK(rt_tuning_harvest(src, dst, "src.db", NULL, &recorded, &err) == 0);
    RT_CHECK(rt_tuning_lookup(dst, &a100, &e, &err) == 0 && e.time_s == 9.0);
    sqlite3_exec(src, "UPDATE points SET time_median_s = 7 WHERE device LIKE '%A100%'", NULL, NULL,
                 NULL);
    RT_CHECK(rt_tuning_harvest(src, dst, "src.db", NULL, &recorded, &err) == 0);
    RT_CHECK(rt_tuning_lookup(dst, &a100, &e, &err) == 0 && e.time_s == 7.0);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    RT_CHECK(rt_tuning_export_yaml(dst, f, &err) == 0);
    fclose(f);
    RT_CHECK(rt_test_contains(text, "arch: \"sm_80\"") && rt_test_contains(text, "abc123"));
    RT_CHECK(rt_test_contains(text, "memory_gb: 40"));
    free(text);
    f = open_memstream(&text, &len);
    RT_CHECK(rt_tuning_export_header(dst, f, &err) == 0);
    fclose(f);
    RT_CHECK(rt_test_contains(text, "#define ROOFTUNE_TUNED_COUNT 4"));
    RT_CHECK(rt_test_contains(text, "{\\\"tile\\\":4}"));
    free(text);
    sqlite3_close(src);
    sqlite3_close(dst);
    test_generations();
    test_migration();
    return RT_TEST_RESULT();
}
