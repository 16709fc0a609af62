/* rt_export: flat CSV / JSON view of the points in a result store. */
#include "rt_export.h"

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_json.h"
#include "rt_store.h"
#include "rt_strutil.h"

typedef enum col_kind {
    COL_TEXT,    /* string */
    COL_INT,     /* integer */
    COL_REAL,    /* double, printed with %.17g */
    COL_JSON,    /* stored JSON text, nested as-is in JSON output */
    COL_BOOL,    /* 0/1 in CSV, false/true in JSON */
    COL_METRICS, /* the point's metrics, assembled from the metrics table (column holds p.id) */
} col_kind;

typedef struct export_col {
    const char *name;
    col_kind kind;
    const char *sql;
} export_col;

/* The public column order (see rt_export.h): users' scripts index CSV columns by position. */
static const export_col columns[] = {
    {"experiment", COL_TEXT, "p.experiment"},
    {"run_id", COL_INT, "p.run_id"},
    {"kernel", COL_TEXT, "p.kernel"},
    {"backend", COL_TEXT, "p.backend"},
    {"matrix", COL_TEXT, "p.matrix"},
    /* json() fails on text that is not JSON, so a hand-damaged row stops the export instead of
     * producing a file no parser accepts. */
    {"params", COL_JSON, "json(p.params)"},
    {"problem", COL_JSON, "json(p.problem)"},
    {"ranks", COL_INT, "p.ranks"},
    {"device", COL_TEXT, "p.device"},
    {"status", COL_TEXT, "p.status"},
    {"reason", COL_TEXT, "p.reason"},
    {"verified", COL_BOOL, "p.verified"},
    {"rel_error", COL_REAL, "p.rel_error"},
    {"samples", COL_INT, "(SELECT count(*) FROM samples s WHERE s.point_id = p.id)"},
    {"time_median_s", COL_REAL, "p.time_median_s"},
    {"time_min_s", COL_REAL, "p.time_min_s"},
    {"time_max_s", COL_REAL, "p.time_max_s"},
    {"ci_rel", COL_REAL, "p.ci_rel"},
    {"gflops", COL_REAL, "p.gflops"},
    {"gnnz_s", COL_REAL, "p.gnnz_s"},
    {"bound_s", COL_REAL, "p.bound_s"},
    {"efficiency", COL_REAL, "p.efficiency"},
    {"setup_s", COL_REAL, "p.setup_s"},
    {"metrics", COL_METRICS, "p.id"},
    {"git_revision", COL_TEXT, "r.git_revision"},
};
#define N_COLUMNS ((int)(sizeof columns / sizeof columns[0]))

typedef enum export_format { FORMAT_CSV, FORMAT_JSON } export_format;

/* ------------------------------------------------------------------------------------------ */
/* A growable text buffer: one cell (or one metrics object) is assembled here before it is
 * quoted or written. */

typedef struct text_buf {
    char *data;
    size_t len, cap;
    int out_of_memory;
} text_buf;

static void buf_add(text_buf *b, const char *s, size_t n)
{
    if (b->out_of_memory)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->out_of_memory = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void buf_puts(text_buf *b, const char *s)
{
    buf_add(b, s, strlen(s));
}

static void buf_number(text_buf *b, double v, export_format fmt)
{
    if (!isfinite(v)) {
        /* JSON has no NaN or infinity; CSV leaves the cell empty like any missing value. */
        if (fmt == FORMAT_JSON)
            buf_puts(b, "null");
        return;
    }
    char num[40];
    snprintf(num, sizeof num, "%.17g", v);
    buf_puts(b, num);
}

static void buf_int(text_buf *b, long long v)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", v);
    buf_puts(b, num);
}

static int put_text_buf(void *ctx, const char *piece, size_t n)
{
    buf_add(ctx, piece, n);
    return 0;
}

/* A quoted JSON string of s[0..n): a database text may hold any bytes; bad UTF-8 is replaced. */
static void buf_json_string(text_buf *b, const char *s, size_t n)
{
    buf_puts(b, "\"");
    rt_json_escape(s, n, RT_JSON_SHORT_CONTROLS | RT_JSON_CHECK_UTF8, put_text_buf, b);
    buf_puts(b, "\"");
}

/* ------------------------------------------------------------------------------------------ */
/* Metrics of one point as a JSON object (the same text in CSV and JSON output). */

static int metrics_json(sqlite3 *db, sqlite3_stmt *q, int64_t point_id, text_buf *b, rt_err *err)
{
    sqlite3_bind_int64(q, 1, point_id);
    buf_puts(b, "{");
    int rc, first = 1;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(q, 0);
        buf_puts(b, first ? "" : ", ");
        first = 0;
        buf_json_string(b, name ? name : "", name ? (size_t)sqlite3_column_bytes(q, 0) : 0);
        buf_puts(b, ": ");
        if (sqlite3_column_int(q, 1) == 0) {
            const char *why = (const char *)sqlite3_column_text(q, 3);
            buf_puts(b, "{\"unavailable\": ");
            buf_json_string(b, why ? why : "", why ? (size_t)sqlite3_column_bytes(q, 3) : 0);
            buf_puts(b, "}");
        } else if (sqlite3_column_type(q, 2) == SQLITE_NULL) {
            buf_puts(b, "null");
        } else {
            buf_number(b, sqlite3_column_double(q, 2), FORMAT_JSON);
        }
    }
    buf_puts(b, "}");
    sqlite3_reset(q);
    if (rc != SQLITE_DONE)
        return rt_err_set(err, "reading the metrics of point %lld: %s", (long long)point_id,
                          sqlite3_errmsg(db));
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Cells and rows. */

