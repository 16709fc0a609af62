/* sptrsv.cuda.persistent: the message-driven solve as one persistent kernel per GPU (after Ding,
 * Williams, Liu, Li), forward or backward. One rank per GPU; the first `gpus` ranks of the job
 * are the parts of the plan (sptrsv_pplan.h), the others wait. Setup builds the plan (the same on
 * every rank), uploads the factor, the part's plan and inverse diagonal blocks (sptrsv_cuda_pdata),
 * maps every part's X, reduction slots, flags and counters into every other part with CUDA IPC
 * (sptrsv_cuda_peers: one host, one GPU per rank, peer access with native atomics, else the point
 * is infeasible with the reason; sptrsv.cuda.distributed with transport rma is the way across
 * hosts), and measures the model's costs (sptrsv_cuda_pcalib). An execution is one launch per
 * part, timed with CUDA events on each part (the runner keeps the slowest); no host takes part
 * between the launch and the end. The output and metrics hooks gather X from the parts that own
 * each supernode (an MPI sum of the owned rows: every row has one owner). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <mpi.h>

#include "rt_clock.h"
#include "rt_comm.h"
#include "rt_cuda_point.h"
#include "rt_schema.h"
#include "sptrsv_cuda.h"
#include "sptrsv_cuda_catalog.h"
#include "sptrsv_cuda_data.h"
#include "sptrsv_cuda_pcalib.h"
#include "sptrsv_cuda_pdata.h"
#include "sptrsv_cuda_peers.h"
#include "sptrsv_cuda_persist.h"
#include "sptrsv_model.h"
#include "sptrsv_ppoint.h"
#include "sptrsv_probe.h"
#include "sptrsv_runlog.h"

#define KNAME RT_SPTRSV_CUDA_PERSISTENT

enum { BUF_X, BUF_RECV, BUF_XFLAG, BUF_COUNT, BUF_PROBE, BUF_PROBE_FLAG, BUF_N };

typedef struct persist_state {
    const rt_sptrsv_inputs *in;
    rt_cuda_ctx *ctx;
    rt_comm *comm;
    sptrsv_ppoint opt;
    int rank, nranks, part;
    MPI_Comm parts; /* the parts' communicator; MPI_COMM_NULL on a waiting rank */
    sptrsv_pplan plan;
    int have_plan;
    sptrsv_cuda_pdata d;
    sptrsv_cuda_peers *peers;
    int blocks, blocks_per_sm, shared_doubles;
    unsigned long long epoch;
    double *xfull; /* n x nrhs: the last output's whole X, for the residual */
    sptrsv_cuda_pcalib cal;
    sptrsv_prediction pred;
    sptrsv_runlog log;
    double plan_s, peers_s, calib_s;
} persist_state;

static const rt_cuda_catalog_entry *entry(void)
{
    int n = 0;
    const rt_cuda_catalog_entry *t = rt_sptrsv_cuda_catalog(&n);
    return rt_cuda_catalog_at(t, n, RT_SPTRSV_CUDA_KIND_PERSISTENT);
}

static void persist_teardown(void *state)
{
    persist_state *s = state;
    if (!s)
        return;
    if (s->ctx) {
        rt_err ignored;
        (void)rt_cuda_ctx_make_current(s->ctx, &ignored);
        (void)cudaStreamSynchronize(rt_cuda_ctx_stream(s->ctx));
    }
    /* Peers unmap mine before I free it: close my maps, meet every part, then free. */
    sptrsv_cuda_peers_close(s->peers);
    if (s->parts != MPI_COMM_NULL) {
        MPI_Barrier(s->parts);
        MPI_Comm_free(&s->parts);
    }
    sptrsv_cuda_pdata_free(&s->d);
    if (s->have_plan)
        sptrsv_pplan_free(&s->plan);
    free(s->xfull);
    free(s);
}

