#include "rt_store_pareto.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_pareto.h"

/* The points columns an objective may name (all times, minimised). */
static const char *const k_columns[] = {"time_median_s", "time_min_s", "time_mean_s", "setup_s"};
#define N_COLUMNS ((int)(sizeof k_columns / sizeof k_columns[0]))

static const char k_schema[] =
    "CREATE TABLE IF NOT EXISTS pareto ("
    "  id INTEGER PRIMARY KEY,"
    "  experiment TEXT NOT NULL, kernel TEXT NOT NULL, device TEXT NOT NULL,"
    "  matrix TEXT NOT NULL, problem TEXT NOT NULL,"
    "  objective_a TEXT NOT NULL, objective_b TEXT NOT NULL,"
    "  point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,"
    "  a REAL NOT NULL, b REAL NOT NULL,"
    "  position INTEGER NOT NULL CHECK (position >= 0),"
    "  computed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
    "  UNIQUE (experiment, kernel, device, matrix, problem, objective_a, objective_b, point_id))";

/* The SQL of an objective's value for point p: a column, or the metric's available value. */
static int objective_sql(struct sqlite3 *db, const char *name, int param, char *out, size_t len,
                         rt_err *err)
{
    for (int i = 0; i < N_COLUMNS; ++i)
        if (strcmp(name, k_columns[i]) == 0) {
            snprintf(out, len, "p.%s", k_columns[i]);
            return 0;
        }
    sqlite3_stmt *s = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM metrics WHERE name = ?1 LIMIT 1", -1, &s, NULL) !=
        SQLITE_OK)
        return rt_err_set(err, "reading metrics: %s", sqlite3_errmsg(db));
    sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
    found = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    if (!found)
        return rt_err_set(err,
                          "objective '%s' is neither a points column (time_median_s, time_min_s, "
                          "time_mean_s, setup_s) nor a metric this store holds (energy_j with "
                          "measure.energy, ...)",
                          name);
    snprintf(out, len,
             "(SELECT m.value FROM metrics m WHERE m.point_id = p.id AND m.name = ?%d AND "
             "m.available = 1)",
             param);
    return 0;
}

