/* toy: the test strategy that proves a new strategy is one file plus one line of the strategy
 * list. Coordinate descent: after a random start, the open adjacent moves of the best point in
 * dimension order (the first parameter first), then, when none is open, `jump` random points. */
#include <stdlib.h>

#include "rt_strategy_impl.h"

typedef struct toy_state {
    int jumps_left;
    int jump;
} toy_state;

static const rt_strategy_option toy_options[] = {
    {"jump", 2, 1, 100, 1, "random points after the best point's moves run out"},
};

static int toy_init(rt_strategy *s, rt_err *err)
{
    toy_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy toy");
    st->jump = (int)rt_strat_option(s, "jump");
    s->state = st;
    return 0;
}

static int64_t toy_propose(rt_strategy *s)
{
    toy_state *st = s->state;
    if (s->best >= 0 && st->jumps_left == 0) {
        int64_t c[RT_MAX_PARAMS];
        rt_strat_coords(s, s->best, c);
        for (int d = 0; d < s->grid.n_dims; ++d)
            for (int step = -1; step <= 1; step += 2) {
                c[d] += step;
                const int64_t i = rt_strat_index(s, c);
                c[d] -= step;
                if (i >= 0 && rt_strat_take(s, i))
                    return i;
            }
        st->jumps_left = st->jump;
    }
    if (st->jumps_left > 0)
        st->jumps_left--;
    return -1; /* the driver's next random point */
}

const rt_strategy_ops rt_strat_toy_ops = {
    {"toy", "test strategy: coordinate descent around the best point, random jumps", toy_options,
     RT_N_OPTIONS(toy_options), RT_STRATEGY_DEFAULT_BUDGET, 0, 0, 0},
    toy_init,
    toy_propose,
    NULL,
    rt_strat_free_state};
