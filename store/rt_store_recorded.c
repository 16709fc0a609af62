/* rt_recorded_store: one sweep of a rooftune store as a recorded space. */
#define _POSIX_C_SOURCE 200809L
#include <json.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_store_recorded.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_infile.h"
#include "rt_readonly.h"
#include "rt_store_read.h"

#define MAX_VALUES     1024
#define VALUE_TEXT_MAX 64

/* The sweep's points: latest record of each configuration. ?1..?3 are the selection (NULL = any).
 */
static const char k_groups_sql[] =
    "SELECT kernel, matrix, problem, device, COUNT(*) FROM points"
    " WHERE (?1 IS NULL OR kernel = ?1) AND (?2 IS NULL OR matrix = ?2)"
    " AND (?3 IS NULL OR problem = ?3) GROUP BY kernel, matrix, problem, device";
static const char k_points_sql[] =
    "SELECT params, status, time_median_s, bound_s FROM points WHERE id IN"
    " (SELECT MAX(id) FROM points WHERE kernel = ?1 AND matrix = ?2 AND problem = ?3"
    " AND device = ?4 GROUP BY params) ORDER BY id";

typedef struct store_dims {
    rt_recorded_dim dims[RT_MAX_PARAMS];
    char *text[RT_MAX_PARAMS][MAX_VALUES];
    char arena[RT_MAX_PARAMS][MAX_VALUES][VALUE_TEXT_MAX];
    int n;
} store_dims;

static void value_text(json_object *v, char *buf, size_t len)
{
    if (json_object_is_type(v, json_type_string))
        snprintf(buf, len, "%s", json_object_get_string(v));
    else
        snprintf(buf, len, "%s", json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

static int find_text(const rt_recorded_dim *dim, const char *t)
{
    for (int k = 0; k < dim->n_values; ++k)
        if (strcmp(dim->values[k], t) == 0)
            return k;
    return -1;
}

static int cmp_value(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    char *ex, *ey;
    const double dx = strtod(x, &ex), dy = strtod(y, &ey);
    if (*ex == '\0' && *ey == '\0')
        return dx < dy ? -1 : dx > dy;
    return strcmp(x, y);
}

static void bind_opt(sqlite3_stmt *st, int i, const char *v)
{
    if (v && *v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* Collects the parameter names and values of every configuration (pass 0), or adds the
 * configurations (pass 1). */
static int scan(sqlite3 *db, const char *path, const char *const group[4], store_dims *sd,
                rt_recorded *r, rt_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, k_points_sql, -1, &st, NULL) != SQLITE_OK)
        return rt_err_set(err, "%s: not a rooftune store (%s)", path, sqlite3_errmsg(db));
    for (int i = 0; i < 4; ++i)
        sqlite3_bind_text(st, i + 1, group[i], -1, SQLITE_TRANSIENT);
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *params = (const char *)sqlite3_column_text(st, 0);
        const char *status = (const char *)sqlite3_column_text(st, 1);
        if (strcmp(status, "infeasible") == 0)
            continue; /* outside the space, never run */
        if (strcmp(status, "pruned") == 0) {
            /* Never measured: the sweep is not a fully measured space, and replaying it would
             * score strategies against times nobody took. */
            rc = rt_err_set(err,
                            "%s: the sweep holds pruned points (search.prune: bound), so it is "
                            "not a fully measured space; replay a sweep run without pruning",
                            path);
            break;
        }
        json_object *obj = json_tokener_parse(params);
        if (!obj || !json_object_is_type(obj, json_type_object)) {
            json_object_put(obj);
            rc = rt_err_set(err, "%s: point params '%s' are not a JSON object", path, params);
            break;
        }
        int64_t coords[RT_MAX_PARAMS];
        int d = 0;
        json_object_object_foreach(obj, key, val)
        {
            char t[VALUE_TEXT_MAX];
            value_text(val, t, sizeof t);
            if (!r) {
                int k;
                for (k = 0; k < sd->n && strcmp(sd->dims[k].name, key) != 0; ++k)
                    ;
                if (k == sd->n) {
                    if (sd->n == RT_MAX_PARAMS) {
                        rc = rt_err_set(err, "%s: more than %d parameters", path, RT_MAX_PARAMS);
                        break;
                    }
                    snprintf(sd->dims[k].name, sizeof sd->dims[k].name, "%s", key);
                    sd->dims[k].values = sd->text[k];
                    sd->dims[k].numeric = 1;
                    sd->n++;
                }
                rt_recorded_dim *dim = &sd->dims[k];
                if (find_text(dim, t) < 0) {
                    if (dim->n_values == MAX_VALUES) {
                        rc = rt_err_set(err, "%s: parameter %s has too many values", path, key);
                        break;
                    }
                    if (!json_object_is_type(val, json_type_int) &&
                        !json_object_is_type(val, json_type_double))
                        dim->numeric = 0;
                    snprintf(sd->arena[k][dim->n_values], VALUE_TEXT_MAX, "%s", t);
                    dim->values[dim->n_values] = sd->arena[k][dim->n_values];
                    dim->n_values++;
                }
            } else {
                for (d = 0; d < r->n_dims && strcmp(r->dims[d].name, key) != 0; ++d)
                    ;
                if (d < r->n_dims)
                    coords[d] = find_text(&r->dims[d], t);
            }
        }
        if (r && rc == 0) {
            const double median =
                sqlite3_column_type(st, 2) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 2);
            const double bound =
                sqlite3_column_type(st, 3) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 3);
            const int ran = strcmp(status, "ok") == 0 || strcmp(status, "above_roofline") == 0;
            if (json_object_object_length(obj) != r->n_dims)
                rc = rt_err_set(err, "%s: point params '%s' do not have the sweep's %d parameters",
                                path, params, r->n_dims);
            else if (ran && !(median > 0 && isfinite(median)))
                rc = rt_err_set(err,
                                "%s: point %s has status %s but its median time is %g s: a timed "
                                "point needs a positive time (the store is damaged or was edited)",
                                path, params, status, median);
            else if (rt_recorded_add(r, coords, ran ? median : INFINITY, bound, err) != 0)
                rc = rt_err_prefix(err, "%s: point %s", path, params);
        }
        json_object_put(obj);
    }
    sqlite3_finalize(st);
    return rc;
}

