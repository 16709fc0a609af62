#include "rt_plot_data.h"

#include <ctype.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_strutil.h"

typedef struct points_column {
    const char *name;
    const char *label;
    int lower_is_better;
    int numeric;
} points_column;

/* The columns of points a figure may name (rt_store.h documents the schema). Times and bounds
 * are "lower is better", so the best of several points is their minimum. */
static const points_column points_columns[] = {
    {"kernel", "kernel", 0, 0},
    {"matrix", "matrix", 0, 0},
    {"backend", "backend", 0, 0},
    {"device", "device", 0, 0},
    {"ranks", "ranks", 0, 1},
    {"gflops", "performance (GFLOP/s)", 0, 1},
    {"gnnz_s", "throughput (GNNZ/s, 1e9 nonzeros per second)", 0, 1},
    {"time_median_s", "median time (seconds)", 1, 1},
    {"time_min_s", "minimum time (seconds)", 1, 1},
    {"time_max_s", "maximum time (seconds)", 1, 1},
    {"efficiency", "roofline efficiency (bound / time)", 0, 1},
    {"bound_s", "roofline bound (seconds)", 1, 1},
};
#define N_POINTS_COLUMNS ((int)(sizeof points_columns / sizeof points_columns[0]))

/* ------------------------------------------------------------------------------------------- */
/* Small helpers */

static int store_error(sqlite3 *db, const char *what, rt_err *err)
{
    const char *why = sqlite3_errmsg(db);
    if (strstr(why, "no such table") || strstr(why, "no such column"))
        return rt_err_set(err,
                          "cannot %s: %s (is this a rooftune result store of schema "
                          "version 1 or later?)",
                          what, why);
    if (strstr(why, "malformed JSON"))
        return rt_err_set(err,
                          "cannot %s: %s (points.params or points.problem holds text that "
                          "is not JSON; the store is damaged)",
                          what, why);
    return rt_err_set(err, "cannot %s: %s", what, why);
}

static int prepare(sqlite3 *db, const char *sql, const char *what, sqlite3_stmt **stmt, rt_err *err)
{
    *stmt = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, stmt, NULL) != SQLITE_OK) {
        store_error(db, what, err);
        sqlite3_finalize(*stmt);
        *stmt = NULL;
        return -1;
    }
    return 0;
}

static int names_add(rt_plot_names *names, const char *text, rt_err *err)
{
    if (names->n == names->cap) {
        const int cap = names->cap ? 2 * names->cap : 16;
        void *grown = realloc(names->items, (size_t)cap * sizeof names->items[0]);
        if (!grown)
            return rt_err_set(err, "out of memory listing names");
        names->items = grown;
        names->cap = cap;
    }
    snprintf(names->items[names->n], sizeof names->items[0], "%s", text ? text : "");
    ++names->n;
    return 0;
}

void rt_plot_data_names_free(rt_plot_names *names)
{
    if (!names)
        return;
    free(names->items);
    names->items = NULL;
    names->n = names->cap = 0;
}

/* Runs sql (one text column; ?1 = experiment when the query has it, ?2 = key when key is not
 * NULL) and appends every row to names. */
static int collect_names(sqlite3 *db, const char *sql, const char *experiment, const char *key,
                         const char *what, rt_plot_names *names, rt_err *err)
{
    sqlite3_stmt *stmt;
    if (prepare(db, sql, what, &stmt, err) != 0)
        return -1;
    if (sqlite3_bind_parameter_count(stmt) >= 1)
        sqlite3_bind_text(stmt, 1, experiment, -1, SQLITE_TRANSIENT);
    if (key)
        sqlite3_bind_text(stmt, 2, key, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (names_add(names, (const char *)sqlite3_column_text(stmt, 0), err) != 0) {
            sqlite3_finalize(stmt);
            return -1;
        }
    }
    if (rc != SQLITE_DONE) {
        store_error(db, what, err);
        sqlite3_finalize(stmt);
        return -1;
    }
    sqlite3_finalize(stmt);
    return 0;
}

/* A bounded appender: once the buffer is full it ends the text with "..." instead of failing,
 * because an error message that lists names should still say as much as fits. */
typedef struct text_buf {
    char *data;
    size_t cap;
    size_t used;
} text_buf;

