#include "rt_test_walk.h"

#include <math.h>
#include <stdio.h>

int rt_test_walk(const rt_strategy_args *args, const rt_grid *g, double (*objective)(int64_t),
                 int64_t *seq, int cap, double *best)
{
    rt_strategy *s = NULL;
    rt_err err;
    if (rt_strategy_create(args, g, &s, &err) != 0) {
        fprintf(stderr, "%s: %s\n", args->name, err.msg);
        return -1;
    }
    double lowest = INFINITY;
    int n = 0;
    int64_t i;
    while (rt_strategy_next(s, &i) == 1) {
        if (n < cap)
            seq[n] = i;
        ++n;
        const double t = objective(i);
        if (t < lowest)
            lowest = t;
        rt_strategy_report(s, i, t);
    }
    rt_strategy_free(s);
    if (best)
        *best = lowest;
    return n;
}
