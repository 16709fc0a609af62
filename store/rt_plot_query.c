/* rt_plot_query: the per-figure-type reads; see rt_plot_query.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_plot_query.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int store_error(sqlite3 *db, const char *what, rt_err *err)
{
    return rt_err_set(err, "cannot %s: %s", what, sqlite3_errmsg(db));
}

/* A query built with sqlite3_mprintf, as plain malloc'd text for the caller. */
static char *plain_copy(char *q)
{
    char *copy = q ? strdup(q) : NULL;
    sqlite3_free(q);
    return copy;
}

int rt_plot_query_points(sqlite3 *db, const char *experiment, const rt_plot_field *x,
                         const rt_plot_field *y, const rt_plot_field *series, const char *matrix,
                         rt_plot_point **items, int *n, int *cap, char **query, rt_err *err)
{
    *n = 0;
    *query = NULL;
    char *matrix_filter =
        matrix ? sqlite3_mprintf(" AND p.matrix = %Q", matrix) : sqlite3_mprintf("%s", "");
    if (!matrix_filter)
        return rt_err_set(err, "out of memory building the figure query");
    *query = plain_copy(sqlite3_mprintf(
        "SELECT id, x, s, y FROM (SELECT p.id AS id, %s AS x, %s AS y, COALESCE(%s, 'n/a') AS s "
        "FROM points p WHERE p.experiment = %Q AND p.status = '" RT_PLOT_STATUS_OK "'%s) "
        "WHERE x IS NOT NULL AND y IS NOT NULL ORDER BY id",
        x->sql, y->sql, series->sql, experiment, matrix_filter));
    sqlite3_free(matrix_filter);
    if (!*query)
        return rt_err_set(err, "out of memory building the figure query");
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, *query, -1, &stmt, NULL) != SQLITE_OK) {
        store_error(db, "read the figure data", err);
        sqlite3_finalize(stmt);
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        double yv = 0;
        const int y_placed = rt_plot_read_y(stmt, 3, y, &yv, err);
        if (y_placed < 0) {
            sqlite3_finalize(stmt);
            return -1;
        }
        if (!y_placed)
            continue; /* infinite: nothing a figure can place */
        if (*n == *cap) {
            const int grown_cap = *cap ? 2 * *cap : 32;
            void *grown = realloc(*items, (size_t)grown_cap * sizeof **items);
            if (!grown) {
                sqlite3_finalize(stmt);
                return rt_err_set(err, "out of memory reading figure data");
            }
            *items = grown;
            *cap = grown_cap;
        }
        rt_plot_point *b = &(*items)[(*n)++];
        memset(b, 0, sizeof *b);
        b->id = sqlite3_column_int64(stmt, 0);
        b->row.x_numeric =
            rt_plot_read_value(stmt, 1, b->row.x_text, sizeof b->row.x_text, &b->row.x);
        b->row.series_numeric =
            rt_plot_read_value(stmt, 2, b->row.series, sizeof b->row.series, &b->row.series_value);
        b->row.y = yv;
    }
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE)
        return store_error(db, "read the figure data", err);
    return 0;
}

int rt_plot_query_values(sqlite3 *db, const rt_plot_field *fields, int n, int64_t id,
                         double *values, int *text_col, char *text, size_t len, int *found,
                         rt_err *err)
{
    *text_col = -1;
    *found = 0;
    char *sql = sqlite3_mprintf("SELECT %s", fields[0].sql);
    for (int k = 1; sql && k < n; ++k) {
        char *longer = sqlite3_mprintf("%s, %s", sql, fields[k].sql);
        sqlite3_free(sql);
        sql = longer;
    }
    char *full =
        sql ? sqlite3_mprintf("%s FROM points p WHERE p.id = %lld", sql, (long long)id) : NULL;
    sqlite3_free(sql);
    if (!full)
        return rt_err_set(err, "out of memory building the breakdown query");
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, full, -1, &stmt, NULL);
    sqlite3_free(full);
    if (rc != SQLITE_OK) {
        store_error(db, "read the breakdown", err);
        sqlite3_finalize(stmt);
        return -1;
    }
    rc = sqlite3_step(stmt);
    *found = rc == SQLITE_ROW;
    for (int k = 0; k < n; ++k) {
        values[k] = NAN;
        if (rc != SQLITE_ROW)
            continue;
        char cell[RT_PLOT_TEXT_MAX];
        double v;
        if (rt_plot_read_value(stmt, k, cell, sizeof cell, &v)) {
            values[k] = v;
        } else if (sqlite3_column_type(stmt, k) == SQLITE_TEXT) {
            *text_col = k;
            snprintf(text, len, "%s", cell);
            break;
        }
    }
    sqlite3_finalize(stmt);
    return 0;
}

