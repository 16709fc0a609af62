/* ils: greedy iterated local search. After `init` random points (the descent starts from the best
 * of them, not from whichever point came first), it tries one-parameter moves,
 * adjacent values first, and moves to the first that improves (first improvement, so a descent
 * along one parameter costs one evaluation per step). At a local optimum (no untried move left)
 * it perturbs the best point found in a few parameters and descends again from there.
 *
 * With `plateau` > 0 (hybrid's local phase sets it; alone, ils leaves it off), a local optimum is
 * first left through its near-ties: a measured point one parameter away from the optimum, or from
 * a point the walk already stood on, at most `plateau` (relative) slower than the optimum, becomes
 * current and the descent goes on from there. A basin two parameters deep (convolution_MI250X:
 * the optimum at tile sizes 2 x 4 is reached from 4 x 2 only through 2 x 2, 1.6% slower than
 * 4 x 2, every tile size 3 being far slower) has no improving one-parameter path out, but one
 * through a near-tie. Points the walk stood on are tabu, so it does not cycle; it ends when a
 * descent finds a point faster than the optimum it left, after `walk` points, or when no near-tie
 * is left, and only then comes the perturbation. Moving costs nothing (the points are measured);
 * the walk's price is the descents from the near-ties. */
#include <stdlib.h>

#include "rt_strategy_impl.h"

#define ILS_MAX_WALK 64

typedef struct ils_walk {
    int active;
    double anchor_obj; /* the local optimum the walk left */
    int n_tabu;        /* points the walk stood on, the optimum first */
    int64_t tabu[ILS_MAX_WALK + 1];
} ils_walk;

typedef struct ils_state {
    rt_strat_descent descent;
    int perturb_dims;
    int init; /* random points before the first descent, which starts from the best of them */
    double plateau;
    int walk_max;
    ils_walk walk;
} ils_state;

static const rt_strategy_option ils_options[] = {
    {"perturb", 3, 1, RT_MAX_PARAMS, 1,
     "a restart gives up to this many parameters of the best point a random value"},
    {"init", 5, 1, 1000, 1,
     "random points before the first descent, which starts from the best of them"},
    {"plateau", 0, 0, 1, 0,
     "at a local optimum, measured one-parameter neighbours up to this much slower (relative) "
     "are walked before a restart; 0: restart at once"},
    {"walk", 8, 1, ILS_MAX_WALK, 1, "most points one near-tie walk stands on"},
};

static int ils_init(rt_strategy *s, rt_err *err)
{
    ils_state *st = malloc(sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy ils");
    rt_strat_descent_init(&st->descent);
    st->perturb_dims = (int)rt_strat_option(s, "perturb");
    st->init = (int)rt_strat_option(s, "init");
    st->plateau = rt_strat_option(s, "plateau");
    st->walk_max = (int)rt_strat_option(s, "walk");
    st->walk.active = 0;
    st->walk.n_tabu = 0;
    s->state = st;
    return 0;
}

static int ils_is_tabu(const ils_walk *w, int64_t index)
{
    for (int k = 0; k < w->n_tabu; ++k)
        if (w->tabu[k] == index)
            return 1;
    return 0;
}

/* 1 when a and b differ in exactly one parameter. */
static int ils_one_apart(int n_dims, const int64_t *a, const int64_t *b)
{
    int diff = 0;
    for (int d = 0; d < n_dims && diff < 2; ++d)
        diff += a[d] != b[d];
    return diff == 1;
}

/* One step of the near-tie walk from the descent's local optimum: a measured point one parameter
 * away from a point of the walk, not tabu and within the tolerance of the optimum the walk left,
 * drawn at random, becomes current. At random rather than the fastest: the fastest near-tie can be
 * the optimum with a parameter that hardly matters changed (on convolution_MI250X another block
 * width of the same tiling), whose neighbourhood repeats the optimum's, while the way out of a
 * basin two parameters deep may start from a slower one. Any point of the walk, not only the last,
 * so a near-tie whose own neighbours are all slow does not end it. 0 when none is left or the walk
 * is long enough. */
static int ils_walk_step(rt_strategy *s, ils_state *st)
{
    ils_walk *w = &st->walk;
    rt_strat_descent *d = &st->descent;
    if (!w->active) {
        w->active = 1;
        w->anchor_obj = d->current_obj;
        w->n_tabu = 0;
        w->tabu[w->n_tabu++] = d->current;
    }
    if (w->n_tabu > st->walk_max)
        return 0;
    int64_t tabu_c[ILS_MAX_WALK + 1][RT_MAX_PARAMS], c[RT_MAX_PARAMS];
    for (int k = 0; k < w->n_tabu; ++k)
        rt_strat_coords(s, w->tabu[k], tabu_c[k]);
    int64_t pick = -1;
    double pick_obj = 0;
    int64_t n_eligible = 0;
    for (int64_t h = 0; h < s->n_hist; ++h) {
        const rt_strat_sample *p = &s->hist[h];
        if (rt_strat_rel_loss(p->obj, w->anchor_obj) > st->plateau || ils_is_tabu(w, p->index))
            continue;
        rt_strat_coords(s, p->index, c);
        int near = 0;
        for (int k = 0; k < w->n_tabu && !near; ++k)
            near = ils_one_apart(s->grid.n_dims, c, tabu_c[k]);
        /* Reservoir sampling: each eligible point is kept with probability 1 / (its rank). */
        if (near && rt_strat_below(s, ++n_eligible) == 0) {
            pick = p->index;
            pick_obj = p->obj;
        }
    }
    if (pick < 0)
        return 0;
    w->tabu[w->n_tabu++] = pick;
    d->current = pick;
    d->current_obj = pick_obj;
    if (pick_obj < w->anchor_obj)
        w->active = 0; /* measured earlier and faster: a plain descent from here */
    return 1;
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
    int64_t i = rt_strat_descent_move(s, &st->descent);
    /* Each step stands on a new point (tabu), so this ends within walk_max steps. */
    while (i < 0 && st->plateau > 0 && ils_walk_step(s, st))
        i = rt_strat_descent_move(s, &st->descent);
    if (i >= 0)
        return i;
    st->walk.active = 0;
    return rt_strat_descent_restart(s, &st->descent, s->best >= 0 ? s->best : st->descent.current,
                                    st->perturb_dims);
}

static void ils_observe(rt_strategy *s, int64_t index, double obj)
{
    ils_state *st = s->state;
    if (st->descent.current < 0)
        return;
    rt_strat_descent_observe(&st->descent, index, obj, s->best, s->best_obj);
    /* Out of the basin: the next local optimum starts a walk of its own. */
    if (st->walk.active && st->descent.current_obj < st->walk.anchor_obj)
        st->walk.active = 0;
}

const rt_strategy_ops rt_strat_ils_ops = {
    {"ils",
     "greedy iterated local search: from the best of a few random points, first-improvement "
     "descent over one-parameter moves, adjacent values first; at a local optimum, perturbs the "
     "best point (with plateau > 0, first walks the optimum's measured near-ties)",
     ils_options, RT_N_OPTIONS(ils_options), RT_STRATEGY_DEFAULT_BUDGET, 0, 0, 0},
    ils_init,
    ils_propose,
    ils_observe,
    rt_strat_free_state};
