/* rt_probe_mpi: the probe's MPI measurements per tier, with host and device buffers. */
#ifndef RT_PROBE_MPI_H
#define RT_PROBE_MPI_H

#include <stddef.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_probe_opts.h"
#include "rt_registry.h"

typedef struct rt_probe_net_result {
    int have[RT_TIER_COUNT];    /* 1 when some rank pair of that tier exists */
    int partner[RT_TIER_COUNT]; /* the world rank rank 0 measured with */
    double latency_us[RT_TIER_COUNT];
    double bandwidth_gbs[RT_TIER_COUNT];
    size_t message_bytes;
} rt_probe_net_result;

/* MPI between device buffers, per tier: staged through pinned host memory (every tier) and
 * CUDA IPC (socket and node tiers, only between processes on one host). */
typedef struct rt_probe_devnet_result {
    int measured;                 /* 0: not run (no GPU backend on some rank, or 1 rank) */
    char skipped[RT_ERR_MSG_MAX]; /* why not run, or why IPC was not measured ("" otherwise) */
    int have_staged[RT_TIER_COUNT];
    double staged_latency_us[RT_TIER_COUNT];
    double staged_gbs[RT_TIER_COUNT];
    int have_ipc[RT_TIER_COUNT];
    double ipc_latency_us[RT_TIER_COUNT];
    double ipc_gbs[RT_TIER_COUNT];
    int partner[RT_TIER_COUNT];
    size_t message_bytes;
} rt_probe_devnet_result;

/* The device-buffer MPI measurements (collective over comm's world, an rt_comm*). have_ops: this
 * rank's opt->devbuf is usable; when some rank lacks it, nothing is measured, res->skipped names
 * the first such rank, and 0 is returned. A failure on any rank (allocation, copy, MPI) fails
 * every rank with that rank named; an IPC mapping that cannot be opened skips IPC for that tier
 * (res->skipped says why) and is not a failure. Every rank gets the same result. */
int rt_probe_mpi_device(const rt_probe_opts *opt, void *comm, rt_probe_devnet_result *res,
                        rt_err *err);

/* The MPI measurements. comm is an rt_comm* (harness/comm/rt_comm.h); collective over its world.
 * Every rank gets the same result (broadcast from rank 0). */
int rt_probe_mpi(const rt_probe_opts *opt, void *comm, rt_probe_net_result *res, rt_err *err);

/* A barrier over comm's world (an rt_comm*) that sleeps between polls instead of spinning, so
 * waiting ranks leave the cores to the rank that measures. Collective. */
int rt_probe_idle_barrier(void *comm, rt_err *err);

#endif