/* The reason a candidate has no value of an objective, when the objective is a metric. */
static void missing_reason(struct sqlite3 *db, int64_t point_id, const char *name, char *out,
                           size_t len)
{
    sqlite3_stmt *s = NULL;
    snprintf(out, len, "%s: no value", name);
    if (sqlite3_prepare_v2(db, "SELECT reason FROM metrics WHERE point_id = ?1 AND name = ?2", -1,
                           &s, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(s, 1, point_id);
    sqlite3_bind_text(s, 2, name, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
        snprintf(out, len, "%s: %s", name, (const char *)sqlite3_column_text(s, 0));
    else
        snprintf(out, len, "%s: not recorded", name);
    sqlite3_finalize(s);
}

static int same_sweep(const rt_pareto_sweep *w, sqlite3_stmt *s)
{
    return strcmp(w->experiment, (const char *)sqlite3_column_text(s, 1)) == 0 &&
           strcmp(w->kernel, (const char *)sqlite3_column_text(s, 2)) == 0 &&
           strcmp(w->device, (const char *)sqlite3_column_text(s, 3)) == 0 &&
           strcmp(w->matrix, (const char *)sqlite3_column_text(s, 4)) == 0 &&
           strcmp(w->problem, (const char *)sqlite3_column_text(s, 5)) == 0;
}

static rt_pareto_sweep *new_sweep(rt_pareto_set *set, sqlite3_stmt *s, rt_err *err)
{
    rt_pareto_sweep *grown = realloc(set->sweeps, (size_t)(set->n + 1) * sizeof *grown);
    if (!grown) {
        rt_err_set(err, "out of memory for %d sweeps", set->n + 1);
        return NULL;
    }
    set->sweeps = grown;
    rt_pareto_sweep *w = &set->sweeps[set->n++];
    memset(w, 0, sizeof *w);
    snprintf(w->experiment, sizeof w->experiment, "%s", sqlite3_column_text(s, 1));
    snprintf(w->kernel, sizeof w->kernel, "%s", sqlite3_column_text(s, 2));
    snprintf(w->device, sizeof w->device, "%s", sqlite3_column_text(s, 3));
    snprintf(w->matrix, sizeof w->matrix, "%s", sqlite3_column_text(s, 4));
    snprintf(w->problem, sizeof w->problem, "%s", sqlite3_column_text(s, 5));
    return w;
}

static int add_point(rt_pareto_sweep *w, sqlite3_stmt *s, rt_err *err)
{
    rt_pareto_point *grown = realloc(w->points, (size_t)(w->n + 1) * sizeof *grown);
    if (!grown)
        return rt_err_set(err, "out of memory for %d points", w->n + 1);
    w->points = grown;
    rt_pareto_point *p = &w->points[w->n++];
    memset(p, 0, sizeof *p);
    p->point_id = sqlite3_column_int64(s, 0);
    snprintf(p->params, sizeof p->params, "%s", sqlite3_column_text(s, 6));
    p->a = sqlite3_column_double(s, 7);
    p->b = sqlite3_column_double(s, 8);
    return 0;
}

static int compute_fronts(rt_pareto_set *set, rt_err *err)
{
    for (int k = 0; k < set->n; ++k) {
        rt_pareto_sweep *w = &set->sweeps[k];
        double *a = malloc((size_t)(w->n + 1) * sizeof *a);
        double *b = malloc((size_t)(w->n + 1) * sizeof *b);
        int *on = malloc((size_t)(w->n + 1) * sizeof *on);
        int rc = (a && b && on) ? 0 : rt_err_set(err, "out of memory for a front");
        for (int i = 0; rc == 0 && i < w->n; ++i) {
            a[i] = w->points[i].a;
            b[i] = w->points[i].b;
        }
        if (rc == 0 && (w->n_front = rt_pareto_front(a, b, w->n, on, err)) < 0)
            rc = -1;
        for (int i = 0; rc == 0 && i < w->n; ++i)
            w->points[i].on_front = on[i];
        free(a);
        free(b);
        free(on);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int rt_pareto_front_order(const rt_pareto_sweep *w, int *order)
{
    int m = 0;
    for (int i = 0; i < w->n; ++i)
        if (w->points[i].on_front)
            order[m++] = i;
    for (int i = 1; i < m; ++i) /* insertion sort by a, then b: fronts are short */
        for (int j = i; j > 0 && (w->points[order[j]].a < w->points[order[j - 1]].a ||
                                  (w->points[order[j]].a == w->points[order[j - 1]].a &&
                                   w->points[order[j]].b < w->points[order[j - 1]].b));
             --j) {
            const int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    return m;
}

int rt_pareto_read(struct sqlite3 *db, const char *experiment, const char *objective_a,
                   const char *objective_b, rt_pareto_set *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    if (!objective_a || !objective_b || !*objective_a || !*objective_b ||
        strcmp(objective_a, objective_b) == 0)
        return rt_err_set(err, "two different objectives are needed, got '%s' and '%s'",
                          objective_a ? objective_a : "", objective_b ? objective_b : "");
    if (strlen(objective_a) >= sizeof out->objective[0] ||
        strlen(objective_b) >= sizeof out->objective[1])
        return rt_err_set(err, "an objective name is longer than %zu characters",
                          sizeof out->objective[0] - 1);
    snprintf(out->objective[0], sizeof out->objective[0], "%s", objective_a);
    snprintf(out->objective[1], sizeof out->objective[1], "%s", objective_b);
    char ea[256], eb[256];
    if (objective_sql(db, objective_a, 2, ea, sizeof ea, err) != 0 ||
        objective_sql(db, objective_b, 3, eb, sizeof eb, err) != 0)
        return -1;
    /* The newest verified ok point of each point key. */
    char sql[2048];
    snprintf(sql, sizeof sql,
             "SELECT p.id, p.experiment, p.kernel, p.device, p.matrix, p.problem, p.params, %s, "
             "%s FROM points p WHERE p.status = 'ok' AND p.verified = 1 AND (?1 IS NULL OR "
             "p.experiment = ?1) AND p.id = (SELECT MAX(q.id) FROM points q WHERE q.point_key = "
             "p.point_key AND q.experiment = p.experiment AND q.status = 'ok' AND q.verified = 1) "
             "ORDER BY p.experiment, p.kernel, p.device, p.matrix, p.problem, p.id",
             ea, eb);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return rt_err_set(err, "not a rooftune store with points (%s)", sqlite3_errmsg(db));
    if (experiment)
        sqlite3_bind_text(s, 1, experiment, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, objective_a, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, objective_b, -1, SQLITE_TRANSIENT);
    int rc = 0, step;
    rt_pareto_sweep *w = NULL;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (!w || !same_sweep(w, s))
            w = new_sweep(out, s, err);
        if (!w) {
            rc = -1;
            break;
        }
        const int have_a = sqlite3_column_type(s, 7) != SQLITE_NULL;
        const int have_b = sqlite3_column_type(s, 8) != SQLITE_NULL;
        if (have_a && have_b) {
            rc = add_point(w, s, err);
            continue;
        }
        if (w->n_missing++ == 0)
            missing_reason(db, sqlite3_column_int64(s, 0), have_a ? objective_b : objective_a,
                           w->missing, sizeof w->missing);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rt_err_set(err, "reading the points: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    if (rc == 0)
        rc = compute_fronts(out, err);
    if (rc != 0)
        rt_pareto_set_free(out);
    return rc;
}

static int store_sweep(struct sqlite3 *db, const rt_pareto_set *set, const rt_pareto_sweep *w,
                       sqlite3_stmt *del, sqlite3_stmt *ins, rt_err *err)
{
    sqlite3_reset(del);
    const char *key[] = {w->experiment, w->kernel,         w->device,        w->matrix,
                         w->problem,    set->objective[0], set->objective[1]};
    for (int i = 0; i < 7; ++i)
        sqlite3_bind_text(del, i + 1, key[i], -1, SQLITE_TRANSIENT);
    if (sqlite3_step(del) != SQLITE_DONE)
        return rt_err_set(err, "pareto table: %s", sqlite3_errmsg(db));
    int *order = malloc((size_t)(w->n_front + 1) * sizeof *order);
    if (!order)
        return rt_err_set(err, "out of memory");
    const int m = rt_pareto_front_order(w, order);
    int rc = 0;
    for (int position = 0; rc == 0 && position < m; ++position) {
        const rt_pareto_point *p = &w->points[order[position]];
        sqlite3_reset(ins);
        for (int i = 0; i < 7; ++i)
            sqlite3_bind_text(ins, i + 1, key[i], -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(ins, 8, p->point_id);
        sqlite3_bind_double(ins, 9, p->a);
        sqlite3_bind_double(ins, 10, p->b);
        sqlite3_bind_int(ins, 11, position);
        if (sqlite3_step(ins) != SQLITE_DONE)
            rc = rt_err_set(err, "pareto table: %s", sqlite3_errmsg(db));
    }
    free(order);
    return rc;
}

int rt_pareto_store(struct sqlite3 *db, const rt_pareto_set *set, rt_err *err)
{
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return rt_err_set(err, "pareto table: cannot write the store: %s", sqlite3_errmsg(db));
    sqlite3_stmt *del = NULL, *ins = NULL;
    int rc = 0;
    char *msg = NULL;
    if (sqlite3_exec(db, k_schema, NULL, NULL, &msg) != SQLITE_OK) {
        rc = rt_err_set(err, "cannot create the pareto table: %s", msg ? msg : "?");
        sqlite3_free(msg);
    }
    if (rc == 0 &&
        (sqlite3_prepare_v2(db,
                            "DELETE FROM pareto WHERE experiment = ?1 AND kernel = ?2 AND device = "
                            "?3 AND matrix = ?4 AND problem = ?5 AND objective_a = ?6 AND "
                            "objective_b = ?7",
                            -1, &del, NULL) != SQLITE_OK ||
         sqlite3_prepare_v2(db,
                            "INSERT INTO pareto (experiment, kernel, device, matrix, problem, "
                            "objective_a, objective_b, point_id, a, b, position) VALUES (?1, ?2, "
                            "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                            -1, &ins, NULL) != SQLITE_OK))
        rc = rt_err_set(err, "pareto table: %s", sqlite3_errmsg(db));
    for (int k = 0; rc == 0 && k < set->n; ++k)
        rc = store_sweep(db, set, &set->sweeps[k], del, ins, err);
    sqlite3_finalize(del);
    sqlite3_finalize(ins);
    if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = rt_err_set(err, "pareto table: committing: %s", sqlite3_errmsg(db));
    if (rc != 0)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

void rt_pareto_set_free(rt_pareto_set *set)
{
    for (int k = 0; k < set->n; ++k)
        free(set->sweeps[k].points);
    free(set->sweeps);
    set->sweeps = NULL;
    set->n = 0;
}
