#include "sptrsv_cuda_spmat.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_cuda_variant.h"

#define SLICE 32

/* The stored triangle as CSR with 64-bit row pointers: L itself, or the CSR of L^T (L's
 * columns as rows, rows ascending within each: the diagonal first). */
typedef struct host_csr {
    int64_t n, nnz;
    int64_t *rowptr;
    int32_t *colidx;
    double *val;
    int own; /* 1: colidx and val were built here */
} host_csr;

/* L^T built on the device with cusparseCsr2cscEx2 (the CSC of L is the CSR of L^T, rows sorted)
 * and brought back: the host scatter below took 12-16 s a point on a factor of 3.9e8 nonzeros
 * (random writes), a third of each upper-storage point's setup, while the device does it in well
 * under a second. Returns 1 when the device did it, 0 when it cannot (32-bit sizes exceeded, or
 * no room on the device: the host builds it then), -1 on an error. */
static int transpose_on_device(rt_cuda_ctx *ctx, const rt_csr *l, host_csr *h, rt_err *err)
{
    const int64_t n = l->rows, nnz = l->nnz;
    if (n <= 0 || nnz <= 0 || n >= INT32_MAX || nnz >= INT32_MAX)
        return 0;
    int32_t *rowptr32 = malloc((size_t)(n + 1) * sizeof *rowptr32);
    int32_t *colptr32 = malloc((size_t)(n + 1) * sizeof *colptr32);
    if (!rowptr32 || !colptr32) {
        free(rowptr32);
        free(colptr32);
        return 0;
    }
    for (int64_t i = 0; i <= n; ++i)
        rowptr32[i] = (int32_t)l->rowptr[i];
    void *d[6] = {0}; /* L: row pointers, columns, values; L^T: row pointers, columns, values */
    void *buffer = NULL;
    cusparseHandle_t handle = NULL;
    rt_err local;
    int done = 0;
    const size_t ib = (size_t)nnz * sizeof(int32_t), vb = (size_t)nnz * sizeof(double),
                 pb = (size_t)(n + 1) * sizeof(int32_t);
    if (rt_cuda_upload_new(ctx, rowptr32, pb, &d[0], "L's row pointers", &local) != 0 ||
        rt_cuda_upload_new(ctx, l->colidx, ib, &d[1], "L's columns", &local) != 0 ||
        rt_cuda_upload_new(ctx, l->val, vb, &d[2], "L's values", &local) != 0 ||
        rt_cuda_alloc(ctx, &d[3], pb, "L^T's row pointers", &local) != 0 ||
        rt_cuda_alloc(ctx, &d[4], ib, "L^T's columns", &local) != 0 ||
        rt_cuda_alloc(ctx, &d[5], vb, "L^T's values", &local) != 0 ||
        cusparseCreate(&handle) != CUSPARSE_STATUS_SUCCESS)
        goto out; /* no room (or no handle): the host transposes */
    if (cusparseSetStream(handle, (cudaStream_t)rt_cuda_ctx_stream(ctx)) != CUSPARSE_STATUS_SUCCESS)
        goto out;
    size_t bytes = 0;
    cusparseStatus_t st = cusparseCsr2cscEx2_bufferSize(
        handle, (int)n, (int)n, (int)nnz, d[2], d[0], d[1], d[5], d[3], d[4], CUDA_R_64F,
        CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes);
    if (st != CUSPARSE_STATUS_SUCCESS ||
        rt_cuda_alloc(ctx, &buffer, bytes > 0 ? bytes : 1, "the transpose's buffer", &local) != 0)
        goto out;
    st = cusparseCsr2cscEx2(handle, (int)n, (int)n, (int)nnz, d[2], d[0], d[1], d[5], d[3], d[4],
                            CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                            CUSPARSE_CSR2CSC_ALG1, buffer);
    if (st != CUSPARSE_STATUS_SUCCESS) {
        done = rt_err_set(err, "cusparseCsr2cscEx2 (L^T for upper storage) failed: %s",
                          cusparseGetErrorString(st));
        goto out;
    }
    if (rt_cuda_download(ctx, colptr32, d[3], pb, "L^T's row pointers", err) != 0 ||
        rt_cuda_download(ctx, h->colidx, d[4], ib, "L^T's columns", err) != 0 ||
        rt_cuda_download(ctx, h->val, d[5], vb, "L^T's values", err) != 0) {
        done = -1;
        goto out;
    }
    for (int64_t i = 0; i <= n; ++i)
        h->rowptr[i] = colptr32[i];
    done = 1;
out:
    if (handle)
        cusparseDestroy(handle);
    rt_cuda_free(ctx, buffer);
    for (int i = 0; i < 6; ++i)
        rt_cuda_free(ctx, d[i]);
    free(rowptr32);
    free(colptr32);
    return done;
}

