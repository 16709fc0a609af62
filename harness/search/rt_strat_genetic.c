/* genetic: a steady-state genetic algorithm. The population is the best POP points measured so
 * far (elitist); each child takes every parameter from one of two parents chosen by binary
 * tournament (uniform crossover), then each parameter mutates with probability 1/dims, to an
 * adjacent value (more often) or a random one. A child already measured or infeasible is bred
 * again; after a few failures the driver's random point keeps the population diverse. The first
 * POP points are random. */
#include <math.h>
#include <stdlib.h>

#include "rt_strategy_impl.h"

#define GA_POP_MAX     64
#define GA_BREED_TRIES 32

typedef struct ga_state {
    int64_t member[GA_POP_MAX];
    double obj[GA_POP_MAX];
    int n;   /* members so far, sorted by objective */
    int pop; /* the population's size */
    double adjacent;
} ga_state;

static const rt_strategy_option ga_options[] = {
    {"population", 16, 2, GA_POP_MAX, 1, "the best this many points breed"},
    {"adjacent", 0.7, 0, 1, 0, "share of mutations that move to an adjacent value (else random)"},
};

static int ga_init(rt_strategy *s, rt_err *err)
{
    ga_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy genetic");
    st->pop = (int)rt_strat_option(s, "population");
    st->adjacent = rt_strat_option(s, "adjacent");
    s->state = st;
    return 0;
}

static int tournament(rt_strategy *s, const ga_state *st)
{
    const int a = (int)rt_strat_below(s, st->n), b = (int)rt_strat_below(s, st->n);
    return a < b ? a : b; /* members are sorted: the lower position is the fitter */
}

static int64_t ga_propose(rt_strategy *s)
{
    ga_state *st = s->state;
    if (st->n < st->pop && s->n_hist < 2 * st->pop)
        return -1;
    if (st->n < 2)
        return -1;
    const int nd = s->grid.n_dims;
    int64_t pa[RT_MAX_PARAMS], pb[RT_MAX_PARAMS], child[RT_MAX_PARAMS];
    for (int t = 0; t < GA_BREED_TRIES; ++t) {
        rt_strat_coords(s, st->member[tournament(s, st)], pa);
        rt_strat_coords(s, st->member[tournament(s, st)], pb);
        for (int d = 0; d < nd; ++d) {
            child[d] = rt_strat_unif(s) < 0.5 ? pa[d] : pb[d];
            if (s->grid.dim_size[d] > 1 && rt_strat_unif(s) < 1.0 / nd) {
                if (rt_strat_unif(s) < st->adjacent) {
                    const int64_t v = child[d] + (rt_strat_unif(s) < 0.5 ? -1 : 1);
                    child[d] = v < 0 ? 1 : (v >= s->grid.dim_size[d] ? v - 2 : v);
                } else {
                    child[d] = rt_strat_below(s, s->grid.dim_size[d]);
                }
            }
        }
        const int64_t i = rt_strat_index(s, child);
        if (rt_strat_take(s, i))
            return i;
    }
    return -1;
}

static void ga_observe(rt_strategy *s, int64_t index, double obj)
{
    ga_state *st = s->state;
    if (!isfinite(obj))
        return;
    if (st->n == st->pop && obj >= st->obj[st->pop - 1])
        return;
    int pos = st->n < st->pop ? st->n++ : st->pop - 1;
    while (pos > 0 && st->obj[pos - 1] > obj) {
        st->member[pos] = st->member[pos - 1];
        st->obj[pos] = st->obj[pos - 1];
        --pos;
    }
    st->member[pos] = index;
    st->obj[pos] = obj;
}

const rt_strategy_ops rt_strat_genetic_ops = {
    {"genetic",
     "steady-state genetic algorithm: the best points are the population; binary tournament, "
     "uniform crossover, mutation of each parameter with probability 1/dims",
     ga_options, RT_N_OPTIONS(ga_options), RT_STRATEGY_DEFAULT_BUDGET, 0, 0, 0},
    ga_init,
    ga_propose,
    ga_observe,
    rt_strat_free_state};