static int persist_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_cuda_catalog_entry *e = entry();
    if (!env || !env->comm)
        return rt_err_set(err, "%s: no communication layer", self->name);
    sptrsv_ppoint o;
    if (sptrsv_ppoint_read(e->params, e->n_params, self->name, p, &o, err) != 0)
        return -1;
    const int rc = sptrsv_ppoint_check(&o, inputs, rt_comm_world_size(env->comm),
                                       SPTRSV_PERSIST_MAX_PARTS, self->name, why, whylen);
    return rc != 0 ? rc : sptrsv_cuda_check_both(self, inputs, p, env, why, whylen, err);
}

/* One execution on this part: the launch between CUDA events, then its error words. */
static int launch_once(persist_state *s, int trace, int nowait, double *seconds, rt_err *err)
{
    void *st = rt_cuda_ctx_stream(s->ctx);
    sptrsv_persist_dev v = s->d.dev;
    if (!nowait)
        v.epoch = ++s->epoch;
    else
        v.epoch = s->epoch;
    v.nowait = nowait;
    v.trace = trace ? s->d.trace : NULL;
    v.timeout_ns = (long long)(s->opt.timeout_s * 1e9);
    if (rt_cuda_ctx_make_current(s->ctx, err) != 0)
        return -1;
    int rc = sptrsv_cuda_persist_reset(st, s->d.ticket_ctr, s->d.err);
    if (rc != 0)
        return rt_err_set(err, "%s: clearing the ticket: %s", KNAME,
                          cudaGetErrorString((cudaError_t)rc));
    if (rt_cuda_timer_start(s->ctx, KNAME, err) != 0)
        return -1;
    rc = sptrsv_cuda_persist_launch(st, s->blocks, s->opt.threads, s->shared_doubles, &v);
    if (rc != 0)
        return rt_err_set(err, "%s: launch on part %d: %s", KNAME, s->part,
                          cudaGetErrorString((cudaError_t)rc));
    if (rt_cuda_timer_stop(s->ctx, seconds, KNAME, err) != 0)
        return -1;
    long long e[SPTRSV_PERSIST_ERR_WORDS];
    if (rt_cuda_download(s->ctx, e, s->d.err, sizeof e, "the error words", err) != 0)
        return -1;
    if (e[0] == 0)
        return 0;
    char what[160];
    sptrsv_ppoint_describe_task(&s->plan, e[1], what, sizeof what);
    if (e[2] >= 0)
        return rt_err_set(err,
                          "%s: part %d, %s, waited %.3g s for x of supernode %lld from part %d "
                          "(flag %lld, execution %llu)",
                          KNAME, s->part, what, s->opt.timeout_s, e[2], s->plan.home[e[2]], e[3],
                          s->epoch);
    const int64_t sup = -1 - e[2];
    return rt_err_set(err,
                      "%s: part %d, %s, waited %.3g s for the partial sums of supernode %" PRId64
                      ": %lld of %lld signals",
                      KNAME, s->part, what, s->opt.timeout_s, sup,
                      e[3] - (long long)(s->epoch - 1) *
                                 s->plan.target[(int64_t)s->part * s->plan.nsuper + sup],
                      (long long)s->plan.target[(int64_t)s->part * s->plan.nsuper + sup]);
}

static int calib_launch(void *ctx, int trace, int nowait, double *seconds, rt_err *err)
{
    return launch_once(ctx, trace, nowait, seconds, err);
}

/* Every world rank learns the worst outcome of a step (waiting ranks bring 0). */
static int agree(persist_state *s, int rc, const char *step, rt_err *err)
{
    return rt_comm_agree_outcome(s->comm, rc, KNAME, step, err);
}

