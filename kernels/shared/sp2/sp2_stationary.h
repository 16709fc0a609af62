/* sp2_stationary: The item loop of the RDMA variants (stationary A, B, C and the work-
 * stealing ones): the next product comes from the static work list or a claim on the work grid,
 * its remote tiles are fetched with one-sided gets (the next item's during the multiply when
 * prefetch is on), and the queue is polled between products. */
#ifndef SP2_STATIONARY_H
#define SP2_STATIONARY_H

#include "rt_error.h"
#include "sp2_state.h"

/* Builds the static work list of stationary A, B and C with the paper's iteration offsets. */
int sp2_stationary_build_items(sp2_state *s, rt_err *err);

/* One execution's products on this rank. */
int sp2_rdma_loop(sp2_state *s, rt_err *err);

#endif
