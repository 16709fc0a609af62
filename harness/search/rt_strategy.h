/* rt_strategy: the search strategies beyond exhaustive/random/anneal, behind one interface, over
 * an abstract grid so that the same code drives a live run (an rt_space) and a replay of a
 * recorded space (harness/replay).
 *
 * A grid is a mixed-radix product of dimensions (first dimension slowest), each an ordered list of
 * values addressed by a coordinate; a point is feasible when the grid's callback says so (schema
 * domains and constraints for a live space, "was recorded" for a replayed one). Strategies move
 * through coordinates, so neighbouring coordinates should be neighbouring values.
 *
 * Strategies (one file each, rt_strat_<name>.c):
 *   random   - uniform sampling without replacement (the baseline of the methodology score)
 *   genetic  - steady-state genetic algorithm: tournament selection from the best points, uniform
 *              crossover, mutation by a neighbouring step or a fresh value
 *   diffevo  - differential evolution (DE/best/1/bin) on coordinates, rounded to the grid
 *   ils      - greedy iterated local search: first-improvement descent over one-parameter moves
 *              (adjacent values first), perturbation of the best point at a local optimum
 *   basinhop - basin hopping: the same descent, with Metropolis acceptance between local optima
 *   pso      - particle swarm on coordinates, rounded to the grid
 *   bayes    - Bayesian optimisation: a Gaussian process (Matern 5/2, length scale by marginal
 *              likelihood; Cholesky from LAPACKE) on log objectives, expected improvement over a
 *              candidate pool of random points and the neighbours of the best points
 *
 * Contract, enforced by the driver (rt_strategy.c) for every strategy:
 *   - deterministic: the same grid, name, budget, seed and reported objectives give the same
 *     sequence (a time budget can only cut it shorter);
 *   - never yields an index twice; only feasible indices are yielded; infeasible ones met on the
 *     way are counted (rt_strategy_skipped) and use no budget;
 *   - budget: at most `budget` points (0 = the whole grid) and, when max_time_s > 0, no new point
 *     after that many seconds since creation;
 *   - a point yielded and not reported before the next call counts as failed (INFINITY);
 *   - when a strategy has nothing to propose, the driver yields a random unvisited feasible point,
 *     so every strategy ends only when the budget is spent or the grid is exhausted.
 * Resuming from a store needs nothing more: the runner reports a stored point's objective without
 * measuring it again, and determinism makes the search take the same path. */
#ifndef RT_STRATEGY_H
#define RT_STRATEGY_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_grid.h"
#include "rt_params.h"

/* Names of the strategies, for help texts and suggestions. */
extern const char *const rt_strategy_names[];
extern const int rt_strategy_count;

/* Is `name` one of rt_strategy_names? */
int rt_strategy_known(const char *name);

/* The grid is copied; its ctx and feasible_list must outlive the strategy. Fails on an unknown
 * name (with a suggestion), a grid over RT_SPACE_MAX-like sizes that cannot be allocated, or a
 * negative budget. */
int rt_strategy_create(const char *name, const rt_grid *grid, int64_t budget, double max_time_s,
                       uint64_t seed, rt_strategy **out, rt_err *err);

/* 1 with the next index, 0 when the search is over. */
int rt_strategy_next(rt_strategy *s, int64_t *index);

/* Objective of a yielded index (lower is better; INFINITY or NaN = failed). Unknown or
 * never-yielded indices are ignored. */
void rt_strategy_report(rt_strategy *s, int64_t index, double objective);

/* 0 with the best reported point, -1 when no finite objective has been reported. */
int rt_strategy_best(const rt_strategy *s, int64_t *index, double *objective);

int64_t rt_strategy_yielded(const rt_strategy *s);
int64_t rt_strategy_skipped(const rt_strategy *s);
int64_t rt_strategy_budget(const rt_strategy *s);
const char *rt_strategy_name(const rt_strategy *s);

void rt_strategy_free(rt_strategy *s);

#endif
