/* rt_export: flat CSV / JSON view of the points in a result store. */
#include "rt_export.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_csv.h"
#include "rt_json.h"
#include "rt_store.h"
#include "rt_store_read.h"
#include "rt_store_rows.h"
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
} export_col;

/* The public column order (see rt_export.h): users' scripts index CSV columns by position. The
 * store's flat points table (rt_store_rows.h) has these columns in this order; rt_export checks
 * that the two agree before it writes anything. */
static const export_col columns[] = {
    {"experiment", COL_TEXT},   {"run_id", COL_INT},      {"kernel", COL_TEXT},
    {"backend", COL_TEXT},      {"matrix", COL_TEXT},     {"params", COL_JSON},
    {"problem", COL_JSON},      {"ranks", COL_INT},       {"device", COL_TEXT},
    {"status", COL_TEXT},       {"reason", COL_TEXT},     {"verified", COL_BOOL},
    {"rel_error", COL_REAL},    {"samples", COL_INT},     {"time_median_s", COL_REAL},
    {"time_min_s", COL_REAL},   {"time_max_s", COL_REAL}, {"ci_rel", COL_REAL},
    {"gflops", COL_REAL},       {"gnnz_s", COL_REAL},     {"bound_s", COL_REAL},
    {"efficiency", COL_REAL},   {"setup_s", COL_REAL},    {"metrics", COL_METRICS},
    {"git_revision", COL_TEXT},
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

/* The metrics of the point being written, reused from row to row. */
typedef struct metric_buf {
    rt_store_metric *items;
    int n, cap;
} metric_buf;

static int metrics_json(struct sqlite3 *db, metric_buf *m, int64_t point_id, text_buf *b,
                        rt_err *err)
{
    if (rt_store_metrics(db, point_id, NULL, &m->items, &m->n, &m->cap, err) != 0)
        return -1;
    buf_puts(b, "{");
    for (int k = 0; k < m->n; ++k) {
        const rt_store_metric *r = &m->items[k];
        buf_puts(b, k ? ", " : "");
        buf_json_string(b, r->name, strlen(r->name));
        buf_puts(b, ": ");
        if (r->available == 0) {
            buf_puts(b, "{\"unavailable\": ");
            buf_json_string(b, r->reason, strlen(r->reason));
            buf_puts(b, "}");
        } else if (!r->has_value) {
            buf_puts(b, "null");
        } else {
            buf_number(b, r->value, FORMAT_JSON);
        }
    }
    buf_puts(b, "}");
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Cells and rows. */

/* Formats column k of the current row into cell; *is_null tells CSV to leave the cell empty. */
static int format_cell(struct sqlite3 *db, const rt_store_rows *row, metric_buf *metrics, int k,
                       export_format fmt, text_buf *cell, int *is_null, rt_err *err)
{
    cell->len = 0;
    if (cell->data)
        cell->data[0] = '\0';
    *is_null = 0;
    const col_kind kind = columns[k].kind;
    if (kind == COL_METRICS)
        return metrics_json(db, metrics, rt_store_rows_int64(row, k), cell, err);
    if (rt_store_rows_is_null(row, k)) {
        *is_null = 1;
        if (fmt == FORMAT_JSON)
            buf_puts(cell, "null");
        return 0;
    }
    switch (kind) {
    case COL_TEXT: {
        size_t n = 0;
        const char *s = rt_store_rows_text(row, k, &n);
        if (fmt == FORMAT_JSON)
            buf_json_string(cell, s ? s : "", n);
        else
            buf_add(cell, s ? s : "", n);
        break;
    }
    case COL_JSON: {
        size_t n = 0;
        const char *s = rt_store_rows_text(row, k, &n);
        buf_add(cell, s ? s : "", n);
        break;
    }
    case COL_INT: buf_int(cell, rt_store_rows_int64(row, k)); break;
    case COL_REAL: buf_number(cell, rt_store_rows_double(row, k), fmt); break;
    case COL_BOOL:
        if (fmt == FORMAT_JSON)
            buf_puts(cell, rt_store_rows_int64(row, k) ? "true" : "false");
        else
            buf_puts(cell, rt_store_rows_int64(row, k) ? "1" : "0");
        break;
    case COL_METRICS: break; /* handled above */
    }
    return 0;
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

static int write_row(struct sqlite3 *db, const rt_store_rows *row, metric_buf *metrics,
                     export_format fmt, int first_row, FILE *out, text_buf *cell, rt_err *err)
{
    if (fmt == FORMAT_JSON)
        fputs(first_row ? "\n  {" : ",\n  {", out);
    for (int k = 0; k < N_COLUMNS; ++k) {
        int is_null = 0;
        if (format_cell(db, row, metrics, k, fmt, cell, &is_null, err) != 0)
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
                rt_csv_field(out, cell->data, cell->len);
        }
    }
    fputs(fmt == FORMAT_JSON ? "}" : "\r\n", out);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

/* Builds the "not in the store" message, naming the closest match and every known experiment. */
static int unknown_experiment(struct sqlite3 *db, const char *experiment, rt_err *err)
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

/* 1 when the store's flat table has exactly the columns this writer formats, in its order. */
static int columns_agree(void)
{
    int n = 0;
    const char *const *names = rt_store_flat_point_columns(&n);
    if (n != N_COLUMNS)
        return 0;
    for (int k = 0; k < n; ++k)
        if (strcmp(names[k], columns[k].name) != 0)
            return 0;
    return 1;
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
        if (rt_store_experiment_known(db, experiment, &known, err) != 0)
            return -1;
        if (!known)
            return unknown_experiment(db, experiment, err);
    }

    if (!columns_agree())
        return rt_err_set(err, "export: the store's point table and the writer's columns differ");

    rt_store_rows *rows = NULL;
    if (rt_store_flat_points(db, experiment, &rows, err) != 0)
        return rt_err_prefix(err, "export");
    metric_buf metrics = {0};
    text_buf cell = {0};
    int failed = 0, n_rows = 0, more = 0;
    write_header(out, fmt);
    while (!failed && (more = rt_store_rows_next(rows, err)) == 1) {
        failed = write_row(db, rows, &metrics, fmt, n_rows == 0, out, &cell, err) != 0;
        if (failed)
            rt_err_prefix(err, "export: point row %d", n_rows + 1);
        ++n_rows;
    }
    if (!failed && more < 0) {
        failed = 1;
        rt_err_prefix(err, "export");
    }
    if (!failed && fmt == FORMAT_JSON)
        fputs(n_rows ? "\n]\n" : "]\n", out);
    free(cell.data);
    free(metrics.items);
    rt_store_rows_close(rows);
    if (failed)
        return -1;
    if (fflush(out) != 0 || ferror(out))
        return rt_err_set(err, "export: writing the %s output failed (disk full or closed pipe?)",
                          format);
    return 0;
}
