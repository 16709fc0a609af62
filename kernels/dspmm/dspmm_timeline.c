#include "dspmm_timeline.h"

#include <stdlib.h>

static const char *const phase_names[DSPMM_PH_COUNT] = {"multiply", "d2h",    "ipc",
                                                        "h2d",      "reduce", "mpi"};

const char *dspmm_phase_name(dspmm_phase ph)
{
    return (int)ph >= 0 && ph < DSPMM_PH_COUNT ? phase_names[ph] : "unknown";
}

int dspmm_timeline_init(dspmm_timeline *t, int64_t cap, rt_err *err)
{
    t->n = 0;
    t->cap = cap > 0 ? cap : 16;
    t->start = malloc((size_t)t->cap * sizeof *t->start);
    t->end = malloc((size_t)t->cap * sizeof *t->end);
    t->phase = malloc((size_t)t->cap * sizeof *t->phase);
    if (!t->start || !t->end || !t->phase) {
        dspmm_timeline_free(t);
        return rt_err_set(err, "dspmm timeline: out of memory for %lld intervals", (long long)cap);
    }
    return 0;
}

void dspmm_timeline_free(dspmm_timeline *t)
{
    free(t->start);
    free(t->end);
    free(t->phase);
    t->start = t->end = NULL;
    t->phase = NULL;
    t->n = t->cap = 0;
}

void dspmm_timeline_clear(dspmm_timeline *t)
{
    t->n = 0;
}

int dspmm_timeline_add(dspmm_timeline *t, dspmm_phase ph, double start, double end, rt_err *err)
{
    if ((int)ph < 0 || ph >= DSPMM_PH_COUNT)
        return rt_err_set(err, "dspmm timeline: phase %d out of range", (int)ph);
    if (!(end >= start))
        return rt_err_set(err, "dspmm timeline: a %s interval ends (%g s) before it starts (%g s)",
                          dspmm_phase_name(ph), end, start);
    if (t->n == t->cap) {
        const int64_t cap = 2 * (t->cap > 0 ? t->cap : 8);
        double *s = realloc(t->start, (size_t)cap * sizeof *s);
        if (s)
            t->start = s;
        double *e = s ? realloc(t->end, (size_t)cap * sizeof *e) : NULL;
        if (e)
            t->end = e;
        int *p = e ? realloc(t->phase, (size_t)cap * sizeof *p) : NULL;
        if (!p)
            return rt_err_set(err, "dspmm timeline: out of memory for %lld intervals",
                              (long long)cap);
        t->phase = p;
        t->cap = cap;
    }
    t->start[t->n] = start;
    t->end[t->n] = end;
    t->phase[t->n] = (int)ph;
    t->n++;
    return 0;
}

typedef struct span {
    double a, b;
} span;

static int by_start(const void *x, const void *y)
{
    const double a = ((const span *)x)->a, b = ((const span *)y)->a;
    return (a > b) - (a < b);
}

/* The length of the union of n spans (sorted here). */
static double union_length(span *v, int64_t n)
{
    if (n == 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof *v, by_start);
    double total = 0.0, lo = v[0].a, hi = v[0].b;
    for (int64_t i = 1; i < n; ++i) {
        if (v[i].a > hi) {
            total += hi - lo;
            lo = v[i].a;
            hi = v[i].b;
        } else if (v[i].b > hi) {
            hi = v[i].b;
        }
    }
    return total + (hi - lo);
}

int dspmm_timeline_busy(const dspmm_timeline *t, dspmm_busy *out, rt_err *err)
{
    span *v = malloc((size_t)(t->n > 0 ? t->n : 1) * sizeof *v);
    if (!v)
        return rt_err_set(err, "dspmm timeline: out of memory");
    out->sum = 0.0;
    for (int ph = 0; ph < DSPMM_PH_COUNT; ++ph) {
        int64_t m = 0;
        for (int64_t i = 0; i < t->n; ++i)
            if (t->phase[i] == ph)
                v[m++] = (span){t->start[i], t->end[i]};
        out->phase[ph] = union_length(v, m);
        out->sum += out->phase[ph];
    }
    for (int64_t i = 0; i < t->n; ++i)
        v[i] = (span){t->start[i], t->end[i]};
    out->uni = union_length(v, t->n);
    free(v);
    return 0;
}
