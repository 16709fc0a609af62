/* dspmm_sender_common: what the sender-multiplies kernels share whatever their transport
 * (dspmm.cpu.sender with host MPI, dspmm.cuda.sender with CUDA IPC and staged MPI), so there is one
 * copy of it: reading the distribution parameters, the feasibility check, the rank's place in the
 * grid, its plan and role, the local operands (its level-0 rows restricted to its block of
 * columns, its rows of B), the per-execution tallies of what it sent, the failure agreement that
 * ends every execution, the output assembly (the rank's C rows moved to the family's canonical
 * blocks), the metrics (per-tier bytes and messages, the communication matrix, phase times) and
 * the traffic model.
 *
 * A kernel embeds dspmm_sender_base in its state and adds its buffers and transport. */
#ifndef DSPMM_SENDER_COMMON_H
#define DSPMM_SENDER_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "dspmm_family.h"
#include "dspmm_part.h"
#include "dspmm_plan.h"
#include "dspmm_timeline.h"
#include "rt_comm.h"
#include "rt_error.h"
#include "rt_params.h"
#include "rt_registry.h"
#include "rt_tables.h"

/* Parameter schema entries both senders take (the CPU kernel's table and the CUDA kernel's
 * catalog entry, kernels/spmm/spmm_cuda_catalog.c, are built from them). */
#define DSPMM_PARAM_P_BATCH                                                                        \
    RT_PARAM_INT(                                                                                  \
        "p_batch", "1..65536", "1",                                                                \
        "batch groups: the columns of B and C are split among them (must divide the ranks)")
#define DSPMM_PARAM_COMM                                                                           \
    RT_PARAM_STR(                                                                                  \
        "comm", "direct|node|socket+node", "direct",                                               \
        "reduction of partial rows: direct all-to-all, or through node (and socket) proxies")
#define DSPMM_PARAM_MINIBATCH                                                                      \
    RT_PARAM_INT(                                                                                  \
        "minibatch", "0..65536", "0",                                                              \
        "columns per pipeline stage (0: no pipelining); the last hop overlaps the next stage")
#define DSPMM_PARAM_STAGES                                                                         \
    RT_PARAM_INT(                                                                                  \
        "stages", "0..65536", "0",                                                                 \
        "pipeline stages: K split into this many near-equal column blocks (0: minibatch)")
/* Buffer sets of the pipelined hop: stage s reuses the set of stage s - stage_buffers, and waits
 * (on the device, or on the host where MPI needs it) only for that set to be free. */
#define DSPMM_MAX_STAGE_BUFFERS 8
#define DSPMM_PARAM_STAGE_BUFFERS                                                                  \
    RT_PARAM_INT("stage_buffers", "2..8", "2",                                                     \
                 "buffer sets of the pipelined hop (credits): a stage reuses the set of the "      \
                 "stage this many before it")
#define DSPMM_PARAM_FAIL_RANK                                                                      \
    RT_PARAM_INT("fail_rank", "-1..1048576", "-1",                                                 \
                 "TEST HOOK: this world rank reports a failure (-1: none)")
#define DSPMM_PARAM_FAIL_AT                                                                        \
    RT_PARAM_STR("fail_at", "setup|run", "run", "TEST HOOK: where fail_rank fails")

/* The communication matrix is stored only for jobs of at most this many ranks (a point holds
 * RT_MAX_METRICS metrics). */
#define DSPMM_COMMMAT_MAX_RANKS 16

/* Tags of the plan's messages: DSPMM_TAG_BASE + 2 * hop + chunk parity, so the in-flight last hop
 * of chunk i never matches a message of chunk i + 1. Transports add their own tags above
 * DSPMM_TAG_BASE + 2 * DSPMM_MAX_HOPS. */
#define DSPMM_TAG_BASE 0x4D00

/* The parameters every sender kernel has (each kernel's schema also holds its own). */
typedef struct dspmm_sender_cfg {
    int p_batch;
    dspmm_comm_kind comm;
    int64_t minibatch;
    int64_t stages;        /* > 0: overrides minibatch */
    int64_t stage_buffers; /* 2..DSPMM_MAX_STAGE_BUFFERS */
    int64_t fail_rank;     /* TEST HOOK: -1 none */
    int fail_in_setup;     /* fail_at == "setup" */
} dspmm_sender_cfg;

/* Reads p_batch, comm, minibatch, stages, stage_buffers, fail_rank and fail_at from p with
 * `schema`'s defaults. */
int dspmm_sender_read_cfg(const rt_param_schema *schema, int n_schema, const char *kname,
                          const rt_params *p, dspmm_sender_cfg *cfg, rt_err *err);

/* Needs the communication layer; RT_INFEASIBLE (why) when p_batch does not divide the ranks or
 * exceeds K. in may be NULL (no K check). */
int dspmm_sender_check(const char *kname, const rt_dspmm_inputs *in, const dspmm_sender_cfg *cfg,
                       const rt_kernel_env *env, char *why, size_t whylen, rt_err *err);

