#include "spmm_cuda_common.h"
#include "spmm_traffic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rt_spmm_cuda_inputs(const void *inputs, const rt_spmm_inputs **out, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    *out = NULL;
    if (!in || !in->a)
        return rt_err_set(err, "CUDA SpMM kernel called without spmm inputs");
    const rt_csr *a = in->a;
    if (a->rows < 0 || a->cols < 0 || a->nnz < 0 || !a->rowptr ||
        (a->nnz > 0 && (!a->colidx || !a->val)))
        return rt_err_set(err, "spmm inputs: matrix A is malformed (%lld x %lld, nnz %lld)",
                          (long long)a->rows, (long long)a->cols, (long long)a->nnz);
    if (a->rowptr[a->rows] != a->nnz)
        return rt_err_set(err, "spmm inputs: A's row offsets end at %lld, not at nnz = %lld",
                          (long long)a->rowptr[a->rows], (long long)a->nnz);
    if (in->k < 1)
        return rt_err_set(err, "spmm inputs: K = %lld (must be at least 1)", (long long)in->k);
    if (in->k > 2147483647LL / 2)
        return rt_err_set(err, "spmm inputs: K = %lld is too large for the CUDA kernels",
                          (long long)in->k);
    if (in->prec != RT_FP32 && in->prec != RT_FP64)
        return rt_err_set(err, "spmm inputs: unknown precision %d", (int)in->prec);
    if (in->layout != RT_ROW_MAJOR && in->layout != RT_COL_MAJOR)
        return rt_err_set(err, "spmm inputs: unknown layout %d", (int)in->layout);
    const rt_dense *b = &in->b;
    if (!b->data && a->cols > 0)
        return rt_err_set(err, "spmm inputs: B has no data");
    if (b->rows != a->cols || b->cols != in->k)
        return rt_err_set(
            err, "spmm inputs: B is %lld x %lld, expected %lld x %lld (A's columns x K)",
            (long long)b->rows, (long long)b->cols, (long long)a->cols, (long long)in->k);
    if (b->prec != in->prec || b->layout != in->layout)
        return rt_err_set(err, "spmm inputs: B is %s/%s but the point asks for %s/%s",
                          rt_precision_name(b->prec), rt_layout_name(b->layout),
                          rt_precision_name(in->prec), rt_layout_name(in->layout));
    const int64_t min_ld = b->layout == RT_ROW_MAJOR ? b->cols : b->rows;
    if (b->ld < min_ld)
        return rt_err_set(err, "spmm inputs: B's leading dimension %lld is below %lld",
                          (long long)b->ld, (long long)min_ld);
    *out = in;
    return 0;
}

static void spmm_problem(const void *checked, char *out, size_t len)
{
    const rt_spmm_inputs *in = checked;
    snprintf(out, len, "on %lld x %lld (nnz %lld), K=%lld %s %s", (long long)in->a->rows,
             (long long)in->a->cols, (long long)in->a->nnz, (long long)in->k,
             rt_precision_name(in->prec), rt_layout_name(in->layout));
}

static int spmm_inputs(const void *inputs, const void **checked, rt_err *err)
{
    const rt_spmm_inputs *in = NULL;
    const int rc = rt_spmm_cuda_inputs(inputs, &in, err);
    *checked = in;
    return rc;
}

const rt_cuda_point_family rt_spmm_cuda_point = {spmm_inputs, spmm_problem};

void rt_spmm_cuda_describe_point(const char *kernel, const rt_params *p, const rt_spmm_inputs *in,
                                 char *out, size_t len)
{
    char problem[384];
    spmm_problem(in, problem, sizeof problem);
    rt_cuda_point_name(kernel, p, problem, out, len);
}

/* ---------------------------------------------------------------------------------------------
 * B and C */

/* Products of sizes checked against overflow of size_t. */
static int bytes_of(int64_t a, int64_t b, size_t elem, size_t *out)
{
    if (a < 0 || b < 0)
        return -1;
    const double approx = (double)a * (double)b * (double)elem;
    if (approx > 9.0e18)
        return -1;
    *out = (size_t)a * (size_t)b * elem;
    return 0;
}

