#include "sptrsv_cuda_data.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"

int sptrsv_cuda_check_both(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                           const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    (void)p;
    (void)env;
    (void)err;
    if (in->f.csr.nnz >= INT32_MAX || in->n * in->nrhs >= INT32_MAX) {
        snprintf(why, whylen, "%s indexes with 32 bits: nnz(L) = %" PRId64 ", n x nrhs = %" PRId64,
                 self->name, in->f.csr.nnz, in->n * in->nrhs);
        return RT_INFEASIBLE;
    }
    return 0;
}

int sptrsv_cuda_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const int rc = sptrsv_forward_only(inputs, self->name, why, whylen);
    return rc != 0 ? rc : sptrsv_cuda_check_both(self, inputs, p, env, why, whylen, err);
}

void sptrsv_cuda_data_free(sptrsv_cuda_data *d)
{
    if (!d || !d->ctx)
        return;
    rt_err ignored;
    (void)rt_cuda_ctx_make_current(d->ctx, &ignored);
    rt_cuda_free(d->ctx, d->rowptr);
    rt_cuda_free(d->ctx, d->colidx);
    rt_cuda_free(d->ctx, d->val);
    rt_cuda_free(d->ctx, d->b);
    rt_cuda_free(d->ctx, d->x);
    free(d->x_host);
    memset(d, 0, sizeof *d);
}

int sptrsv_cuda_data_create_vectors(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                                    int col_major, sptrsv_cuda_data *d, rt_err *err)
{
    memset(d, 0, sizeof *d);
    d->ctx = ctx;
    d->in = in;
    d->col_major = col_major;
    const int64_t n = in->n, k = in->nrhs, nk = n * k;
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    const double t0 = rt_clock_now();
    double *bh = malloc((size_t)(nk > 0 ? nk : 1) * sizeof *bh);
    d->x_host = malloc((size_t)(nk > 0 ? nk : 1) * sizeof *d->x_host);
    if (!bh || !d->x_host) {
        free(bh);
        return rt_err_set(err, "%s: out of host memory staging B", name);
    }
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < k; ++j)
            bh[col_major ? j * n + i : i * k + j] = in->b[i * k + j];
    const size_t xb = (size_t)(nk > 0 ? nk : 1) * sizeof(double);
    int rc;
    if ((rc = rt_cuda_alloc(ctx, (void **)&d->b, xb, "B", err)) != 0 ||
        (rc = rt_cuda_alloc(ctx, (void **)&d->x, xb, "X", err)) != 0 ||
        (rc = rt_cuda_upload(ctx, d->b, bh, xb, "B", err)) != 0 ||
        (rc = rt_cuda_fill(ctx, d->x, 0xFF, xb, "X (NaN)", err)) != 0) {
        free(bh);
        if (rc != RT_INFEASIBLE)
            rt_err_prefix(err, "%s", name);
        return rc;
    }
    free(bh);
    d->upload_s = rt_clock_now() - t0;
    return 0;
}

int sptrsv_cuda_data_create(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                            int col_major, sptrsv_cuda_data *d, rt_err *err)
{
    int rc = sptrsv_cuda_data_create_vectors(name, ctx, in, col_major, d, err);
    if (rc != 0)
        return rc;
    const rt_csr *l = &in->f.csr;
    const int64_t n = in->n;
    const double t0 = rt_clock_now();
    int32_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
    if (!rp)
        return rt_err_set(err, "%s: out of host memory staging L", name);
    for (int64_t i = 0; i <= n; ++i)
        rp[i] = (int32_t)l->rowptr[i];
    const size_t nnz = (size_t)l->nnz;
    if ((rc = rt_cuda_alloc(ctx, (void **)&d->rowptr, (size_t)(n + 1) * 4, "L row pointers",
                            err)) != 0 ||
        (rc = rt_cuda_alloc(ctx, (void **)&d->colidx, nnz * 4, "L columns", err)) != 0 ||
        (rc = rt_cuda_alloc(ctx, (void **)&d->val, nnz * 8, "L values", err)) != 0 ||
        (rc = rt_cuda_upload(ctx, d->rowptr, rp, (size_t)(n + 1) * 4, "L row pointers", err)) !=
            0 ||
        (rc = rt_cuda_upload(ctx, d->colidx, l->colidx, nnz * 4, "L columns", err)) != 0 ||
        (rc = rt_cuda_upload(ctx, d->val, l->val, nnz * 8, "L values", err)) != 0) {
        free(rp);
        if (rc != RT_INFEASIBLE)
            rt_err_prefix(err, "%s", name);
        return rc;
    }
    free(rp);
    d->upload_s += rt_clock_now() - t0;
    return 0;
}

int sptrsv_cuda_data_fetch(sptrsv_cuda_data *d, rt_err *err)
{
    const int64_t n = d->in->n, k = d->in->nrhs, nk = n * k;
    if (rt_cuda_ctx_make_current(d->ctx, err) != 0)
        return -1;
    if (!d->col_major)
        return rt_cuda_download(d->ctx, d->x_host, d->x, (size_t)nk * sizeof(double), "X", err);
    double *cm = malloc((size_t)(nk > 0 ? nk : 1) * sizeof *cm);
    if (!cm)
        return rt_err_set(err, "out of host memory fetching X");
    if (rt_cuda_download(d->ctx, cm, d->x, (size_t)nk * sizeof(double), "X", err) != 0) {
        free(cm);
        return -1;
    }
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < k; ++j)
            d->x_host[i * k + j] = cm[j * n + i];
    free(cm);
    return 0;
}

int sptrsv_cuda_data_output(sptrsv_cuda_data *d, double *out, rt_err *err)
{
    if (sptrsv_cuda_data_fetch(d, err) != 0)
        return -1;
    sptrsv_canonical_rows(d->in, d->x_host, out);
    return 0;
}

int sptrsv_cuda_data_metrics(sptrsv_cuda_data *d, rt_metrics *m, rt_err *err)
{
    if (sptrsv_cuda_data_fetch(d, err) != 0)
        return -1;
    sptrsv_factor_metrics(d->in, m);
    rt_metrics_add(m, "residual", "ratio", sptrsv_residual(d->in, d->x_host), 0);
    rt_metrics_add(m, "upload_s", "s", d->upload_s, 0);
    return 0;
}

int sptrsv_cuda_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    (void)self;
    (void)p;
    (void)env;
    (void)err;
    /* The device copy of L's CSR has 4-byte row pointers. */
    sptrsv_compulsory_traffic(in, 4.0, 1.0, t);
    return 0;
}
