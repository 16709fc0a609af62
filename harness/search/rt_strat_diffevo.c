/* diffevo: differential evolution, DE/best/1/bin, steady state. The population holds NP points
 * as real coordinates; for each target in turn a trial is best + F (r1 - r2), crossed with the
 * target parameter by parameter (probability CR, one parameter always from the mutant), rounded
 * to the grid (the nearest open point when that one is taken or infeasible). The trial replaces
 * its target when it is at least as good. The first NP points are random. */
#include <math.h>
#include <stdlib.h>

#include "rt_strategy_impl.h"

#define DE_NP_MAX 64

typedef struct de_state {
    double x[DE_NP_MAX][RT_MAX_PARAMS];
    double obj[DE_NP_MAX];
    int np;          /* population size */
    double f, cr;    /* differential weight, crossover probability */
    int n;           /* members so far */
    int target;      /* whose trial is pending, -1 for none */
    int next_target; /* round robin */
    double trial[RT_MAX_PARAMS];
} de_state;

static const rt_strategy_option de_options[] = {
    {"population", 12, 4, DE_NP_MAX, 1, "members (the first ones are random points)"},
    {"f", 0.7, 0, 2, 0, "differential weight, dithered per trial in [F/2, 3F/2)"},
    {"cr", 0.7, 0, 1, 0, "crossover probability per parameter"},
};

static int de_init(rt_strategy *s, rt_err *err)
{
    de_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy diffevo");
    st->target = -1;
    st->np = (int)rt_strat_option(s, "population");
    st->f = rt_strat_option(s, "f");
    st->cr = rt_strat_option(s, "cr");
    s->state = st;
    return 0;
}

static int64_t de_propose(rt_strategy *s)
{
    de_state *st = s->state;
    st->target = -1;
    const int np = st->np;
    if (st->n < np)
        return -1;
    int best = 0;
    for (int i = 1; i < np; ++i)
        if (st->obj[i] < st->obj[best])
            best = i;
    const int tg = st->next_target;
    st->next_target = (st->next_target + 1) % np;
    int r1, r2;
    do
        r1 = (int)rt_strat_below(s, np);
    while (r1 == tg);
    do
        r2 = (int)rt_strat_below(s, np);
    while (r2 == tg || r2 == r1);
    const int nd = s->grid.n_dims;
    const int forced = (int)rt_strat_below(s, nd);
    /* F dithered per trial, a common remedy for stagnation on discrete grids. */
    const double f = st->f * (0.5 + rt_strat_unif(s));
    for (int d = 0; d < nd; ++d) {
        const double mutant = st->x[best][d] + f * (st->x[r1][d] - st->x[r2][d]);
        st->trial[d] = (d == forced || rt_strat_unif(s) < st->cr) ? mutant : st->x[tg][d];
    }
    const int64_t i = rt_strat_take_near(s, st->trial);
    if (i >= 0)
        st->target = tg;
    return i;
}

static void de_observe(rt_strategy *s, int64_t index, double obj)
{
    de_state *st = s->state;
    int64_t c[RT_MAX_PARAMS];
    rt_strat_coords(s, index, c);
    int slot = -1;
    if (st->target >= 0) {
        if (obj <= st->obj[st->target])
            slot = st->target;
    } else if (st->n < st->np) {
        slot = st->n++;
    } else {
        /* A random point the driver drew: it joins in place of the worst member if better. */
        int worst = 0;
        for (int i = 1; i < st->np; ++i)
            if (st->obj[i] > st->obj[worst])
                worst = i;
        if (obj < st->obj[worst])
            slot = worst;
    }
    st->target = -1;
    if (slot < 0)
        return;
    st->obj[slot] = obj;
    for (int d = 0; d < s->grid.n_dims; ++d)
        st->x[slot][d] = (double)c[d];
}

const rt_strategy_ops rt_strat_diffevo_ops = {
    {"diffevo",
     "differential evolution DE/best/1/bin on coordinates (dithered F), rounded to the nearest "
     "open point of the grid",
     de_options, RT_N_OPTIONS(de_options), RT_STRATEGY_DEFAULT_BUDGET, 0, 0, 0},
    de_init,
    de_propose,
    de_observe,
    rt_strat_free_state};
