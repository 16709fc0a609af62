#include "rt_recorded.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rt_recorded_new(const char *kernel, const char *device, const char *unit, int n_dims,
                    const rt_recorded_dim *dims, rt_recorded **out, rt_err *err)
{
    *out = NULL;
    if (n_dims < 1 || n_dims > RT_MAX_PARAMS)
        return rt_err_set(err, "a recorded space needs 1 to %d parameters, not %d", RT_MAX_PARAMS,
                          n_dims);
    rt_recorded *r = calloc(1, sizeof *r);
    if (!r)
        return rt_err_set(err, "out of memory for a recorded space");
    snprintf(r->kernel, sizeof r->kernel, "%s", kernel ? kernel : "");
    snprintf(r->device, sizeof r->device, "%s", device ? device : "");
    snprintf(r->unit, sizeof r->unit, "%s", unit ? unit : "");
    r->n_dims = n_dims;
    r->grid.n_dims = n_dims;
    for (int d = 0; d < n_dims; ++d) {
        rt_recorded_dim *dst = &r->dims[d];
        snprintf(dst->name, sizeof dst->name, "%s", dims[d].name);
        dst->numeric = dims[d].numeric;
        dst->n_values = dims[d].n_values;
        dst->values =
            calloc((size_t)(dims[d].n_values > 0 ? dims[d].n_values : 1), sizeof *dst->values);
        if (!dst->values) {
            rt_recorded_free(r);
            return rt_err_set(err, "out of memory for a recorded space");
        }
        for (int v = 0; v < dims[d].n_values; ++v) {
            const size_t len = strlen(dims[d].values[v]) + 1;
            dst->values[v] = malloc(len);
            if (!dst->values[v]) {
                rt_recorded_free(r);
                return rt_err_set(err, "out of memory for a recorded space");
            }
            memcpy(dst->values[v], dims[d].values[v], len);
        }
        if (dims[d].n_values < 1) {
            rt_recorded_free(r);
            return rt_err_set(err, "parameter '%s' of the recorded space has no values",
                              dims[d].name);
        }
        r->grid.dim_size[d] = dims[d].n_values;
    }
    /* Grid indices are products of the value counts: bound them before one overflows. */
    int64_t size = 1;
    for (int d = 0; d < n_dims; ++d) {
        if (size > RT_RECORDED_MAX_GRID / r->grid.dim_size[d]) {
            rt_recorded_free(r);
            return rt_err_set(err,
                              "the recorded space's grid (the product of its %d parameters' value "
                              "counts) has more than %lld points, more than a search can address",
                              n_dims, (long long)RT_RECORDED_MAX_GRID);
        }
        size *= r->grid.dim_size[d];
    }
    *out = r;
    return 0;
}

static int64_t grid_index(const rt_recorded *r, const int64_t *coords)
{
    int64_t index = 0;
    for (int d = 0; d < r->n_dims; ++d)
        index = index * r->grid.dim_size[d] + coords[d];
    return index;
}

int rt_recorded_add(rt_recorded *r, const int64_t *coords, double time, double bound, rt_err *err)
{
    for (int d = 0; d < r->n_dims; ++d)
        if (coords[d] < 0 || coords[d] >= r->grid.dim_size[d])
            return rt_err_set(err, "coordinate %lld of parameter '%s' is out of range",
                              (long long)coords[d], r->dims[d].name);
    if (!(time == INFINITY || (time > 0 && time <= RT_RECORDED_TIME_MAX)))
        return rt_err_set(err,
                          "time %g is not a positive number of at most %g (a failed "
                          "configuration has no time)",
                          time, RT_RECORDED_TIME_MAX);
    if (!(isnan(bound) || (bound > 0 && bound <= RT_RECORDED_TIME_MAX)))
        return rt_err_set(err, "roofline bound %g is not a positive number of at most %g", bound,
                          RT_RECORDED_TIME_MAX);
    if ((r->n_points & (r->n_points - 1)) == 0) { /* grow at powers of two */
        const int64_t cap = r->n_points ? 2 * r->n_points : 64;
        int64_t *ix = realloc(r->index, (size_t)cap * sizeof *ix);
        if (ix)
            r->index = ix;
        double *t = ix ? realloc(r->time, (size_t)cap * sizeof *t) : NULL;
        if (t)
            r->time = t;
        double *b = t ? realloc(r->bound, (size_t)cap * sizeof *b) : NULL;
        if (b)
            r->bound = b;
        if (!ix || !t || !b)
            return rt_err_set(err, "out of memory for %lld recorded configurations",
                              (long long)cap);
    }
    r->index[r->n_points] = grid_index(r, coords);
    r->time[r->n_points] = time;
    r->bound[r->n_points] = bound;
    r->n_points++;
    return 0;
}

