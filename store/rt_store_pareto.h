/* rt_store_pareto: two objectives of tuning (time and energy, time and memory) over a store, and
 * the Pareto front of every sweep (kernel, device, matrix, problem point) stored beside the points.
 * An objective is minimised and is either a points column (time_median_s, time_min_s,
 * time_mean_s, setup_s) or a metric the store holds (energy_j, power_w, ...). Candidates are the
 * verified points with status ok, the newest of each point when runs measured it again; a point
 * without a value of an objective (a metric recorded unavailable) is counted, not placed.
 *
 * The `pareto` table (created when first written; docs/reference/store.md) keeps each front:
 * one row per point on it, with both values and its place along the front by the first
 * objective; computing a sweep's front again for the same objectives replaces its rows. */
#ifndef RT_STORE_PARETO_H
#define RT_STORE_PARETO_H

#include <stdint.h>

#include "rt_error.h"

struct sqlite3;

typedef struct rt_pareto_point {
    int64_t point_id;
    double a, b; /* the two objectives */
    int on_front;
    char params[1024];
} rt_pareto_point;

typedef struct rt_pareto_sweep {
    char experiment[64], kernel[96], device[128], matrix[64], problem[512];
    int n; /* candidates with both objectives */
    rt_pareto_point *points;
    int n_front;
    int n_missing;     /* candidates without a value of an objective */
    char missing[160]; /* why, for the first of them (the metric's reason) */
} rt_pareto_sweep;

typedef struct rt_pareto_set {
    char objective[2][64];
    int n;
    rt_pareto_sweep *sweeps;
} rt_pareto_set;

/* Reads the candidates of experiment (NULL: every experiment) and computes each sweep's front.
 * Fails naming an objective that is neither a column above nor a metric of the store. */
int rt_pareto_read(struct sqlite3 *db, const char *experiment, const char *objective_a,
                   const char *objective_b, rt_pareto_set *out, rt_err *err);
/* The indices of w's points on its front, along it by the first objective (then the second):
 * returns how many (order has room for w->n_front). */
int rt_pareto_front_order(const rt_pareto_sweep *w, int *order);
/* Writes the fronts into the pareto table in one transaction. */
int rt_pareto_store(struct sqlite3 *db, const rt_pareto_set *set, rt_err *err);
void rt_pareto_set_free(rt_pareto_set *set);

#endif
