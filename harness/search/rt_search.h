/* rt_search: strategies that pick which points of an rt_space to measure.
 *
 *   exhaustive - every index in order, feasible or not (the runner records infeasible points with
 *                their reason). With a budget, stops after that many feasible points.
 *   random     - distinct indices in a pseudo-random order fixed by the seed, without
 *                replacement; infeasible points are skipped silently (counted by
 *                rt_search_skipped) and do not use up the budget.
 *   anneal     - simulated annealing over the index grid: the next point is an unvisited
 *                neighbour (one parameter moved by one step in its value list) of the current
 *                point; a worse point becomes current with probability exp(-relative loss / T),
 *                T cooling geometrically over the budget. When a neighbourhood is used up it
 *                continues from the best point, then from a fresh random point. Needs
 *                rt_search_report after every rt_search_next (a point never reported counts as
 *                failed). Infeasible points are skipped as in random.
 *
 *   genetic, diffevo, ils, basinhop, pso, bayes - the strategies of rt_strategy.h, driven over
 *                the space's grid (same rules: distinct feasible points, feedback through
 *                rt_search_report; search.max_time_s stops them after that many seconds).
 *
 * Budget: points to yield (feasible ones; see above); 0 = the whole space for exhaustive and
 * min(size, 50) for the other strategies. No strategy yields an index twice, and all finish once
 * every index has been considered, so a space with no feasible point ends the search instead of
 * spinning. Deterministic: the same space, strategy, budget, seed and reported objectives give
 * the same sequence on every machine. */
#ifndef RT_SEARCH_H
#define RT_SEARCH_H

#include <stdint.h>

#include "rt_config.h"
#include "rt_error.h"
#include "rt_space.h"

#define RT_SEARCH_DEFAULT_BUDGET 50

typedef struct rt_search rt_search;

/* The budget rule, the one place it is written: how many feasible points a search over a space
 * of `size` points yields at most. search.budget capped by the size; 0: the whole space for
 * exhaustive, min(size, RT_SEARCH_DEFAULT_BUDGET) for the others. */
int64_t rt_search_budget_rule(const rt_search_cfg *cfg, int64_t size);

/* The space must outlive the search. Fails on an unknown strategy (with a suggestion) or a
 * negative budget. */
int rt_search_create(const rt_search_cfg *cfg, const rt_space *space, rt_search **out, rt_err *err);

/* Returns 1 with the next index, 0 when the search is finished. If checking a candidate's
 * feasibility fails (a constraint that cannot be evaluated), the candidate is yielded anyway so
 * the caller's own rt_space_point reports the error. */
int rt_search_next(rt_search *search, int64_t *index);

/* Feedback for an index returned by rt_search_next: seconds, lower is better; INFINITY for a point
 * that failed, was wrong or infeasible. Only anneal uses it to steer; all strategies track the
 * best point. Unknown indices are ignored. */
void rt_search_report(rt_search *search, int64_t index, double objective);

/* The best reported point so far: 0 with index and objective, or -1 when no finite objective has
 * been reported. */
int rt_search_best(const rt_search *search, int64_t *index, double *objective);

/* Points yielded so far, infeasible points skipped without being yielded (random, anneal), and the
 * effective budget (feasible points the search will yield at most). */
int64_t rt_search_yielded(const rt_search *search);
int64_t rt_search_skipped(const rt_search *search);
int64_t rt_search_budget(const rt_search *search);
const char *rt_search_strategy(const rt_search *search);

void rt_search_free(rt_search *search);

#endif
