/* sptrsv_probe: the network side of the distributed solve's model, measured with the solve's own
 * transport. For every tier present in the job, rank 0 and the lowest rank at that tier from it
 * ping-pong one-sided messages (put, flush, atomic increment of a counter the other side polls):
 * latency from 8-byte messages, bandwidth from 64 KiB ones; rank 0 broadcasts the results. Under
 * oversubscription the times include the scheduler's, as the solve's own messages do.
 * Collective over the world communicator. */
#ifndef SPTRSV_PROBE_H
#define SPTRSV_PROBE_H

#include "rt_comm.h"
#include "rt_error.h"
#include "sptrsv_model.h"

/* Fills c->lat_s and c->bw_bps of every tier present (others stay 0). */
int sptrsv_probe_tiers(rt_comm *comm, sptrsv_costs *c, rt_err *err);

/* tier[a * P + b]: the rt_net_tier between world ranks a and b (P = world size). */
void sptrsv_probe_tier_matrix(const rt_comm *comm, int *tier);
/* The same for the first P world ranks (P <= world size). */
void sptrsv_probe_tier_matrix_of(const rt_comm *comm, int P, int *tier);

#endif