int rt_plot_query_family_count(sqlite3 *db, const char *experiment, const char *prefix,
                               int64_t *count, rt_err *err)
{
    *count = 0;
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT COUNT(*) FROM metrics m JOIN points p ON p.id = "
                           "m.point_id WHERE p.experiment = ?1 AND substr(m.name, 1, ?2) "
                           "= ?3",
                           -1, &stmt, NULL) != SQLITE_OK) {
        store_error(db, "look up the metric family", err);
        sqlite3_finalize(stmt);
        return -1;
    }
    sqlite3_bind_text(stmt, 1, experiment, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(stmt, 2, (int)strlen(prefix));
    sqlite3_bind_text(stmt, 3, prefix, -1, SQLITE_TRANSIENT);
    *count = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    sqlite3_finalize(stmt);
    return 0;
}

void rt_plot_query_metric_names(sqlite3 *db, const char *experiment, char *out, size_t len)
{
    out[0] = '\0';
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT DISTINCT m.name FROM metrics m JOIN points p ON "
                           "p.id = m.point_id WHERE p.experiment = ?1 ORDER BY 1",
                           -1, &stmt, NULL) != SQLITE_OK) {
        sqlite3_finalize(stmt);
        return;
    }
    sqlite3_bind_text(stmt, 1, experiment, -1, SQLITE_TRANSIENT);
    size_t used = 0;
    while (sqlite3_step(stmt) == SQLITE_ROW && used + 8 < len) {
        const int n = snprintf(out + used, len - used, "%s%s", used ? ", " : "",
                               (const char *)sqlite3_column_text(stmt, 0));
        used += n > 0 ? (size_t)n : 0;
    }
    if (used >= len - 8 && len > 4)
        snprintf(out + len - 4, 4, "...");
    sqlite3_finalize(stmt);
}

int rt_plot_query_family_point(sqlite3 *db, const char *experiment, const char *matrix,
                               const char *prefix, rt_plot_family_point *p, int *found,
                               char **query, rt_err *err)
{
    memset(p, 0, sizeof *p);
    *found = 0;
    *query = NULL;
    char *matrix_filter =
        matrix ? sqlite3_mprintf(" AND p.matrix = %Q", matrix) : sqlite3_mprintf("%s", "");
    if (!matrix_filter)
        return rt_err_set(err, "out of memory building the figure query");
    /* substr rather than LIKE: a family may hold '_' and '%', which LIKE would interpret. The
     * point: status ok, with at least one readable value of the family, the shortest median
     * time (ties: the lowest id), as the "best" of every other figure. */
    *query = plain_copy(sqlite3_mprintf(
        "SELECT p.id, p.kernel, p.matrix, p.params, p.problem, p.ranks FROM points p WHERE "
        "p.experiment = %Q AND p.status = '" RT_PLOT_STATUS_OK "'%s AND EXISTS (SELECT 1 FROM "
        "metrics m WHERE m.point_id = p.id AND substr(m.name, 1, %d) = %Q AND m.value IS NOT "
        "NULL) ORDER BY p.time_median_s IS NULL, p.time_median_s, p.id LIMIT 1",
        experiment, matrix_filter, (int)strlen(prefix), prefix));
    sqlite3_free(matrix_filter);
    if (!*query)
        return rt_err_set(err, "out of memory building the figure query");
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, *query, -1, &stmt, NULL) != SQLITE_OK) {
        store_error(db, "find the heat map's point", err);
        sqlite3_finalize(stmt);
        return -1;
    }
    if (sqlite3_step(stmt) == SQLITE_ROW) {
        *found = 1;
        p->id = sqlite3_column_int64(stmt, 0);
        const unsigned char *kernel = sqlite3_column_text(stmt, 1);
        snprintf(p->kernel, sizeof p->kernel, "%s", kernel ? (const char *)kernel : "(null)");
        for (int c = 2; c <= 4; ++c) {
            const unsigned char *t = sqlite3_column_text(stmt, c);
            char *dst = c == 2 ? p->matrix : c == 3 ? p->params : p->problem;
            const size_t dlen = c == 2   ? sizeof p->matrix
                                : c == 3 ? sizeof p->params
                                         : sizeof p->problem;
            snprintf(dst, dlen, "%s", t ? (const char *)t : "");
        }
        p->ranks = sqlite3_column_int(stmt, 5);
    }
    sqlite3_finalize(stmt);
    return 0;
}