/* The part's device state, peers and costs. 0, RT_INFEASIBLE or -1, already agreed. */
static int part_setup(persist_state *s, const rt_kernel_env *env, rt_err *err)
{
    const rt_sptrsv_inputs *in = s->in;
    int rc = 0;
    if (s->part >= 0) {
        rc = sptrsv_cuda_pdata_create(KNAME, s->ctx, in, &s->plan, s->part, &s->d, err);
        int occ = 0;
        if (rc == 0 && sptrsv_cuda_persist_occupancy(s->opt.threads, s->shared_doubles, &occ) != 0)
            rc = rt_err_set(err, "%s: the occupancy query failed", KNAME);
        if (rc == 0 && occ < 1) {
            rt_err_set(err,
                       "%s: no block of %d threads and %d doubles of shared memory fits on an SM",
                       KNAME, s->opt.threads, s->shared_doubles);
            rc = RT_INFEASIBLE;
        }
        if (rc == 0) {
            s->blocks_per_sm = s->opt.blocks_per_sm < occ ? s->opt.blocks_per_sm : occ;
            const int sms = env->device && env->device->sm_count > 0 ? env->device->sm_count : 1;
            s->blocks = sms * s->blocks_per_sm;
        }
    }
    if ((rc = agree(s, rc, "setup", err)) != 0)
        return rc;
    const double t0 = rt_clock_now();
    if (s->part >= 0 && s->opt.parts > 1) {
        void *const bufs[BUF_N] = {s->d.x,     s->d.recv,      s->d.xflag,
                                   s->d.count, s->d.probe_buf, s->d.probe_flag};
        rc = sptrsv_cuda_peers_open(KNAME,
                                    "sptrsv.cuda.distributed (transport: rma) runs across "
                                    "hosts and shared GPUs",
                                    s->ctx, s->parts, bufs, BUF_N, 1, &s->peers, err);
        for (int r = 0; rc == 0 && r < s->opt.parts; ++r) {
            s->d.dev.peer_x[r] = sptrsv_cuda_peers_get(s->peers, r, BUF_X);
            s->d.dev.peer_recv[r] = sptrsv_cuda_peers_get(s->peers, r, BUF_RECV);
            s->d.dev.peer_xflag[r] = sptrsv_cuda_peers_get(s->peers, r, BUF_XFLAG);
            s->d.dev.peer_count[r] = sptrsv_cuda_peers_get(s->peers, r, BUF_COUNT);
        }
    }
    s->peers_s = rt_clock_now() - t0;
    if ((rc = agree(s, rc, "mapping the peers' memory", err)) != 0)
        return rc;
    const double t1 = rt_clock_now();
    if (s->part >= 0) {
        const int other = s->part == 0 ? 1 : 0;
        double *pb = s->opt.parts > 1 ? sptrsv_cuda_peers_get(s->peers, other, BUF_PROBE) : NULL;
        unsigned long long *pf =
            s->opt.parts > 1 ? sptrsv_cuda_peers_get(s->peers, other, BUF_PROBE_FLAG) : NULL;
        rc = sptrsv_cuda_pcalib_run(KNAME, &s->d, &s->plan, &in->f, s->parts, pb, pf,
                                    s->opt.timeout_s, calib_launch, s, &s->cal, err);
        if (rc == 0) {
            const int P = s->opt.parts;
            int *tier = malloc((size_t)P * (size_t)P * sizeof *tier);
            if (!tier)
                rc = rt_err_set(err, "%s: out of memory", KNAME);
            else {
                sptrsv_probe_tier_matrix_of(s->comm, P, tier);
                rc = sptrsv_model_persistent(&in->f, &s->plan, tier, s->blocks, &s->cal.costs,
                                             &s->pred, err);
                free(tier);
            }
        }
    }
    s->calib_s = rt_clock_now() - t1;
    return agree(s, rc, "calibration", err);
}

