#include "sptrsv_cuda_calib.h"

#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "rt_cuda_variant.h"
#include "sptrsv_block.h"
#include "sptrsv_cuda_solve.h"
#include "sptrsv_cuda_super.h"
#include "sptrsv_model.h"

#define PROBE_REPS 5
#define NAME       "sptrsv.cuda.supernodal calibration"

/* Device scratch of one probe: the subset's order and the counters' initial values. */
typedef struct probe {
    const sptrsv_cuda_data *d;
    const sptrsv_cuda_superdata *sd;
    const sptrsv_cuda_super_scratch *l;
    int32_t *order_dev, *pending0_dev;
    int32_t *pending_host; /* nsuper */
} probe;

/* The kernel on the supernodes order[0 .. count) alone: pending of each of them is the number of
 * its predecessors among them (the rest are never waited for). Fastest of PROBE_REPS. */
static int run_subset(probe *p, const int32_t *order, int32_t count, double *best, rt_err *err)
{
    const rt_sptrsv_inputs *in = p->d->in;
    const sptrsv_dag *g = &in->dag;
    const int64_t ns = in->f.nsuper;
    for (int64_t s = 0; s < ns; ++s)
        p->pending_host[s] = -1; /* not in the subset */
    for (int32_t q = 0; q < count; ++q)
        p->pending_host[order[q]] = 0;
    for (int32_t q = 0; q < count; ++q)
        for (int64_t e = g->succ_ptr[order[q]]; e < g->succ_ptr[order[q] + 1]; ++e)
            if (p->pending_host[g->succ[e]] >= 0)
                p->pending_host[g->succ[e]]++;
    rt_cuda_ctx *ctx = p->d->ctx;
    if (rt_cuda_upload(ctx, p->order_dev, order, (size_t)count * sizeof *order, "probe order",
                       err) != 0 ||
        rt_cuda_upload(ctx, p->pending0_dev, p->pending_host, (size_t)ns * sizeof(int32_t),
                       "probe counters", err) != 0)
        return -1;
    sptrsv_super_dev f = p->sd->f;
    f.nsuper = count;
    f.order = p->order_dev;
    void *stream = rt_cuda_ctx_stream(ctx);
    *best = 0.0;
    for (int r = 0; r < PROBE_REPS; ++r) {
        int rc = sptrsv_cuda_super_reset(stream, p->l->lsum, in->n * in->nrhs, p->l->pending,
                                         p->pending0_dev, (int32_t)ns, p->l->ticket);
        if (rc != 0)
            return rt_err_set(err, NAME ": reset: %s", cudaGetErrorString((cudaError_t)rc));
        if (rt_cuda_timer_start(ctx, NAME, err) != 0)
            return -1;
        rc = sptrsv_cuda_super_launch(stream, p->l->threads_per_block, p->l->shared_doubles,
                                      p->l->backoff_ns, &f, p->d->b, p->d->x, p->l->lsum,
                                      (int32_t)in->nrhs, p->l->pending, p->l->ticket);
        if (rc != 0)
            return rt_err_set(err, NAME ": launch: %s", cudaGetErrorString((cudaError_t)rc));
        double t = 0.0;
        if (rt_cuda_timer_stop(ctx, &t, NAME, err) != 0)
            return -1;
        if (r == 0 || t < *best)
            *best = t;
    }
    return 0;
}

/* The longest chain of the supernodal DAG, in DAG order: back from a supernode on the last level
 * through a predecessor one level lower each time. */
static int32_t longest_chain(const sptrsv_dag *g, int32_t *chain)
{
    int64_t s = -1;
    for (int64_t k = 0; k < g->nsuper; ++k)
        if (g->super_level[k] + 1 == g->super_levels) {
            s = k;
            break;
        }
    int32_t len = 0;
    while (s >= 0) {
        chain[len++] = (int32_t)s;
        int64_t next = -1;
        for (int64_t e = g->pred_ptr[s]; e < g->pred_ptr[s + 1]; ++e)
            if (g->super_level[g->pred[e]] + 1 == g->super_level[s]) {
                next = g->pred[e];
                break;
            }
        s = next;
    }
    for (int32_t i = 0; i < len / 2; ++i) {
        const int32_t t = chain[i];
        chain[i] = chain[len - 1 - i];
        chain[len - 1 - i] = t;
    }
    return len;
}

/* Memory bandwidth from the device facts (double data rate), else the fallback. */
static double device_peak(const rt_device_info *dev, double fallback)
{
    if (dev && dev->mem_clock_mhz > 0.0 && dev->mem_bus_bits > 0)
        return 2.0 * dev->mem_clock_mhz * 1e6 * dev->mem_bus_bits / 8.0;
    return fallback;
}

