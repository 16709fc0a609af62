/* anneal: simulated annealing over the grid. The next point is an unmeasured neighbour (one
 * parameter moved by one step in its value list) of the current point, the move that last improved
 * tried first (a pattern-search habit that makes a descent along one parameter cheap); a worse
 * point becomes current with probability exp(-relative loss / T), T cooling geometrically from
 * t_start to t_end over the budget. When the neighbourhood is used up it continues from the best
 * point, then from the next point of the seed's random order. */
#include <math.h>
#include <stdlib.h>

#include "rt_strategy_impl.h"

typedef struct an_state {
    int64_t current;
    double current_obj;
    int64_t from;      /* the current point when the pending one was chosen, -1 for a restart */
    int64_t last_move; /* index delta of the move that last improved, 0 for none */
    int64_t pending_move;
    double temperature, cooling;
} an_state;

static const rt_strategy_option an_options[] = {
    {"t_start", 0.3, 1e-6, 100, 0,
     "initial temperature: a point this much slower (relative) is accepted with probability 1/e"},
    {"t_end", 0.003, 1e-9, 100, 0, "temperature at the end of the budget"},
};

static int an_init(rt_strategy *s, rt_err *err)
{
    an_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy anneal");
    st->current = st->from = -1;
    st->current_obj = INFINITY;
    st->temperature = rt_strat_option(s, "t_start");
    const double t_end = rt_strat_option(s, "t_end");
    st->cooling = s->budget > 1 ? pow(t_end / st->temperature, 1.0 / (double)s->budget) : 1.0;
    s->state = st;
    return 0;
}

/* An open adjacent neighbour of center, the last improving move first; taken, or -1. */
static int64_t an_neighbour(rt_strategy *s, an_state *st, int64_t center)
{
    int64_t moves[2 * RT_MAX_PARAMS];
    const int n = rt_strat_open_neighbours(s, center, 0, moves, 2 * RT_MAX_PARAMS);
    for (int k = 1; k < n && st->last_move != 0; ++k)
        if (moves[k] - center == st->last_move) {
            const int64_t t = moves[0];
            moves[0] = moves[k];
            moves[k] = t;
            break;
        }
    for (int k = 0; k < n; ++k)
        if (rt_strat_take(s, moves[k])) {
            st->from = center;
            st->pending_move = moves[k] - center;
            return moves[k];
        }
    return -1;
}

static int64_t an_propose(rt_strategy *s)
{
    an_state *st = s->state;
    int64_t cand = st->current >= 0 ? an_neighbour(s, st, st->current) : -1;
    if (cand < 0 && s->best >= 0 && s->best != st->current) {
        /* The current neighbourhood is used up: resume from the best point seen. */
        st->current = s->best;
        st->current_obj = s->best_obj;
        st->last_move = 0;
        cand = an_neighbour(s, st, st->current);
    }
    if (cand < 0) {
        /* A restart: the driver's next random point becomes current whatever its objective. */
        st->from = -1;
        st->current = -1;
        st->current_obj = INFINITY;
    }
    return cand;
}

static void an_observe(rt_strategy *s, int64_t index, double obj)
{
    an_state *st = s->state;
    int accept;
    if (st->current < 0 || obj <= st->current_obj)
        accept = 1;
    else if (!isfinite(obj))
        accept = 0;
    else if (!isfinite(st->current_obj))
        accept = 1;
    else /* relative loss: the objective's unit must not change how adventurous the search is */
        accept = rt_strat_unif(s) < exp(-rt_strat_rel_loss(obj, st->current_obj) / st->temperature);
    if (accept) {
        st->last_move = st->from >= 0 && st->from == st->current && obj < st->current_obj
                            ? st->pending_move
                            : 0;
        st->current = index;
        st->current_obj = obj;
    }
    st->from = -1;
    st->temperature *= st->cooling;
}

const rt_strategy_ops rt_strat_anneal_ops = {
    {"anneal",
     "simulated annealing over one-step moves, the last improving move first; restarts from the "
     "best point, then from a random one",
     an_options, RT_N_OPTIONS(an_options), RT_STRATEGY_DEFAULT_BUDGET, 0, 0, 0},
    an_init,
    an_propose,
    an_observe,
    rt_strat_free_state};