/* Formats column k of the current row into cell; *is_null tells CSV to leave the cell empty. */
static int format_cell(sqlite3 *db, sqlite3_stmt *row, sqlite3_stmt *metrics_q, int k,
                       export_format fmt, text_buf *cell, int *is_null, rt_err *err)
{
    cell->len = 0;
    if (cell->data)
        cell->data[0] = '\0';
    *is_null = 0;
    const col_kind kind = columns[k].kind;
    if (kind == COL_METRICS)
        return metrics_json(db, metrics_q, sqlite3_column_int64(row, k), cell, err);
    if (sqlite3_column_type(row, k) == SQLITE_NULL) {
        *is_null = 1;
        if (fmt == FORMAT_JSON)
            buf_puts(cell, "null");
        return 0;
    }
    switch (kind) {
    case COL_TEXT: {
        const char *s = (const char *)sqlite3_column_text(row, k);
        const size_t n = s ? (size_t)sqlite3_column_bytes(row, k) : 0;
        if (fmt == FORMAT_JSON)
            buf_json_string(cell, s ? s : "", n);
        else
            buf_add(cell, s ? s : "", n);
        break;
    }
    case COL_JSON: {
        const char *s = (const char *)sqlite3_column_text(row, k);
        buf_add(cell, s ? s : "", s ? (size_t)sqlite3_column_bytes(row, k) : 0);
        break;
    }
    case COL_INT: buf_int(cell, sqlite3_column_int64(row, k)); break;
    case COL_REAL: buf_number(cell, sqlite3_column_double(row, k), fmt); break;
    case COL_BOOL:
        if (fmt == FORMAT_JSON)
            buf_puts(cell, sqlite3_column_int(row, k) ? "true" : "false");
        else
            buf_puts(cell, sqlite3_column_int(row, k) ? "1" : "0");
        break;
    case COL_METRICS: break; /* handled above */
    }
    return 0;
}

static void write_csv_field(FILE *out, const char *s, size_t n)
{
    int needs_quotes = 0;
    for (size_t k = 0; k < n && !needs_quotes; ++k)
        needs_quotes = s[k] == ',' || s[k] == '"' || s[k] == '\r' || s[k] == '\n';
    if (!needs_quotes) {
        fwrite(s, 1, n, out);
        return;
    }
    fputc('"', out);
    for (size_t k = 0; k < n; ++k) {
        if (s[k] == '"')
            fputc('"', out);
        fputc(s[k], out);
    }
    fputc('"', out);
}

static void write_header(FILE *out, export_format fmt)
{
    if (fmt == FORMAT_JSON) {
        fputs("[", out);
        return;
    }
    for (int k = 0; k < N_COLUMNS; ++k)
        fprintf(out, "%s%s", k ? "," : "", columns[k].name);
    fputs("\r\n", out);
}