int rt_spmm_cuda_dense_setup(rt_spmm_cuda_dense *d, rt_cuda_ctx *ctx, const rt_spmm_inputs *in,
                             int64_t b_rows, int64_t c_rows, const char *what, rt_err *err)
{
    memset(d, 0, sizeof *d);
    d->ctx = ctx;
    d->m = in->a->rows;
    d->n = in->a->cols;
    d->k = in->k;
    d->b_rows = b_rows;
    d->c_rows = c_rows;
    d->prec = in->prec;
    d->layout = in->layout;
    d->elem = rt_precision_bytes(in->prec);
    if (b_rows < d->n || c_rows < d->m)
        return rt_err_set(err, "%s: padded B/C smaller than the problem", what);
    size_t b_bytes = 0, c_bytes = 0;
    if (bytes_of(b_rows, d->k, d->elem, &b_bytes) != 0 ||
        bytes_of(c_rows, d->k, d->elem, &c_bytes) != 0)
        return rt_err_set(err, "%s: B or C is too large to address", what);

    /* Host staging copy of B in the device layout: packs a leading dimension wider than the
     * matrix and zero-fills padding rows. */
    unsigned char *host = calloc(b_bytes > 0 ? b_bytes : 1, 1);
    if (!host)
        return rt_err_set(err, "%s: out of host memory staging B (%zu bytes)", what, b_bytes);
    const unsigned char *src = in->b.data;
    const size_t elem = d->elem;
    if (d->layout == RT_ROW_MAJOR) {
        for (int64_t i = 0; i < d->n; ++i)
            memcpy(host + (size_t)i * (size_t)d->k * elem,
                   src + (size_t)i * (size_t)in->b.ld * elem, (size_t)d->k * elem);
    } else {
        for (int64_t j = 0; j < d->k; ++j)
            memcpy(host + (size_t)j * (size_t)b_rows * elem,
                   src + (size_t)j * (size_t)in->b.ld * elem, (size_t)d->n * elem);
    }
    char buf_what[640];
    snprintf(buf_what, sizeof buf_what, "dense B of %s", what);
    int rc = rt_cuda_alloc(ctx, &d->d_b, b_bytes, buf_what, err);
    if (rc == 0)
        rc = rt_cuda_upload(ctx, d->d_b, host, b_bytes, buf_what, err);
    free(host);
    if (rc != 0)
        return rc;
    snprintf(buf_what, sizeof buf_what, "dense C of %s", what);
    rc = rt_cuda_alloc(ctx, &d->d_c, c_bytes, buf_what, err);
    if (rc != 0)
        return rc;
    /* All-ones bytes are NaN in float and double: outputs the kernel never writes stay NaN. */
    return rt_cuda_fill(ctx, d->d_c, 0xFF, c_bytes, buf_what, err);
}

int rt_spmm_cuda_dense_output(const rt_spmm_cuda_dense *d, double *out, const char *what,
                              rt_err *err)
{
    size_t c_bytes = 0;
    if (bytes_of(d->c_rows, d->k, d->elem, &c_bytes) != 0)
        return rt_err_set(err, "%s: C is too large to address", what);
    if (d->m == 0)
        return 0;
    unsigned char *host = malloc(c_bytes);
    if (!host)
        return rt_err_set(err, "%s: out of host memory reading C (%zu bytes)", what, c_bytes);
    if (rt_cuda_download(d->ctx, host, d->d_c, c_bytes, what, err) != 0) {
        free(host);
        return -1;
    }
    /* The first m rows of the padded C, converted over the host's threads. */
    const rt_dense c = {.rows = d->m,
                        .cols = d->k,
                        .ld = d->layout == RT_ROW_MAJOR ? d->k : d->c_rows,
                        .prec = d->prec,
                        .layout = d->layout,
                        .data = host};
    rt_spmm_dense_to_rowmajor(&c, out);
    free(host);
    return 0;
}

void rt_spmm_cuda_dense_free(rt_spmm_cuda_dense *d)
{
    if (!d || !d->ctx)
        return;
    rt_cuda_free(d->ctx, d->d_b);
    rt_cuda_free(d->ctx, d->d_c);
    d->d_b = d->d_c = NULL;
}

int rt_spmm_cuda_grid(int64_t rows, int block, int64_t k, int register_tile, unsigned grid[3],
                      int *ntiles, rt_err *err)
{
    if (block < 1 || register_tile < 1)
        return rt_err_set(err, "block size %d and register tile %d must be positive", block,
                          register_tile);
    const int64_t gx = (rows + block - 1) / block;
    if (gx > RT_CUDA_MAX_GRID_X)
        return rt_err_set(err, "%lld rows need %lld blocks of %d, over the grid limit 2^31-1",
                          (long long)rows, (long long)gx, block);
    const int64_t tiles = (k + register_tile - 1) / register_tile;
    grid[0] = (unsigned)gx;
    grid[1] = (unsigned)(tiles < (int64_t)RT_CUDA_MAX_GRID_Y ? tiles : RT_CUDA_MAX_GRID_Y);
    grid[2] = 1;
    *ntiles = (int)tiles;
    return 0;
}

int rt_spmm_cuda_launch_geometry(rt_spmm_cuda_launch *base, int64_t rows, int64_t k,
                                 int64_t block_size, int64_t register_tile, size_t dynamic_shared,
                                 int *ntiles, rt_err *err)
{
    if (rt_spmm_cuda_grid(rows, (int)block_size, k, (int)register_tile, base->cfg.grid, ntiles,
                          err) != 0)
        return rt_err_prefix(err, "%s", base->pt.what);
    base->cfg.block[0] = (unsigned)block_size;
    base->cfg.block[1] = base->cfg.block[2] = 1;
    base->cfg.dynamic_shared_bytes = dynamic_shared;
    if (rt_cuda_occupancy(base->pt.ctx, &base->variant, (int)block_size, dynamic_shared,
                          &base->occupancy, err) != 0)
        return rt_err_prefix(err, "%s", base->pt.what);
    return 0;
}

