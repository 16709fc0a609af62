/* rt_strategy_impl: what a strategy file (rt_strat_<name>.c) sees of the driver: the shared
 * state, the operations table it fills in, and helpers over the grid. Not for callers of
 * rt_strategy.h. */
#ifndef RT_STRATEGY_IMPL_H
#define RT_STRATEGY_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_grid.h"
#include "rt_perm.h"
#include "rt_strategy_types.h"

/* The length of a strategy's options table, for its rt_strategy_info. */
#define RT_N_OPTIONS(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* A strategy's file defines one, positionally: {info}, init, propose, observe, release, where info
 * is {name, summary, options, n_options, default_budget, yields_infeasible, ignores_seed,
 * ignores_results} (all of them: -Wextra warns of a missing one). */
typedef struct rt_strategy_ops {
    rt_strategy_info info; /* name, summary, options, budget rule: what the table shows */
    /* Allocates s->state; may read options with rt_strat_option. */
    int (*init)(rt_strategy *s, rt_err *err);
    /* An index taken with rt_strat_take (so unvisited and feasible, now marked visited), or -1
     * to let the driver draw the next point of the seed's random order. */
    int64_t (*propose)(rt_strategy *s);
    /* Every yielded point's objective, in order, once (INFINITY for failed). */
    void (*observe)(rt_strategy *s, int64_t index, double objective);
    void (*release)(rt_strategy *s);
} rt_strategy_ops;

typedef struct rt_strat_sample {
    int64_t index;
    double obj;
} rt_strat_sample;

struct rt_strategy {
    const rt_strategy_ops *ops;
    void *state;
    rt_grid grid;
    int64_t size;
    int64_t stride[RT_MAX_PARAMS];
    int64_t budget;
    double max_time_s;
    double start_s;
    uint64_t seed;
    uint64_t rng;
    double opt[RT_STRATEGY_MAX_OPTIONS]; /* the ops' options, in table order, defaults applied */
    int pass_infeasible;    /* the caller wants infeasible indices of in-order walks yielded */
    int passing;            /* propose returned an infeasible index to pass through */
    unsigned char *visited; /* bitmap over the grid: yielded or found infeasible */
    int64_t yielded;        /* feasible points yielded: what the budget counts */
    int64_t passed;         /* infeasible points yielded for the record */
    int64_t skipped;
    int64_t pending; /* yielded, not yet reported */
    /* Random order: the next position for rt_strat_take_random; with a sparse feasible list,
     * the list sorted by position (built on first use) instead of walking the permutation. */
    rt_perm perm;
    int64_t random_pos;
    int64_t *order_pos, *order_index;
    int64_t n_order;
    int order_built;
    /* Every reported point, in order. */
    rt_strat_sample *hist;
    int64_t n_hist;
    int64_t hist_cap;
    int64_t best;
    double best_obj;
};

/* Randomness: splitmix64, so sequences are the same on every machine. */
uint64_t rt_strat_u64(rt_strategy *s);
double rt_strat_unif(rt_strategy *s);              /* [0, 1) */
int64_t rt_strat_below(rt_strategy *s, int64_t n); /* [0, n) */
double rt_strat_normal(rt_strategy *s);            /* standard normal */

/* The value of one of the ops' options (by name; the default unless the caller set it). */
double rt_strat_option(const rt_strategy *s, const char *name);

/* Coordinates <-> index (coords has grid.n_dims entries); rt_strat_index returns -1 when a
 * coordinate is out of range. */
void rt_strat_coords(const rt_strategy *s, int64_t index, int64_t *coords);
int64_t rt_strat_index(const rt_strategy *s, const int64_t *coords);

/* 1 when index is unvisited and feasible. An infeasible index is marked visited and counted as
 * skipped, so it is tested once. */
int rt_strat_open(rt_strategy *s, int64_t index);
/* rt_strat_open, and on success marks the index visited: the strategy will yield it. */
int rt_strat_take(rt_strategy *s, int64_t index);

/* The next index of the seed's random order at or after position *pos that is open (not taken),
 * with *pos moved past it; -1 when none is left. Neither the order nor the result depends on
 * whether the grid carries a feasible list, so a live space and its recording agree. */
