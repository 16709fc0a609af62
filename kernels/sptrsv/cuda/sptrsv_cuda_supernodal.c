/* sptrsv.cuda.supernodal: the synchronisation-free supernodal solve on one GPU (the device side is
 * sptrsv_cuda_super.cu). Setup uploads the supernodal factor (its dense column blocks, not the
 * CSR copy's scalar rows), the successors of every supernode, the supernodes in level order (a
 * topological order of the supernodal DAG) and the predecessor counts. An execution resets the
 * partial sums, the counters and the ticket (a memset, a device copy and a memset) and launches
 * once, all inside the timed events. The critical path is the supernodal DAG's depth, not the
 * scalar one: a dense diagonal block is solved by one thread block with two barriers per 32
 * columns, where a row-by-row solve pays a flag hand-over per row. */
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "rt_schema.h"
#include "rt_cuda_point.h"
#include "sptrsv_cuda.h"
#include "sptrsv_cuda_calib.h"
#include "sptrsv_cuda_catalog.h"
#include "sptrsv_cuda_data.h"
#include "sptrsv_cuda_super.h"
#include "sptrsv_cuda_superdata.h"
#include "sptrsv_model.h"
#include "sptrsv_runlog.h"

typedef struct supernodal_state {
    sptrsv_cuda_data d;
    sptrsv_cuda_superdata sd; /* the supernodal factor */
    int32_t *pending;         /* device, nsuper */
    double *lsum;             /* device, n x nrhs */
    uint32_t *ticket;         /* device */
    int threads_per_block, shared_doubles, backoff_ns;
    sptrsv_cuda_super_calib calib; /* the model's costs, measured in setup */
    sptrsv_prediction pred;
    sptrsv_runlog log; /* this point's own times, for model_over_measured */
} supernodal_state;

static const rt_cuda_catalog_entry *entry(void)
{
    int n = 0;
    const rt_cuda_catalog_entry *t = rt_sptrsv_cuda_catalog(&n);
    return rt_cuda_catalog_at(t, n, RT_SPTRSV_CUDA_KIND_SUPERNODAL);
}

static void supernodal_teardown(void *state)
{
    supernodal_state *s = state;
    if (!s)
        return;
    if (s->d.ctx) {
        rt_err ignored;
        (void)rt_cuda_ctx_make_current(s->d.ctx, &ignored);
        sptrsv_cuda_superdata_free(&s->sd);
        rt_cuda_free(s->d.ctx, s->pending);
        rt_cuda_free(s->d.ctx, s->lsum);
        rt_cuda_free(s->d.ctx, s->ticket);
    }
    sptrsv_cuda_data_free(&s->d);
    free(s);
}

static int alloc_scratch(supernodal_state *s, const rt_sptrsv_inputs *in, rt_err *err)
{
    rt_cuda_ctx *ctx = s->d.ctx;
    const size_t pb = (size_t)(in->f.nsuper > 0 ? in->f.nsuper : 1) * sizeof(int32_t);
    const size_t lb = (size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1) * sizeof(double);
    int rc;
    if ((rc = rt_cuda_alloc(ctx, (void **)&s->pending, pb, "pending counters", err)) != 0 ||
        (rc = rt_cuda_alloc(ctx, (void **)&s->lsum, lb, "partial sums", err)) != 0 ||
        (rc = rt_cuda_alloc(ctx, (void **)&s->ticket, sizeof *s->ticket, "the ticket", err)) != 0)
        return rc;
    return 0;
}

static int supernodal_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                            const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    const rt_cuda_catalog_entry *e = entry();
    *state = NULL;
    int64_t tpb = 0, shared_kb = 0, backoff = 0;
    if (rt_schema_int(e->params, e->n_params, self->name, p, "threads_per_block", &tpb, err) != 0 ||
        rt_schema_int(e->params, e->n_params, self->name, p, "shared_kb", &shared_kb, err) != 0 ||
        rt_schema_int(e->params, e->n_params, self->name, p, "backoff_ns", &backoff, err) != 0)
        return -1;
    supernodal_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    *state = s;
    s->threads_per_block = (int)tpb;
    s->backoff_ns = (int)backoff;
    /* No more shared memory than the widest diagonal block needs: the rest would only lower the
     * number of resident blocks. */
    int64_t widest = 0;
    for (int64_t k = 0; k < in->f.nsuper; ++k)
        if (sptrsv_ncols(&in->f, k) > widest)
            widest = sptrsv_ncols(&in->f, k);
    int64_t doubles = shared_kb * 1024 / (int64_t)sizeof(double);
    if (doubles > widest * in->nrhs)
        doubles = widest * in->nrhs;
    s->shared_doubles = (int)doubles;
    int rc = sptrsv_cuda_data_create(self->name, self->backend_ctx, in, 0, &s->d, err);
    if (rc != 0)
        return rc;
    if ((rc = sptrsv_cuda_superdata_create(self->name, s->d.ctx, in, &s->sd, err)) != 0)
        return rc;
    rc = alloc_scratch(s, in, err);
    if (rc != 0) {
        if (rc != RT_INFEASIBLE)
            rt_err_prefix(err, "%s", self->name);
        return rc;
    }
    /* The critical-path model: costs probed with this kernel on parts of this factor. */
    const sptrsv_cuda_super_scratch l = {
        s->lsum, s->pending, s->ticket, s->threads_per_block, s->shared_doubles, s->backoff_ns};
    if ((rc = sptrsv_cuda_calib_super(&s->d, &s->sd, &l, env ? env->device : NULL, &s->calib,
                                      err)) != 0)
        return rc;
    sptrsv_model_syncfree(&in->f, &in->dag, in->nrhs, &s->calib.costs, &s->pred);
    return 0;
}

