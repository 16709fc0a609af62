/* basinhop: basin hopping. A first-improvement descent over one-parameter moves (adjacent values
 * first) finds a local optimum; the optimum becomes the new home with the Metropolis rule (always
 * when better, with probability exp(-relative loss / T) when worse), and the next descent starts
 * from a perturbation of the home. Unlike ils, it can wander away from the best basin, which pays
 * on spaces with many similar optima. */
#include <math.h>
#include <stdlib.h>

#include "rt_strategy_impl.h"

/* A local optimum 5% worse than home is accepted with probability 1/e. */
#define BH_TEMPERATURE   0.05
#define BH_PERTURB_DIMS  2
#define BH_PERTURB_TRIES 64
#define BH_MAX_MOVES     4096

typedef struct bh_state {
    int64_t current, home;
    double current_obj, home_obj;
    int restarting;
    int64_t moves[BH_MAX_MOVES];
} bh_state;

static int bh_init(rt_strategy *s, rt_err *err)
{
    bh_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy basinhop");
    st->current = st->home = -1;
    st->current_obj = st->home_obj = INFINITY;
    s->state = st;
    return 0;
}

static int64_t bh_propose(rt_strategy *s)
{
    bh_state *st = s->state;
    if (st->current < 0)
        return -1;
    const int n = rt_strat_open_neighbours(s, st->current, 1, st->moves, BH_MAX_MOVES);
    if (n > 0 && rt_strat_take(s, st->moves[0]))
        return st->moves[0];
    /* current is a local optimum: hop. */
    const double loss = rt_strat_rel_loss(st->current_obj, st->home_obj);
    if (st->home < 0 || loss <= 0 || rt_strat_unif(s) < exp(-loss / BH_TEMPERATURE)) {
        st->home = st->current;
        st->home_obj = st->current_obj;
    }
    st->restarting = 1;
    return rt_strat_take_perturbed(s, st->home, BH_PERTURB_DIMS, BH_PERTURB_TRIES);
}

static void bh_observe(rt_strategy *s, int64_t index, double obj)
{
    bh_state *st = s->state;
    if (st->restarting || st->current < 0) {
        st->restarting = 0;
        if (isfinite(obj)) {
            st->current = index;
            st->current_obj = obj;
        } else if (st->home >= 0) {
            st->current = st->home;
            st->current_obj = st->home_obj;
        }
        return;
    }
    if (obj < st->current_obj) {
        st->current = index;
        st->current_obj = obj;
    }
}

static void bh_release(rt_strategy *s)
{
    free(s->state);
    s->state = NULL;
}

const rt_strategy_ops rt_strat_basinhop_ops = {.name = "basinhop",
                                               .init = bh_init,
                                               .propose = bh_propose,
                                               .observe = bh_observe,
                                               .release = bh_release};
