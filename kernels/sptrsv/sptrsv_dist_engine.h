/* sptrsv_dist_engine: the message logic of the distributed (message-driven) forward solve, shared
 * by sptrsv.cpu.distributed and sptrsv.cuda.distributed; the arithmetic is the caller's, through
 * sptrsv_dist_ops (a CPU block update, or copies and kernels on the rank's GPU).
 *
 * P x 1 block layout and binary broadcast trees from sptrsv_plan; each rank solves its supernodes
 * as their inputs arrive, with no barrier between levels. x_s travels as an MPI-3 RMA put from
 * the host copy of X into a slot of the receiver's window followed by an atomic increment of the
 * slot's counter, which the receiver polls; a receiver forwards x_s to its children in the tree
 * before using it.
 *
 * Every execution starts and ends with a barrier: the end one makes the solve's completion global,
 * after which each rank checks that every slot received exactly one message in this execution (its
 * counter equals the execution count) and none is pending; the start one keeps a rank's next
 * execution from overwriting X while another rank's output hook still reads it. X itself lives in
 * a second window (the host staging of the GPU solve) so the output and metrics hooks fetch the
 * canonical rows from their owners with one-sided gets (no collective there, so a rank whose
 * execution failed cannot leave others waiting). */
#ifndef SPTRSV_DIST_ENGINE_H
#define SPTRSV_DIST_ENGINE_H

#include <stdint.h>

#include "rt_comm.h"
#include "rt_error.h"
#include "rt_metrics.h"
#include "sptrsv_family.h"
#include "sptrsv_plan.h"

/* The arithmetic of one rank; every hook returns 0 or -1 with err filled. */
typedef struct sptrsv_dist_ops {
    void *ctx;
    /* An execution starts: clear the partial sums of my supernodes. */
    int (*begin)(void *ctx, rt_err *err);
    /* x_j (ncols(j) x nrhs, row-major, host) is known here: add L(rows of DAG edge e, columns of j)
     * x_j into the partial sums of my supernode succ[e]. */
    int (*update)(void *ctx, int64_t j, int64_t e, const double *xj, rt_err *err);
    /* Every input of my supernode u has been added: write x_u = L_uu^-1 (b_u - partial sums) into
     * xu (host, ncols(u) x nrhs), where the engine sends it from. */
    int (*solve)(void *ctx, int64_t u, double *xu, rt_err *err);
} sptrsv_dist_ops;

/* Another way for x to travel (`transport: ipc`: CUDA IPC between the ranks' GPUs); without
 * one, the engine's own MPI-3 RMA windows carry it. Slot i of a rank is its i-th receive in
 * supernode order; every hook returns 0 or -1 with err filled. */
typedef struct sptrsv_dist_transport {
    void *ctx;
    /* x_j is known here (its rows are where the receiver reads them after the counter: the
     * caller's arithmetic put them there): deliver it to rank dst's slot `slot`, then add one to
     * that slot's arrival counter, visible to dst only after x_j is. */
    int (*send)(void *ctx, int64_t j, int dst, int64_t slot, rt_err *err);
    /* The arrival counters of my n_recv slots, as they are now, into counts. */
    int (*counts)(void *ctx, int64_t *counts, rt_err *err);
} sptrsv_dist_transport;

typedef struct sptrsv_dist sptrsv_dist;

/* Builds the plan and the receive lists, agrees with every rank that they got this far, then
 * creates the two windows (collective over world). name prefixes every message. prior: NULL, or
 * this rank's failure before the call (its own setup), which makes every rank fail here, before
 * any window exists, with *err = *prior on this rank. */
int sptrsv_dist_create(const char *name, const rt_sptrsv_inputs *in, rt_comm *comm,
                       double poll_timeout_s, int64_t fail_rank, const rt_err *prior,
                       sptrsv_dist **out, rt_err *err);
void sptrsv_dist_free(sptrsv_dist *d); /* collective (the windows); NULL is fine */

/* From now on x travels through t (copied; t->ctx must outlive d), not through the windows. With
 * a transport the engine never writes a received x_j into its host copy of X: the caller's
 * update reads x_j where the transport delivered it (the xj argument points at stale host rows). */
void sptrsv_dist_set_transport(sptrsv_dist *d, const sptrsv_dist_transport *t);
/* Messages this rank receives per execution (the length of the counts array). */
int64_t sptrsv_dist_n_recv(const sptrsv_dist *d);

const sptrsv_plan *sptrsv_dist_plan(const sptrsv_dist *d);
/* The host copy of X (n x nrhs, row-major): rows of my supernodes and of those received. */
double *sptrsv_dist_x(sptrsv_dist *d);

/* One execution (collective), timed between the barriers into *seconds (wall clock). */
int sptrsv_dist_execute(sptrsv_dist *d, const sptrsv_dist_ops *ops, double *seconds, rt_err *err);

/* Rows [r0, r1) of X from their owners (one-sided gets; owners take no part). */
int sptrsv_dist_fetch_rows(sptrsv_dist *d, int64_t r0, int64_t r1, double *out, rt_err *err);

/* The residual of the whole X (fetched) and the message counts of the last execution:
 * messages_expected / received / pending / duplicated / sent / total, tree_depth. */
int sptrsv_dist_metrics(sptrsv_dist *d, rt_metrics *m, rt_err *err);

#endif
