/* basinhop: basin hopping. A first-improvement descent over one-parameter moves (adjacent values
 * first) finds a local optimum; the optimum becomes the new home with the Metropolis rule (always
 * when better, with probability exp(-relative loss / T) when worse), and the next descent starts
 * from a perturbation of the home. Unlike ils, it can wander away from the best basin, which pays
 * on spaces with many similar optima. */
#include <math.h>
#include <stdlib.h>

#include "rt_strategy_impl.h"

typedef struct bh_state {
    rt_strat_descent descent;
    int64_t home;
    double home_obj;
    double temperature;
    int perturb_dims;
} bh_state;

static const rt_strategy_option bh_options[] = {
    {"temperature", 0.05, 1e-6, 100, 0,
     "a local optimum this much worse (relative) than home is accepted with probability 1/e"},
    {"perturb", 2, 1, RT_MAX_PARAMS, 1,
     "a hop gives up to this many parameters of home a random value"},
};

static int bh_init(rt_strategy *s, rt_err *err)
{
    bh_state *st = malloc(sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy basinhop");
    rt_strat_descent_init(&st->descent);
    st->home = -1;
    st->home_obj = INFINITY;
    st->temperature = rt_strat_option(s, "temperature");
    st->perturb_dims = (int)rt_strat_option(s, "perturb");
    s->state = st;
    return 0;
}

static int64_t bh_propose(rt_strategy *s)
{
    bh_state *st = s->state;
    rt_strat_descent *d = &st->descent;
    if (d->current < 0)
        return -1;
    const int64_t i = rt_strat_descent_move(s, d);
    if (i >= 0)
        return i;
    /* current is a local optimum: hop. */
    const double loss = rt_strat_rel_loss(d->current_obj, st->home_obj);
    if (st->home < 0 || loss <= 0 || rt_strat_unif(s) < exp(-loss / st->temperature)) {
        st->home = d->current;
        st->home_obj = d->current_obj;
    }
    return rt_strat_descent_restart(s, d, st->home, st->perturb_dims);
}

static void bh_observe(rt_strategy *s, int64_t index, double obj)
{
    bh_state *st = s->state;
    rt_strat_descent_observe(&st->descent, index, obj, st->home, st->home_obj);
}

const rt_strategy_ops rt_strat_basinhop_ops = {
    {"basinhop",
     "basin hopping: the same descent as ils, with Metropolis acceptance between local optima",
     bh_options, RT_N_OPTIONS(bh_options), RT_STRATEGY_DEFAULT_BUDGET, 0, 0, 0},
    bh_init,
    bh_propose,
    bh_observe,
    rt_strat_free_state};
