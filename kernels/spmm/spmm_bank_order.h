/* spmm_bank_order: the order in which a warp's lanes take their nonzeros of one ELL slice, chosen
 * so that the lanes of every step read different shared-memory banks.
 *
 * In a staged (Tiled SpMM) slice, lane l walks its row's nonzeros one per ELL row, each reading a
 * staged slot; with feature-major stages (shared[k * buffsize + slot]) the 32 lanes of a step hit
 * bank slot mod 32, and lanes whose slots share a bank serialise (random slots: about 2.6 shared
 * wavefronts per load where 1 would do). Which nonzero a lane takes at which step is free (the sum
 * is the same up to rounding), so the slice is a bipartite multigraph, lanes on one side, bank keys
 * on the other, one edge per nonzero, and a step is a matching. König's theorem: its edges can be
 * coloured with exactly D colours, D its largest degree (the longest row, or the most nonzeros on
 * one bank), which is the fewest steps any conflict-free order needs. The colouring below is the
 * classic one by alternating paths (O(edges x nodes)); colour = ELL row of the entry. */
#ifndef SPMM_BANK_ORDER_H
#define SPMM_BANK_ORDER_H

#include <stdint.h>

#include "rt_error.h"

/* Largest degree of the slice's graph: edges e in [0, n) join lane lane_of[e] (0..lanes-1) and
 * key key_of[e] (0..keys-1); counts holds lanes + keys int32_t. Edges outside the graph are not
 * counted (rt_bank_order_schedule reports them). */
int32_t rt_bank_order_degree(const int32_t *lane_of, const int32_t *key_of, int32_t n,
                             int32_t lanes, int32_t keys, int32_t *counts);

/* Colours the n edges with `steps` colours (at least rt_bank_order_degree) so that no lane and no
 * key has two edges of one colour: step_of[e] in [0, steps). work holds
 * (lanes + keys) * (steps + 1) int32_t. Fails (message naming the bad input) on an edge outside the
 * graph or steps below the degree. */
int rt_bank_order_schedule(const int32_t *lane_of, const int32_t *key_of, int32_t n, int32_t lanes,
                           int32_t keys, int32_t steps, int32_t *step_of, int32_t *work,
                           rt_err *err);

#endif