static void text_add(text_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(text_buf *b, const char *fmt, ...)
{
    if (b->used + 1 >= b->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(b->data + b->used, b->cap - b->used, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= b->cap - b->used) {
        b->used = b->cap - 1;
        if (b->cap > 4)
            memcpy(b->data + b->cap - 4, "...", 4);
        return;
    }
    b->used += (size_t)n;
}

static void text_add_list(text_buf *b, const char *heading, const rt_plot_names *names)
{
    text_add(b, "%s: ", heading);
    if (names->n == 0)
        text_add(b, "(none)");
    for (int k = 0; k < names->n; ++k)
        text_add(b, "%s%s", k ? ", " : "", names->items[k]);
}

/* Parses the whole of text as a finite number. */
static int parse_number(const char *text, double *value)
{
    if (!text || !*text)
        return 0;
    char *end;
    const double v = strtod(text, &end);
    while (*end == ' ')
        ++end;
    if (*end != '\0' || !isfinite(v))
        return 0;
    *value = v;
    return 1;
}

/* ------------------------------------------------------------------------------------------- */
/* Resolving names */

static const char sql_params_keys[] =
    "SELECT DISTINCT j.key FROM points p, json_each(p.params) j WHERE p.experiment = ?1 "
    "ORDER BY j.key";
static const char sql_problem_keys[] =
    "SELECT DISTINCT j.key FROM points p, json_each(p.problem) j WHERE p.experiment = ?1 "
    "ORDER BY j.key";
static const char sql_metric_names[] =
    "SELECT DISTINCT m.name FROM metrics m JOIN points p ON p.id = m.point_id "
    "WHERE p.experiment = ?1 ORDER BY m.name";

static int unknown_name_error(sqlite3 *db, const char *experiment, const char *name, rt_err *err)
{
    rt_plot_names params = {0}, problem = {0}, metrics = {0};
    if (collect_names(db, sql_params_keys, experiment, NULL, "list parameters", &params, err) ||
        collect_names(db, sql_problem_keys, experiment, NULL, "list problem parameters", &problem,
                      err) ||
        collect_names(db, sql_metric_names, experiment, NULL, "list metrics", &metrics, err))
        goto done;

    const int n_candidates = N_POINTS_COLUMNS + params.n + problem.n + metrics.n;
    const char **candidates = malloc((size_t)n_candidates * sizeof *candidates);
    if (!candidates) {
        rt_err_set(err, "out of memory listing names");
        goto done;
    }
    int c = 0;
    for (int k = 0; k < N_POINTS_COLUMNS; ++k)
        candidates[c++] = points_columns[k].name;
    for (int k = 0; k < params.n; ++k)
        candidates[c++] = params.items[k];
    for (int k = 0; k < problem.n; ++k)
        candidates[c++] = problem.items[k];
    for (int k = 0; k < metrics.n; ++k)
        candidates[c++] = metrics.items[k];
    const char *nearest = rt_suggest(name, candidates, n_candidates);

    char listing[1700];
    text_buf b = {listing, sizeof listing, 0};
    listing[0] = '\0';
    text_add(&b, "points columns: ");
    for (int k = 0; k < N_POINTS_COLUMNS; ++k)
        text_add(&b, "%s%s", k ? ", " : "", points_columns[k].name);
    text_add_list(&b, "; parameters", &params);
    text_add_list(&b, "; problem parameters", &problem);
    text_add_list(&b, "; metrics", &metrics);
    if (nearest)
        rt_err_set(err, "unknown name '%s' (did you mean '%s'?); experiment '%s' has %s", name,
                   nearest, experiment, listing);
    else
        rt_err_set(err, "unknown name '%s'; experiment '%s' has %s", name, experiment, listing);
    free(candidates);
done:
    rt_plot_data_names_free(&params);
    rt_plot_data_names_free(&problem);
    rt_plot_data_names_free(&metrics);
    return -1;
}

/* found = 1 when some point of experiment has key in its params (or problem) JSON. */
static int json_has_key(sqlite3 *db, const char *experiment, const char *json_column,
                        const char *key, int *found, rt_err *err)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT 1 FROM points p, json_each(p.%s) j WHERE p.experiment = ?1 AND j.key = ?2 "
             "LIMIT 1",
             json_column);
    rt_plot_names hits = {0};
    const int rc = collect_names(db, sql, experiment, key, "look up a parameter", &hits, err);
    *found = hits.n > 0;
    rt_plot_data_names_free(&hits);
    return rc;
}

