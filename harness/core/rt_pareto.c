#include "rt_pareto.h"

#include <math.h>
#include <stdlib.h>

typedef struct pair {
    double a, b;
    int i;
} pair;

/* By a, then b: a point can only be dominated by one that comes before it. */
static int by_a_then_b(const void *pa, const void *pb)
{
    const pair *x = pa, *y = pb;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return x->i - y->i;
}

int rt_pareto_front(const double *a, const double *b, int n, int *on_front, rt_err *err)
{
    pair *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    if (!p)
        return rt_err_set(err, "out of memory for a Pareto front of %d points", n);
    int m = 0;
    for (int i = 0; i < n; ++i) {
        on_front[i] = 0;
        if (isfinite(a[i]) && isfinite(b[i]))
            p[m++] = (pair){a[i], b[i], i};
    }
    qsort(p, (size_t)m, sizeof *p, by_a_then_b);
    /* Sweep in order of a: a point is on the front when its b is below every b before it, or
     * equals the last front point in both (an exact tie). */
    int count = 0;
    double best_b = INFINITY, last_a = NAN, last_b = NAN;
    for (int k = 0; k < m; ++k) {
        const int tie = count > 0 && p[k].a == last_a && p[k].b == last_b;
        if (p[k].b < best_b || tie) {
            on_front[p[k].i] = 1;
            ++count;
            best_b = p[k].b;
            last_a = p[k].a;
            last_b = p[k].b;
        }
    }
    free(p);
    return count;
}