typedef struct rec_entry {
    int64_t index;
    double time, bound;
} rec_entry;

static int cmp_entry(const void *a, const void *b)
{
    const int64_t x = ((const rec_entry *)a)->index, y = ((const rec_entry *)b)->index;
    return x < y ? -1 : x > y;
}

static int is_feasible(void *ctx, int64_t index)
{
    return !isnan(rt_recorded_time(ctx, index));
}

int rt_recorded_finish(rt_recorded *r, const char *what, rt_err *err)
{
    if (r->n_points == 0)
        return rt_err_set(err, "%s: no configurations recorded", what);
    rec_entry *e = malloc((size_t)r->n_points * sizeof *e);
    if (!e)
        return rt_err_set(err, "%s: out of memory", what);
    for (int64_t i = 0; i < r->n_points; ++i)
        e[i] = (rec_entry){r->index[i], r->time[i], r->bound[i]};
    qsort(e, (size_t)r->n_points, sizeof *e, cmp_entry);
    for (int64_t i = 0; i < r->n_points; ++i) {
        if (i > 0 && e[i].index == e[i - 1].index) {
            char cfg[512] = "";
            int64_t rest = e[i].index;
            int64_t coords[RT_MAX_PARAMS];
            for (int d = r->n_dims - 1; d >= 0; --d) {
                coords[d] = rest % r->grid.dim_size[d];
                rest /= r->grid.dim_size[d];
            }
            for (int d = 0; d < r->n_dims; ++d) {
                const size_t used = strlen(cfg);
                snprintf(cfg + used, sizeof cfg - used, "%s%s=%s", d ? "," : "", r->dims[d].name,
                         r->dims[d].values[coords[d]]);
            }
            free(e);
            return rt_err_set(err, "%s: configuration %s is recorded twice", what, cfg);
        }
        r->index[i] = e[i].index;
        r->time[i] = e[i].time;
        r->bound[i] = e[i].bound;
    }
    free(e);
    r->grid.feasible = is_feasible;
    r->grid.ctx = r;
    r->grid.feasible_list = r->index;
    r->grid.n_feasible = r->n_points;
    return 0;
}

static int64_t find(const rt_recorded *r, int64_t index)
{
    int64_t lo = 0, hi = r->n_points - 1;
    while (lo <= hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (r->index[mid] == index)
            return mid;
        if (r->index[mid] < index)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

double rt_recorded_time(const rt_recorded *r, int64_t index)
{
    const int64_t k = find(r, index);
    return k < 0 ? NAN : r->time[k];
}

double rt_recorded_bound(const rt_recorded *r, int64_t index)
{
    const int64_t k = find(r, index);
    return k < 0 ? NAN : r->bound[k];
}

double rt_recorded_optimum(const rt_recorded *r, int64_t *n_valid)
{
    double best = INFINITY;
    int64_t valid = 0;
    for (int64_t i = 0; i < r->n_points; ++i)
        if (isfinite(r->time[i])) {
            valid++;
            if (r->time[i] < best)
                best = r->time[i];
        }
    if (n_valid)
        *n_valid = valid;
    return best;
}

void rt_recorded_free(rt_recorded *r)
{
    if (!r)
        return;
    for (int d = 0; d < r->n_dims; ++d) {
        for (int v = 0; r->dims[d].values && v < r->dims[d].n_values; ++v)
            free(r->dims[d].values[v]);
        free(r->dims[d].values);
    }
    free(r->index);
    free(r->time);
    free(r->bound);
    free(r);
}