static int persist_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    const rt_cuda_catalog_entry *e = entry();
    *state = NULL;
    if (!in || !env || !env->comm)
        return rt_err_set(err, "%s: no inputs or no communication layer", self->name);
    persist_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    s->parts = MPI_COMM_NULL;
    /* Bad parameters are the same on every rank: all return here, before any collective. */
    int64_t tpb = 0, bps = 0;
    if (sptrsv_ppoint_read(e->params, e->n_params, self->name, p, &s->opt, err) != 0 ||
        rt_schema_int(e->params, e->n_params, self->name, p, "threads_per_block", &tpb, err) != 0 ||
        rt_schema_int(e->params, e->n_params, self->name, p, "blocks_per_sm", &bps, err) != 0) {
        free(s);
        return -1;
    }
    s->opt.threads = (int)tpb;
    s->opt.blocks_per_sm = (int)bps;
    s->in = in;
    s->ctx = self->backend_ctx;
    s->comm = env->comm;
    s->rank = rt_comm_world_rank(env->comm);
    s->nranks = rt_comm_world_size(env->comm);
    const int rrc = sptrsv_ppoint_resolve(&s->opt, s->nranks, err);
    if (rrc != 0) { /* the same on every rank: no collective yet */
        free(s);
        return rrc;
    }
    s->part = s->rank < s->opt.parts ? s->rank : -1;
    if (MPI_Comm_split(rt_comm_mpi(env->comm, RT_COMM_WORLD), s->part >= 0 ? 0 : MPI_UNDEFINED,
                       s->rank, &s->parts) != MPI_SUCCESS) {
        free(s);
        return rt_err_set(err, "%s: MPI_Comm_split of the parts failed", self->name);
    }
    *state = s;
    const double t0 = rt_clock_now();
    int rc = 0;
    if (s->part >= 0) {
        sptrsv_pplan_opts po;
        sptrsv_ppoint_plan_opts(&s->opt, in, &po);
        rc = sptrsv_pplan_build(&in->f, &in->dag, &po, &s->plan, err);
        s->have_plan = rc == 0;
        int64_t widest = 1;
        for (int64_t k = 0; k < in->f.nsuper; ++k)
            if (sptrsv_ncols(&in->f, k) > widest)
                widest = sptrsv_ncols(&in->f, k);
        s->shared_doubles = (int)(widest * in->nrhs);
    }
    s->plan_s = rt_clock_now() - t0;
    s->xfull = malloc((size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1) * sizeof *s->xfull);
    if (rc == 0 && !s->xfull)
        rc = rt_err_set(err, "%s: out of memory for X", self->name);
    if ((rc = agree(s, rc, "planning", err)) == 0)
        rc = part_setup(s, env, err);
    if (rc != 0) { /* every rank is here with the same outcome: tear down together */
        persist_teardown(s);
        *state = NULL;
    }
    return rc;
}

static int persist_run(void *state, double *seconds, rt_err *err)
{
    persist_state *s = state;
    double t = 0.0;
    int rc = s->part >= 0 ? launch_once(s, 0, 0, &t, err) : 0;
    /* The solve's time is the slowest part's; waiting ranks report 0. Outside the timed region. */
    double all = t;
    MPI_Allreduce(&t, &all, 1, MPI_DOUBLE, MPI_MAX, rt_comm_mpi(s->comm, RT_COMM_WORLD));
    if (rc == 0)
        sptrsv_runlog_add(&s->log, all);
    *seconds = s->part >= 0 ? t : 0.0;
    return rc;
}

