/* ils: greedy iterated local search. After `init` random points (the descent starts from the best
 * of them, not from whichever point came first), it tries one-parameter moves,
 * adjacent values first, and moves to the first that improves (first improvement, so a descent
 * along one parameter costs one evaluation per step). At a local optimum (no untried move left)
 * it perturbs the best point found in a few parameters and descends again from there. */
#include <stdlib.h>

#include "rt_strategy_impl.h"

typedef struct ils_state {
    rt_strat_descent descent;
    int perturb_dims;
    int init; /* random points before the first descent, which starts from the best of them */
} ils_state;

static const rt_strategy_option ils_options[] = {
    {"perturb", 3, 1, RT_MAX_PARAMS, 1,
     "a restart gives up to this many parameters of the best point a random value"},
    {"init", 5, 1, 1000, 1,
     "random points before the first descent, which starts from the best of them"},
};

static int ils_init(rt_strategy *s, rt_err *err)
{
    ils_state *st = malloc(sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy ils");
    rt_strat_descent_init(&st->descent);
    st->perturb_dims = (int)rt_strat_option(s, "perturb");
    st->init = (int)rt_strat_option(s, "init");
    s->state = st;
    return 0;
}

static int64_t ils_propose(rt_strategy *s)
{
    ils_state *st = s->state;
    if (s->n_hist < st->init)
        return -1; /* the initial design: the driver's random points */
    if (st->descent.current < 0) {
        if (s->best < 0)
            return -1; /* nothing valid yet: keep sampling */
        st->descent.current = s->best;
        st->descent.current_obj = s->best_obj;
    }
    const int64_t i = rt_strat_descent_move(s, &st->descent);
    return i >= 0 ? i
                  : rt_strat_descent_restart(s, &st->descent,
                                             s->best >= 0 ? s->best : st->descent.current,
                                             st->perturb_dims);
}

static void ils_observe(rt_strategy *s, int64_t index, double obj)
{
    ils_state *st = s->state;
    if (st->descent.current >= 0)
        rt_strat_descent_observe(&st->descent, index, obj, s->best, s->best_obj);
}

const rt_strategy_ops rt_strat_ils_ops = {
    {"ils",
     "greedy iterated local search: from the best of a few random points, first-improvement "
     "descent over one-parameter moves, adjacent values first; at a local optimum, perturbs the "
     "best point",
     ils_options, RT_N_OPTIONS(ils_options), RT_STRATEGY_DEFAULT_BUDGET, 0, 0, 0},
    ils_init,
    ils_propose,
    ils_observe,
    rt_strat_free_state};
