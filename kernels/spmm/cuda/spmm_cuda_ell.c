#include "spmm_cuda_ell.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmm_cuda_common.h"
#include "spmm_traffic.h"

/* One warp reads one slice: consecutive lanes hold consecutive rows' j-th entries. */
#define ELL_SLICE_HEIGHT 32

typedef struct ell_state {
    rt_spmm_cuda_launch base; /* first: the shared hooks take the state as this */
    void *d_slice_ptr, *d_slice_width, *d_colidx, *d_val;
    double padding_overhead;
    int64_t stored;
    void *arg_c, *arg_b, *arg_slice_ptr, *arg_slice_width, *arg_colidx, *arg_val;
    long long arg_nrows, arg_ncols;
    int arg_k, arg_ntiles, arg_slice_height;
    void *args[11];
} ell_state;

typedef struct ell_params {
    int64_t block_size, register_tile, min_blocks;
} ell_params;

static int read_params(const rt_params *p, ell_params *ep, rt_err *err)
{
    if (rt_spmm_cuda_param_int(p, RT_SPMM_CUDA_KIND_ELL, "block_size", &ep->block_size, err) != 0 ||
        rt_spmm_cuda_param_int(p, RT_SPMM_CUDA_KIND_ELL, "register_tile", &ep->register_tile,
                               err) != 0 ||
        rt_spmm_cuda_param_int(p, RT_SPMM_CUDA_KIND_ELL, "min_blocks", &ep->min_blocks, err) != 0)
        return -1;
    return 0;
}

static int ell_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_spmm_inputs *in;
    ell_params ep;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || read_params(p, &ep, err) != 0)
        return -1;
    return rt_cuda_check_launch(rt_cuda_ctx_device(self->backend_ctx), ep.block_size, ep.min_blocks,
                                why, whylen);
}

static void ell_teardown(void *state)
{
    ell_state *s = state;
    if (!s)
        return;
    rt_spmm_cuda_dense_free(&s->base.dense);
    rt_cuda_free(s->base.pt.ctx, s->d_slice_ptr);
    rt_cuda_free(s->base.pt.ctx, s->d_slice_width);
    rt_cuda_free(s->base.pt.ctx, s->d_colidx);
    rt_cuda_free(s->base.pt.ctx, s->d_val);
    free(s);
}

/* The kernel addresses entry j of row r at slice_ptr[s] + j * h + lane: check that every slice
 * holds that many entries before trusting the layout on the device. */
static int ell_layout_ok(const rt_ell *e, char *why, size_t whylen)
{
    if (e->slice_height != ELL_SLICE_HEIGHT ||
        e->nslices != (e->rows + ELL_SLICE_HEIGHT - 1) / ELL_SLICE_HEIGHT) {
        snprintf(why, whylen, "ELL has slice height %d and %lld slices for %lld rows",
                 (int)e->slice_height, (long long)e->nslices, (long long)e->rows);
        return 0;
    }
    for (int64_t s = 0; s < e->nslices; ++s) {
        const int64_t rows_in = e->rows - s * ELL_SLICE_HEIGHT < ELL_SLICE_HEIGHT
                                    ? e->rows - s * ELL_SLICE_HEIGHT
                                    : ELL_SLICE_HEIGHT;
        const int64_t need = e->slice_width[s] > 0
                                 ? (int64_t)(e->slice_width[s] - 1) * ELL_SLICE_HEIGHT + rows_in
                                 : 0;
        if (e->slice_width[s] < 0 || e->slice_ptr[s + 1] - e->slice_ptr[s] < need ||
            e->slice_ptr[s + 1] > e->stored) {
            snprintf(why, whylen, "ELL slice %lld holds %lld entries, its rows need %lld",
                     (long long)s, (long long)(e->slice_ptr[s + 1] - e->slice_ptr[s]),
                     (long long)need);
            return 0;
        }
    }
    return 1;
}

static int ell_upload(ell_state *s, const rt_ell *e, rt_precision prec, rt_err *err)
{
    char what[900];
    snprintf(what, sizeof what, "ELL slice offsets of %s", s->base.pt.what);
    int rc =
        rt_cuda_upload_new(s->base.pt.ctx, e->slice_ptr, (size_t)(e->nslices + 1) * sizeof(int64_t),
                           &s->d_slice_ptr, what, err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "ELL slice widths of %s", s->base.pt.what);
    rc = rt_cuda_upload_new(s->base.pt.ctx, e->slice_width, (size_t)e->nslices * sizeof(int32_t),
                            &s->d_slice_width, what, err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "ELL column indices of %s", s->base.pt.what);
    rc = rt_cuda_upload_new(s->base.pt.ctx, e->colidx, (size_t)e->stored * sizeof(int32_t),
                            &s->d_colidx, what, err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "ELL values of %s", s->base.pt.what);
    return rt_cuda_upload_values(s->base.pt.ctx, e->val, e->stored, prec, &s->d_val, what, err);
}

