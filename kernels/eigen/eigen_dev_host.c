#include "eigen_dev_host.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "eigen_packed.h"

static int host_pool_create(void *impl, size_t bytes, void **base, rt_err *err)
{
    (void)impl;
    *base = malloc(bytes ? bytes : 1);
    if (!*base)
        return rt_err_set(err, "host device: out of memory for a pool of %zu bytes", bytes);
    return 0;
}

static void host_pool_destroy(void *impl, void *base)
{
    (void)impl;
    free(base);
}

static int host_copy(void *impl, void *dst, const void *src, size_t bytes, rt_err *err)
{
    (void)impl;
    (void)err;
    memcpy(dst, src, bytes);
    return 0;
}

static int host_spmm(void *impl, const void *a, int64_t rows, int64_t cols, int64_t nnz,
                     const double *x, int64_t ldx, int64_t ncols, double beta, double *y,
                     int64_t ldy, rt_err *err)
{
    (void)impl;
    (void)cols;
    (void)err;
    const eg_packed_view v = eg_packed_at((void *)(uintptr_t)a, rows, nnz);
    for (int64_t r = 0; r < rows; ++r) {
        double *yr = y + r * ldy;
        for (int64_t c = 0; c < ncols; ++c)
            yr[c] = beta == 0.0 ? 0.0 : beta * yr[c];
        for (int32_t e = v.rowptr[r]; e < v.rowptr[r + 1]; ++e) {
            const double av = v.val[e];
            const double *xr = x + (int64_t)v.colidx[e] * ldx;
            for (int64_t c = 0; c < ncols; ++c)
                yr[c] += av * xr[c];
        }
    }
    return 0;
}

static int host_gemm_nn(void *impl, int64_t t, int64_t r, int64_t w, double alpha, const double *u,
                        int64_t ldu, const double *m, int64_t ldm, double beta, double *z,
                        int64_t ldz, rt_err *err)
{
    (void)impl;
    (void)err;
    if (t == 0 || w == 0)
        return 0;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)t, (int)w, (int)r, alpha, u,
                (int)ldu, m, (int)ldm, beta, z, (int)ldz);
    return 0;
}

static int host_gemm_tn(void *impl, int64_t t, int64_t r1, int64_t r2, double alpha,
                        const double *u, int64_t ldu, const double *v, int64_t ldv, double beta,
                        double *g, int64_t ldg, rt_err *err)
{
    (void)impl;
    (void)err;
    if (r1 == 0 || r2 == 0)
        return 0;
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)r1, (int)r2, (int)t, alpha, u,
                (int)ldu, v, (int)ldv, beta, g, (int)ldg);
    return 0;
}

static int host_geam(void *impl, int64_t t, int64_t w, double alpha, const double *u, int64_t ldu,
                     double beta, const double *v, int64_t ldv, double *z, int64_t ldz, rt_err *err)
{
    (void)impl;
    (void)err;
    for (int64_t i = 0; i < t; ++i)
        for (int64_t j = 0; j < w; ++j)
            z[i * ldz + j] = alpha * u[i * ldu + j] + (beta == 0.0 ? 0.0 : beta * v[i * ldv + j]);
    return 0;
}

static int host_sync(void *impl, rt_err *err)
{
    (void)impl;
    (void)err;
    return 0;
}

static const eg_dev_ops host_ops = {
    .name = "host",
    .pool_create = host_pool_create,
    .pool_destroy = host_pool_destroy,
    .h2d = host_copy,
    .d2h = host_copy,
    .spmm = host_spmm,
    .gemm_nn = host_gemm_nn,
    .gemm_tn = host_gemm_tn,
    .geam = host_geam,
    .sync = host_sync,
};

eg_dev eg_dev_host(void)
{
    eg_dev d = {&host_ops, NULL};
    return d;
}