static int supernodal_run(void *state, double *seconds, rt_err *err)
{
    supernodal_state *s = state;
    const rt_sptrsv_inputs *in = s->d.in;
    void *stream = rt_cuda_ctx_stream(s->d.ctx);
    if (rt_cuda_ctx_make_current(s->d.ctx, err) != 0 ||
        rt_cuda_timer_start(s->d.ctx, RT_SPTRSV_CUDA_SUPERNODAL, err) != 0)
        return -1;
    int rc = sptrsv_cuda_super_reset(stream, s->lsum, in->n * in->nrhs, s->pending, s->sd.pending0,
                                     s->sd.f.nsuper, s->ticket);
    if (rc != 0)
        return rt_err_set(err, RT_SPTRSV_CUDA_SUPERNODAL ": clearing the counters: %s",
                          cudaGetErrorString((cudaError_t)rc));
    rc = sptrsv_cuda_super_launch(stream, s->threads_per_block, s->shared_doubles, s->backoff_ns,
                                  &s->sd.f, s->d.b, s->d.x, s->lsum, (int32_t)in->nrhs, s->pending,
                                  s->ticket);
    if (rc != 0)
        return rt_err_set(err, RT_SPTRSV_CUDA_SUPERNODAL ": launch: %s",
                          cudaGetErrorString((cudaError_t)rc));
    if (rt_cuda_timer_stop(s->d.ctx, seconds, RT_SPTRSV_CUDA_SUPERNODAL, err) != 0)
        return -1;
    sptrsv_runlog_add(&s->log, *seconds);
    return 0;
}

static int supernodal_output(void *state, double *out, rt_err *err)
{
    supernodal_state *s = state;
    return sptrsv_cuda_data_output(&s->d, out, err);
}

static int supernodal_metrics(void *state, rt_metrics *m, rt_err *err)
{
    supernodal_state *s = state;
    if (sptrsv_cuda_data_metrics(&s->d, m, err) != 0)
        return -1;
    rt_metrics_add(m, "launches", "count", 1.0, 1);
    rt_metrics_add(m, "critical_path_len", "count", (double)s->d.in->dag.super_levels, 1);
    rt_metrics_add(m, "shared_doubles", "count", (double)s->shared_doubles, 1);
    rt_metrics_add(m, "setup_s", "s", s->d.upload_s, 0);
    const sptrsv_costs *c = &s->calib.costs;
    rt_metrics_add(m, "model_time_s", "s", s->pred.time_s, 0);
    rt_metrics_add(m, "model_path_len", "count", (double)s->pred.path_tasks, 0);
    rt_metrics_add(m, "model_path_compute_s", "s", s->pred.path_compute_s, 0);
    rt_metrics_add(m, "model_unit_gbs", "GB/s", c->unit_bps * 1e-9, 0);
    rt_metrics_add(m, "model_peak_gbs", "GB/s", c->peak_bps * 1e-9, 0);
    rt_metrics_add(m, "model_task_us", "us", c->task_s * 1e6, 0);
    rt_metrics_add(m, "model_launch_us", "us", c->sync_s * 1e6, 0);
    rt_metrics_add(m, "model_chain_s", "s", s->calib.chain_s, 0);
    if (s->pred.time_s > 0.0) /* a ratio only where the model predicted a time */
        sptrsv_runlog_ratio_metric(&s->log, s->pred.time_s, m);
    return 0;
}

void rt_sptrsv_cuda_supernodal_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {sptrsv_cuda_check,   supernodal_setup,
                                              supernodal_run,      supernodal_output,
                                              supernodal_metrics,  NULL,
                                              supernodal_teardown, sptrsv_cuda_traffic};
    rt_cuda_point_describe(d, entry(), &hooks, ctx);
}