static int stored_csr(rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in, int upper, host_csr *h,
                      rt_err *err)
{
    const rt_csr *l = &in->f.csr;
    const int64_t n = l->rows;
    memset(h, 0, sizeof *h);
    h->n = n;
    h->nnz = l->nnz;
    h->rowptr = calloc((size_t)n + 1, sizeof *h->rowptr);
    if (!h->rowptr)
        return rt_err_set(err, "out of host memory for the row pointers");
    if (!upper) {
        memcpy(h->rowptr, l->rowptr, (size_t)(n + 1) * sizeof *h->rowptr);
        h->colidx = l->colidx;
        h->val = l->val;
        return 0;
    }
    h->own = 1;
    h->colidx = malloc((size_t)(l->nnz > 0 ? l->nnz : 1) * sizeof *h->colidx);
    h->val = malloc((size_t)(l->nnz > 0 ? l->nnz : 1) * sizeof *h->val);
    if (!h->colidx || !h->val)
        return rt_err_set(err, "out of host memory for L^T");
    const int on_device = transpose_on_device(ctx, l, h, err);
    if (on_device != 0)
        return on_device > 0 ? 0 : -1;
    memset(h->rowptr, 0, (size_t)(n + 1) * sizeof *h->rowptr);
    int64_t *next = malloc((size_t)(n > 0 ? n : 1) * sizeof *next);
    if (!next)
        return rt_err_set(err, "out of host memory for L^T");
    for (int64_t e = 0; e < l->nnz; ++e)
        h->rowptr[l->colidx[e] + 1]++;
    for (int64_t i = 0; i < n; ++i)
        h->rowptr[i + 1] += h->rowptr[i];
    memcpy(next, h->rowptr, (size_t)n * sizeof *next);
    for (int64_t i = 0; i < n; ++i) /* rows of L ascending: each row of L^T comes out sorted */
        for (int64_t e = l->rowptr[i]; e < l->rowptr[i + 1]; ++e) {
            const int64_t o = next[l->colidx[e]]++;
            h->colidx[o] = (int32_t)i;
            h->val[o] = l->val[e];
        }
    free(next);
    return 0;
}

static void host_free(host_csr *h)
{
    free(h->rowptr);
    if (h->own) {
        free(h->colidx);
        free(h->val);
    }
}

/* An index array in the width the descriptor asks for. */
static void *indices(const int64_t *v64, const int32_t *v32, int64_t n, int idx64)
{
    const size_t w = idx64 ? 8 : 4;
    char *o = malloc((size_t)(n > 0 ? n : 1) * w);
    if (!o)
        return NULL;
    for (int64_t i = 0; i < n; ++i) {
        const int64_t v = v64 ? v64[i] : v32[i];
        if (idx64)
            ((int64_t *)o)[i] = v;
        else
            ((int32_t *)o)[i] = (int32_t)v;
    }
    return o;
}

static int sp_fail(rt_err *err, const char *name, const char *call, cusparseStatus_t st)
{
    if (st == CUSPARSE_STATUS_NOT_SUPPORTED) {
        rt_err_set(err, "%s: cuSPARSE does not support this combination (%s: %s)", name, call,
                   cusparseGetErrorString(st));
        return RT_INFEASIBLE;
    }
    return rt_err_set(err, "%s: %s failed: %s", name, call, cusparseGetErrorString(st));
}

