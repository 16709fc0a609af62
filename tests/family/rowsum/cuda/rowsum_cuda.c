/* rowsum.cuda.simple: the test family's CUDA kernel, built into the test plugin from this folder
 * exactly as a family's kernels/<family>/cuda/ folder is built into librooftune_cuda.so. */
#include <stdlib.h>

#include "rowsum_cuda_kernel.h"
#include "rowsum_family.h"
#include "rt_cuda_ctx.h"
#include "rt_schema.h"

typedef struct gpu_state {
    rt_cuda_ctx *ctx;
    int64_t rows, block;
    void *rowptr, *val, *y;
} gpu_state;

static void gpu_teardown(void *state)
{
    gpu_state *s = state;
    if (!s)
        return;
    rt_cuda_free(s->ctx, s->rowptr);
    rt_cuda_free(s->ctx, s->val);
    rt_cuda_free(s->ctx, s->y);
    free(s);
}

static int gpu_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_csr *a = ((const rt_rowsum_inputs *)inputs)->a;
    gpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    s->ctx = self->backend_ctx;
    s->rows = a->rows;
    int rc =
        rt_schema_int(self->params, self->n_params, self->name, p, "block_size", &s->block, err);
    const size_t rp = (size_t)(a->rows + 1) * sizeof(int64_t);
    const size_t vb = (size_t)(a->nnz > 0 ? a->nnz : 1) * sizeof(double);
    const size_t yb = (size_t)(a->rows > 0 ? a->rows : 1) * sizeof(double);
    if (rc == 0)
        rc = rt_cuda_alloc(s->ctx, &s->rowptr, rp, "rowsum rowptr", err);
    if (rc == 0)
        rc = rt_cuda_alloc(s->ctx, &s->val, vb, "rowsum values", err);
    if (rc == 0)
        rc = rt_cuda_alloc(s->ctx, &s->y, yb, "rowsum y", err);
    if (rc == 0)
        rc = rt_cuda_upload(s->ctx, s->rowptr, a->rowptr, rp, "rowsum rowptr", err);
    if (rc == 0 && a->nnz > 0)
        rc = rt_cuda_upload(s->ctx, s->val, a->val, (size_t)a->nnz * sizeof(double),
                            "rowsum values", err);
    if (rc != 0) {
        gpu_teardown(s);
        return rc;
    }
    *state = s;
    return 0;
}

static int gpu_run(void *state, double *seconds, rt_err *err)
{
    gpu_state *s = state;
    if (rt_cuda_timer_start(s->ctx, "rowsum", err) != 0)
        return -1;
    const int rc = rowsum_cuda_launch(rt_cuda_ctx_stream(s->ctx), (int)s->block, s->rows, s->rowptr,
                                      s->val, s->y);
    if (rc != 0)
        return rt_err_set(err, "rowsum.cuda.simple: launch failed (cudaError %d)", rc);
    return rt_cuda_timer_stop(s->ctx, seconds, "rowsum", err);
}

static int gpu_output(void *state, double *out, rt_err *err)
{
    gpu_state *s = state;
    if (s->rows == 0)
        return 0;
    return rt_cuda_download(s->ctx, out, s->y, (size_t)s->rows * sizeof(double), "rowsum y", err);
}

void rt_rowsum_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    int n = 0;
    const rt_cuda_catalog_entry *table = rt_rowsum_cuda_catalog(&n);
    rt_cuda_catalog_describe(rt_cuda_catalog_at(table, n, index), d);
    d->setup = gpu_setup;
    d->run = gpu_run;
    d->output = gpu_output;
    d->teardown = gpu_teardown;
    d->backend_ctx = ctx;
}