static int ell_prepare(void *state, const rt_params *p, rt_err *err)
{
    ell_state *s = state;
    const rt_spmm_inputs *in = s->base.pt.inputs;
    ell_params ep;
    if (read_params(p, &ep, err) != 0)
        return -1;
    const rt_csr *a = in->a;
    char why[512];
    if (rt_cuda_check_launch(rt_cuda_ctx_device(s->base.pt.ctx), ep.block_size, ep.min_blocks, why,
                             sizeof why) != 0) {
        rt_err_set(err, "%s", why);
        return RT_INFEASIBLE;
    }
    rt_cuda_defines defs;
    rt_spmm_cuda_defines(&defs, in, ep.block_size, ep.register_tile, ep.min_blocks);
    const rt_cuda_variant_request rq = {
        .source_name = "spmm_ell.cu",
        .entry = "rt_spmm_ell",
        .defines = &defs,
        .block_size = ep.block_size,
        .register_tile = ep.register_tile,
        .allow_spills = 1,
        .dynamic_shared = 0,
        .what = s->base.pt.what,
    };
    int rc = rt_cuda_prepare_variant(s->base.pt.ctx, &rq, &s->base.variant, err);
    if (rc != 0)
        return rc;
    if (rt_spmm_cuda_launch_geometry(&s->base, a->rows, in->k, ep.block_size, ep.register_tile, 0,
                                     &s->arg_ntiles, err) != 0)
        return -1;

    rt_ell e;
    if (rt_ell_from_csr(&e, a, ELL_SLICE_HEIGHT, err) != 0)
        return rt_err_prefix(err, "%s: building ELL", s->base.pt.what);
    if (!ell_layout_ok(&e, why, sizeof why)) {
        rt_ell_free(&e);
        return rt_err_set(err, "%s: %s", s->base.pt.what, why);
    }
    s->stored = e.stored;
    s->padding_overhead = a->nnz > 0 ? (double)e.stored / (double)a->nnz - 1.0 : 0.0;
    rc = ell_upload(s, &e, in->prec, err);
    const int32_t slice_height = e.slice_height;
    rt_ell_free(&e);
    if (rc != 0)
        return rc;
    rc = rt_spmm_cuda_dense_setup(&s->base.dense, s->base.pt.ctx, in, a->cols, a->rows,
                                  s->base.pt.what, err);
    if (rc != 0)
        return rc;

    s->arg_c = s->base.dense.d_c;
    s->arg_b = s->base.dense.d_b;
    s->arg_slice_ptr = s->d_slice_ptr;
    s->arg_slice_width = s->d_slice_width;
    s->arg_colidx = s->d_colidx;
    s->arg_val = s->d_val;
    s->arg_nrows = a->rows;
    s->arg_ncols = a->cols;
    s->arg_k = (int)in->k;
    s->arg_slice_height = slice_height;
    void *args[11] = {&s->arg_c,      &s->arg_b,      &s->arg_slice_ptr,   &s->arg_slice_width,
                      &s->arg_colidx, &s->arg_val,    &s->arg_nrows,       &s->arg_ncols,
                      &s->arg_k,      &s->arg_ntiles, &s->arg_slice_height};
    memcpy(s->args, args, sizeof args);
    s->base.args = s->args;
    return 0;
}

static int ell_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const ell_state *s = state;
    rt_cuda_variant_metrics(&s->base.variant, s->base.occupancy, m);
    rt_metrics_add(m, "padding_overhead", "ratio", s->padding_overhead, 1);
    rt_metrics_add(m, "ell_stored", "count", (double)s->stored, 1);
    return 0;
}

static int ell_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spmm_inputs *in;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0)
        return -1;
    const double elem = (double)rt_precision_bytes(in->prec);
    const double nslices = (double)((in->a->rows + ELL_SLICE_HEIGHT - 1) / ELL_SLICE_HEIGHT);
    /* Column indices and values of every entry of an existing row, padding included (a warp's
     * loads fetch whole sectors; lanes past the last row exit before reading), plus each slice's
     * offset and width. */
    const double a_bytes =
        (double)rt_spmm_ell_entries_read(in->a, ELL_SLICE_HEIGHT) * (elem + 4.0) +
        nslices * (8.0 + 4.0);
    return rt_spmm_cuda_traffic(in, a_bytes, self->name, t, err);
}

static int ell_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    return rt_spmm_cuda_launch_setup(self, inputs, p, sizeof(ell_state), ell_prepare, ell_teardown,
                                     state, err);
}

void rt_spmm_cuda_ell_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    rt_cuda_catalog_describe(rt_spmm_cuda_catalog_at(RT_SPMM_CUDA_KIND_ELL), d);
    d->check = ell_check;
    d->setup = ell_setup;
    d->run = rt_spmm_cuda_launch_run;
    d->output = rt_spmm_cuda_launch_output;
    d->metrics = ell_metrics;
    d->flush = rt_spmm_cuda_launch_flush;
    d->teardown = ell_teardown;
    d->traffic = ell_traffic;
    d->backend_ctx = ctx;
}