int rt_recorded_load_store(const char *path, const rt_recorded_select *sel, rt_recorded **out,
                           rt_err *err)
{
    *out = NULL;
    sqlite3 *db = NULL;
    /* Read-only, and the schema check every command makes (rt_store_check). */
    if (rt_readonly_open(path, &db, err) != 0)
        return -1;
    sqlite3_stmt *st = NULL;
    int rc = 0, groups = 0;
    char group[4][256] = {{0}};
    char listing[1024] = "";
    if (sqlite3_prepare_v2(db, k_groups_sql, -1, &st, NULL) != SQLITE_OK) {
        rc = rt_err_set(err, "%s: not a rooftune store (%s)", path, sqlite3_errmsg(db));
    } else {
        bind_opt(st, 1, sel ? sel->kernel : NULL);
        bind_opt(st, 2, sel ? sel->matrix : NULL);
        bind_opt(st, 3, sel ? sel->problem : NULL);
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int i = 0; i < 4; ++i)
                snprintf(group[i], sizeof group[i], "%s", sqlite3_column_text(st, i));
            const size_t used = strlen(listing);
            snprintf(listing + used, sizeof listing - used,
                     "\n  --kernel %s --matrix %s --problem '%s'", group[0], group[1], group[2]);
            groups++;
        }
        sqlite3_finalize(st);
        if (groups != 1)
            rc = rt_err_set(err,
                            "%s: the selection matches %d sweeps; choose one with --kernel, "
                            "--matrix and --problem:%s",
                            path, groups, groups ? listing : " (none)");
    }
    store_dims *sd = rc == 0 ? calloc(1, sizeof *sd) : NULL;
    if (rc == 0 && !sd)
        rc = rt_err_set(err, "out of memory reading %s", path);
    const char *const g[4] = {group[0], group[1], group[2], group[3]};
    if (rc == 0)
        rc = scan(db, path, g, sd, NULL, err);
    if (rc == 0 && sd->n == 0)
        rc = rt_err_set(err, "%s: the sweep has no feasible configuration", path);
    if (rc == 0) {
        for (int d = 0; d < sd->n; ++d)
            qsort(sd->dims[d].values, (size_t)sd->dims[d].n_values, sizeof(char *), cmp_value);
        char kernel[300];
        snprintf(kernel, sizeof kernel, "%s %s %s", group[0], group[1], group[2]);
        rc = rt_recorded_new(kernel, group[3], "s", sd->n, sd->dims, out, err);
        if (rc != 0)
            rt_err_prefix(err, "%s", path);
    }
    if (rc == 0)
        rc = scan(db, path, g, sd, *out, err);
    if (rc == 0)
        rc = rt_recorded_finish(*out, path, err);
    free(sd);
    rt_store_read_close(db);
    if (rc != 0) {
        rt_recorded_free(*out);
        *out = NULL;
    }
    return rc;
}

int rt_store_recorded_load(const char *path, const rt_recorded_select *sel, rt_recorded **out,
                           rt_err *err)
{
    *out = NULL;
    /* A regular file only: a folder would be read as garbage and a FIFO would block. */
    int fd = -1;
    int64_t size = 0;
    if (rt_infile_open(path, "a recorded space or a store", &fd, &size, err) != 0)
        return -1;
    char magic[16] = {0};
    ssize_t got = read(fd, magic, sizeof magic);
    close(fd);
    if (got == (ssize_t)sizeof magic && memcmp(magic, "SQLite format 3", 16) == 0)
        return rt_recorded_load_store(path, sel, out, err);
    return rt_recorded_load(path, sel, out, err);
}
