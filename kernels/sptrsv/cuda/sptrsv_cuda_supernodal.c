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

#include "rt_cuda_variant.h"
#include "rt_schema.h"
#include "sptrsv_cuda.h"
#include "sptrsv_cuda_catalog.h"
#include "sptrsv_cuda_data.h"
#include "sptrsv_cuda_super.h"

typedef struct supernodal_state {
    sptrsv_cuda_data d;
    sptrsv_super_dev f; /* device pointers of the factor */
    void *dev[9];       /* the same buffers, for teardown */
    int32_t *pending;   /* device, nsuper */
    int32_t *pending0;  /* device, nsuper: the predecessor counts */
    double *lsum;       /* device, n x nrhs */
    uint32_t *ticket;   /* device */
    int threads_per_block, shared_doubles, backoff_ns;
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
        for (size_t i = 0; i < sizeof s->dev / sizeof s->dev[0]; ++i)
            rt_cuda_free(s->d.ctx, s->dev[i]);
        rt_cuda_free(s->d.ctx, s->pending);
        rt_cuda_free(s->d.ctx, s->pending0);
        rt_cuda_free(s->d.ctx, s->lsum);
        rt_cuda_free(s->d.ctx, s->ticket);
    }
    sptrsv_cuda_data_free(&s->d);
    free(s);
}

/* The host arrays the device needs in 32-bit form, the level order and the predecessor counts. */
typedef struct super_host {
    int32_t *first, *ld, *succ_ptr, *succ, *order, *pending;
} super_host;

static void super_host_free(super_host *h)
{
    free(h->first);
    free(h->ld);
    free(h->succ_ptr);
    free(h->succ);
    free(h->order);
    free(h->pending);
}

static int super_host_build(const rt_sptrsv_inputs *in, super_host *h, rt_err *err)
{
    const sptrsv_factor *f = &in->f;
    const sptrsv_dag *g = &in->dag;
    const int64_t ns = f->nsuper, ne = g->n_edges;
    h->first = malloc((size_t)(ns + 1) * sizeof *h->first);
    h->ld = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *h->ld);
    h->succ_ptr = malloc((size_t)(ns + 1) * sizeof *h->succ_ptr);
    h->succ = malloc((size_t)(ne > 0 ? ne : 1) * sizeof *h->succ);
    h->order = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *h->order);
    h->pending = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *h->pending);
    int64_t *count = calloc((size_t)g->super_levels + 1, sizeof *count);
    if (!h->first || !h->ld || !h->succ_ptr || !h->succ || !h->order || !h->pending || !count) {
        free(count);
        return rt_err_set(err, RT_SPTRSV_CUDA_SUPERNODAL ": out of host memory staging L");
    }
    for (int64_t s = 0; s <= ns; ++s) {
        h->first[s] = (int32_t)f->first[s];
        h->succ_ptr[s] = (int32_t)g->succ_ptr[s];
    }
    for (int64_t s = 0; s < ns; ++s) {
        h->ld[s] = (int32_t)f->ld[s];
        h->pending[s] = (int32_t)(g->pred_ptr[s + 1] - g->pred_ptr[s]);
    }
    for (int64_t e = 0; e < ne; ++e)
        h->succ[e] = (int32_t)g->succ[e];
    /* Level order by a counting sort on the supernodal levels: every predecessor of s is on a
     * lower level, so it comes first (the ticket's deadlock freedom rests on this). */
    for (int64_t s = 0; s < ns; ++s)
        ++count[g->super_level[s] + 1];
    for (int64_t l = 0; l < g->super_levels; ++l)
        count[l + 1] += count[l];
    for (int64_t s = 0; s < ns; ++s)
        h->order[count[g->super_level[s]]++] = (int32_t)s;
    free(count);
    return 0;
}

