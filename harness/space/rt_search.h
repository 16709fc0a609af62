/* rt_search: a live run's search over an rt_space: the space seen as the strategies' grid (its
 * parameters' value lists, feasibility from schema domains and constraints), driven by any
 * strategy of the table (harness/search/rt_strategy_table.h; `rooftune list` shows them). It is
 * the same driver and the same strategy code that `rooftune replay` runs on a recorded space, so
 * a live run and a replay of the same space with the same strategy, options, seed and budget visit
 * the same points in the same order (tests/search/test_live_replay.c).
 *
 * exhaustive yields infeasible points too (the runner records them with their reason; they use no
 * budget); every other strategy skips them silently (rt_strategy_counts_of(rt_search_driver())
 * counts them).
 *
 * Budget: feasible points to yield; 0 = the strategy's default (the whole space for exhaustive,
 * min(size, 50) for the others; rt_search_budget_for). search.max_time_s stops any strategy after
 * that many seconds. No strategy yields an index twice, and all finish once every index has been
 * considered, so a space with no feasible point ends the search instead of spinning. */
#ifndef RT_SEARCH_H
#define RT_SEARCH_H

#include <stdint.h>

#include "rt_config.h"
#include "rt_error.h"
#include "rt_space.h"
#include "rt_strategy.h"

#define RT_SEARCH_DEFAULT_BUDGET RT_STRATEGY_DEFAULT_BUDGET

typedef struct rt_search rt_search;

/* The space must outlive the search. Fails on an unknown strategy (with a suggestion), a bad
 * option or a negative budget. An empty strategy name means exhaustive. */
int rt_search_create(const rt_search_cfg *cfg, const rt_space *space, rt_search **out, rt_err *err);

/* The budget rule, written once (rt_strategy_budget_for of the table): the budget
 * rt_search_create sets for cfg on a space of `size` points; the runner's sweeps and progress
 * count use it too. -1 for an unknown strategy. */
int64_t rt_search_budget_for(const rt_search_cfg *cfg, int64_t size);

/* 1 when cfg's strategy proposes its points in an order that ignores their results (exhaustive,
 * random: ignores_results), so its next candidates can be known before the current one is
 * measured; 0 otherwise, or for an unknown strategy. */
int rt_search_ignores_results(const rt_search_cfg *cfg);

/* Returns 1 with the next index, 0 when the search is finished. If checking a candidate's
 * feasibility fails (a constraint that cannot be evaluated), the candidate is yielded anyway so
 * the caller's own rt_space_point reports the error. */
int rt_search_next(rt_search *search, int64_t *index);

/* Feedback for an index returned by rt_search_next: seconds, lower is better; INFINITY for a point
 * that failed, was wrong or infeasible. Every strategy tracks the best point; the adaptive ones
 * steer by it. Unknown indices are ignored. */
void rt_search_report(rt_search *search, int64_t index, double objective);

/* The best reported point so far: 0 with index and objective, or -1 when no finite objective has
 * been reported. */
int rt_search_best(const rt_search *search, int64_t *index, double *objective);

/* The effective budget (feasible points the search will yield at most). */
int64_t rt_search_budget(const rt_search *search);
/* The driver underneath, for its counts and name (rt_strategy_counts_of, rt_strategy_name). */
const rt_strategy *rt_search_driver(const rt_search *search);

void rt_search_free(rt_search *search);

#endif
