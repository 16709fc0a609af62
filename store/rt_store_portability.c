#include "rt_store_portability.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_store_tuning.h"

typedef struct entry_list {
    rt_tuning_entry *items;
    int n, cap;
} entry_list;

static int collect(void *ctx, const rt_tuning_entry *e)
{
    entry_list *l = ctx;
    if (l->n == l->cap) {
        const int cap = l->cap ? 2 * l->cap : 16;
        rt_tuning_entry *grown = realloc(l->items, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        l->items = grown;
        l->cap = cap;
    }
    l->items[l->n++] = *e;
    return 0;
}

typedef struct row_list {
    rt_portability_row *items;
    int n, cap;
} row_list;

static rt_portability_row *new_row(row_list *l)
{
    if (l->n == l->cap) {
        const int cap = l->cap ? 2 * l->cap : 16;
        rt_portability_row *grown = realloc(l->items, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        l->items = grown;
        l->cap = cap;
    }
    rt_portability_row *r = &l->items[l->n++];
    memset(r, 0, sizeof *r);
    return r;
}

/* The verified time of one configuration on a device of a store (its newest point), NAN when the
 * store has none; with params NULL, the fastest configuration of the sweep (into best). */
static int time_of(sqlite3 *db, const char *device, const rt_tuning_entry *e, const char *params,
                   double *t, char *best, size_t best_len, rt_err *err)
{
    static const char one[] =
        "SELECT time_median_s, params FROM points WHERE status = 'ok' AND verified = 1 AND "
        "device = ?1 AND kernel = ?2 AND matrix = ?3 AND problem = ?4 AND params = ?5 ORDER BY "
        "id DESC LIMIT 1";
    static const char fastest[] =
        "SELECT time_median_s, params FROM points WHERE status = 'ok' AND verified = 1 AND "
        "device = ?1 AND kernel = ?2 AND matrix = ?3 AND problem = ?4 ORDER BY time_median_s, "
        "id LIMIT 1";
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, params ? one : fastest, -1, &s, NULL) != SQLITE_OK)
        return rt_err_set(err, "not a rooftune store with points (%s)", sqlite3_errmsg(db));
    sqlite3_bind_text(s, 1, device, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, e->kernel, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, e->matrix, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 4, e->problem, -1, SQLITE_TRANSIENT);
    if (params)
        sqlite3_bind_text(s, 5, params, -1, SQLITE_TRANSIENT);
    *t = NAN;
    const int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        *t = sqlite3_column_double(s, 0);
        if (best)
            snprintf(best, best_len, "%s", sqlite3_column_text(s, 1));
    }
    sqlite3_finalize(s);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return rt_err_set(err, "reading points: %s", sqlite3_errmsg(db));
    return 0;
}

/* Target's own best for e's sweep: its tuning entry's configuration, else the fastest the store
 * measured. */
static int own_best(sqlite3 *db, const entry_list *entries, const char *target,
                    const rt_tuning_entry *e, rt_portability_row *r, rt_err *err)
{
    for (int j = 0; j < entries->n; ++j) {
        const rt_tuning_entry *f = &entries->items[j];
        if (strcmp(f->device, target) == 0 && strcmp(f->kernel, e->kernel) == 0 &&
            strcmp(f->matrix, e->matrix) == 0 && strcmp(f->problem, e->problem) == 0) {
            snprintf(r->own, sizeof r->own, "%s", f->params);
            r->own_from_tuning = 1;
            return time_of(db, target, e, f->params, &r->own_s, NULL, 0, err);
        }
    }
    return time_of(db, target, e, NULL, &r->own_s, r->own, sizeof r->own, err);
}

static int store_rows(sqlite3 *db, const char *label, const entry_list *entries, row_list *rows,
                      rt_err *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT DISTINCT device FROM points WHERE status = 'ok' AND "
                           "verified = 1 ORDER BY device",
                           -1, &s, NULL) != SQLITE_OK)
        return rt_err_set(err, "%s: not a rooftune store with points (%s)", label,
                          sqlite3_errmsg(db));
    int rc = 0, devices = 0, matched = 0;
    while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
        char target[128];
        snprintf(target, sizeof target, "%s", sqlite3_column_text(s, 0));
        ++devices;
        for (int i = 0; rc == 0 && i < entries->n; ++i) {
            const rt_tuning_entry *e = &entries->items[i];
            double any = NAN;
            /* Only the sweeps this store measured on target. */
            if ((rc = time_of(db, target, e, NULL, &any, NULL, 0, err)) != 0 || isnan(any))
                continue;
            rt_portability_row *r = new_row(rows);
            if (!r) {
                rc = rt_err_set(err, "out of memory for the portability table");
                break;
            }
            ++matched;
            snprintf(r->kernel, sizeof r->kernel, "%s", e->kernel);
            snprintf(r->matrix, sizeof r->matrix, "%s", e->matrix);
            snprintf(r->problem, sizeof r->problem, "%s", e->problem);
            snprintf(r->origin, sizeof r->origin, "%s", e->device);
            snprintf(r->target, sizeof r->target, "%s", target);
            snprintf(r->params, sizeof r->params, "%s", e->params);
            rc = time_of(db, target, e, e->params, &r->time_s, NULL, 0, err);
            if (rc == 0)
                rc = own_best(db, entries, target, e, r, err);
        }
    }
    sqlite3_finalize(s);
    if (rc == 0 && matched == 0)
        rc = rt_err_set(err,
                        "%s: none of its %d device(s) measured a sweep of the tuning database "
                        "(run the config `rooftune portability --config` wrote into it)",
                        label, devices);
    return rc;
}

static int by_sweep(const void *pa, const void *pb)
{
    const rt_portability_row *a = pa, *b = pb;
    int c = strcmp(a->kernel, b->kernel);
    if (!c)
        c = strcmp(a->matrix, b->matrix);
    if (!c)
        c = strcmp(a->problem, b->problem);
    if (!c)
        c = strcmp(a->target, b->target);
    if (!c)
        c = strcmp(a->origin, b->origin);
    return c;
}

int rt_portability_table(sqlite3 *tuned, sqlite3 *const *measured, const char *const *labels,
                         int n_measured, rt_portability_row **rows, int *n, rt_err *err)
{
    *rows = NULL;
    *n = 0;
    entry_list entries = {0};
    int rc = rt_tuning_each(tuned, NULL, collect, &entries, err);
    if (rc > 0)
        rc = rt_err_set(err, "out of memory reading the tuning database");
    if (rc == 0 && entries.n == 0)
        rc = rt_err_set(err, "the tuning database has no entry");
    row_list out = {0};
    for (int i = 0; rc == 0 && i < n_measured; ++i)
        rc = store_rows(measured[i], labels[i], &entries, &out, err);
    free(entries.items);
    if (rc != 0) {
        free(out.items);
        return -1;
    }
    qsort(out.items, (size_t)out.n, sizeof *out.items, by_sweep);
    *rows = out.items;
    *n = out.n;
    return 0;
}
