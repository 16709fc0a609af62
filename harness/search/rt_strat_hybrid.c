/* hybrid: a global phase, then a local one. Bayesian optimisation (the bayes strategy with its
 * defaults) spends the first share `global` of the budget finding a good region; iterated local
 * search (ils with its defaults, its near-tie walk turned on: `plateau`) spends the rest descending
 * from the best point found so far, walking the measured near-ties of a local optimum, then
 * perturbing the best point. The model ranks the whole space well but refines slowly near its
 * optimum on rugged spaces, where a first-improvement descent over one-parameter moves is cheap;
 * a descent alone starts from a random point and spends its budget in the first basin it meets.
 * The model phase has measured many one-parameter moves of its best point, so the local phase
 * reaches that point's local optimum in a few evaluations and can walk its near-ties at once.
 *
 * The phases are the other strategies' own code: while a phase runs, the driver's state carries
 * that strategy's ops, options (its defaults) and state, so each sees exactly what it would see
 * running alone on the same history (the history holds every point of both phases).
 *
 * The two-phase machinery (rt_strat_two_phase_*, rt_strategy_impl.h) takes the global phase as an
 * argument: tpeils (rt_strat_tpeils.c) is the same walk after tpe instead of bayes. */
#include <stdlib.h>
#include <string.h>

#include "rt_strategy_impl.h"

extern const rt_strategy_ops rt_strat_bayes_ops;
extern const rt_strategy_ops rt_strat_ils_ops;
extern const rt_strategy_ops rt_strat_hybrid_ops;

enum { HY_GLOBAL, HY_LOCAL, HY_PHASES };

typedef struct hy_phase {
    const rt_strategy_ops *ops;
    void *state;
    double opt[RT_STRATEGY_MAX_OPTIONS]; /* the phase's options: its defaults */
    int started;
} hy_phase;

typedef struct hy_state {
    const rt_strategy_ops *self; /* the ops the driver carries between phases */
    hy_phase phase[HY_PHASES];
    double own_opt[RT_STRATEGY_MAX_OPTIONS];
    int64_t switch_at; /* points yielded before the local phase */
} hy_state;

static const rt_strategy_option hy_options[] = {
    {"global", 0.7, 0.05, 1, 0,
     "share of the budget for the Bayesian phase; the rest goes to iterated local search"},
    RT_STRAT_TWO_PHASE_PLATEAU,
};

/* The driver's state as the phase's strategy sees it, and back. */
static void hy_enter(rt_strategy *s, hy_phase *p)
{
    s->ops = p->ops;
    s->state = p->state;
    memcpy(s->opt, p->opt, sizeof s->opt);
}

static void hy_leave(rt_strategy *s, hy_state *st, hy_phase *p)
{
    p->state = s->state;
    s->ops = st->self;
    s->state = st;
    memcpy(s->opt, st->own_opt, sizeof s->opt);
}

static int hy_start(rt_strategy *s, hy_state *st, hy_phase *p, rt_err *err)
{
    hy_enter(s, p);
    s->state = NULL;
    const int rc = p->ops->init ? p->ops->init(s, err) : 0;
    hy_leave(s, st, p);
    if (rc != 0)
        return rt_err_set(err, "strategy %s: its %s phase did not start", st->self->info.name,
                          p->ops->info.name);
    p->started = 1;
    return 0;
}

void rt_strat_two_phase_release(rt_strategy *s)
{
    hy_state *st = s->state;
    if (!st)
        return;
    for (int k = 0; k < HY_PHASES; ++k) {
        hy_phase *p = &st->phase[k];
        if (!p->started)
            continue;
        hy_enter(s, p);
        if (p->ops->release)
            p->ops->release(s);
        hy_leave(s, st, p);
        p->started = 0;
    }
    free(st);
    s->state = NULL;
}

int rt_strat_two_phase_init(rt_strategy *s, const rt_strategy_ops *self,
                            const rt_strategy_ops *global, const rt_strategy_opts *global_opts,
                            rt_err *err)
{
    hy_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy %s", self->info.name);
    st->self = self;
    memcpy(st->own_opt, s->opt, sizeof st->own_opt);
    const double share = rt_strat_option(s, "global");
    st->switch_at = (int64_t)((double)s->budget * share + 0.5);
    st->phase[HY_GLOBAL].ops = global;
    st->phase[HY_LOCAL].ops = &rt_strat_ils_ops;
    for (int k = 0; k < HY_PHASES; ++k) {
        const rt_strategy_info *info = &st->phase[k].ops->info;
        for (int o = 0; o < info->n_options; ++o)
            st->phase[k].opt[o] = info->options[o].def;
    }
    if (global_opts)
        for (int k = 0; k < global_opts->n; ++k)
            for (int o = 0; o < global->info.n_options; ++o)
                if (strcmp(global->info.options[o].name, global_opts->name[k]) == 0)
                    st->phase[HY_GLOBAL].opt[o] = global_opts->value[k];
    /* The walk is hybrid's setting, not ils's default: ils alone with it (plateau 0.03) replayed
     * within noise of ils without it on seeds 11-30 (lower at budgets 50 and 100, higher at 200),
     * so ils alone keeps its path. */
    const rt_strategy_info *local = &st->phase[HY_LOCAL].ops->info;
    for (int o = 0; o < local->n_options; ++o)
        if (strcmp(local->options[o].name, "plateau") == 0)
            st->phase[HY_LOCAL].opt[o] = rt_strat_option(s, "plateau");
    s->state = st;
    for (int k = 0; k < HY_PHASES; ++k)
        if (hy_start(s, st, &st->phase[k], err) != 0) {
            rt_strat_two_phase_release(s);
            return -1;
        }
    return 0;
}

static hy_phase *hy_current(const rt_strategy *s, hy_state *st)
{
    return &st->phase[s->yielded < st->switch_at ? HY_GLOBAL : HY_LOCAL];
}

int64_t rt_strat_two_phase_propose(rt_strategy *s)
{
    hy_state *st = s->state;
    hy_phase *p = hy_current(s, st);
    hy_enter(s, p);
    const int64_t i = p->ops->propose ? p->ops->propose(s) : -1;
    hy_leave(s, st, p);
    return i;
}

void rt_strat_two_phase_observe(rt_strategy *s, int64_t index, double obj)
{
    hy_state *st = s->state;
    /* The point was proposed before the driver counted it: it belongs to the phase of yielded-1. */
    hy_phase *p = &st->phase[s->yielded - 1 < st->switch_at ? HY_GLOBAL : HY_LOCAL];
    if (!p->ops->observe)
        return;
    hy_enter(s, p);
    p->ops->observe(s, index, obj);
    hy_leave(s, st, p);
}

static int hy_init(rt_strategy *s, rt_err *err)
{
    return rt_strat_two_phase_init(s, &rt_strat_hybrid_ops, &rt_strat_bayes_ops, NULL, err);
}

const rt_strategy_ops rt_strat_hybrid_ops = {
    {"hybrid",
     "Bayesian optimisation (bayes) for the first part of the budget, then iterated local search "
     "(ils) from the best point found, walking near-ties at local optima",
     hy_options, RT_N_OPTIONS(hy_options), RT_STRATEGY_DEFAULT_BUDGET, 0, 0, 0},
    hy_init,
    rt_strat_two_phase_propose,
    rt_strat_two_phase_observe,
    rt_strat_two_phase_release};