static int write_row(sqlite3 *db, sqlite3_stmt *row, sqlite3_stmt *metrics_q, export_format fmt,
                     int first_row, FILE *out, text_buf *cell, rt_err *err)
{
    if (fmt == FORMAT_JSON)
        fputs(first_row ? "\n  {" : ",\n  {", out);
    for (int k = 0; k < N_COLUMNS; ++k) {
        int is_null = 0;
        if (format_cell(db, row, metrics_q, k, fmt, cell, &is_null, err) != 0)
            return -1;
        if (cell->out_of_memory)
            return rt_err_set(err, "out of memory while formatting column '%s'", columns[k].name);
        if (fmt == FORMAT_JSON) {
            fprintf(out, "%s\"%s\": ", k ? ", " : "", columns[k].name);
            fwrite(cell->data, 1, cell->len, out);
        } else {
            if (k)
                fputc(',', out);
            if (!is_null)
                write_csv_field(out, cell->data, cell->len);
        }
    }
    fputs(fmt == FORMAT_JSON ? "}" : "\r\n", out);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

/* Builds the "not in the store" message, naming the closest match and every known experiment. */
static int unknown_experiment(sqlite3 *db, const char *experiment, rt_err *err)
{
    enum { MAX_LISTED = 256 };
    char(*names)[64] = calloc(MAX_LISTED, sizeof *names);
    if (!names)
        return rt_err_set(err, "experiment '%s' is not in the store", experiment);
    int n = 0;
    if (rt_store_experiments(db, names, MAX_LISTED, &n, err) != 0) {
        free(names);
        return -1;
    }
    text_buf msg = {0};
    buf_puts(&msg, "experiment '");
    buf_puts(&msg, experiment);
    buf_puts(&msg, "' is not in the store; ");
    if (n == 0) {
        buf_puts(&msg, "the store holds no experiments yet");
    } else {
        const char *candidates[MAX_LISTED];
        for (int k = 0; k < n; ++k)
            candidates[k] = names[k];
        const char *nearest = rt_suggest(experiment, candidates, n);
        if (nearest) {
            buf_puts(&msg, "did you mean '");
            buf_puts(&msg, nearest);
            buf_puts(&msg, "'? ");
        }
        buf_puts(&msg, "it holds: ");
        for (int k = 0; k < n; ++k) {
            buf_puts(&msg, k ? ", " : "");
            buf_puts(&msg, names[k]);
        }
    }
    if (msg.out_of_memory)
        rt_err_set(err, "experiment '%s' is not in the store", experiment);
    else
        rt_err_set(err, "%s", msg.data);
    free(msg.data);
    free(names);
    return -1;
}

static int experiment_known(sqlite3 *db, const char *experiment, int *known, rt_err *err)
{
    static const char sql[] = "SELECT EXISTS (SELECT 1 FROM runs WHERE experiment = ?1)"
                              " OR EXISTS (SELECT 1 FROM points WHERE experiment = ?1)";
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(s, 1, experiment, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
            *known = sqlite3_column_int(s, 0);
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_ROW)
        return rt_err_set(err, "looking up experiment '%s': %s", experiment, sqlite3_errmsg(db));
    return 0;
}

/* The row query, generated from the column table so the two cannot disagree. */
static void build_query(text_buf *sql)
{
    buf_puts(sql, "SELECT ");
    for (int k = 0; k < N_COLUMNS; ++k) {
        buf_puts(sql, k ? ", " : "");
        buf_puts(sql, columns[k].sql);
    }
    buf_puts(sql, " FROM points p JOIN runs r ON r.id = p.run_id"
                  " WHERE ?1 IS NULL OR p.experiment = ?1 ORDER BY p.id");
}

int rt_export(struct sqlite3 *db, const char *format, const char *experiment, FILE *out,
              rt_err *err)
{
    if (!db || !out)
        return rt_err_set(err, "rt_export: missing database or output stream");
    export_format fmt;
    if (format && strcmp(format, "csv") == 0)
        fmt = FORMAT_CSV;
    else if (format && strcmp(format, "json") == 0)
        fmt = FORMAT_JSON;
    else
        return rt_err_set(err, "export format '%s' is not supported (use csv or json)",
                          format ? format : "(none)");
    if (rt_store_check(db, err) != 0)
        return -1;
    if (experiment) {
        int known = 0;
        if (experiment_known(db, experiment, &known, err) != 0)
            return -1;
        if (!known)
            return unknown_experiment(db, experiment, err);
    }

    text_buf sql = {0};
    build_query(&sql);
    if (sql.out_of_memory) {
        free(sql.data);
        return rt_err_set(err, "export: out of memory");
    }
    sqlite3_stmt *rows = NULL, *metrics_q = NULL;
    const int prepared = sqlite3_prepare_v2(db, sql.data, -1, &rows, NULL);
    free(sql.data);
    if (prepared != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT name, available, value, reason FROM metrics"
                           " WHERE point_id = ?1 ORDER BY name",
                           -1, &metrics_q, NULL) != SQLITE_OK) {
        rt_err_set(err, "export: preparing the query: %s", sqlite3_errmsg(db));
        sqlite3_finalize(rows);
        sqlite3_finalize(metrics_q);
        return -1;
    }
    if (experiment)
        sqlite3_bind_text(rows, 1, experiment, -1, SQLITE_TRANSIENT);

    /* One read transaction, so the export is a consistent snapshot even while a run writes
     * (WAL lets this reader proceed without blocking the writer). */
    const int own_transaction = sqlite3_get_autocommit(db);
    int failed = own_transaction && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK;
    if (failed)
        rt_err_set(err, "export: starting a read transaction: %s", sqlite3_errmsg(db));
    text_buf cell = {0};
    int rc = SQLITE_DONE, n_rows = 0;
    if (!failed) {
        write_header(out, fmt);
        while (!failed && (rc = sqlite3_step(rows)) == SQLITE_ROW) {
            failed = write_row(db, rows, metrics_q, fmt, n_rows == 0, out, &cell, err) != 0;
            if (failed)
                rt_err_prefix(err, "export: point row %d", n_rows + 1);
            ++n_rows;
        }
        if (!failed && rc != SQLITE_DONE) {
            failed = 1;
            rt_err_set(err, "export: reading point row %d: %s", n_rows + 1, sqlite3_errmsg(db));
        }
        if (!failed && fmt == FORMAT_JSON)
            fputs(n_rows ? "\n]\n" : "]\n", out);
        if (own_transaction)
            sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    }
    free(cell.data);
    sqlite3_finalize(rows);
    sqlite3_finalize(metrics_q);
    if (failed)
        return -1;
    if (fflush(out) != 0 || ferror(out))
        return rt_err_set(err, "export: writing the %s output failed (disk full or closed pipe?)",
                          format);
    return 0;
}
