/* Store tests: schema, refusal of foreign files, round trip, resume, rollback, concurrency.
 * Usage: test_store <case>; each case works in its own scratch directory. */
#include "store_test_util.h"

#include <time.h>

#include "rt_build_info.h"
#include "rt_clock.h"
#include "rt_export.h"

static const double samples5[5] = {0.0021, 0.0019, 0.0020, 0.0022, 0.0018};

static int open_store(const scratch *s, const char *name, rt_store **st, rt_err *err)
{
    char path[1024];
    scratch_path(s, name, path, sizeof path);
    return rt_store_open(path, st, err);
}

/* r.db opened, a failure to open it counted; NULL then. */
static rt_store *open_r(const scratch *s, rt_err *err)
{
    rt_store *st = NULL;
    RT_CHECK_MSG(open_store(s, "r.db", &st, err) == 0, "%s", err->msg);
    return st;
}

/* The details of EXPLAIN QUERY PLAN, joined. */
static const char *query_plan(sqlite3 *db, const char *sql, char *out, size_t cap)
{
    char explain[512];
    snprintf(explain, sizeof explain, "EXPLAIN QUERY PLAN %s", sql);
    out[0] = '\0';
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, explain, -1, &s, NULL) == SQLITE_OK)
        while (sqlite3_step(s) == SQLITE_ROW) {
            const size_t used = strlen(out);
            snprintf(out + used, cap - used, "%s | ", (const char *)sqlite3_column_text(s, 3));
        }
    sqlite3_finalize(s);
    return out;
}

