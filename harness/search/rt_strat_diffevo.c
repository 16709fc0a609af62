/* diffevo: differential evolution, DE/best/1/bin, steady state. The population holds NP points
 * as real coordinates; for each target in turn a trial is best + F (r1 - r2), crossed with the
 * target parameter by parameter (probability CR, one parameter always from the mutant), rounded
 * to the grid (the nearest open point when that one is taken or infeasible). The trial replaces
 * its target when it is at least as good. The first NP points are random. */
#include <math.h>
#include <stdlib.h>

#include "rt_strategy_impl.h"

#define DE_NP 12
#define DE_F  0.7
#define DE_CR 0.7

typedef struct de_state {
    double x[DE_NP][RT_MAX_PARAMS];
    double obj[DE_NP];
    int n;           /* members so far */
    int target;      /* whose trial is pending, -1 for none */
    int next_target; /* round robin */
    double trial[RT_MAX_PARAMS];
} de_state;

static int de_init(rt_strategy *s, rt_err *err)
{
    de_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy diffevo");
    st->target = -1;
    s->state = st;
    return 0;
}

static int64_t de_propose(rt_strategy *s)
{
    de_state *st = s->state;
    st->target = -1;
    if (st->n < DE_NP)
        return -1;
    int best = 0;
    for (int i = 1; i < DE_NP; ++i)
        if (st->obj[i] < st->obj[best])
            best = i;
    const int tg = st->next_target;
    st->next_target = (st->next_target + 1) % DE_NP;
    int r1, r2;
    do
        r1 = (int)rt_strat_below(s, DE_NP);
    while (r1 == tg);
    do
        r2 = (int)rt_strat_below(s, DE_NP);
    while (r2 == tg || r2 == r1);
    const int nd = s->grid.n_dims;
    const int forced = (int)rt_strat_below(s, nd);
    /* F dithered per trial, a common remedy for stagnation on discrete grids. */
    const double f = DE_F * (0.5 + rt_strat_unif(s));
    for (int d = 0; d < nd; ++d) {
        const double mutant = st->x[best][d] + f * (st->x[r1][d] - st->x[r2][d]);
        st->trial[d] = (d == forced || rt_strat_unif(s) < DE_CR) ? mutant : st->x[tg][d];
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
    } else if (st->n < DE_NP) {
        slot = st->n++;
    } else {
        /* A random point the driver drew: it joins in place of the worst member if better. */
        int worst = 0;
        for (int i = 1; i < DE_NP; ++i)
            if (st->obj[i] > st->obj[worst])
                worst = i;
        if (obj < st->obj[worst])
            slot = worst;
    }
    st->target = -1;
    if (slot < 0)
        return;
    for (int d = 0; d < s->grid.n_dims; ++d)
        st->x[slot][d] = (double)c[d];
    st->obj[slot] = obj;
}

static void de_release(rt_strategy *s)
{
    free(s->state);
    s->state = NULL;
}

const rt_strategy_ops rt_strat_diffevo_ops = {.name = "diffevo",
                                              .init = de_init,
                                              .propose = de_propose,
                                              .observe = de_observe,
                                              .release = de_release};