int rt_spmm_cuda_traffic(const rt_spmm_inputs *in, double a_bytes, const char *what, rt_traffic *t,
                         rt_err *err)
{
    if (rt_spmm_traffic_fill(in, a_bytes, 1, t, err) != 0)
        return rt_err_prefix(err, "traffic model of %s", what);
    return 0;
}

int rt_spmm_cuda_launch_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                              size_t state_bytes,
                              int (*prepare)(void *state, const rt_params *p, rt_err *err),
                              void (*teardown)(void *state), void **state, rt_err *err)
{
    return rt_cuda_point_setup(self, &rt_spmm_cuda_point, inputs, p, state_bytes, prepare, teardown,
                               state, err);
}

int rt_spmm_cuda_launch_run(void *state, double *seconds, rt_err *err)
{
    rt_spmm_cuda_launch *l = state;
    return rt_cuda_launch(l->pt.ctx, &l->variant, &l->cfg, l->args, seconds, l->pt.what, err);
}

int rt_spmm_cuda_launch_output(void *state, double *out, rt_err *err)
{
    const rt_spmm_cuda_launch *l = state;
    return rt_spmm_cuda_dense_output(&l->dense, out, l->pt.what, err);
}

void rt_spmm_cuda_launch_free(rt_spmm_cuda_launch *l, void *const *buffers, int n)
{
    rt_spmm_cuda_dense_free(&l->dense);
    for (int i = 0; i < n; ++i)
        rt_cuda_free(l->pt.ctx, buffers[i]);
    free(l);
}

int rt_spmm_cuda_upload(rt_spmm_cuda_launch *l, const void *src, size_t bytes, void **dptr,
                        const char *label, rt_err *err)
{
    char what[900];
    snprintf(what, sizeof what, "%s of %s", label, l->pt.what);
    return rt_cuda_upload_new(l->pt.ctx, src, bytes, dptr, what, err);
}

int rt_spmm_cuda_upload_values(rt_spmm_cuda_launch *l, const double *src, int64_t n,
                               rt_precision prec, void **dptr, const char *label, rt_err *err)
{
    char what[900];
    snprintf(what, sizeof what, "%s of %s", label, l->pt.what);
    return rt_cuda_upload_values(l->pt.ctx, src, n, prec, dptr, what, err);
}

/* ---------------------------------------------------------------------------------------------
 * One thread per row of C (csr, ell) */

int rt_spmm_cuda_rows_params(const rt_params *p, int kind, rt_spmm_cuda_rows *r, rt_err *err)
{
    if (rt_spmm_cuda_param_int(p, kind, "block_size", &r->block_size, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "register_tile", &r->register_tile, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "min_blocks", &r->min_blocks, err) != 0)
        return -1;
    return 0;
}

int rt_spmm_cuda_rows_check(const rt_kernel_desc *self, int kind, const void *inputs,
                            const rt_params *p, char *why, size_t whylen, rt_err *err)
{
    const rt_spmm_inputs *in;
    rt_spmm_cuda_rows r;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || rt_spmm_cuda_rows_params(p, kind, &r, err))
        return -1;
    return rt_cuda_check_launch(rt_cuda_ctx_device(self->backend_ctx), r.block_size, r.min_blocks,
                                why, whylen);
}

int rt_spmm_cuda_rows_prepare(rt_spmm_cuda_launch *l, int kind, const rt_params *p,
                              const char *source, const char *entry, rt_err *err)
{
    const rt_spmm_inputs *in = l->pt.inputs;
    rt_spmm_cuda_rows r;
    if (rt_spmm_cuda_rows_params(p, kind, &r, err) != 0)
        return -1;
    char why[512];
    if (rt_cuda_check_launch(rt_cuda_ctx_device(l->pt.ctx), r.block_size, r.min_blocks, why,
                             sizeof why) != 0) {
        rt_err_set(err, "%s", why);
        return RT_INFEASIBLE;
    }
    rt_cuda_defines defs;
    rt_spmm_cuda_defines(&defs, in, r.block_size, r.register_tile, r.min_blocks);
    const rt_cuda_variant_request rq = {
        .source_name = source,
        .entry = entry,
        .defines = &defs,
        .block_size = r.block_size,
        .register_tile = r.register_tile,
        .allow_spills = 1,
        .dynamic_shared = 0,
        .what = l->pt.what,
    };
    const int rc = rt_cuda_prepare_variant(l->pt.ctx, &rq, &l->variant, err);
    if (rc != 0)
        return rc;
    return rt_spmm_cuda_launch_geometry(l, in->a->rows, in->k, r.block_size, r.register_tile, 0,
                                        &l->ntiles, err);
}

int rt_spmm_cuda_launch_dense(rt_spmm_cuda_launch *l, rt_err *err)
{
    const rt_spmm_inputs *in = l->pt.inputs;
    return rt_spmm_cuda_dense_setup(&l->dense, l->pt.ctx, in, in->a->cols, in->a->rows, l->pt.what,
                                    err);
}
