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
    RT_CHECK(strcmp(e.fallback, "architecture sm_90") == 0);
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
    RT_CHECK(rt_test_contains(text, "arch: sm_80") && rt_test_contains(text, "abc123"));
    free(text);
    f = open_memstream(&text, &len);
    RT_CHECK(rt_tuning_export_header(dst, f, &err) == 0);
    fclose(f);
    RT_CHECK(rt_test_contains(text, "#define ROOFTUNE_TUNED_COUNT 4"));
    RT_CHECK(rt_test_contains(text, "{\\\"tile\\\":4}"));
    free(text);
    sqlite3_close(src);
    sqlite3_close(dst);
    return RT_TEST_RESULT();
}