static int metric_unit(sqlite3 *db, const char *experiment, const char *name, int *found,
                       char *unit, size_t unit_len, rt_err *err)
{
    static const char sql[] =
        "SELECT COUNT(*), COALESCE(MAX(NULLIF(m.unit, '')), '') FROM metrics m "
        "JOIN points p ON p.id = m.point_id WHERE p.experiment = ?1 AND m.name = ?2";
    sqlite3_stmt *stmt;
    if (prepare(db, sql, "look up a metric", &stmt, err) != 0)
        return -1;
    sqlite3_bind_text(stmt, 1, experiment, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 2, name, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(stmt) != SQLITE_ROW) {
        store_error(db, "look up a metric", err);
        sqlite3_finalize(stmt);
        return -1;
    }
    *found = sqlite3_column_int64(stmt, 0) > 0;
    const unsigned char *text = sqlite3_column_text(stmt, 1);
    snprintf(unit, unit_len, "%s", text ? (const char *)text : "");
    sqlite3_finalize(stmt);
    return 0;
}

int rt_plot_data_resolve(sqlite3 *db, const char *experiment, const char *name, rt_plot_field *out,
                         rt_err *err)
{
    memset(out, 0, sizeof *out);
    if (!name || !*name)
        return rt_err_set(err, "empty name: give a points column, parameter or metric");
    if (strlen(name) >= sizeof out->name)
        return rt_err_set(err, "name '%.40s...' is longer than %zu characters", name,
                          sizeof out->name - 1);
    snprintf(out->name, sizeof out->name, "%s", name);

    for (int k = 0; k < N_POINTS_COLUMNS; ++k) {
        if (strcmp(name, points_columns[k].name) == 0) {
            out->source = RT_PLOT_SRC_POINTS;
            snprintf(out->sql, sizeof out->sql, "p.\"%s\"", points_columns[k].name);
            snprintf(out->label, sizeof out->label, "%s", points_columns[k].label);
            out->lower_is_better = points_columns[k].lower_is_better;
            out->numeric = points_columns[k].numeric;
            return 0;
        }
    }

    /* A JSON path cannot quote a double quote, so such a key could never be read back. */
    if (!strchr(name, '"')) {
        int in_params = 0, in_problem = 0;
        if (json_has_key(db, experiment, "params", name, &in_params, err) != 0 ||
            (!in_params && json_has_key(db, experiment, "problem", name, &in_problem, err) != 0))
            return -1;
        if (in_params || in_problem) {
            char path[96];
            snprintf(path, sizeof path, "$.\"%s\"", name);
            out->source = RT_PLOT_SRC_PARAM;
            /* Params first, then problem: a kernel parameter shadows a problem parameter of the
             * same name (docs/guides/figures.md). COALESCE rather than picking one column, because
             * one kernel may carry as a parameter what another takes from the problem. */
            sqlite3_snprintf((int)sizeof out->sql, out->sql,
                             "COALESCE(json_extract(p.params, %Q), json_extract(p.problem, %Q))",
                             path, path);
            snprintf(out->label, sizeof out->label, "%s", name);
            return 0;
        }
    }

    int is_metric = 0;
    char unit[64];
    if (metric_unit(db, experiment, name, &is_metric, unit, sizeof unit, err) != 0)
        return -1;
    if (is_metric) {
        out->source = RT_PLOT_SRC_METRIC;
        sqlite3_snprintf((int)sizeof out->sql, out->sql,
                         "(SELECT m.value FROM metrics m WHERE m.point_id = p.id AND m.name = %Q)",
                         name);
        if (unit[0])
            snprintf(out->label, sizeof out->label, "%s (%s)", name,
                     strcmp(unit, "s") == 0 ? "seconds" : unit);
        else
            snprintf(out->label, sizeof out->label, "%s", name);
        out->lower_is_better = strcmp(unit, "s") == 0;
        out->numeric = 1;
        return 0;
    }
    return unknown_name_error(db, experiment, name, err);
}

void rt_plot_data_constant(const char *label, rt_plot_field *out)
{
    memset(out, 0, sizeof *out);
    out->source = RT_PLOT_SRC_NONE;
    snprintf(out->name, sizeof out->name, "%s", label);
    snprintf(out->label, sizeof out->label, "%s", label);
    sqlite3_snprintf((int)sizeof out->sql, out->sql, "%Q", label);
}

/* ------------------------------------------------------------------------------------------- */
/* Fetching a table */

/* Text byte-wise except that runs of digits compare by their value, so names that carry a size
 * sort by it ("dnn-4096" before "dnn-16384", "rank-9" before "rank-10"); equal values with
 * different leading zeros fall back to the bytes, so distinct texts never compare equal. */
