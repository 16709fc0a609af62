/* sptrsv_cuda_pcalib: the critical-path model's costs for sptrsv.cuda.persistent, measured in its
 * setup with the point's own kernel on the point's own plan and GPUs, never assumed:
 *   - the link: ping-pongs between parts 0 and 1 with the solve's own signalling (stores into
 *     the peer's memory through the IPC mapping, __threadfence_system, a system-scope atomic on
 *     the peer's flag, polled there): latency from 8-byte messages, bandwidth from 64 KiB ones;
 *   - a traced execution of the real solve (globaltimer stamps per task: ticket taken, inputs
 *     in, done, and the block): one block's bandwidth and the cost of a step from a least-squares
 *     fit of the tasks' run times against their bytes and steps, the cost of taking a task from
 *     the gaps between one block's tasks, and a hand-over on one GPU from the tasks that waited
 *     for a task of their own GPU (its end to their start);
 *   - an execution without waits (every step at once, no signals): the part's aggregate
 *     bandwidth for its bytes, the model's peak.
 * The parts average their costs, so every rank computes the same prediction. */
#ifndef SPTRSV_CUDA_PCALIB_H
#define SPTRSV_CUDA_PCALIB_H

#include <mpi.h>

#include "rt_error.h"
#include "sptrsv_cuda_pdata.h"
#include "sptrsv_model.h"
#include "sptrsv_pplan.h"

typedef struct sptrsv_cuda_pcalib {
    sptrsv_costs costs;   /* unit_bps, peak_bps, task_s, step_s, sync_s, lat_s/bw_bps (link) */
    double link_lat_s;    /* one way, 8 bytes */
    double link_bps;      /* 64 KiB messages */
    double nowait_s;      /* this part's steps without waits */
    double trace_s;       /* the traced execution */
    int64_t fit_tasks;    /* tasks in the fit */
    int64_t sync_samples; /* hand-overs seen */
} sptrsv_cuda_pcalib;

/* The execution's launch: the caller's (it owns the epoch and the timing). Returns 0 or -1. */
typedef int (*sptrsv_pcalib_launch)(void *ctx, int trace, int nowait, double *seconds, rt_err *err);

/* Collective over parts (MPI). peer_buf/peer_flag: part 1's probe buffer and flag as mapped
 * here (part 0), part 0's (part 1); NULL with one part. */
int sptrsv_cuda_pcalib_run(const char *name, sptrsv_cuda_pdata *d, const sptrsv_pplan *p,
                           const sptrsv_factor *f, MPI_Comm parts, double *peer_buf,
                           unsigned long long *peer_flag, double timeout_s,
                           sptrsv_pcalib_launch launch, void *launch_ctx, sptrsv_cuda_pcalib *out,
                           rt_err *err);

#endif