int64_t rt_strat_next_random(rt_strategy *s, int64_t *pos);
/* The next open index of the seed's random order, taken, or -1 when the grid is exhausted. */
int64_t rt_strat_take_random(rt_strategy *s);

/* The next index >= *cursor in index order that is open, taken, with *cursor past it; when the
 * caller asked for infeasible indices (a live run's exhaustive walk) an infeasible index is
 * returned too, marked to pass through the driver without using budget. -1 at the end. */
int64_t rt_strat_take_in_order(rt_strategy *s, int64_t *cursor);

/* The one-parameter moves of center that are open: adjacent values (coordinate +-1) first in
 * random order, then, when `hamming` is set, every other value of each parameter in random order.
 * Writes up to cap indices to out and returns how many. Does not take them. */
int rt_strat_open_neighbours(rt_strategy *s, int64_t center, int hamming, int64_t *out, int cap);

/* The open index nearest to real-valued coordinates x (rounded and clamped), searching outwards
 * by one-parameter moves; taken, or -1. */
int64_t rt_strat_take_near(rt_strategy *s, const double *x);

/* A point that differs from center in 1..max_dims random parameters (random values), taken, or
 * -1 after `tries` attempts found nothing open. */
int64_t rt_strat_take_perturbed(rt_strategy *s, int64_t center, int max_dims, int tries);

/* A first-improvement descent over one-parameter moves with restarts (ils, basinhop). */
#define RT_STRAT_MAX_MOVES 4096
typedef struct rt_strat_descent {
    int64_t current;
    double current_obj;
    int restarting; /* the next observed point becomes current whatever its objective */
    int64_t moves[RT_STRAT_MAX_MOVES];
} rt_strat_descent;
void rt_strat_descent_init(rt_strat_descent *d);
/* The first open one-parameter move of the current point (adjacent values first, in random
 * order), taken; -1 at a local optimum or before the first point. */
int64_t rt_strat_descent_move(rt_strategy *s, rt_strat_descent *d);
/* A restart from center: a point differing in up to max_dims parameters, taken (-1 when none is
 * open); the next observed point then becomes current. */
int64_t rt_strat_descent_restart(rt_strategy *s, rt_strat_descent *d, int64_t center, int max_dims);
/* An observed point: after a restart it becomes current (when it failed, fallback does, if any);
 * otherwise it becomes current when it improves on it. */
void rt_strat_descent_observe(rt_strat_descent *d, int64_t index, double obj, int64_t fallback,
                              double fallback_obj);

/* Two phases (hybrid, tpeils): the strategy `global` (its defaults, but for the names in
 * global_opts, which may be NULL) for the first share of the budget (the caller's option
 * "global"), then ils with its near-tie walk (the caller's option "plateau") from the best point
 * found. `self` is the caller's ops: the driver carries them between the phases' calls. init
 * allocates s->state; propose, observe and release are the caller's ops' own. */
/* The option "plateau" of a two-phase strategy, as its options table lists it. */
#define RT_STRAT_TWO_PHASE_PLATEAU                                                                 \
    {                                                                                              \
        "plateau", 0.03, 0, 1, 0,                                                                  \
            "the local phase's near-tie walk (ils's plateau): at a local optimum, measured "       \
            "one-parameter neighbours up to this much slower (relative) are walked before a "      \
            "restart"                                                                              \
    }
int rt_strat_two_phase_init(rt_strategy *s, const rt_strategy_ops *self,
                            const rt_strategy_ops *global, const rt_strategy_opts *global_opts,
                            rt_err *err);
int64_t rt_strat_two_phase_propose(rt_strategy *s);
void rt_strat_two_phase_observe(rt_strategy *s, int64_t index, double obj);
void rt_strat_two_phase_release(rt_strategy *s);

/* Relative comparison used by acceptance rules: (a - b) / |b|, INFINITY when a is not finite. */
double rt_strat_rel_loss(double a, double b);

/* The state release every strategy with a single malloc'ed state uses. */
void rt_strat_free_state(rt_strategy *s);

#endif