static int compare_text_natural(const char *a, const char *b)
{
    const char *pa = a, *pb = b;
    while (*pa && *pb) {
        if (isdigit((unsigned char)*pa) && isdigit((unsigned char)*pb)) {
            while (*pa == '0')
                ++pa;
            while (*pb == '0')
                ++pb;
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char)pa[la]))
                ++la;
            while (isdigit((unsigned char)pb[lb]))
                ++lb;
            if (la != lb)
                return la < lb ? -1 : 1;
            const int c = strncmp(pa, pb, la);
            if (c != 0)
                return c;
            pa += la;
            pb += lb;
            continue;
        }
        if (*pa != *pb)
            return (unsigned char)*pa < (unsigned char)*pb ? -1 : 1;
        ++pa;
        ++pb;
    }
    if (*pa || *pb)
        return *pa ? 1 : -1;
    return strcmp(a, b);
}

/* Numbers before text; numbers by value, text naturally (digit runs by value): the order a reader
 * expects on an axis. */
static int compare_values(int a_numeric, double a, const char *a_text, int b_numeric, double b,
                          const char *b_text)
{
    if (a_numeric && b_numeric)
        return (a > b) - (a < b);
    if (a_numeric != b_numeric)
        return a_numeric ? -1 : 1;
    return compare_text_natural(a_text, b_text);
}

int rt_plot_data_compare_x(const rt_plot_row *a, const rt_plot_row *b)
{
    return compare_values(a->x_numeric, a->x, a->x_text, b->x_numeric, b->x, b->x_text);
}

static int compare_rows(const void *pa, const void *pb)
{
    const rt_plot_row *a = pa, *b = pb;
    const int by_series = compare_values(a->series_numeric, a->series_value, a->series,
                                         b->series_numeric, b->series_value, b->series);
    return by_series ? by_series : rt_plot_data_compare_x(a, b);
}

static int table_add(rt_plot_table *t, rt_err *err)
{
    if (t->n == t->cap) {
        const int cap = t->cap ? 2 * t->cap : 32;
        void *grown = realloc(t->rows, (size_t)cap * sizeof t->rows[0]);
        if (!grown)
            return rt_err_set(err, "out of memory reading figure data");
        t->rows = grown;
        t->cap = cap;
    }
    memset(&t->rows[t->n], 0, sizeof t->rows[0]);
    ++t->n;
    return 0;
}

/* Copies a column as text and tells whether it is a number. */
int rt_plot_read_value(struct sqlite3_stmt *stmt, int col, char *text, size_t len, double *value)
{
    const int type = sqlite3_column_type(stmt, col);
    const unsigned char *raw = sqlite3_column_text(stmt, col);
    snprintf(text, len, "%s", raw ? (const char *)raw : "");
    if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
        *value = sqlite3_column_double(stmt, col);
        return isfinite(*value) ? 1 : 0;
    }
    return parse_number(text, value);
}

int rt_plot_read_y(sqlite3_stmt *stmt, int col, const rt_plot_field *y, double *value, rt_err *err)
{
    char text[RT_PLOT_TEXT_MAX];
    if (rt_plot_read_value(stmt, col, text, sizeof text, value))
        return 1;
    const int type = sqlite3_column_type(stmt, col);
    if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
        return 0;
    return rt_err_set(err,
                      "'%s' cannot be plotted as y: it holds text such as '%s' (give a numeric "
                      "column, parameter or metric, e.g. gflops or time_median_s)",
                      y->name, text);
}

int rt_plot_data_fetch(sqlite3 *db, const char *experiment, const rt_plot_field *x,
                       const rt_plot_field *y, const rt_plot_field *series, const char *matrix,
                       rt_plot_table *t, rt_err *err)
{
    memset(t, 0, sizeof *t);
    rt_plot_field one_series;
    if (!series) {
        rt_plot_data_constant(y->name, &one_series);
        series = &one_series;
    }
    char *matrix_filter =
        matrix ? sqlite3_mprintf(" AND p.matrix = %Q", matrix) : sqlite3_mprintf("%s", "");
    if (!matrix_filter)
        return rt_err_set(err, "out of memory building the figure query");
    t->query = sqlite3_mprintf(
        "SELECT x, s, %s(y), COUNT(*) FROM (SELECT %s AS x, %s AS y, COALESCE(%s, 'n/a') AS s "
        "FROM points p WHERE p.experiment = %Q AND p.status = '" RT_PLOT_STATUS_OK "'%s) "
        "WHERE x IS NOT NULL AND y IS NOT NULL GROUP BY s, x ORDER BY s, x",
        y->lower_is_better ? "MIN" : "MAX", x->sql, y->sql, series->sql, experiment, matrix_filter);
    sqlite3_free(matrix_filter);
    if (!t->query)
        return rt_err_set(err, "out of memory building the figure query");

    sqlite3_stmt *stmt;
    if (prepare(db, t->query, "read the figure data", &stmt, err) != 0)
        return -1;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        double y_value = 0;
        const int y_placed = rt_plot_read_y(stmt, 2, y, &y_value, err);
        if (y_placed < 0) {
            sqlite3_finalize(stmt);
            return -1;
        }
        if (!y_placed)
            continue; /* infinite: nothing a figure can place */
        if (table_add(t, err) != 0) {
            sqlite3_finalize(stmt);
            return -1;
        }
        rt_plot_row *row = &t->rows[t->n - 1];
        row->x_numeric = rt_plot_read_value(stmt, 0, row->x_text, sizeof row->x_text, &row->x);
        row->series_numeric =
            rt_plot_read_value(stmt, 1, row->series, sizeof row->series, &row->series_value);
        row->y = y_value;
        row->n_points = sqlite3_column_int64(stmt, 3);
    }
    if (rc != SQLITE_DONE) {
        store_error(db, "read the figure data", err);
        sqlite3_finalize(stmt);
        return -1;
    }
    sqlite3_finalize(stmt);
    if (t->n > 1)
        qsort(t->rows, (size_t)t->n, sizeof t->rows[0], compare_rows);
    return 0;
}

