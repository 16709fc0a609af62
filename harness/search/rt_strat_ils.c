/* ils: greedy iterated local search. From the current point it tries one-parameter moves,
 * adjacent values first, and moves to the first that improves (first improvement, so a descent
 * along one parameter costs one evaluation per step). At a local optimum (no untried move left)
 * it perturbs the best point found in a few parameters and descends again from there. */
#include <math.h>
#include <stdlib.h>

#include "rt_strategy_impl.h"

/* Perturbation: up to this many parameters get a random value. */
#define ILS_PERTURB_DIMS  3
#define ILS_PERTURB_TRIES 64
#define ILS_MAX_MOVES     4096

typedef struct ils_state {
    int64_t current;
    double current_obj;
    int restarting; /* the next observed point becomes current whatever its objective */
    int64_t moves[ILS_MAX_MOVES];
} ils_state;

static int ils_init(rt_strategy *s, rt_err *err)
{
    ils_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy ils");
    st->current = -1;
    st->current_obj = INFINITY;
    s->state = st;
    return 0;
}

static int64_t ils_propose(rt_strategy *s)
{
    ils_state *st = s->state;
    if (st->current < 0)
        return -1;
    const int n = rt_strat_open_neighbours(s, st->current, 1, st->moves, ILS_MAX_MOVES);
    if (n > 0 && rt_strat_take(s, st->moves[0]))
        return st->moves[0];
    st->restarting = 1;
    return rt_strat_take_perturbed(s, s->best >= 0 ? s->best : st->current, ILS_PERTURB_DIMS,
                                   ILS_PERTURB_TRIES);
}

static void ils_observe(rt_strategy *s, int64_t index, double obj)
{
    ils_state *st = s->state;
    if (st->restarting || st->current < 0) {
        st->restarting = 0;
        if (isfinite(obj)) {
            st->current = index;
            st->current_obj = obj;
        } else if (s->best >= 0) {
            st->current = s->best;
            st->current_obj = s->best_obj;
        }
        return;
    }
    if (obj < st->current_obj) {
        st->current = index;
        st->current_obj = obj;
    }
}

static void ils_release(rt_strategy *s)
{
    free(s->state);
    s->state = NULL;
}

const rt_strategy_ops rt_strat_ils_ops = {.name = "ils",
                                          .init = ils_init,
                                          .propose = ils_propose,
                                          .observe = ils_observe,
                                          .release = ils_release};