typedef struct dspmm_sender_base {
    const char *kname;
    const rt_dspmm_inputs *in;
    rt_comm *comm;
    MPI_Comm mpi;
    int rank, nranks;
    dspmm_topo topo;
    dspmm_grid grid;
    dspmm_plan plan;
    dspmm_role role;
    int batch, data;
    int64_t kb, k0;                       /* my group's columns [k0, k0 + kb) */
    int64_t minibatch, chunks, chunk_max; /* chunk ch's columns: dspmm_chunk_cols */
    int stage_buffers;
    rt_precision prec;
    size_t esize;
    int fail_run; /* TEST HOOK: this rank fails every execution */
    /* Local multiply: my level-0 rows x my block of A's columns (local column indices), CSR. */
    int64_t *lrowptr;
    int32_t *lcol;
    void *lval; /* lnnz values in prec */
    int64_t lnnz;
    int64_t bcols; /* rows of my B block */
    void *bblk;    /* bcols x kb, row-major, in prec */
    /* What the last execution sent, tallied by the kernel as it sent it. */
    int64_t tally_bytes[RT_TIER_COUNT], tally_msgs[RT_TIER_COUNT];
    int64_t *pair_bytes; /* nranks: bytes to each world rank */
    /* Phase times summed over executions; t_hop[k] is hop k's wait (its phase's name comes from
     * the plan); t_staging the device <-> host copies of a GPU transport. */
    double t_kernel, t_reduce, t_hop[DSPMM_MAX_HOPS], t_staging;
    /* Wall time of the executions (begin to the end of the last reduction, before the final
     * agreement) and its start; with pipelining the phases above sum to more than it. */
    double t_wall, t_begin;
    int64_t n_exec;
    /* Busy times from the phase timeline (dspmm_timeline: device work timed with events where it
     * runs, MPI waits on the host clock), summed over executions. timeline: 0 the kernel keeps
     * none (no time_busy_* metric), 1 kept, 2 not kept for the reason timeline_why (the metrics
     * are recorded unavailable). */
    int timeline;
    const char *timeline_why;
    double t_busy[DSPMM_PH_COUNT], t_busy_sum, t_busy_union, t_busy_overlap;
} dspmm_sender_base;

/* Builds the topology, grid, plan, role and local operands of this rank, and checks that every
 * message fits an MPI count. Returns 0, RT_INFEASIBLE (err holds the reason) or -1; on failure
 * the caller still calls dspmm_sender_base_free. Communicates with nobody. */
int dspmm_sender_base_init(dspmm_sender_base *b, const char *kname, const rt_dspmm_inputs *in,
                           const rt_kernel_env *env, const dspmm_sender_cfg *cfg, rt_err *err);
void dspmm_sender_base_free(dspmm_sender_base *b);

/* Start of an execution: clears the tallies and starts the wall clock. */
void dspmm_sender_begin(dspmm_sender_base *b);
/* Columns [*c0, *c0 + *w) of my group's block for chunk ch. */
void dspmm_sender_chunk(const dspmm_sender_base *b, int64_t ch, int64_t *c0, int64_t *w);

/* Adds one execution's busy times (its timeline) to the sums the metrics average. */
void dspmm_sender_add_busy(dspmm_sender_base *b, const dspmm_busy *busy);
/* The pipeline model of one execution from its mean phase times per stage: the multiply of a
 * stage (compute) and everything after it (communicate: hops, staging, reductions) form a
 * two-phase pipeline over `chunks` stages, so time = chunks x the slower phase + the faster
 * phase once (the fill of the first stage and the drain of the last). With one stage it is the
 * sum of the phases. */
double dspmm_pipeline_model(int64_t chunks, double compute_s, double communicate_s);
/* One message of `bytes` to world rank peer: counted with rt_comm_count_to (the job's per-tier
 * counters) and in the kernel's tallies. */
int dspmm_sender_count(dspmm_sender_base *b, int peer, int64_t bytes, rt_err *err);

/* An execution's outcome on this rank: ok until the first failure, whose message err keeps (later
 * ones are dropped); the ranks agree on it at the end (dspmm_sender_finish). */
typedef struct dspmm_exec_ctx {
    int ok;
    rt_err err;
} dspmm_exec_ctx;

/* Records a failed MPI call (rc, MPI's text added when it has one) as "<who>: <what>[: text]",
 * unless a failure is recorded already. */
void dspmm_exec_fail_mpi(dspmm_exec_ctx *x, const char *who, const char *what, int rc);

/* End of an execution: stops the wall clock, applies the fail_rank hook, then agrees with every
 * rank. ok/local: this rank's outcome. Returns 0 when every rank succeeded; else -1 with err naming
 * the first failed rank and its message (this rank's own error when it failed). */
int dspmm_sender_finish(dspmm_sender_base *b, int ok, const rt_err *local, rt_err *err);

/* The output hook's work: c holds my C rows (role.c_rows x kb, row-major, in prec, host memory);
 * they move to the family's canonical blocks (all ranks take part). c NULL: this rank could not
 * produce its rows; it still takes part, and every rank fails naming it. */
int dspmm_sender_output(const dspmm_sender_base *b, const void *c, double *out, rt_err *err);

/* The metrics hook's work (collective). staging_why NULL: time_staging_s is measured (t_staging);
 * else it is recorded unavailable for that reason. */
int dspmm_sender_metrics(const dspmm_sender_base *b, const char *staging_why, rt_metrics *m,
                         rt_err *err);

/* The traffic model of a point: this rank's compulsory memory traffic and what it sends per
 * network tier (from the plan). */
int dspmm_sender_traffic(const char *kname, const rt_dspmm_inputs *in, const dspmm_sender_cfg *cfg,
                         const rt_kernel_env *env, rt_traffic *t, rt_err *err);

#endif
