/* dspmm_model: the model-only mode of the distributed SpMM — the partition, the communication
 * plan and the per-tier volumes of a job of any size, computed in one process for a virtual
 * topology (N ranks, R per node, S per socket), and the communication time an alpha-beta model
 * predicts from per-tier latencies and bandwidths (a machine file's socket, node and global
 * tiers). Nothing is launched: `rooftune run CONFIG --model-only --ranks N` calls this for every
 * dspmm point of a config.
 *
 * The volumes are exact, not estimates: they come from the same plan (dspmm_plan) the kernel
 * executes, so at any scale a real run of that shape sends exactly these bytes and messages (the
 * tests check this against measured counts). The times are a model:
 *
 *   time of rank r in hop k = sum over tiers t of msgs[r][k][t] * latency[t] + bytes[r][k][t] /
 * bw[t] hop_time[k]             = max over ranks (a hop ends when its slowest rank is done)
 *   comm_time               = sum over hops (hops run one after another; no overlap with the
 *                             multiply is credited, so with minibatch pipelining it is an upper
 *                             estimate of the exposed communication)
 *
 * tier_time[t] is the busiest rank's alpha-beta time on tier t over all hops, which is what the
 * roofline's inter-node term sums. */
#ifndef DSPMM_MODEL_H
#define DSPMM_MODEL_H

#include <stdint.h>

#include "dspmm_plan.h"
#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_params.h"

typedef struct dspmm_model_opts {
    int nranks, ranks_per_node, ranks_per_socket; /* the virtual job (0: one node / one socket) */
    int p_batch;
    dspmm_comm_kind comm;
    int64_t minibatch;
    int64_t stages; /* > 0: pipeline stages asked directly (overrides minibatch) */
    int64_t k;
    rt_precision prec;
    int have_tiers;                 /* 1: predict times from the two arrays below */
    double tier_gbs[RT_TIER_COUNT]; /* GB/s (1e9 bytes/s), one direction, per rank */
    double tier_latency_us[RT_TIER_COUNT];
    int want_pairs; /* 1: fill pair_bytes */
} dspmm_model_opts;

typedef struct dspmm_model_result {
    int nranks, p_data, p_batch, hops;
    int64_t chunks_max; /* pipeline stages of the widest batch group */
    int64_t bytes_max[RT_TIER_COUNT], bytes_total[RT_TIER_COUNT];
    int64_t msgs_max[RT_TIER_COUNT], msgs_total[RT_TIER_COUNT];
    int64_t partial_bytes[DSPMM_MAX_HOPS]; /* partial data held before each hop, all ranks */
    const char *hop_phase[DSPMM_MAX_HOPS]; /* "socket", "node", "global" */
    double hop_time_s[DSPMM_MAX_HOPS];     /* NAN without tiers */
    double tier_time_s[RT_TIER_COUNT];
    double comm_time_s;
    dspmm_tally *per_rank; /* nranks entries */
    int64_t *pair_bytes;   /* nranks x nranks (src-major), when asked */
} dspmm_model_result;

/* Fills p_batch, comm, minibatch, stages (a dspmm.cpu.sender point) and k, precision (a dspmm
 * problem point) of o; the topology and tiers are the caller's. */
int dspmm_model_opts_from_point(const rt_params *kernel_params, const rt_params *problem,
                                dspmm_model_opts *o, rt_err *err);

/* Plans the job and fills r. Returns 0, RT_INFEASIBLE with why filled (p_batch does not divide
 * the ranks, ...), or -1. Free r with dspmm_model_result_free in every case. */
int dspmm_model_run(const rt_csr *a, const dspmm_model_opts *o, dspmm_model_result *r, char *why,
                    size_t whylen, rt_err *err);
void dspmm_model_result_free(dspmm_model_result *r);

#endif
