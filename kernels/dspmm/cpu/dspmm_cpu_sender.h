/* dspmm_cpu_sender: "dspmm.cpu.sender", the distributed sender-multiplies SpMM on the CPU backend,
 * with host MPI as its transport (the plan itself is dspmm_plan; see there for the algorithm).
 *
 * Parameters:
 *   p_batch    int  1..65536   batch groups (columns of B and C); must divide the ranks   (1)
 *   comm       str  direct|node|socket+node   how partial rows reach their owners       (direct)
 *   minibatch  int  0..65536   columns per pipeline stage; 0 = no pipelining             (0)
 *   threads    int  0..1024    OpenMP threads per rank, 0 = every available core         (0)
 *   fail_rank  int  -1..       TEST HOOK: this world rank reports a failure (-1: none)    (-1)
 *   fail_at    str  setup|run  TEST HOOK: in setup, or in every execution                (run)
 *
 * One execution, per chunk of `minibatch` columns of the rank's batch group: multiply (the rank's
 * block of A's columns times its rows of B, into its level-0 partial buffer), then the plan's hops:
 * every hop but the last is blocking (post receives, send, reduce what stays, wait, reduce what
 * arrived); the last hop (into C) is non-blocking and completes only after the NEXT chunk's local
 * work, so with minibatch > 0 the widest-tier communication of chunk i overlaps chunk i+1's
 * multiply and local hops (thesis proposal, section 3.4). Every message is counted with
 * rt_comm_count_to (the tier between the two ranks) and in the kernel's own per-execution
 * tallies, which become the point's metrics. Each execution ends with a failure agreement, so a
 * rank that fails makes every rank's execution fail together (naming it) and none waits forever.
 *
 * Metrics (per execution; "max" over ranks and "total" over ranks; deterministic unless noted):
 *   comm_bytes_{socket,node,global}_{max,total}, comm_msgs_{socket,node,global}_{max,total}
 *   p_data, p_batch, chunks, partial_bytes_l<k> (partial data held before hop k, all ranks)
 *   time_kernel_s, time_reduce_s, time_<phase>_s (phase = socket|node|global: wait time of each
 *     hop, named by the widest tier it may cross), all mean per execution, max over ranks (not
 *     deterministic); time_staging_s is recorded unavailable (host buffers need no staging)
 *   commmat_<tier>_<i>_<j>: bytes world rank i sent j, nonzero entries, only for jobs of at most
 *     DSPMM_COMMMAT_MAX_RANKS ranks (a point holds RT_MAX_METRICS metrics); commmat_stored says
 *     whether they were written. */
#ifndef DSPMM_CPU_SENDER_H
#define DSPMM_CPU_SENDER_H

#include <stdint.h>

#include "dspmm_plan.h"
#include "dspmm_sender_common.h"
#include "rt_error.h"
#include "rt_params.h"
#include "rt_registry.h"

const rt_kernel_desc *rt_dspmm_cpu_sender_kernel(void);

/* The distribution parameters of a dspmm.cpu.sender point (schema defaults for what p omits). */
int rt_dspmm_sender_params(const rt_params *p, int *p_batch, dspmm_comm_kind *comm,
                           int64_t *minibatch, int64_t *stages, rt_err *err);

#endif
