/* rt_strategy_impl: what a strategy file (rt_strat_<name>.c) sees of the driver: the shared
 * state, the operations table it fills in, and helpers over the grid. Not for callers of
 * rt_strategy.h. */
#ifndef RT_STRATEGY_IMPL_H
#define RT_STRATEGY_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_grid.h"

typedef struct rt_strategy_ops {
    const char *name;
    /* Allocates s->state. */
    int (*init)(rt_strategy *s, rt_err *err);
    /* An index taken with rt_strat_take (so unvisited and feasible, now marked visited), or -1
     * to let the driver draw a random point. */
    int64_t (*propose)(rt_strategy *s);
    /* Every yielded point's objective, in order, once (INFINITY for failed). */
    void (*observe)(rt_strategy *s, int64_t index, double objective);
    void (*release)(rt_strategy *s);
} rt_strategy_ops;

extern const rt_strategy_ops rt_strat_random_ops;
extern const rt_strategy_ops rt_strat_genetic_ops;
extern const rt_strategy_ops rt_strat_diffevo_ops;
extern const rt_strategy_ops rt_strat_ils_ops;
extern const rt_strategy_ops rt_strat_basinhop_ops;
extern const rt_strategy_ops rt_strat_pso_ops;
extern const rt_strategy_ops rt_strat_bayes_ops;

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
    unsigned char *visited; /* bitmap over the grid: yielded or found infeasible */
    int64_t yielded;
    int64_t skipped;
    int64_t pending; /* yielded, not yet reported */
    /* Every reported point, in order. */
    int64_t *hist_index;
    double *hist_obj;
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

/* Coordinates <-> index (coords has grid.n_dims entries); rt_strat_index returns -1 when a
 * coordinate is out of range. */
void rt_strat_coords(const rt_strategy *s, int64_t index, int64_t *coords);
int64_t rt_strat_index(const rt_strategy *s, const int64_t *coords);

/* 1 when index is unvisited and feasible. An infeasible index is marked visited and counted as
 * skipped, so it is tested once. */
int rt_strat_open(rt_strategy *s, int64_t index);
/* rt_strat_open, and on success marks the index visited: the strategy will yield it. */
int rt_strat_take(rt_strategy *s, int64_t index);
/* A random unvisited feasible index, taken, or -1 when the grid is exhausted. */
int64_t rt_strat_take_random(rt_strategy *s);

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

/* Relative comparison used by acceptance rules: (a - b) / |b|, INFINITY when a is not finite. */
double rt_strat_rel_loss(double a, double b);

#endif
