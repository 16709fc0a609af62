#include "spmm_cuda_csr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmm_cuda_common.h"

typedef struct csr_state {
    rt_spmm_cuda_launch base; /* first: the shared hooks take the state as this */
    void *d_rowptr, *d_colidx, *d_val;
    /* Kernel arguments: cuLaunchKernel takes their addresses, so they live here. */
    void *arg_c, *arg_b, *arg_rowptr, *arg_colidx, *arg_val;
    long long arg_nrows, arg_ncols;
    int arg_k, arg_ntiles;
    void *args[9];
} csr_state;

typedef struct csr_params {
    int64_t block_size, register_tile, min_blocks;
} csr_params;

static int read_params(const rt_params *p, csr_params *cp, rt_err *err)
{
    if (rt_spmm_cuda_param_int(p, RT_SPMM_CUDA_KIND_CSR, "block_size", &cp->block_size, err) != 0 ||
        rt_spmm_cuda_param_int(p, RT_SPMM_CUDA_KIND_CSR, "register_tile", &cp->register_tile,
                               err) != 0 ||
        rt_spmm_cuda_param_int(p, RT_SPMM_CUDA_KIND_CSR, "min_blocks", &cp->min_blocks, err) != 0)
        return -1;
    return 0;
}

static int csr_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_spmm_inputs *in;
    csr_params cp;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || read_params(p, &cp, err) != 0)
        return -1;
    const rt_cuda_ctx *ctx = self->backend_ctx;
    return rt_cuda_check_launch(rt_cuda_ctx_device(ctx), cp.block_size, cp.min_blocks, why, whylen);
}

static void csr_teardown(void *state)
{
    csr_state *s = state;
    if (!s)
        return;
    rt_spmm_cuda_dense_free(&s->base.dense);
    rt_cuda_free(s->base.pt.ctx, s->d_rowptr);
    rt_cuda_free(s->base.pt.ctx, s->d_colidx);
    rt_cuda_free(s->base.pt.ctx, s->d_val);
    free(s);
}

static int csr_prepare(void *state, const rt_params *p, rt_err *err)
{
    csr_state *s = state;
    const rt_spmm_inputs *in = s->base.pt.inputs;
    csr_params cp;
    if (read_params(p, &cp, err) != 0)
        return -1;
    const rt_csr *a = in->a;
    const rt_device_info *dev = rt_cuda_ctx_device(s->base.pt.ctx);
    char why[512];
    if (rt_cuda_check_launch(dev, cp.block_size, cp.min_blocks, why, sizeof why) != 0) {
        rt_err_set(err, "%s", why);
        return RT_INFEASIBLE;
    }

    rt_cuda_defines defs;
    rt_spmm_cuda_defines(&defs, in, cp.block_size, cp.register_tile, cp.min_blocks);
    const rt_cuda_variant_request rq = {
        .source_name = "spmm_csr.cu",
        .entry = "rt_spmm_csr",
        .defines = &defs,
        .block_size = cp.block_size,
        .register_tile = cp.register_tile,
        .allow_spills = 1,
        .dynamic_shared = 0,
        .what = s->base.pt.what,
    };
    int rc = rt_cuda_prepare_variant(s->base.pt.ctx, &rq, &s->base.variant, err);
    if (rc != 0)
        return rc;
    if (rt_spmm_cuda_launch_geometry(&s->base, a->rows, in->k, cp.block_size, cp.register_tile, 0,
                                     &s->arg_ntiles, err) != 0)
        return -1;

    char what[900];
    snprintf(what, sizeof what, "row offsets of %s", s->base.pt.what);
    rc = rt_cuda_upload_new(s->base.pt.ctx, a->rowptr, (size_t)(a->rows + 1) * sizeof(int64_t),
                            &s->d_rowptr, what, err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "column indices of %s", s->base.pt.what);
    rc = rt_cuda_upload_new(s->base.pt.ctx, a->colidx, (size_t)a->nnz * sizeof(int32_t),
                            &s->d_colidx, what, err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "values of %s", s->base.pt.what);
    rc = rt_cuda_upload_values(s->base.pt.ctx, a->val, a->nnz, in->prec, &s->d_val, what, err);
    if (rc != 0)
        return rc;
    rc = rt_spmm_cuda_dense_setup(&s->base.dense, s->base.pt.ctx, in, a->cols, a->rows,
                                  s->base.pt.what, err);
    if (rc != 0)
        return rc;

    s->arg_c = s->base.dense.d_c;
    s->arg_b = s->base.dense.d_b;
    s->arg_rowptr = s->d_rowptr;
    s->arg_colidx = s->d_colidx;
    s->arg_val = s->d_val;
    s->arg_nrows = a->rows;
    s->arg_ncols = a->cols;
    s->arg_k = (int)in->k;
    void *args[9] = {&s->arg_c,     &s->arg_b,     &s->arg_rowptr, &s->arg_colidx, &s->arg_val,
                     &s->arg_nrows, &s->arg_ncols, &s->arg_k,      &s->arg_ntiles};
    memcpy(s->args, args, sizeof args);
    s->base.args = s->args;
    return 0;
}

static int csr_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const csr_state *s = state;
    rt_cuda_variant_metrics(&s->base.variant, s->base.occupancy, m);
    rt_metrics_add(m, "grid_x", "count", s->base.cfg.grid[0], 1);
    rt_metrics_add(m, "grid_y", "count", s->base.cfg.grid[1], 1);
    return 0;
}

static int csr_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spmm_inputs *in;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0)
        return -1;
    const double elem = (double)rt_precision_bytes(in->prec);
    const double a_bytes = (double)in->a->nnz * (elem + 4.0) + (double)(in->a->rows + 1) * 8.0;
    return rt_spmm_cuda_traffic(in, a_bytes, self->name, t, err);
}

static int csr_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    return rt_spmm_cuda_launch_setup(self, inputs, p, sizeof(csr_state), csr_prepare, csr_teardown,
                                     state, err);
}

void rt_spmm_cuda_csr_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    rt_cuda_catalog_describe(rt_spmm_cuda_catalog_at(RT_SPMM_CUDA_KIND_CSR), d);
    d->check = csr_check;
    d->setup = csr_setup;
    d->run = rt_spmm_cuda_launch_run;
    d->output = rt_spmm_cuda_launch_output;
    d->metrics = csr_metrics;
    d->flush = rt_spmm_cuda_launch_flush;
    d->teardown = csr_teardown;
    d->traffic = csr_traffic;
    d->backend_ctx = ctx;
}
