/* sp2_steal: work stealing: the random variant's order of candidate A tiles (own ones first,
 * then a seeded shuffle), the work grid (one counter per A tile, or per product for the
 * locality-aware variant), the item source that claims from it, and the check that every task
 * ran exactly once. */
#ifndef SP2_STEAL_H
#define SP2_STEAL_H

#include "rt_error.h"
#include "sp2_state.h"

/* Task counters and (random stealing) the candidate order; no communication. */
int sp2_steal_build(sp2_state *s, rt_err *err);

/* Creates the work grid (collective; failures agreed on). */
int sp2_steal_create_grid(sp2_state *s, rt_err *err);

/* Fills *it with the next product this rank claims; *have = 0 when there is none left. */
int sp2_steal_next(sp2_state *s, sp2_source *src, sp2_item *it, int *have, rt_err *err);

/* Every task ran exactly once, counted over all ranks (outside the timed part). */
int sp2_check_tasks(sp2_state *s, rt_err *err);

#endif
