/* exhaustive: every point in index order (the first parameter slowest, values in the order the
 * config lists them). In a live run it yields infeasible points too, without using budget, so the
 * runner records why each cannot run; with a budget it stops after that many feasible points. */
#include <stdlib.h>

#include "rt_strategy_impl.h"

typedef struct ex_state {
    int64_t cursor; /* the next index to consider */
} ex_state;

static int ex_init(rt_strategy *s, rt_err *err)
{
    s->state = calloc(1, sizeof(ex_state));
    return s->state ? 0 : rt_err_set(err, "out of memory for strategy exhaustive");
}

static int64_t ex_propose(rt_strategy *s)
{
    ex_state *st = s->state;
    return rt_strat_take_in_order(s, &st->cursor);
}

/* Budget 0 means the whole space; infeasible points are yielded in a live run; no seed; the
 * order does not depend on the results (search.parallel may use it). */
const rt_strategy_ops rt_strat_exhaustive_ops = {
    {"exhaustive",
     "every point in index order (first parameter slowest, values as listed); a live run records "
     "infeasible points with their reason",
     NULL, 0, 0, 1, 1, 1},
    ex_init,
    ex_propose,
    NULL,
    rt_strat_free_state};