/* Every rank: X from the owners (their rows of X, zeros elsewhere, summed over the job). */
static int gather_x(persist_state *s, rt_err *err)
{
    const rt_sptrsv_inputs *in = s->in;
    const int64_t k = in->nrhs, nk = in->n * k;
    double *mine = calloc((size_t)(nk > 0 ? nk : 1), sizeof *mine);
    if (!mine)
        return rt_err_set(err, "%s: out of memory gathering X", KNAME);
    int rc = 0;
    if (s->part >= 0) {
        double *host = malloc((size_t)(nk > 0 ? nk : 1) * sizeof *host);
        if (!host || rt_cuda_download(s->ctx, host, s->d.x, (size_t)nk * sizeof *host, "X", err))
            rc = host ? -1 : rt_err_set(err, "%s: out of memory gathering X", KNAME);
        for (int64_t j = 0; rc == 0 && j < in->f.nsuper; ++j)
            if (s->plan.home[j] == s->part)
                memcpy(mine + in->f.first[j] * k, host + in->f.first[j] * k,
                       (size_t)(sptrsv_ncols(&in->f, j) * k) * sizeof *mine);
        free(host);
    }
    /* every rank reaches the sum, failed or not; a failure shows as NaN through the gate too */
    if (rc != 0)
        for (int64_t i = 0; i < nk; ++i)
            mine[i] = NAN;
    if (MPI_Allreduce(mine, s->xfull, (int)nk, MPI_DOUBLE, MPI_SUM,
                      rt_comm_mpi(s->comm, RT_COMM_WORLD)) != MPI_SUCCESS &&
        rc == 0)
        rc = rt_err_set(err, "%s: gathering X (MPI_Allreduce) failed", KNAME);
    free(mine);
    return rc;
}

static int persist_output(void *state, double *out, rt_err *err)
{
    persist_state *s = state;
    if (gather_x(s, err) != 0)
        return -1;
    sptrsv_canonical_rows(s->in, s->xfull, out);
    return 0;
}

static int persist_metrics(void *state, rt_metrics *m, rt_err *err)
{
    persist_state *s = state;
    (void)err;
    sptrsv_ppoint_solution_metrics(s->in, s->xfull, m);
    rt_metrics_add(m, "blocks", "count", (double)s->blocks, 1);
    rt_metrics_add(m, "blocks_per_sm_used", "count", (double)s->blocks_per_sm, 1);
    rt_metrics_add(m, "shared_doubles", "count", (double)s->shared_doubles, 1);
    rt_metrics_add(m, "launches", "count", s->part >= 0 ? 1.0 : 0.0, 1);
    rt_metrics_add(m, "plan_s", "s", s->plan_s, 0);
    rt_metrics_add(m, "peers_s", "s", s->peers_s, 0);
    rt_metrics_add(m, "calibration_s", "s", s->calib_s, 0);
    rt_metrics_add(m, "inverse_s", "s", s->d.inverse_s, 0);
    rt_metrics_add(m, "upload_s", "s", s->d.upload_s, 0);
    if (s->part < 0)
        return 0;
    sptrsv_ppoint_plan_metrics(&s->plan, m);
    sptrsv_ppoint_model_metrics(&s->pred, &s->cal.costs, m);
    rt_metrics_add(m, "model_link_latency_us", "us", s->cal.link_lat_s * 1e6, 0);
    rt_metrics_add(m, "model_link_gbs", "GB/s", s->cal.link_bps * 1e-9, 0);
    rt_metrics_add(m, "model_sync_samples", "count", (double)s->cal.sync_samples, 0);
    rt_metrics_add(m, "calib_nowait_s", "s", s->cal.nowait_s, 0);
    rt_metrics_add(m, "calib_trace_s", "s", s->cal.trace_s, 0);
    if (s->pred.time_s > 0.0) /* a ratio only where the model predicted a time */
        sptrsv_runlog_ratio_metric(&s->log, s->pred.time_s, m);
    return 0;
}

static int persist_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                           const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_cuda_catalog_entry *e = entry();
    sptrsv_ppoint o;
    if (!env || !env->comm)
        return rt_err_set(err, "%s: no communication layer", self->name);
    if (sptrsv_ppoint_read(e->params, e->n_params, self->name, p, &o, err) != 0 ||
        sptrsv_ppoint_resolve(&o, rt_comm_world_size(env->comm), err) != 0)
        return -1;
    return sptrsv_ppoint_traffic(&o, inputs, env->comm, t, err);
}

void rt_sptrsv_cuda_persistent_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {persist_check,    persist_setup,   persist_run,
                                              persist_output,   persist_metrics, NULL,
                                              persist_teardown, persist_traffic};
    rt_cuda_point_describe(d, entry(), &hooks, ctx);
}
