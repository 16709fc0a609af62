/* rt_strategy: the driver that runs any strategy of the table (rt_strategy_table.h) over an
 * abstract grid, so that the same code drives a live run (harness/space/rt_search.h over an
 * rt_space) and a replay of a recorded space (harness/replay).
 *
 * A grid is a mixed-radix product of dimensions (first dimension slowest), each an ordered list of
 * values addressed by a coordinate; a point is feasible when the grid's callback says so (schema
 * domains and constraints for a live space, "was recorded" for a replayed one). Strategies move
 * through coordinates, so neighbouring coordinates should be neighbouring values.
 *
 * Contract, enforced by the driver (rt_strategy.c) for every strategy:
 *   - deterministic: the same grid (dimensions and feasibility), name, options, budget, seed and
 *     reported objectives give the same sequence on every machine (a time budget can only cut it
 *     shorter); a grid's optional feasible list speeds sampling up and never changes the
 *     sequence, so a live space and a recording of it are searched alike;
 *   - never yields an index twice; yields feasible indices, and infeasible ones only where the
 *     caller asked for them (pass_infeasible) and the strategy walks in order (exhaustive);
 *     infeasible ones met on the way are counted (rt_strategy_skipped) and use no budget;
 *   - budget: at most `budget` feasible points (0 = the whole grid) and, when max_time_s > 0, no
 *     new point after that many seconds since creation;
 *   - a point yielded and not reported before the next call counts as failed (INFINITY);
 *   - when a strategy has nothing to propose, the driver yields the next open point of the seed's
 *     random order, so every strategy ends only when the budget is spent or the grid is
 *     exhausted.
 * Resuming from a store needs nothing more: the runner reports a stored point's objective without
 * measuring it again, and determinism makes the search take the same path. */
#ifndef RT_STRATEGY_H
#define RT_STRATEGY_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_grid.h"
#include "rt_params.h"
#include "rt_strategy_table.h"

typedef struct rt_strategy_args {
    const char *name;                /* a strategy of the table */
    int64_t budget;                  /* feasible points to yield; 0 = the whole grid */
    double max_time_s;               /* no new point after this long; 0 = no limit */
    uint64_t seed;                   /* picks the sequence */
    const rt_strategy_opts *options; /* NULL = every option at its default */
    int pass_infeasible;             /* yield infeasible indices of in-order walks (live runs) */
} rt_strategy_args;

/* The grid is copied; its ctx and feasible_list must outlive the strategy. Fails on an unknown
 * name (with a suggestion), an option the strategy does not have or out of range, a grid that
 * cannot be allocated, or a negative budget. */
int rt_strategy_create(const rt_strategy_args *args, const rt_grid *grid, rt_strategy **out,
                       rt_err *err);

/* 1 with the next index, 0 when the search is over. */
int rt_strategy_next(rt_strategy *s, int64_t *index);

/* Objective of a yielded index (lower is better; INFINITY or NaN = failed). Unknown or
 * never-yielded indices (and infeasible ones passed through) are ignored. */
void rt_strategy_report(rt_strategy *s, int64_t index, double objective);

/* 0 with the best reported point, -1 when no finite objective has been reported. */
int rt_strategy_best(const rt_strategy *s, int64_t *index, double *objective);

/* What a search has done so far. */
typedef struct rt_strategy_counts {
    int64_t yielded; /* feasible points yielded: what the budget counts */
    int64_t passed;  /* infeasible points yielded for the record (pass_infeasible) */
    int64_t skipped; /* infeasible points met and not yielded */
    int64_t budget;  /* feasible points it will yield at most */
} rt_strategy_counts;
rt_strategy_counts rt_strategy_counts_of(const rt_strategy *s);
const char *rt_strategy_name(const rt_strategy *s);

void rt_strategy_free(rt_strategy *s);

#endif
