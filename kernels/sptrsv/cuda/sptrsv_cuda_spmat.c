#include "sptrsv_cuda_spmat.h"

#include <inttypes.h>
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

static int stored_csr(const rt_sptrsv_inputs *in, int upper, host_csr *h, rt_err *err)
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
    int64_t *next = malloc((size_t)(n > 0 ? n : 1) * sizeof *next);
    if (!h->colidx || !h->val || !next) {
        free(next);
        return rt_err_set(err, "out of host memory for L^T");
    }
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
    int rc = stored_csr(in, upper, &h, err);
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
