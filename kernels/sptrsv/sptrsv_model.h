/* sptrsv_model: the critical-path model of a triangular solve (after Ding, Williams, Liu, Li: the
 * solve is as fast as its longest chain of dependent tasks and messages, not as its bytes).
 *
 * Costs (sptrsv_costs) come from the kernel's own calibration in setup (a sequential solve for
 * the bandwidth of one worker, barriers or launches for the cost of a level, one-sided
 * ping-pongs for each network tier), never from constants.
 *
 *  - level-set: levels run one after another; level k costs sync_s + bytes_k / bw(k) where the
 *    bandwidth grows with the concurrent work, bw(k) = min(peak_bps, unit_bps * min(rows_k,
 *    workers)). The critical path is the level count.
 *  - sync-free (one device, no barriers): the longest path through the supernodal DAG with every
 *    supernode costing task_s + bytes / unit_bps, or the total bytes at the peak if that is longer.
 *  - distributed (the refined model): supernodes run on their owner ranks one at a time, in the
 *    order their inputs become available (list scheduling); x_s reaches each rank of its broadcast
 *    tree after latency + bytes / bandwidth of the tier of every hop from the root. The critical
 *    path is traced back from the last task through whichever made each task wait (an input's
 *    arrival or its rank's previous task), counting tasks and messages on it.
 *  - persistent (sptrsv_pplan.h, one persistent kernel per part): the plan's own schedule. Each
 *    part has `workers` workers (resident thread blocks) taking its tickets in order; a task
 *    starts when a worker is free and its waits are met (x after DIAG + a hand-over on the same
 *    part, or + latency + bytes / bandwidth of the link's tier from another part; a counter
 *    after its last signal, a reduction after the sending part's last chunk + one link hop);
 *    a task costs task_s plus, per step, step_s + bytes / bw with
 *    bw = min(unit_bps, peak_bps / busy workers) (the
 *    aggregate bandwidth grows with the concurrent work until the part's peak). The prediction is
 *    the later of that schedule's end and the busiest part's bytes at its peak (floor_s). */
#ifndef SPTRSV_MODEL_H
#define SPTRSV_MODEL_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_registry.h"
#include "sptrsv_dag.h"
#include "sptrsv_factor.h"
#include "sptrsv_plan.h"

typedef struct sptrsv_costs {
    double unit_bps; /* bytes/s of one worker (thread, thread block, rank) */
    double peak_bps; /* bytes/s with every worker busy */
    double sync_s;   /* between two levels (barrier, kernel launch) */
    double task_s;   /* fixed cost of one supernode task */
    double step_s;   /* persistent: fixed cost of one more step inside a task */
    double lat_s[RT_TIER_COUNT];
    double bw_bps[RT_TIER_COUNT];
} sptrsv_costs;

typedef struct sptrsv_prediction {
    double time_s;
    double path_compute_s, path_comm_s; /* the critical path's parts (distributed) */
    int64_t path_tasks;                 /* levels, or supernodes on the critical path */
    int64_t path_messages;              /* messages on the critical path */
    double floor_s;                     /* persistent: the busiest part's bytes at its peak */
    double schedule_s;                  /* persistent: the simulated schedule's end */
} sptrsv_prediction;

/* Scalar level sets of the CSR solve with `workers` concurrent workers. */
void sptrsv_model_levelset(const sptrsv_factor *f, const sptrsv_dag *d, int64_t nrhs,
                           int64_t workers, const sptrsv_costs *c, sptrsv_prediction *out);

/* Supernodal DAG on one device without barriers. */
void sptrsv_model_syncfree(const sptrsv_factor *f, const sptrsv_dag *d, int64_t nrhs,
                           const sptrsv_costs *c, sptrsv_prediction *out);

/* The distributed solve of plan p; tier[a * nranks + b] is the rt_net_tier between ranks a and b.
 */
int sptrsv_model_distributed(const sptrsv_factor *f, const sptrsv_dag *d, const sptrsv_plan *p,
                             const int *tier, const sptrsv_costs *c, sptrsv_prediction *out,
                             rt_err *err);

struct sptrsv_pplan;

/* The persistent solve of plan p with `workers` workers per part; tier[a * parts + b] as above
 * (parts a and b are world ranks a and b). sync_s: a hand-over on one part. */
int sptrsv_model_persistent(const sptrsv_factor *f, const struct sptrsv_pplan *p, const int *tier,
                            int workers, const sptrsv_costs *c, sptrsv_prediction *out,
                            rt_err *err);

/* Bytes one CSR row of the level-set solve reads and writes. */
double sptrsv_model_row_bytes(int64_t row_nnz, int64_t nrhs);

#endif