/* Host arrays of the format: a (row pointers / rows / slice offsets), c (columns), v (values). */
static int build(const char *name, const host_csr *h, sptrsv_spfmt fmt, int idx64, void **a,
                 size_t *a_bytes, void **c, size_t *c_bytes, double **v, int64_t *stored,
                 rt_err *err)
{
    const size_t w = idx64 ? 8 : 4;
    const int64_t n = h->n;
    *a = *c = NULL;
    *v = NULL;
    if (fmt == SPTRSV_SP_CSR || fmt == SPTRSV_SP_COO) {
        *stored = h->nnz;
        if (fmt == SPTRSV_SP_CSR) {
            *a = indices(h->rowptr, NULL, n + 1, idx64);
            *a_bytes = (size_t)(n + 1) * w;
        } else {
            int64_t *rows = malloc((size_t)(h->nnz > 0 ? h->nnz : 1) * sizeof *rows);
            if (rows)
                for (int64_t i = 0; i < n; ++i)
                    for (int64_t e = h->rowptr[i]; e < h->rowptr[i + 1]; ++e)
                        rows[e] = i;
            *a = rows ? indices(rows, NULL, h->nnz, idx64) : NULL;
            *a_bytes = (size_t)(h->nnz > 0 ? h->nnz : 1) * w;
            free(rows);
        }
        *c = indices(NULL, h->colidx, h->nnz, idx64);
        *c_bytes = (size_t)(h->nnz > 0 ? h->nnz : 1) * w;
        if (!*a || !*c)
            return rt_err_set(err, "%s: out of host memory converting L", name);
        return 0;
    }
    /* sliced ELL: per slice of SLICE rows, width = its longest row, column-major in the slice */
    const int64_t ns = (n + SLICE - 1) / SLICE;
    int64_t *off = malloc((size_t)(ns + 1) * sizeof *off);
    if (!off)
        return rt_err_set(err, "%s: out of host memory converting L", name);
    off[0] = 0;
    for (int64_t s = 0; s < ns; ++s) {
        int64_t width = 0;
        for (int64_t r = s * SLICE; r < (s + 1) * SLICE && r < n; ++r)
            if (h->rowptr[r + 1] - h->rowptr[r] > width)
                width = h->rowptr[r + 1] - h->rowptr[r];
        off[s + 1] = off[s] + width * SLICE;
    }
    *stored = off[ns];
    if (off[ns] > 4 * (h->nnz > 0 ? h->nnz : 1)) {
        rt_err_set(err,
                   "%s: sliced ELL would store %" PRId64 " entries for %" PRId64
                   " nonzeros (slices of %d rows padded to their longest row)",
                   name, off[ns], h->nnz, SLICE);
        free(off);
        return RT_INFEASIBLE;
    }
    int64_t *cols = malloc((size_t)(off[ns] > 0 ? off[ns] : 1) * sizeof *cols);
    *v = calloc((size_t)(off[ns] > 0 ? off[ns] : 1), sizeof **v);
    if (!cols || !*v) {
        free(cols);
        free(off);
        return rt_err_set(err, "%s: out of host memory converting L", name);
    }
    for (int64_t q = 0; q < off[ns]; ++q)
        cols[q] = -1;
    for (int64_t r = 0; r < n; ++r) {
        const int64_t s = r / SLICE, lane = r % SLICE;
        for (int64_t e = h->rowptr[r]; e < h->rowptr[r + 1]; ++e) {
            const int64_t q = off[s] + (e - h->rowptr[r]) * SLICE + lane;
            cols[q] = h->colidx[e];
            (*v)[q] = h->val[e];
        }
    }
    *a = indices(off, NULL, ns + 1, idx64);
    *a_bytes = (size_t)(ns + 1) * w;
    *c = indices(cols, NULL, off[ns], idx64);
    *c_bytes = (size_t)(off[ns] > 0 ? off[ns] : 1) * w;
    free(cols);
    free(off);
    if (!*a || !*c)
        return rt_err_set(err, "%s: out of host memory converting L", name);
    return 0;
}

int sptrsv_spmat_create(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                        sptrsv_spfmt fmt, int upper, int idx64, sptrsv_spmat *m, rt_err *err)
{
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    const double t0 = rt_clock_now();
    host_csr h;
    int rc = stored_csr(ctx, in, upper, &h, err);
    void *a = NULL, *c = NULL;
    double *v = NULL;
    size_t ab = 0, cb = 0;
    if (rc == 0)
        rc = build(name, &h, fmt, idx64, &a, &ab, &c, &cb, &v, &m->stored, err);
    const double *vals = fmt == SPTRSV_SP_SELL ? v : h.val;
    const size_t vb = (size_t)(m->stored > 0 ? m->stored : 1) * sizeof(double);
    if (rc == 0 &&
        (rc = rt_cuda_upload_new(ctx, a, ab, &m->dev[0], "L's row structure", err)) == 0 &&
        (rc = rt_cuda_upload_new(ctx, c, cb, &m->dev[1], "L's columns", err)) == 0)
        rc = rt_cuda_upload_new(ctx, vals, vb, &m->dev[2], "L's values", err);
    free(a);
    free(c);
    free(v);
    const int64_t n = h.n, nnz = h.nnz;
    host_free(&h);
    if (rc != 0)
        return rc;
    const cusparseIndexType_t it = idx64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
    cusparseStatus_t st;
    const char *call = "cusparseCreateCsr";
    if (fmt == SPTRSV_SP_CSR) {
        st = cusparseCreateCsr(&m->mat, n, n, nnz, m->dev[0], m->dev[1], m->dev[2], it, it,
                               CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    } else if (fmt == SPTRSV_SP_COO) {
        call = "cusparseCreateCoo";
        st = cusparseCreateCoo(&m->mat, n, n, nnz, m->dev[0], m->dev[1], m->dev[2], it,
                               CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    } else {
        call = "cusparseCreateSlicedEll";
        st = cusparseCreateSlicedEll(&m->mat, n, n, nnz, m->stored, SLICE, m->dev[0], m->dev[1],
                                     m->dev[2], it, it, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    }
    if (st != CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, name, call, st);
    m->have_mat = 1;
    cusparseFillMode_t fill = upper ? CUSPARSE_FILL_MODE_UPPER : CUSPARSE_FILL_MODE_LOWER;
    cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    if ((st = cusparseSpMatSetAttribute(m->mat, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill)) !=
            CUSPARSE_STATUS_SUCCESS ||
        (st = cusparseSpMatSetAttribute(m->mat, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag)) !=
            CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, name, "cusparseSpMatSetAttribute", st);
    m->upload_s = rt_clock_now() - t0;
    return 0;
}

void sptrsv_spmat_free(sptrsv_spmat *m)
{
    if (!m || !m->ctx)
        return;
    if (m->have_mat)
        cusparseDestroySpMat(m->mat);
    for (int i = 0; i < 3; ++i)
        rt_cuda_free(m->ctx, m->dev[i]);
    memset(m, 0, sizeof *m);
}