void rt_plot_data_table_free(rt_plot_table *t)
{
    if (!t)
        return;
    free(t->rows);
    sqlite3_free(t->query);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------------------------------- */
/* Experiment-level questions */

int rt_plot_data_count(sqlite3 *db, const char *experiment, int64_t *total, int64_t *ok,
                       rt_err *err)
{
    static const char sql[] =
        "SELECT COUNT(*), COALESCE(SUM(status = '" RT_PLOT_STATUS_OK "'), 0) FROM points "
        "WHERE experiment = ?1";
    sqlite3_stmt *stmt;
    if (prepare(db, sql, "count the experiment's points", &stmt, err) != 0)
        return -1;
    sqlite3_bind_text(stmt, 1, experiment, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(stmt) != SQLITE_ROW) {
        store_error(db, "count the experiment's points", err);
        sqlite3_finalize(stmt);
        return -1;
    }
    *total = sqlite3_column_int64(stmt, 0);
    *ok = sqlite3_column_int64(stmt, 1);
    sqlite3_finalize(stmt);
    if (*total > 0)
        return 0;

    rt_plot_names present = {0};
    if (collect_names(db, "SELECT DISTINCT experiment FROM points ORDER BY 1", experiment, NULL,
                      "list the stored experiments", &present, err) != 0)
        return -1;
    char listing[1200];
    text_buf b = {listing, sizeof listing, 0};
    listing[0] = '\0';
    for (int k = 0; k < present.n; ++k)
        text_add(&b, "%s'%s'", k ? ", " : "", present.items[k]);
    if (present.n)
        rt_err_set(err, "experiment '%s' has no points in the store; it holds %s", experiment,
                   listing);
    else
        rt_err_set(err,
                   "experiment '%s' has no points: the store holds no points yet (run "
                   "`rooftune run` first)",
                   experiment);
    rt_plot_data_names_free(&present);
    return -1;
}

int rt_plot_data_matrices(sqlite3 *db, const char *experiment, rt_plot_names *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    return collect_names(
        db,
        "SELECT DISTINCT matrix FROM points WHERE experiment = ?1 AND status = '" RT_PLOT_STATUS_OK
        "' AND matrix IS NOT NULL ORDER BY matrix",
        experiment, NULL, "list the experiment's matrices", out, err);
}

int rt_plot_data_first_varying(sqlite3 *db, const char *experiment, char *name, size_t len,
                               int *found, rt_err *err)
{
    static const char *const sources[] = {"params", "problem"};
    *found = 0;
    if (len > 0)
        name[0] = '\0';
    for (int s = 0; s < 2; ++s) {
        char sql[512];
        snprintf(sql, sizeof sql,
                 "SELECT j.key FROM points p, json_each(p.%s) j WHERE p.experiment = ?1 AND "
                 "p.status = '" RT_PLOT_STATUS_OK "' AND j.type IN ('integer', 'real', 'text', "
                 "'true', 'false') GROUP BY j.key HAVING COUNT(DISTINCT j.atom) > 1 "
                 "ORDER BY j.key LIMIT 1",
                 sources[s]);
        rt_plot_names hit = {0};
        if (collect_names(db, sql, experiment, NULL, "find the parameter that varies", &hit, err) !=
            0)
            return -1;
        if (hit.n > 0) {
            snprintf(name, len, "%s", hit.items[0]);
            *found = 1;
        }
        rt_plot_data_names_free(&hit);
        if (*found)
            return 0;
    }
    return 0;
}