int sptrsv_cuda_calib_super(const sptrsv_cuda_data *d, const sptrsv_cuda_superdata *sd,
                            const sptrsv_cuda_super_scratch *l, const rt_device_info *dev,
                            sptrsv_cuda_super_calib *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    const rt_sptrsv_inputs *in = d->in;
    const sptrsv_factor *f = &in->f;
    const int64_t ns = f->nsuper, k = in->nrhs;
    if (ns <= 0)
        return 0;
    probe p = {d, sd, l, NULL, NULL, NULL};
    int32_t *chain = malloc((size_t)ns * sizeof *chain);
    p.pending_host = malloc((size_t)ns * sizeof *p.pending_host);
    int rc = 0;
    if (!chain || !p.pending_host) {
        rc = rt_err_set(err, NAME ": out of host memory");
        goto done;
    }
    if ((rc = rt_cuda_alloc(d->ctx, (void **)&p.order_dev, (size_t)ns * sizeof(int32_t),
                            "probe order", err)) != 0 ||
        (rc = rt_cuda_alloc(d->ctx, (void **)&p.pending0_dev, (size_t)ns * sizeof(int32_t),
                            "probe counters", err)) != 0)
        goto done;
    int32_t smallest = 0, biggest = 0;
    for (int64_t s = 1; s < ns; ++s) {
        if (sptrsv_block_bytes(f, s, k) < sptrsv_block_bytes(f, smallest, k))
            smallest = (int32_t)s;
        if (sptrsv_block_bytes(f, s, k) > sptrsv_block_bytes(f, biggest, k))
            biggest = (int32_t)s;
    }
    double t_small = 0.0, t_big = 0.0, t_chain = 0.0;
    if ((rc = run_subset(&p, &smallest, 1, &t_small, err)) != 0 ||
        (rc = run_subset(&p, &biggest, 1, &t_big, err)) != 0)
        goto done;
    const int32_t len = longest_chain(&in->dag, chain);
    if ((rc = run_subset(&p, chain, len, &t_chain, err)) != 0)
        goto done;
    sptrsv_costs *c = &out->costs;
    c->sync_s = t_small;
    /* One block's bandwidth; a supernode too small to time apart from the launch gives no more
     * than the launch's resolution (1e-7 s). */
    const double big_s = t_big - t_small > 1e-7 ? t_big - t_small : 1e-7;
    c->unit_bps = sptrsv_block_bytes(f, biggest, k) / big_s;
    double chain_bytes = 0.0;
    for (int32_t q = 0; q < len; ++q)
        chain_bytes += sptrsv_block_bytes(f, chain[q], k);
    const double hand = t_chain - t_small - chain_bytes / c->unit_bps;
    c->task_s = hand > 0.0 && len > 0 ? hand / len : 0.0;
    c->peak_bps = device_peak(dev, c->unit_bps * (dev && dev->sm_count > 0 ? dev->sm_count : 1));
    if (c->peak_bps < c->unit_bps)
        c->peak_bps = c->unit_bps;
    out->chain_s = t_chain;
    out->chain_len = len;
done:
    rt_cuda_free(d->ctx, p.order_dev);
    rt_cuda_free(d->ctx, p.pending0_dev);
    free(chain);
    free(p.pending_host);
    return rc;
}

#define LAUNCHES 64
#define LNAME    "sptrsv.cuda.levelset calibration"

/* Fastest of PROBE_REPS runs of `launches` back-to-back one-row launches of row level_rows[q]. */
static int time_rows(const sptrsv_cuda_data *d, const int32_t *level_rows, int64_t q,
                     int threads_per_block, int launches, double *best, rt_err *err)
{
    void *stream = rt_cuda_ctx_stream(d->ctx);
    *best = 0.0;
    for (int r = 0; r < PROBE_REPS; ++r) {
        if (rt_cuda_timer_start(d->ctx, LNAME, err) != 0)
            return -1;
        for (int i = 0; i < launches; ++i) {
            const int rc =
                sptrsv_cuda_level_launch(stream, threads_per_block, d->rowptr, d->colidx, d->val,
                                         d->b, d->x, (int32_t)d->in->nrhs, level_rows + q, 1);
            if (rc != 0)
                return rt_err_set(err, LNAME ": launch: %s", cudaGetErrorString((cudaError_t)rc));
        }
        double t = 0.0;
        if (rt_cuda_timer_stop(d->ctx, &t, LNAME, err) != 0)
            return -1;
        if (r == 0 || t < *best)
            *best = t;
    }
    *best /= launches;
    return 0;
}

int sptrsv_cuda_calib_levelset(const sptrsv_cuda_data *d, const int32_t *level_rows,
                               int threads_per_block, const rt_device_info *dev, sptrsv_costs *c,
                               int64_t *workers, rt_err *err)
{
    memset(c, 0, sizeof *c);
    const rt_sptrsv_inputs *in = d->in;
    const rt_csr *l = &in->f.csr;
    const sptrsv_dag *g = &in->dag;
    *workers = dev && dev->sm_count > 0 && dev->max_threads_per_sm > 0
                   ? (int64_t)dev->sm_count * dev->max_threads_per_sm / 32
                   : 1;
    if (in->n <= 0)
        return 0;
    /* The row with the most entries, by its position in the level order. */
    int64_t longest = 0;
    for (int64_t q = 1; q < in->n; ++q) {
        const int64_t i = g->level_rows[q], j = g->level_rows[longest];
        if (l->rowptr[i + 1] - l->rowptr[i] > l->rowptr[j + 1] - l->rowptr[j])
            longest = q;
    }
    double t_launch = 0.0, t_row = 0.0;
    /* Position 0 is a row of level 0: only its diagonal. */
    if (time_rows(d, level_rows, 0, threads_per_block, LAUNCHES, &t_launch, err) != 0 ||
        time_rows(d, level_rows, longest, threads_per_block, 1, &t_row, err) != 0)
        return -1;
    c->sync_s = t_launch;
    const int64_t i = g->level_rows[longest];
    const double row_s = t_row - t_launch > 1e-7 ? t_row - t_launch : 1e-7;
    c->unit_bps = sptrsv_model_row_bytes(l->rowptr[i + 1] - l->rowptr[i], in->nrhs) / row_s;
    c->peak_bps = device_peak(dev, c->unit_bps * (double)*workers);
    if (c->peak_bps < c->unit_bps)
        c->peak_bps = c->unit_bps;
    return 0;
}