static int upload_super(supernodal_state *s, const rt_sptrsv_inputs *in, const super_host *h,
                        rt_err *err)
{
    const sptrsv_factor *f = &in->f;
    const int64_t ns = f->nsuper, ne = in->dag.n_edges, nrow = f->rowstart[ns];
    rt_cuda_ctx *ctx = s->d.ctx;
    struct {
        const void *src;
        size_t bytes;
        const char *what;
    } const up[] = {
        {h->first, (size_t)(ns + 1) * 4, "supernode columns"},
        {f->rowstart, (size_t)(ns + 1) * 8, "supernode row starts"},
        {f->rows, (size_t)(nrow > 0 ? nrow : 1) * 4, "supernode rows"},
        {f->valstart, (size_t)(ns > 0 ? ns : 1) * 8, "supernode value starts"},
        {h->ld, (size_t)(ns > 0 ? ns : 1) * 4, "supernode leading dimensions"},
        {f->val, (size_t)(f->nval > 0 ? f->nval : 1) * 8, "supernode values"},
        {h->succ_ptr, (size_t)(ns + 1) * 4, "successor pointers"},
        {h->succ, (size_t)(ne > 0 ? ne : 1) * 4, "successors"},
        {h->order, (size_t)(ns > 0 ? ns : 1) * 4, "supernode order"},
    };
    _Static_assert(sizeof up / sizeof up[0] == sizeof s->dev / sizeof s->dev[0],
                   "one device buffer per upload");
    for (size_t i = 0; i < sizeof up / sizeof up[0]; ++i) {
        const int rc = rt_cuda_upload_new(ctx, up[i].src, up[i].bytes, &s->dev[i], up[i].what, err);
        if (rc != 0)
            return rc;
    }
    s->f = (sptrsv_super_dev){.nsuper = (int32_t)ns,
                              .first = s->dev[0],
                              .rowstart = s->dev[1],
                              .rows = s->dev[2],
                              .valstart = s->dev[3],
                              .ld = s->dev[4],
                              .val = s->dev[5],
                              .succ_ptr = s->dev[6],
                              .succ = s->dev[7],
                              .order = s->dev[8]};
    const size_t pb = (size_t)(ns > 0 ? ns : 1) * sizeof(int32_t);
    const size_t lb = (size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1) * sizeof(double);
    int rc;
    if ((rc = rt_cuda_upload_new(ctx, h->pending, pb, (void **)&s->pending0, "predecessor counts",
                                 err)) != 0 ||
        (rc = rt_cuda_alloc(ctx, (void **)&s->pending, pb, "pending counters", err)) != 0 ||
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
    (void)env;
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
    super_host h = {0};
    rc = super_host_build(in, &h, err);
    if (rc == 0)
        rc = upload_super(s, in, &h, err);
    super_host_free(&h);
    if (rc != 0 && rc != RT_INFEASIBLE)
        rt_err_prefix(err, "%s", self->name);
    return rc;
}

static int supernodal_run(void *state, double *seconds, rt_err *err)
{
    supernodal_state *s = state;
    const rt_sptrsv_inputs *in = s->d.in;
    void *stream = rt_cuda_ctx_stream(s->d.ctx);
    if (rt_cuda_ctx_make_current(s->d.ctx, err) != 0 ||
        rt_cuda_timer_start(s->d.ctx, RT_SPTRSV_CUDA_SUPERNODAL, err) != 0)
        return -1;
    int rc = sptrsv_cuda_super_reset(stream, s->lsum, in->n * in->nrhs, s->pending, s->pending0,
                                     s->f.nsuper, s->ticket);
    if (rc != 0)
        return rt_err_set(err, RT_SPTRSV_CUDA_SUPERNODAL ": clearing the counters: %s",
                          cudaGetErrorString((cudaError_t)rc));
    rc = sptrsv_cuda_super_launch(stream, s->threads_per_block, s->shared_doubles, s->backoff_ns,
                                  &s->f, s->d.b, s->d.x, s->lsum, (int32_t)in->nrhs, s->pending,
                                  s->ticket);
    if (rc != 0)
        return rt_err_set(err, RT_SPTRSV_CUDA_SUPERNODAL ": launch: %s",
                          cudaGetErrorString((cudaError_t)rc));
    return rt_cuda_timer_stop(s->d.ctx, seconds, RT_SPTRSV_CUDA_SUPERNODAL, err);
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
    return 0;
}

void rt_sptrsv_cuda_supernodal_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    rt_cuda_catalog_describe(entry(), d);
    d->check = sptrsv_cuda_check;
    d->setup = supernodal_setup;
    d->run = supernodal_run;
    d->output = supernodal_output;
    d->metrics = supernodal_metrics;
    d->teardown = supernodal_teardown;
    d->traffic = sptrsv_cuda_traffic;
    d->backend_ctx = ctx;
}