/* ------------------------------------------------------------------------------------------ */
static void case_schema(const scratch *s)
{
    rt_err err = {{0}};
    rt_store *st = open_r(s, &err);
    if (!st)
        return;
    sqlite3 *db = rt_store_db(st);
    char txt[256];
    RT_CHECK_MSG(strcmp(sql_text(db, "PRAGMA journal_mode", txt, sizeof txt), "wal") == 0, "%s",
                 txt);
    RT_CHECK(sql_int(db, "PRAGMA user_version") == RT_STORE_SCHEMA_VERSION);
    RT_CHECK(sql_int(db, "PRAGMA foreign_keys") == 1);
    RT_CHECK(sql_int(db, "PRAGMA application_id") != 0);
    static const char *const tables[] = {"runs", "points", "metrics", "samples", "matrices"};
    for (int k = 0; k < 5; ++k) {
        char q[256];
        snprintf(q, sizeof q, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='%s'",
                 tables[k]);
        RT_CHECK_MSG(sql_int(db, q) == 1, "table %s", tables[k]);
    }
    /* The lookups that must stay fast on big stores use these indexes. */
    RT_CHECK(
        sql_int(db,
                "SELECT count(*) FROM pragma_index_list('points') l, pragma_index_info(l.name) i"
                " WHERE i.seqno = 0 AND i.name = 'point_key'") == 1);
    RT_CHECK(
        sql_int(db,
                "SELECT count(*) FROM pragma_index_list('points') l, pragma_index_info(l.name) i"
                " WHERE i.seqno = 0 AND i.name = 'run_id'") == 1);
    RT_CHECK(
        sql_int(db,
                "SELECT count(*) FROM pragma_index_list('samples') l, pragma_index_info(l.name) i"
                " WHERE i.seqno = 0 AND i.name = 'point_id'") == 1);
    RT_CHECK(sql_int(db, "SELECT count(*) FROM pragma_table_info('samples') WHERE name IN"
                         " ('seconds','rank_min_s','rank_avg_s','rep','point_id')") == 5);
    /* The query planner really uses the key index for the resume lookup. */
    RT_CHECK_MSG(rt_test_contains(
                     query_plan(db, "SELECT 1 FROM points WHERE point_key = 'x'", txt, sizeof txt),
                     "points_by_key"),
                 "%s", txt);
    rt_store_close(st);

    /* Reopening an existing store keeps it and its mode. */
    st = NULL;
    RT_CHECK_MSG(open_store(s, "r.db", &st, &err) == 0, "%s", err.msg);
    if (st)
        RT_CHECK(sql_int(rt_store_db(st), "PRAGMA user_version") == RT_STORE_SCHEMA_VERSION);
    rt_store_close(st);
    rt_store_close(NULL); /* harmless */

    /* An in-memory store (dry runs, other modules' tests) works without WAL. */
    st = NULL;
    RT_CHECK_MSG(rt_store_open(":memory:", &st, &err) == 0, "%s", err.msg);
    if (st)
        RT_CHECK(sql_int(rt_store_db(st), "PRAGMA user_version") == RT_STORE_SCHEMA_VERSION);
    rt_store_close(st);

    /* An empty file (what `touch` makes) is an empty database and becomes a store. */
    char path[1024];
    scratch_path(s, "touched.db", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
    st = NULL;
    RT_CHECK_MSG(rt_store_open(path, &st, &err) == 0, "%s", err.msg);
    rt_store_close(st);
}

/* ------------------------------------------------------------------------------------------ */
static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

static void case_refuse(const scratch *s)
{
    rt_err err = {{0}};
    rt_store *st = NULL;
    char path[1024];

    /* Text that is not a database. */
    scratch_path(s, "notes.txt", path, sizeof path);
    char text[8192];
    for (size_t k = 0; k < sizeof text; ++k)
        text[k] = (char)('a' + (k * 7) % 26);
    write_file(path, text, sizeof text);
    RT_CHECK(rt_store_open(path, &st, &err) == -1 && st == NULL);
    RT_CHECK_MSG(rt_test_contains(err.msg, path) && rt_test_contains(err.msg, "not a SQLite"), "%s",
                 err.msg);
    /* Refusing it must not have touched it. */
    FILE *f = fopen(path, "rb");
    char back[8192] = {0};
    size_t got = f ? fread(back, 1, sizeof back, f) : 0;
    if (f)
        fclose(f);
    RT_CHECK(got == sizeof text && memcmp(back, text, sizeof text) == 0);

    /* Binary garbage that starts like a SQLite header but is not one. */
    unsigned char junk[4096];
    memcpy(junk, "SQLite format 3", 16);
    for (size_t k = 16; k < sizeof junk; ++k)
        junk[k] = (unsigned char)(k * 131u + 17u);
    scratch_path(s, "junk.db", path, sizeof path);
    write_file(path, junk, sizeof junk);
    err.msg[0] = '\0';
    RT_CHECK(rt_store_open(path, &st, &err) == -1 && st == NULL);
    RT_CHECK_MSG(rt_test_contains(err.msg, path), "%s", err.msg);

    /* A SQLite database that belongs to something else: refused, and left in its journal mode. */
    scratch_path(s, "other.db", path, sizeof path);
    sqlite3 *other = NULL;
    sqlite3_open(path, &other);
    RT_CHECK(sql_exec(other, "CREATE TABLE accounts (id INTEGER, owner TEXT)") == 0);
    sqlite3_close(other);
    err.msg[0] = '\0';
    RT_CHECK(rt_store_open(path, &st, &err) == -1 && st == NULL);
    RT_CHECK_MSG(rt_test_contains(err.msg, path) && rt_test_contains(err.msg, "not a rooftune"),
                 "%s", err.msg);
    other = NULL;
    sqlite3_open(path, &other);
    char txt[64];
    RT_CHECK(strcmp(sql_text(other, "PRAGMA journal_mode", txt, sizeof txt), "delete") == 0);
    sqlite3_close(other);

    /* A store written by a newer rooftune. */
    scratch_path(s, "newer.db", path, sizeof path);
    RT_CHECK_MSG(rt_store_open(path, &st, &err) == 0, "%s", err.msg);
    char bump[64];
    snprintf(bump, sizeof bump, "PRAGMA user_version = %d", RT_STORE_SCHEMA_VERSION + 1);
    RT_CHECK(st && sql_exec(rt_store_db(st), bump) == 0);
    rt_store_close(st);
    st = NULL;
    err.msg[0] = '\0';
    RT_CHECK(rt_store_open(path, &st, &err) == -1 && st == NULL);
    RT_CHECK_MSG(rt_test_contains(err.msg, path) && rt_test_contains(err.msg, "newer"), "%s",
                 err.msg);

    /* A store whose version was damaged to zero. */
    scratch_path(s, "zero.db", path, sizeof path);
    RT_CHECK_MSG(rt_store_open(path, &st, &err) == 0, "%s", err.msg);
    RT_CHECK(st && sql_exec(rt_store_db(st), "PRAGMA user_version = 0") == 0);
    rt_store_close(st);
    st = NULL;
    RT_CHECK(rt_store_open(path, &st, &err) == -1 && rt_test_contains(err.msg, path));

    /* A directory that does not exist, a directory in place of a file, missing arguments. */
    snprintf(path, sizeof path, "%s/no/such/dir/r.db", s->dir);
    err.msg[0] = '\0';
    RT_CHECK(rt_store_open(path, &st, &err) == -1 && st == NULL);
    RT_CHECK_MSG(rt_test_contains(err.msg, path), "%s", err.msg);
    err.msg[0] = '\0';
    RT_CHECK(rt_store_open(s->dir, &st, &err) == -1 && rt_test_contains(err.msg, s->dir));
    RT_CHECK(rt_store_open(NULL, &st, &err) == -1 && err.msg[0]);
    RT_CHECK(rt_store_open("", &st, &err) == -1);
    RT_CHECK(rt_store_open(path, NULL, &err) == -1);
    RT_CHECK(rt_store_open(path, NULL, NULL) == -1); /* err may be NULL */
}

/* ------------------------------------------------------------------------------------------ */
static int is_iso8601_utc(const char *t)
{
    /* YYYY-MM-DDTHH:MM:SSZ */
    if (strlen(t) != 20)
        return 0;
    for (int k = 0; k < 20; ++k) {
        const char want = "dddd-dd-ddTdd:dd:ddZ"[k];
        if (want == 'd' ? !(t[k] >= '0' && t[k] <= '9') : t[k] != want)
            return 0;
    }
    return 1;
}

static void case_roundtrip(const scratch *s)
{
    rt_err err = {{0}};
    rt_store *st = open_r(s, &err);
    if (!st)
        return;
    sqlite3 *db = rt_store_db(st);
    char txt[4096], want[256];

    rt_provenance prov;
    test_provenance(&prov, NULL, "0123456789abcdef");
    snprintf(want, sizeof want, "%s%s/%s", RT_GIT_REVISION, RT_GIT_DIRTY ? "+dirty" : "",
             RT_COMPILER_ID);
    RT_CHECK_MSG(strcmp(prov.build_id, want) == 0, "%s vs %s", prov.build_id, want);
    RT_CHECK(prov.host[0] != '\0');
    snprintf(prov.topology, sizeof prov.topology, "2 ranks: 1 node x 2 ranks/node");
    prov.nranks = 2;

    int64_t run = 0;
    RT_CHECK_MSG(rt_store_begin_run(st, &prov, "quickstart", &run, &err) == 0, "%s", err.msg);
    RT_CHECK(run > 0);
    char q[512];
    snprintf(q, sizeof q, "SELECT status FROM runs WHERE id = %lld", (long long)run);
    RT_CHECK(strcmp(sql_text(db, q, txt, sizeof txt), "running") == 0);
    snprintf(q, sizeof q, "SELECT started_at FROM runs WHERE id = %lld", (long long)run);
    RT_CHECK_MSG(is_iso8601_utc(sql_text(db, q, txt, sizeof txt)), "%s", txt);
    snprintf(q, sizeof q, "SELECT ended_at IS NULL FROM runs WHERE id = %lld", (long long)run);
    RT_CHECK(sql_int(db, q) == 1);
    snprintf(q, sizeof q,
             "SELECT experiment || '|' || git_revision || '|' || git_dirty || '|' || build_id ||"
             " '|' || config_hash || '|' || nranks || '|' || topology || '|' || command_line ||"
             " '|' || config_text || '|' || coalesce(cuda_runtime, 'NULL')"
             " FROM runs WHERE id = %lld",
             (long long)run);
    char expect[4096];
    snprintf(expect, sizeof expect, "quickstart|%s|%d|%s|0123456789abcdef|2|%s|%s|%s|NULL",
             prov.git_revision, prov.git_dirty, prov.build_id, prov.topology, prov.command_line,
             prov.config_text);
    RT_CHECK_MSG(strcmp(sql_text(db, q, txt, sizeof txt), expect) == 0, "%s", txt);

    rt_matrix_record m = {.name = "band",
                          .rows = 20000,
                          .cols = 20000,
                          .nnz = 660000,
                          .generator = "banded",
                          .args_json = "{\"bandwidth\":16,\"seed\":1}",
                          .load_s = 0.125};
    RT_CHECK_MSG(rt_store_add_matrix(st, run, &m, &err) == 0, "%s", err.msg);
    m.nnz = 660001; /* recorded again in the same run: the latest wins */
    RT_CHECK_MSG(rt_store_add_matrix(st, run, &m, &err) == 0, "%s", err.msg);
    RT_CHECK(sql_int(db, "SELECT count(*) FROM matrices") == 1);
    RT_CHECK(sql_int(db, "SELECT nnz FROM matrices WHERE name = 'band'") == 660001);
    RT_CHECK(sql_real(db, "SELECT load_s FROM matrices") == 0.125);
    RT_CHECK(sql_int(db, "SELECT file IS NULL FROM matrices") == 1);
    m.rows = -1;
    RT_CHECK(rt_store_add_matrix(st, run, &m, &err) == -1 && rt_test_contains(err.msg, "band"));
    m.rows = 1;
    RT_CHECK(rt_store_add_matrix(st, 999, &m, &err) == -1 && rt_test_contains(err.msg, "999"));

    rt_metrics metrics;
    rt_metrics_init(&metrics);
    rt_metrics_add(&metrics, "dram_bytes_read", "bytes", 123456789.0, 1);
    rt_metrics_unavailable(&metrics, "l2_misses", "count", "perf_event_paranoid is 3");
    rt_metrics_add(&metrics, "odd", "ratio", NAN, 0);
    const double rank_min[5] = {0.0011, 0.0012, 0.0013, 0.0014, 0.0015};
    const double rank_avg[5] = {0.0016, 0.0017, 0.0018, 0.0019, 0.00195};
    rt_point_record pt;
    rt_test_point(&pt, "quickstart", "00000000000000a1", samples5, 5);
    pt.samples_rank_min = rank_min;
    pt.samples_rank_avg = rank_avg;
    pt.metrics = &metrics;
    snprintf(pt.reason, sizeof pt.reason, "fine, \"really\"");
    int64_t p1 = 0;
    RT_CHECK_MSG(rt_store_add_point(st, run, &pt, &p1, &err) == 0, "%s", err.msg);
    RT_CHECK(p1 > 0);

    /* Values come back bit-exact; NAN comes back as NULL. */
    snprintf(q, sizeof q, "SELECT gnnz_s FROM points WHERE id = %lld", (long long)p1);
    RT_CHECK(sql_real(db, q) == 0.1 + 0.2);
    snprintf(q, sizeof q, "SELECT gflops FROM points WHERE id = %lld", (long long)p1);
    RT_CHECK(sql_real(db, q) == 1000.0 / 3.0);
    snprintf(q, sizeof q,
             "SELECT bound_s IS NULL AND efficiency IS NULL FROM points WHERE id = %lld",
             (long long)p1);
    RT_CHECK(sql_int(db, q) == 1);
    snprintf(q, sizeof q,
             "SELECT experiment || '|' || kernel || '|' || backend || '|' || family || '|' ||"
             " matrix || '|' || params || '|' || problem || '|' || ranks || '|' || device || '|'"
             " || point_key || '|' || status || '|' || reason || '|' || verified"
             " FROM points WHERE id = %lld",
             (long long)p1);
    RT_CHECK_MSG(strcmp(sql_text(db, q, txt, sizeof txt),
                        "quickstart|spmm.cpu.csr|cpu|spmm|band|{\"col_block\":8,\"row_block\":64}|"
                        "{\"K\":32,\"precision\":\"fp32\"}|1|cpu|00000000000000a1|ok|"
                        "fine, \"really\"|1") == 0,
                 "%s", txt);
    snprintf(q, sizeof q,
             "SELECT is_iso FROM (SELECT measured_at AS is_iso FROM points WHERE id = %lld)",
             (long long)p1);
    RT_CHECK(is_iso8601_utc(sql_text(db, q, txt, sizeof txt)));
    RT_CHECK(sql_real(db, "SELECT rel_error FROM points") == 1.5e-7);
    RT_CHECK(sql_real(db, "SELECT time_median_s FROM points") == samples5[2]);
    RT_CHECK(sql_real(db, "SELECT setup_s FROM points") == 0.25);

    RT_CHECK(sql_int(db, "SELECT count(*) FROM metrics") == 3);
    RT_CHECK(sql_real(db, "SELECT value FROM metrics WHERE name = 'dram_bytes_read'") ==
             123456789.0);
    RT_CHECK(sql_int(db, "SELECT deterministic FROM metrics WHERE name = 'dram_bytes_read'") == 1);
    RT_CHECK(
        sql_int(db,
                "SELECT value IS NULL AND available = 0 FROM metrics WHERE name = 'l2_misses'") ==
        1);
    RT_CHECK(
        strcmp(sql_text(db, "SELECT reason FROM metrics WHERE name = 'l2_misses'", txt, sizeof txt),
               "perf_event_paranoid is 3") == 0);
    RT_CHECK(
        sql_int(db, "SELECT value IS NULL AND available = 1 FROM metrics WHERE name = 'odd'") == 1);
    RT_CHECK(
        strcmp(sql_text(db, "SELECT unit FROM metrics WHERE name = 'l2_misses'", txt, sizeof txt),
               "count") == 0);

    RT_CHECK(sql_int(db, "SELECT count(*) FROM samples") == 5);
    for (int k = 0; k < 5; ++k) {
        snprintf(q, sizeof q, "SELECT seconds FROM samples WHERE point_id = %lld AND rep = %d",
                 (long long)p1, k);
        RT_CHECK_MSG(sql_real(db, q) == samples5[k], "rep %d", k);
        snprintf(q, sizeof q, "SELECT rank_min_s FROM samples WHERE point_id = %lld AND rep = %d",
                 (long long)p1, k);
        RT_CHECK(sql_real(db, q) == rank_min[k]);
        snprintf(q, sizeof q, "SELECT rank_avg_s FROM samples WHERE point_id = %lld AND rep = %d",
                 (long long)p1, k);
        RT_CHECK(sql_real(db, q) == rank_avg[k]);
    }

    /* A wrong point: no samples, no rank arrays, NAN error, no metrics. */
    rt_point_record wrong;
    rt_test_point(&wrong, "quickstart", "00000000000000a2", NULL, 0);
    wrong.status = RT_POINT_WRONG;
    wrong.verified = 0;
    wrong.rel_error = NAN;
    snprintf(wrong.reason, sizeof wrong.reason, "max rel error 0.3 > tolerance 1e-05");
    int64_t p2 = 0;
    RT_CHECK_MSG(rt_store_add_point(st, run, &wrong, &p2, &err) == 0, "%s", err.msg);
    RT_CHECK(p2 > p1);
    snprintf(q, sizeof q,
             "SELECT status || '|' || verified || '|' || (rel_error IS NULL) ||"
             " '|' || (time_median_s IS NULL) FROM points WHERE id = %lld",
             (long long)p2);
    RT_CHECK_MSG(strcmp(sql_text(db, q, txt, sizeof txt), "wrong|0|1|1") == 0, "%s", txt);
    /* Samples without rank arrays store NULL min/avg. */
    rt_point_record single;
    rt_test_point(&single, "quickstart", "00000000000000a3", samples5, 2);
    int64_t p3 = 0;
    RT_CHECK_MSG(rt_store_add_point(st, run, &single, &p3, &err) == 0, "%s", err.msg);
    snprintf(q, sizeof q,
             "SELECT count(*) FROM samples WHERE point_id = %lld AND"
             " rank_min_s IS NULL AND rank_avg_s IS NULL",
             (long long)p3);
    RT_CHECK(sql_int(db, q) == 2);
    /* point_id output is optional. */
    rt_test_point(&single, "quickstart", "00000000000000a4", samples5, 1);
    RT_CHECK_MSG(rt_store_add_point(st, run, &single, NULL, &err) == 0, "%s", err.msg);

    /* The roofline check updates a point. */
    RT_CHECK_MSG(rt_store_set_bound(st, p1, 0.0015, 0.75, RT_POINT_OK, NULL, &err) == 0, "%s",
                 err.msg);
    snprintf(q, sizeof q, "SELECT bound_s FROM points WHERE id = %lld", (long long)p1);
    RT_CHECK(sql_real(db, q) == 0.0015);
    snprintf(q, sizeof q, "SELECT reason FROM points WHERE id = %lld", (long long)p1);
    RT_CHECK(strcmp(sql_text(db, q, txt, sizeof txt), "fine, \"really\"") == 0); /* kept */
    RT_CHECK_MSG(rt_store_set_bound(st, p1, 0.01, 5.0, RT_POINT_ABOVE_ROOFLINE,
                                    "faster than the DRAM bound", &err) == 0,
                 "%s", err.msg);
    snprintf(q, sizeof q,
             "SELECT status || '|' || reason || '|' || efficiency FROM points"
             " WHERE id = %lld",
             (long long)p1);
    RT_CHECK_MSG(strcmp(sql_text(db, q, txt, sizeof txt),
                        "above_roofline|faster than the DRAM bound|5.0") == 0,
                 "%s", txt);
    RT_CHECK_MSG(rt_store_set_bound(st, p1, NAN, NAN, RT_POINT_OK, NULL, &err) == 0, "%s", err.msg);
    snprintf(q, sizeof q, "SELECT bound_s IS NULL FROM points WHERE id = %lld", (long long)p1);
    RT_CHECK(sql_int(db, q) == 1);
    RT_CHECK(rt_store_set_bound(st, 4242, 1, 1, RT_POINT_OK, NULL, &err) == -1 &&
             rt_test_contains(err.msg, "4242"));
    RT_CHECK(rt_store_set_bound(st, p1, 1, 1, (rt_point_status)17, NULL, &err) == -1 &&
             rt_test_contains(err.msg, "17"));

    /* Ending the run. */
    RT_CHECK(rt_store_end_run(st, run, "finished", &err) == -1 &&
             rt_test_contains(err.msg, "finished") && rt_test_contains(err.msg, "complete"));
    RT_CHECK(rt_store_end_run(st, run, NULL, &err) == -1);
    RT_CHECK(rt_store_end_run(st, 777, "complete", &err) == -1 && rt_test_contains(err.msg, "777"));
    RT_CHECK_MSG(rt_store_end_run(st, run, "complete", &err) == 0, "%s", err.msg);
    snprintf(q, sizeof q, "SELECT status FROM runs WHERE id = %lld", (long long)run);
    RT_CHECK(strcmp(sql_text(db, q, txt, sizeof txt), "complete") == 0);
    snprintf(q, sizeof q, "SELECT ended_at FROM runs WHERE id = %lld", (long long)run);
    RT_CHECK_MSG(is_iso8601_utc(sql_text(db, q, txt, sizeof txt)), "%s", txt);
    snprintf(q, sizeof q, "SELECT ended_at >= started_at FROM runs WHERE id = %lld",
             (long long)run);
    RT_CHECK(sql_int(db, q) == 1);

    /* Experiment names. */
    int64_t run2 = 0;
    RT_CHECK(rt_store_begin_run(st, &prov, "another", &run2, &err) == 0);
    char names[4][64];
    int n = 0;
    RT_CHECK(rt_store_experiments(db, names, 4, &n, &err) == 0 && n == 2);
    RT_CHECK(n == 2 && strcmp(names[0], "another") == 0 && strcmp(names[1], "quickstart") == 0);
    RT_CHECK(rt_store_experiments(db, names, 1, &n, &err) == 0 && n == 1);
    RT_CHECK(rt_store_experiments(db, NULL, 4, &n, &err) == -1);
    RT_CHECK(rt_store_experiments(NULL, names, 4, &n, &err) == -1);

    /* Bad run arguments. */
    RT_CHECK(rt_store_begin_run(st, &prov, "", &run2, &err) == -1);
    RT_CHECK(rt_store_begin_run(st, &prov, NULL, &run2, &err) == -1);
    RT_CHECK(rt_store_begin_run(st, NULL, "x", &run2, &err) == -1);
    prov.nranks = 0;
    RT_CHECK(rt_store_begin_run(st, &prov, "x", &run2, &err) == -1 &&
             rt_test_contains(err.msg, "nranks"));

    /* Deleting a run removes what belongs to it. */
    snprintf(q, sizeof q, "DELETE FROM runs WHERE id = %lld", (long long)run);
    RT_CHECK(sql_exec(db, q) == 0);
    RT_CHECK(sql_int(db, "SELECT count(*) FROM points") == 0);
    RT_CHECK(sql_int(db, "SELECT count(*) FROM samples") == 0);
    RT_CHECK(sql_int(db, "SELECT count(*) FROM metrics") == 0);
    RT_CHECK(sql_int(db, "SELECT count(*) FROM matrices") == 0);

    rt_store_close(st);
    RT_CHECK(rt_point_status_name(RT_POINT_ABOVE_ROOFLINE)[0] == 'a');
    RT_CHECK(strcmp(rt_point_status_name((rt_point_status)99), "unknown") == 0);
}

/* ------------------------------------------------------------------------------------------ */
static void case_resume(const scratch *s)
{
    rt_err err = {{0}};
    rt_store *st = open_r(s, &err);
    if (!st)
        return;
    rt_provenance prov;
    test_provenance(&prov, "rev1/GNU-12", "hash1");
    int64_t run = 0;
    RT_CHECK(rt_store_begin_run(st, &prov, "sweep", &run, &err) == 0);
    int done = -1;
    RT_CHECK(rt_store_point_done(st, "rev1/GNU-12", "hash1", "k1", &done, &err) == 0 && done == 0);

    rt_point_record pt;
    rt_test_point(&pt, "sweep", "k1", NULL, 0);
    pt.status = RT_POINT_INFEASIBLE; /* any status counts as measured */
    RT_CHECK_MSG(rt_store_add_point(st, run, &pt, NULL, &err) == 0, "%s", err.msg);
    /* The run was interrupted: its committed points still count. */
    RT_CHECK(rt_store_end_run(st, run, "interrupted", &err) == 0);
    rt_store_close(st);

    st = NULL;
    RT_CHECK_MSG(open_store(s, "r.db", &st, &err) == 0, "%s", err.msg);
    if (!st)
        return;
    RT_CHECK(rt_store_point_done(st, "rev1/GNU-12", "hash1", "k1", &done, &err) == 0 && done == 1);
    RT_CHECK(rt_store_point_done(st, "rev1/GNU-12", "hash2", "k1", &done, &err) == 0 && done == 0);
    RT_CHECK(rt_store_point_done(st, "rev2/GNU-12", "hash1", "k1", &done, &err) == 0 && done == 0);
    RT_CHECK(rt_store_point_done(st, "rev1+dirty/GNU-12", "hash1", "k1", &done, &err) == 0 &&
             done == 0);
    RT_CHECK(rt_store_point_done(st, "rev1/GNU-12", "hash1", "k2", &done, &err) == 0 && done == 0);
    /* A second run of another config measures k1 again; the first build+config still matches. */
    rt_provenance other;
    test_provenance(&other, "rev1/GNU-12", "hash2");
    int64_t run2 = 0;
    RT_CHECK(rt_store_begin_run(st, &other, "sweep", &run2, &err) == 0);
    RT_CHECK(rt_store_add_point(st, run2, &pt, NULL, &err) == 0);
    RT_CHECK(rt_store_point_done(st, "rev1/GNU-12", "hash2", "k1", &done, &err) == 0 && done == 1);
    RT_CHECK(rt_store_point_done(st, "rev1/GNU-12", "hash1", "k1", &done, &err) == 0 && done == 1);
    /* Garbage in. */
    RT_CHECK(rt_store_point_done(st, NULL, "hash1", "k1", &done, &err) == -1);
    RT_CHECK(rt_store_point_done(st, "rev1/GNU-12", "hash1", "k1", NULL, &err) == -1);
    RT_CHECK(rt_store_point_done(NULL, "a", "b", "c", &done, &err) == -1);
    rt_store_close(st);
}

/* ------------------------------------------------------------------------------------------ */
static long long count_rows(sqlite3 *db)
{
    return sql_int(db, "SELECT (SELECT count(*) FROM points) + (SELECT count(*) FROM metrics) +"
                       " (SELECT count(*) FROM samples)");
}

static void case_rollback(const scratch *s)
{
    rt_err err = {{0}};
    rt_store *st = NULL;
    char path[1024];
    scratch_path(s, "r.db", path, sizeof path);
    RT_CHECK_MSG(rt_store_open(path, &st, &err) == 0, "%s", err.msg);
    if (!st)
        return;
    sqlite3 *db = rt_store_db(st);
    rt_provenance prov;
    test_provenance(&prov, "b", "h");
    int64_t run = 0;
    RT_CHECK(rt_store_begin_run(st, &prov, "rb", &run, &err) == 0);
    rt_metrics metrics;
    rt_metrics_init(&metrics);
    rt_metrics_add(&metrics, "flops", "count", 2e9, 1);
    rt_metrics_unavailable(&metrics, "dram_bytes", "bytes", "no counters");
    rt_point_record pt;
    rt_test_point(&pt, "rb", "r1", samples5, 5);
    pt.metrics = &metrics;

    /* samples NULL while n_samples > 0. */
    pt.samples = NULL;
    err.msg[0] = '\0';
    RT_CHECK(rt_store_add_point(st, run, &pt, NULL, &err) == -1);
    RT_CHECK_MSG(rt_test_contains(err.msg, "NULL") && rt_test_contains(err.msg, path) &&
                     rt_test_contains(err.msg, "r1"),
                 "%s", err.msg);
    RT_CHECK(count_rows(db) == 0);
    pt.samples = samples5;

    /* A failure after the point and its metrics were written (as a full disk would cause). */
    RT_CHECK(sql_exec(db, "CREATE TEMP TRIGGER fail_rep3 BEFORE INSERT ON main.samples"
                          " WHEN NEW.rep = 3 BEGIN SELECT RAISE(ABORT, 'simulated write failure');"
                          " END") == 0);
    err.msg[0] = '\0';
    RT_CHECK(rt_store_add_point(st, run, &pt, NULL, &err) == -1);
    RT_CHECK_MSG(rt_test_contains(err.msg, "simulated write failure") &&
                     rt_test_contains(err.msg, "sample 3"),
                 "%s", err.msg);
    RT_CHECK_MSG(count_rows(db) == 0, "%lld rows left", count_rows(db));
    RT_CHECK(sqlite3_get_autocommit(db) != 0); /* no transaction left open */
    RT_CHECK(sql_exec(db, "DROP TRIGGER fail_rep3") == 0);

    /* Duplicate metric names (a hand-built set) fail on the second metric. */
    rt_metrics dup = metrics;
    dup.item[1] = dup.item[0];
    pt.metrics = &dup;
    err.msg[0] = '\0';
    RT_CHECK(rt_store_add_point(st, run, &pt, NULL, &err) == -1);
    RT_CHECK_MSG(rt_test_contains(err.msg, "flops"), "%s", err.msg);
    RT_CHECK(count_rows(db) == 0);
    dup.n = RT_MAX_METRICS + 1;
    RT_CHECK(rt_store_add_point(st, run, &pt, NULL, &err) == -1 && count_rows(db) == 0);
    pt.metrics = &metrics;

    /* Params that are not a JSON object. */
    static const char *const bad_json[] = {"{not json", "[1,2]", "", "{\"a\":nan}"};
    for (int k = 0; k < 4; ++k) {
        rt_point_record bad = pt;
        snprintf(bad.params_json, sizeof bad.params_json, "%s", bad_json[k]);
        err.msg[0] = '\0';
        RT_CHECK_MSG(rt_store_add_point(st, run, &bad, NULL, &err) == -1, "params %s", bad_json[k]);
        RT_CHECK_MSG(rt_test_contains(err.msg, "params_is_json_object"), "%s", err.msg);
    }
    rt_point_record bad = pt;
    snprintf(bad.problem_json, sizeof bad.problem_json, "K=32");
    RT_CHECK(rt_store_add_point(st, run, &bad, NULL, &err) == -1 &&
             rt_test_contains(err.msg, "problem_is_json_object"));

    /* Unterminated text fields are read only up to their size. */
    bad = pt;
    memset(bad.kernel, 'k', sizeof bad.kernel);
    memset(bad.reason, 'r', sizeof bad.reason);
    RT_CHECK_MSG(rt_store_add_point(st, run, &bad, NULL, &err) == 0, "%s", err.msg);
    RT_CHECK(sql_int(db, "SELECT length(kernel) FROM points") == (long long)sizeof bad.kernel);
    RT_CHECK(sql_exec(db, "DELETE FROM points") == 0);

    /* Other garbage: unknown run, bad status, NaN or negative sample, negative count, no key. */
    RT_CHECK(rt_store_add_point(st, 4242, &pt, NULL, &err) == -1 &&
             rt_test_contains(err.msg, "FOREIGN KEY"));
    bad = pt;
    bad.status = (rt_point_status)9;
    RT_CHECK(rt_store_add_point(st, run, &bad, NULL, &err) == -1 && rt_test_contains(err.msg, "9"));
    const double nan_samples[3] = {0.1, NAN, 0.2};
    bad = pt;
    bad.samples = nan_samples;
    bad.n_samples = 3;
    RT_CHECK(rt_store_add_point(st, run, &bad, NULL, &err) == -1 &&
             rt_test_contains(err.msg, "sample 1"));
    const double neg_samples[2] = {0.1, -0.2};
    bad.samples = neg_samples;
    bad.n_samples = 2;
    RT_CHECK(rt_store_add_point(st, run, &bad, NULL, &err) == -1);
    bad = pt;
    bad.n_samples = -1;
    RT_CHECK(rt_store_add_point(st, run, &bad, NULL, &err) == -1);
    bad = pt;
    bad.ranks = 0;
    RT_CHECK(rt_store_add_point(st, run, &bad, NULL, &err) == -1);
    bad = pt;
    bad.point_key[0] = '\0';
    RT_CHECK(rt_store_add_point(st, run, &bad, NULL, &err) == -1);
    RT_CHECK(rt_store_add_point(st, run, NULL, NULL, &err) == -1);
    RT_CHECK(rt_store_add_point(NULL, run, &pt, NULL, &err) == -1);
    RT_CHECK(count_rows(db) == 0);

    /* After all that the store still takes a good point, whole. */
    int64_t id = 0;
    RT_CHECK_MSG(rt_store_add_point(st, run, &pt, &id, &err) == 0, "%s", err.msg);
    RT_CHECK(count_rows(db) == 1 + 2 + 5);
    rt_store_close(st);
}

/* ------------------------------------------------------------------------------------------ */
static void case_concurrency(const scratch *s)
{
    rt_err err = {{0}};
    rt_store *writer = NULL, *reader = NULL;
    RT_CHECK_MSG(open_store(s, "r.db", &writer, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(open_store(s, "r.db", &reader, &err) == 0, "%s", err.msg);
    if (!writer || !reader) {
        rt_store_close(writer);
        rt_store_close(reader);
        return;
    }
    sqlite3 *wdb = rt_store_db(writer), *rdb = rt_store_db(reader);
    rt_provenance prov;
    test_provenance(&prov, "b", "h");
    int64_t run = 0;
    RT_CHECK(rt_store_begin_run(writer, &prov, "conc", &run, &err) == 0);
    rt_point_record pt;
    rt_test_point(&pt, "conc", "c1", samples5, 5);
    RT_CHECK(rt_store_add_point(writer, run, &pt, NULL, &err) == 0);
    RT_CHECK(sql_int(rdb, "SELECT count(*) FROM points") == 1); /* committed: visible */

    /* The writer holds the write lock with an uncommitted point... */
    RT_CHECK(sql_exec(wdb, "BEGIN IMMEDIATE") == 0);
    char q[512];
    snprintf(q, sizeof q,
             "INSERT INTO points (run_id, experiment, kernel, backend, family, matrix, params,"
             " problem, ranks, device, point_key, status, verified, measured_at) VALUES (%lld,"
             " 'conc', 'k', 'cpu', 'spmm', 'm', '{}', '{}', 1, 'cpu', 'c2', 'ok', 1, 'now')",
             (long long)run);
    RT_CHECK(sql_exec(wdb, q) == 0);
    /* ...and the reader proceeds at once (no busy wait), seeing the last committed state. */
    const double t0 = rt_clock_now();
    int done = -1;
    RT_CHECK_MSG(rt_store_point_done(reader, "b", "h", "c1", &done, &err) == 0 && done == 1, "%s",
                 err.msg);
    RT_CHECK(rt_store_point_done(reader, "b", "h", "c2", &done, &err) == 0 && done == 0);
    RT_CHECK(sql_int(rdb, "SELECT count(*) FROM points") == 1);
    RT_CHECK(sql_int(rdb, "SELECT count(*) FROM samples") == 5);
    /* An export (what `rooftune export` does mid-run) sees the committed point only, through
     * this handle and through a read-only one like the CLI opens. */
    char out_path[1024];
    scratch_path(s, "export.csv", out_path, sizeof out_path);
    FILE *out = fopen(out_path, "w+");
    RT_CHECK_MSG(out && rt_export(rdb, "csv", "conc", out, &err) == 0, "%s", err.msg);
    if (out) {
        rewind(out);
        int lines = 0, ch;
        while ((ch = fgetc(out)) != EOF)
            lines += ch == '\n';
        RT_CHECK_MSG(lines == 2, "%d lines", lines); /* header + c1 */
        fclose(out);
    }
    char path[1024];
    scratch_path(s, "r.db", path, sizeof path);
    sqlite3 *ro = NULL;
    RT_CHECK(sqlite3_open_v2(path, &ro, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    out = fopen(out_path, "w");
    RT_CHECK_MSG(out && rt_export(ro, "json", NULL, out, &err) == 0, "%s", err.msg);
    if (out)
        fclose(out);
    RT_CHECK(sql_int(ro, "SELECT count(*) FROM points") == 1);
    sqlite3_close(ro);
    RT_CHECK_MSG(rt_clock_now() - t0 < 2.0, "reader waited %.3f s", rt_clock_now() - t0);
    /* A third handle opening the store meanwhile also works (no schema write needed). */
    rt_store *third = NULL;
    RT_CHECK_MSG(open_store(s, "r.db", &third, &err) == 0, "%s", err.msg);
    rt_store_close(third);

    RT_CHECK(sql_exec(wdb, "COMMIT") == 0);
    RT_CHECK(sql_int(rdb, "SELECT count(*) FROM points") == 2);
    RT_CHECK(rt_store_point_done(reader, "b", "h", "c2", &done, &err) == 0 && done == 1);

    /* Both handles write in turn. */
    rt_test_point(&pt, "conc", "c3", samples5, 3);
    RT_CHECK_MSG(rt_store_add_point(reader, run, &pt, NULL, &err) == 0, "%s", err.msg);
    rt_test_point(&pt, "conc", "c4", samples5, 4);
    RT_CHECK_MSG(rt_store_add_point(writer, run, &pt, NULL, &err) == 0, "%s", err.msg);
    RT_CHECK(sql_int(wdb, "SELECT count(*) FROM points") == 4);
    RT_CHECK(sql_int(rdb, "SELECT count(*) FROM samples") == 5 + 3 + 4);

    rt_store_close(writer);
    rt_store_close(reader);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(const scratch *);
    } cases[] = {
        {"schema", case_schema}, {"refuse", case_refuse},     {"roundtrip", case_roundtrip},
        {"resume", case_resume}, {"rollback", case_rollback}, {"concurrency", case_concurrency},
    };
    const int n_cases = (int)(sizeof cases / sizeof cases[0]);
    int ran = 0;
    for (int k = 0; k < n_cases; ++k) {
        if (argc > 1 && strcmp(argv[1], cases[k].name) != 0)
            continue;
        scratch s;
        if (scratch_make(&s) != 0) {
            fprintf(stderr, "cannot create a scratch directory\n");
            return 1;
        }
        cases[k].run(&s);
        scratch_remove(&s);
        ++ran;
    }
    if (ran == 0) {
        fprintf(stderr, "unknown case '%s'\n", argv[1]);
        return 1;
    }
    return RT_TEST_RESULT();
}
