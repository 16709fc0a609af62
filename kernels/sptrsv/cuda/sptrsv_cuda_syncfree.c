/* sptrsv.cuda.syncfree: the synchronisation-free solve on one GPU. One launch with a warp per row;
 * a warp takes its row from a global ticket counter in level order (a topological order of the
 * row DAG, uploaded once), waits until the ready flag of every row its row depends on is set
 * (volatile reads of global memory), solves the row, makes X visible (__threadfence) and sets its
 * own flag. No barrier between levels. Since tickets go only to running warps and the order is
 * topological, every row waited for is already held by a running warp: no deadlock. An execution
 * clears the flags and the counter (two memsets) and launches, both inside the timed events. */
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "rt_schema.h"
#include "rt_cuda_point.h"
#include "sptrsv_cuda.h"
#include "sptrsv_cuda_catalog.h"
#include "sptrsv_cuda_data.h"
#include "sptrsv_cuda_solve.h"

typedef struct syncfree_state {
    sptrsv_cuda_data d;
    int32_t *order; /* device, n: rows in level order */
    int32_t *ready; /* device, n flags */
    uint32_t *ticket;
    int threads_per_block;
} syncfree_state;

static const rt_cuda_catalog_entry *entry(void)
{
    int n = 0;
    const rt_cuda_catalog_entry *t = rt_sptrsv_cuda_catalog(&n);
    return rt_cuda_catalog_at(t, n, RT_SPTRSV_CUDA_KIND_SYNCFREE);
}

static void syncfree_teardown(void *state)
{
    syncfree_state *s = state;
    if (!s)
        return;
    if (s->d.ctx) {
        rt_cuda_free(s->d.ctx, s->order);
        rt_cuda_free(s->d.ctx, s->ready);
        rt_cuda_free(s->d.ctx, s->ticket);
    }
    sptrsv_cuda_data_free(&s->d);
    free(s);
}

static int syncfree_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    const rt_cuda_catalog_entry *e = entry();
    (void)env;
    *state = NULL;
    int64_t tpb = 0;
    if (rt_schema_int(e->params, e->n_params, self->name, p, "threads_per_block", &tpb, err) != 0)
        return -1;
    syncfree_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    *state = s;
    s->threads_per_block = (int)tpb;
    rt_cuda_ctx *ctx = self->backend_ctx;
    int rc = sptrsv_cuda_data_create(self->name, ctx, in, 0, &s->d, err);
    if (rc != 0)
        return rc;
    const size_t bytes = (size_t)in->n * sizeof(int32_t);
    if ((rc = rt_cuda_alloc(ctx, (void **)&s->order, bytes, "the row order", err)) != 0 ||
        (rc = rt_cuda_alloc(ctx, (void **)&s->ready, bytes, "the ready flags", err)) != 0 ||
        (rc = rt_cuda_alloc(ctx, (void **)&s->ticket, sizeof *s->ticket, "the ticket", err)) != 0)
        return rc;
    return rt_cuda_upload(ctx, s->order, in->dag.level_rows, bytes, "the row order", err);
}

static int syncfree_run(void *state, double *seconds, rt_err *err)
{
    syncfree_state *s = state;
    const rt_sptrsv_inputs *in = s->d.in;
    void *stream = rt_cuda_ctx_stream(s->d.ctx);
    if (rt_cuda_ctx_make_current(s->d.ctx, err) != 0 ||
        rt_cuda_timer_start(s->d.ctx, RT_SPTRSV_CUDA_SYNCFREE, err) != 0)
        return -1;
    int rc = sptrsv_cuda_syncfree_reset(stream, s->ready, (int32_t)in->n, s->ticket);
    if (rc != 0)
        return rt_err_set(err, RT_SPTRSV_CUDA_SYNCFREE ": clearing the flags: %s",
                          cudaGetErrorString((cudaError_t)rc));
    rc = sptrsv_cuda_syncfree_launch(stream, s->threads_per_block, s->d.rowptr, s->d.colidx,
                                     s->d.val, s->d.b, s->d.x, (int32_t)in->nrhs, s->order,
                                     (int32_t)in->n, s->ready, s->ticket);
    if (rc != 0)
        return rt_err_set(err, RT_SPTRSV_CUDA_SYNCFREE ": launch: %s",
                          cudaGetErrorString((cudaError_t)rc));
    return rt_cuda_timer_stop(s->d.ctx, seconds, RT_SPTRSV_CUDA_SYNCFREE, err);
}

static int syncfree_output(void *state, double *out, rt_err *err)
{
    syncfree_state *s = state;
    return sptrsv_cuda_data_output(&s->d, out, err);
}

static int syncfree_metrics(void *state, rt_metrics *m, rt_err *err)
{
    syncfree_state *s = state;
    if (sptrsv_cuda_data_metrics(&s->d, m, err) != 0)
        return -1;
    rt_metrics_add(m, "launches", "count", 1.0, 1);
    rt_metrics_add(m, "critical_path_len", "count", (double)s->d.in->dag.n_levels, 1);
    rt_metrics_add(m, "setup_s", "s", s->d.upload_s, 0);
    return 0;
}

void rt_sptrsv_cuda_syncfree_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {sptrsv_cuda_check, syncfree_setup,     syncfree_run,
                                              syncfree_output,   syncfree_metrics,   NULL,
                                              syncfree_teardown, sptrsv_cuda_traffic};
    rt_cuda_point_describe(d, entry(), &hooks, ctx);
}
