/* Export tests. Usage:
 *   test_store_export csv | errors           checks in C
 *   test_store_export dump <csv|json> [exp]  writes the fixture's export to stdout, for
 *                                            check_export.py (Python's own csv/json readers) */
#include "store_test_util.h"

#include "rt_export.h"

#define HEADER                                                                                     \
    "experiment,run_id,kernel,backend,matrix,params,problem,ranks,device,status,reason,"           \
    "verified,rel_error,samples,time_median_s,time_min_s,time_max_s,ci_rel,gflops,gnnz_s,"         \
    "bound_s,efficiency,setup_s,metrics,git_revision"

static const double samples5[5] = {0.0021, 0.0019, 0.0020, 0.0022, 0.0018};

/* The reasons carry what CSV and JSON must escape. */
static const char reason_csv[] = "needs 2, got \"3\"\nsecond line";
static const char reason_utf8[] = "bad \xff byte, ctrl \x01, 5 \xc2\xb5s, tab\t";
static const char metric_reason[] = "perf_event_paranoid=3, needs <= 2 \"x\"";

/* Three points in two experiments, plus an experiment with a run and no points. */
static int build_fixture(const scratch *s, rt_store **out, rt_err *err)
{
    char path[1024];
    scratch_path(s, "export.db", path, sizeof path);
    rt_store *st = NULL;
    if (rt_store_open(path, &st, err) != 0)
        return -1;
    rt_provenance prov;
    test_provenance(&prov, "rev/GNU", "h");
    snprintf(prov.git_revision, sizeof prov.git_revision, "0123abcd");
    int64_t run_spmm = 0, run_gemm = 0, run_empty = 0;
    rt_metrics metrics;
    rt_metrics_init(&metrics);
    rt_metrics_unavailable(&metrics, "l2_misses", "count", metric_reason);
    rt_metrics_add(&metrics, "dram_bytes_read", "bytes", 123456789.0, 1);
    rt_metrics_add(&metrics, "ratio", "ratio", 0.1 + 0.2, 1);
    int rc = rt_store_begin_run(st, &prov, "spmm", &run_spmm, err);
    if (rc == 0)
        rc = rt_store_begin_run(st, &prov, "gemm", &run_gemm, err);
    if (rc == 0)
        rc = rt_store_begin_run(st, &prov, "empty", &run_empty, err);
    rt_point_record pt;
    rt_test_point(&pt, "spmm", "p1", samples5, 5);
    snprintf(pt.reason, sizeof pt.reason, "%s", reason_csv);
    pt.metrics = &metrics;
    pt.bound_s = 0.001;
    pt.efficiency = 0.5;
    if (rc == 0)
        rc = rt_store_add_point(st, run_spmm, &pt, NULL, err);
    rt_test_point(&pt, "gemm", "p2", NULL, 0);
    snprintf(pt.kernel, sizeof pt.kernel, "gemm.cpu.blocked");
    pt.status = RT_POINT_WRONG;
    pt.verified = 0;
    pt.rel_error = NAN;
    pt.gflops = NAN;
    snprintf(pt.params_json, sizeof pt.params_json, "{}");
    if (rc == 0)
        rc = rt_store_add_point(st, run_gemm, &pt, NULL, err);
    rt_test_point(&pt, "spmm", "p3", samples5, 3);
    snprintf(pt.reason, sizeof pt.reason, "%s", reason_utf8);
    snprintf(pt.params_json, sizeof pt.params_json, "{\"staging\":\"ell,\\\"x\\\"\",\"tile\":4}");
    pt.ranks = 4;
    if (rc == 0)
        rc = rt_store_add_point(st, run_spmm, &pt, NULL, err);
    if (rc != 0) {
        rt_store_close(st);
        return -1;
    }
    *out = st;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* A minimal RFC 4180 reader: enough to check that what we write reads back. */

#define MAX_ROWS   8
#define MAX_FIELDS 32

typedef struct csv_table {
    int n_rows;
    int n_fields[MAX_ROWS];
    char *field[MAX_ROWS][MAX_FIELDS];
} csv_table;

static void csv_free(csv_table *t)
{
    for (int r = 0; r < t->n_rows; ++r)
        for (int f = 0; f < t->n_fields[r]; ++f)
            free(t->field[r][f]);
    memset(t, 0, sizeof *t);
}

/* Returns 0 when text is well-formed CSV with CRLF line ends. */
static int csv_parse(const char *text, csv_table *t)
{
    memset(t, 0, sizeof *t);
    const char *p = text;
    while (*p) {
        if (t->n_rows == MAX_ROWS)
            return -1;
        const int r = t->n_rows++;
        for (;;) {
            if (t->n_fields[r] == MAX_FIELDS)
                return -1;
            const size_t cap = strlen(p) + 1;
            char *out = malloc(cap);
            if (!out)
                return -1;
            size_t n = 0;
            if (*p == '"') {
                ++p;
                for (;;) {
                    if (*p == '\0') {
                        free(out);
                        return -1; /* unterminated quote */
                    }
                    if (*p == '"' && p[1] == '"') {
                        out[n++] = '"';
                        p += 2;
                    } else if (*p == '"') {
                        ++p;
                        break;
                    } else {
                        out[n++] = *p++;
                    }
                }
            } else {
                while (*p && *p != ',' && *p != '\r' && *p != '\n') {
                    if (*p == '"') {
                        free(out);
                        return -1; /* a quote inside an unquoted field */
                    }
                    out[n++] = *p++;
                }
            }
            out[n] = '\0';
            t->field[r][t->n_fields[r]++] = out;
            if (*p == ',') {
                ++p;
                continue;
            }
            if (p[0] == '\r' && p[1] == '\n') {
                p += 2;
                break;
            }
            return -1; /* bare LF, junk after a closing quote, or no final CRLF */
        }
    }
    return 0;
}

static char *export_to_string(const scratch *s, sqlite3 *db, const char *format,
                              const char *experiment, rt_err *err, int *rc)
{
    char path[1024];
    scratch_path(s, "out.txt", path, sizeof path);
    FILE *f = fopen(path, "w+b");
    if (!f) {
        *rc = -2;
        return NULL;
    }
    *rc = rt_export(db, format, experiment, f, err);
    const long size = ftell(f);
    char *text = malloc(size > 0 ? (size_t)size + 1 : 1);
    rewind(f);
    const size_t got = text && size > 0 ? fread(text, 1, (size_t)size, f) : 0;
    if (text)
        text[got] = '\0';
    fclose(f);
    return text;
}

static int column_index(const char *name)
{
    static const char header[] = HEADER;
    int idx = 0;
    const char *p = header;
    const size_t n = strlen(name);
    while (p) {
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return idx;
        p = strchr(p, ',');
        if (p)
            ++p;
        ++idx;
    }
    return -1;
}

static const char *cell(const csv_table *t, int row, const char *column)
{
    const int c = column_index(column);
    if (row >= t->n_rows || c < 0 || c >= t->n_fields[row])
        return "<missing>";
    return t->field[row][c];
}

/* Runs body on the fixture's database (a failure to build it counted), then closes the store. */
static void with_fixture(const scratch *s, void (*body)(const scratch *s, sqlite3 *db))
{
    rt_err err = {{0}};
    rt_store *st = NULL;
    RT_CHECK_MSG(build_fixture(s, &st, &err) == 0, "%s", err.msg);
    if (st)
        body(s, rt_store_db(st));
    rt_store_close(st);
}

static void case_csv(const scratch *s, sqlite3 *db)
{
    rt_err err = {{0}};
    int rc = 0;
    char *text = export_to_string(s, db, "csv", NULL, &err, &rc);
    RT_CHECK_MSG(rc == 0, "%s", err.msg);
    RT_CHECK(text && strncmp(text, HEADER "\r\n", strlen(HEADER) + 2) == 0);
    csv_table t;
    RT_CHECK_MSG(text && csv_parse(text, &t) == 0, "unparsable CSV:\n%s", text ? text : "");
    RT_CHECK(t.n_rows == 4);
    for (int r = 0; r < t.n_rows; ++r)
        RT_CHECK_MSG(t.n_fields[r] == 25, "row %d has %d fields", r, t.n_fields[r]);
    /* Rows in point order: p1 (spmm), p2 (gemm), p3 (spmm). */
    RT_CHECK(strcmp(cell(&t, 1, "experiment"), "spmm") == 0);
    RT_CHECK(strcmp(cell(&t, 2, "experiment"), "gemm") == 0);
    RT_CHECK(strcmp(cell(&t, 3, "experiment"), "spmm") == 0);
    RT_CHECK(strcmp(cell(&t, 1, "run_id"), "1") == 0 && strcmp(cell(&t, 2, "run_id"), "2") == 0);
    RT_CHECK(strcmp(cell(&t, 1, "reason"), reason_csv) == 0);
    RT_CHECK(strcmp(cell(&t, 3, "reason"), reason_utf8) == 0); /* CSV keeps bytes as they are */
    RT_CHECK(strcmp(cell(&t, 2, "reason"), "") == 0);
    RT_CHECK(strcmp(cell(&t, 1, "params"), "{\"col_block\":8,\"row_block\":64}") == 0);
    RT_CHECK(strcmp(cell(&t, 3, "params"), "{\"staging\":\"ell,\\\"x\\\"\",\"tile\":4}") == 0);
    RT_CHECK(strcmp(cell(&t, 1, "problem"), "{\"K\":32,\"precision\":\"fp32\"}") == 0);
    RT_CHECK(strcmp(cell(&t, 2, "params"), "{}") == 0);
    RT_CHECK(strcmp(cell(&t, 3, "ranks"), "4") == 0);
    RT_CHECK(strcmp(cell(&t, 1, "kernel"), "spmm.cpu.csr") == 0);
    RT_CHECK(strcmp(cell(&t, 2, "kernel"), "gemm.cpu.blocked") == 0);
    RT_CHECK(strcmp(cell(&t, 1, "status"), "ok") == 0 &&
             strcmp(cell(&t, 2, "status"), "wrong") == 0);
    RT_CHECK(strcmp(cell(&t, 1, "verified"), "1") == 0 &&
             strcmp(cell(&t, 2, "verified"), "0") == 0);
    RT_CHECK(strcmp(cell(&t, 2, "rel_error"), "") == 0); /* NULL */
    RT_CHECK(strcmp(cell(&t, 2, "gflops"), "") == 0);
    RT_CHECK(strcmp(cell(&t, 1, "samples"), "5") == 0 && strcmp(cell(&t, 2, "samples"), "0") == 0 &&
             strcmp(cell(&t, 3, "samples"), "3") == 0);
    /* Numbers read back to the same double. */
    RT_CHECK(strtod(cell(&t, 1, "rel_error"), NULL) == 1.5e-7);
    RT_CHECK(strtod(cell(&t, 1, "gnnz_s"), NULL) == 0.1 + 0.2);
    RT_CHECK(strtod(cell(&t, 1, "gflops"), NULL) == 1000.0 / 3.0);
    RT_CHECK(strtod(cell(&t, 1, "time_median_s"), NULL) == samples5[2]);
    RT_CHECK(strtod(cell(&t, 1, "time_min_s"), NULL) == 0.001);
    RT_CHECK(strtod(cell(&t, 1, "time_max_s"), NULL) == 0.003);
    RT_CHECK(strtod(cell(&t, 1, "ci_rel"), NULL) == 0.01);
    RT_CHECK(strtod(cell(&t, 1, "bound_s"), NULL) == 0.001);
    RT_CHECK(strtod(cell(&t, 1, "efficiency"), NULL) == 0.5);
    RT_CHECK(strtod(cell(&t, 1, "setup_s"), NULL) == 0.25);
    RT_CHECK(strcmp(cell(&t, 3, "bound_s"), "") == 0);
    RT_CHECK_MSG(strcmp(cell(&t, 1, "metrics"),
                        "{\"dram_bytes_read\": 123456789, \"l2_misses\": {\"unavailable\": "
                        "\"perf_event_paranoid=3, needs <= 2 \\\"x\\\"\"}, \"ratio\": "
                        "0.30000000000000004}") == 0,
                 "%s", cell(&t, 1, "metrics"));
    RT_CHECK(strcmp(cell(&t, 2, "metrics"), "{}") == 0);
    RT_CHECK(strcmp(cell(&t, 1, "git_revision"), "0123abcd") == 0);
    RT_CHECK(strcmp(cell(&t, 1, "device"), "cpu") == 0 &&
             strcmp(cell(&t, 1, "backend"), "cpu") == 0);
    RT_CHECK(strcmp(cell(&t, 1, "matrix"), "band") == 0);
    csv_free(&t);
    free(text);

    /* One experiment only. */
    text = export_to_string(s, db, "csv", "spmm", &err, &rc);
    RT_CHECK_MSG(rc == 0, "%s", err.msg);
    RT_CHECK(text && csv_parse(text, &t) == 0 && t.n_rows == 3);
    RT_CHECK(strcmp(cell(&t, 1, "samples"), "5") == 0 && strcmp(cell(&t, 2, "samples"), "3") == 0);
    csv_free(&t);
    free(text);

    /* An experiment that ran but stored no points: just the header. */
    text = export_to_string(s, db, "csv", "empty", &err, &rc);
    RT_CHECK_MSG(rc == 0, "%s", err.msg);
    RT_CHECK(text && strcmp(text, HEADER "\r\n") == 0);
    free(text);
    text = export_to_string(s, db, "json", "empty", &err, &rc);
    RT_CHECK(rc == 0 && text && strcmp(text, "[]\n") == 0);
    free(text);

    /* The parser itself rejects broken CSV, so the checks above can fail. */
    RT_CHECK(csv_parse("a,\"b\r\n", &t) != 0);
    csv_free(&t);
    RT_CHECK(csv_parse("a,b\n", &t) != 0);
    csv_free(&t);
    RT_CHECK(csv_parse("a,b\"c\r\n", &t) != 0);
    csv_free(&t);
}

static void case_errors(const scratch *s, sqlite3 *db)
{
    rt_err err = {{0}};
    int rc = 0;

    char *text = export_to_string(s, db, "csv", "spmv", &err, &rc);
    RT_CHECK(rc == -1);
    RT_CHECK_MSG(rt_test_contains(err.msg, "'spmv'") &&
                     rt_test_contains(err.msg, "did you mean 'spmm'") &&
                     rt_test_contains(err.msg, "empty, gemm, spmm"),
                 "%s", err.msg);
    RT_CHECK(text && text[0] == '\0'); /* nothing written */
    free(text);
    text = export_to_string(s, db, "json", "zzzzzzzzzzzz", &err, &rc);
    RT_CHECK(rc == -1 && !rt_test_contains(err.msg, "did you mean") &&
             rt_test_contains(err.msg, "gemm"));
    free(text);

    text = export_to_string(s, db, "xml", NULL, &err, &rc);
    RT_CHECK(rc == -1 && rt_test_contains(err.msg, "xml") && rt_test_contains(err.msg, "csv"));
    free(text);
    text = export_to_string(s, db, NULL, NULL, &err, &rc);
    RT_CHECK(rc == -1);
    free(text);
    RT_CHECK(rt_export(NULL, "csv", NULL, stdout, &err) == -1);
    RT_CHECK(rt_export(db, "csv", NULL, NULL, &err) == -1);

    /* A stream that cannot be written. */
    char path[1024];
    scratch_path(s, "readonly.txt", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
    f = fopen(path, "r");
    if (f) {
        RT_CHECK(rt_export(db, "csv", NULL, f, &err) == -1 && rt_test_contains(err.msg, "writing"));
        fclose(f);
    }

    /* A row damaged behind the store's back stops the export with a message. */
    RT_CHECK(sql_exec(db, "PRAGMA ignore_check_constraints = ON") == 0);
    RT_CHECK(sql_exec(db, "UPDATE points SET params = '{broken' WHERE point_key = 'p3'") == 0);
    text = export_to_string(s, db, "json", NULL, &err, &rc);
    RT_CHECK_MSG(rc == -1 && rt_test_contains(err.msg, "JSON"), "%s", err.msg);
    free(text);

    /* An empty store, and a database that is not a store. */
    scratch_path(s, "fresh.db", path, sizeof path);
    rt_store *st = NULL;
    RT_CHECK(rt_store_open(path, &st, &err) == 0);
    if (st) {
        text = export_to_string(s, rt_store_db(st), "csv", "spmm", &err, &rc);
        RT_CHECK(rc == -1 && rt_test_contains(err.msg, "no experiments"));
        free(text);
        rt_store_close(st);
    }
    sqlite3 *mem = NULL;
    sqlite3_open(":memory:", &mem);
    text = export_to_string(s, mem, "csv", NULL, &err, &rc);
    RT_CHECK_MSG(rc == -1 && rt_test_contains(err.msg, "not a rooftune result store"), "%s",
                 err.msg);
    free(text);
    RT_CHECK(rt_export(mem, "csv", "x", stdout, &err) == -1);
    sqlite3_close(mem);

    /* Handles opened read-only by the CLI: a text file, a store of a newer schema. */
    scratch_path(s, "text.txt", path, sizeof path);
    f = fopen(path, "w");
    if (f) {
        for (int k = 0; k < 200; ++k)
            fputs("not a database at all\n", f);
        fclose(f);
    }
    sqlite3 *ro = NULL;
    sqlite3_open_v2(path, &ro, SQLITE_OPEN_READONLY, NULL);
    text = export_to_string(s, ro, "json", NULL, &err, &rc);
    RT_CHECK_MSG(rc == -1 && rt_test_contains(err.msg, "not a SQLite database"), "%s", err.msg);
    RT_CHECK(text && text[0] == '\0');
    free(text);
    sqlite3_close(ro);
    scratch_path(s, "fresh.db", path, sizeof path);
    ro = NULL;
    sqlite3_open_v2(path, &ro, SQLITE_OPEN_READWRITE, NULL);
    RT_CHECK(rt_store_check(ro, &err) == 0);
    char bump[64];
    snprintf(bump, sizeof bump, "PRAGMA user_version = %d", RT_STORE_SCHEMA_VERSION + 1);
    RT_CHECK(sql_exec(ro, bump) == 0);
    text = export_to_string(s, ro, "csv", NULL, &err, &rc);
    RT_CHECK_MSG(rc == -1 && rt_test_contains(err.msg, "newer"), "%s", err.msg);
    free(text);
    sqlite3_close(ro);
    RT_CHECK(rt_store_check(NULL, &err) == -1);
}

int main(int argc, char **argv)
{
    scratch s;
    if (scratch_make(&s) != 0) {
        fprintf(stderr, "cannot create a scratch directory\n");
        return 1;
    }
    int status = 0;
    if (argc >= 3 && strcmp(argv[1], "dump") == 0) {
        rt_err err = {{0}};
        rt_store *st = NULL;
        if (build_fixture(&s, &st, &err) != 0 ||
            rt_export(rt_store_db(st), argv[2], argc > 3 ? argv[3] : NULL, stdout, &err) != 0) {
            fprintf(stderr, "%s\n", err.msg);
            status = 1;
        }
        rt_store_close(st);
    } else if (argc == 2 && strcmp(argv[1], "csv") == 0) {
        with_fixture(&s, case_csv);
        status = RT_TEST_RESULT();
    } else if (argc == 2 && strcmp(argv[1], "errors") == 0) {
        with_fixture(&s, case_errors);
        status = RT_TEST_RESULT();
    } else {
        fprintf(stderr, "usage: test_store_export csv|errors|dump <csv|json> [experiment]\n");
        status = 1;
    }
    scratch_remove(&s);
    return status;
}
