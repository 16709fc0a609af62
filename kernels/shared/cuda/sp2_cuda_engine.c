#include "sp2_cuda_engine.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "rt_clock.h"
#include "sp2_engine.h"
#include "sp2_hooks.h"

/* The GPU engine of the 2D algorithms. Tiles stay in the host RMA windows (the gets, queues and
 * broadcasts are the CPU kernels'); on the device:
 *   - the tiles this rank owns, uploaded once at setup and kept for the point's lifetime;
 *   - a few buffer sets per operand matrix for tiles that came from other ranks, keyed by tile and
 *     refilled from the host staging buffers (pinned with cudaHostRegister) when another tile is
 *     needed; emptied at the start of every execution, so every execution stages what it uses;
 *   - the owned C tiles (SpMM), packed as the host C, and a scratch tile for partial products that
 *     go to another rank's queue or into stationary-A SUMMA's reduction (copied back to the host).
 * Partial C tiles that arrive from other ranks are summed by the shared code into the host C; the
 * result is device C + host C, joined at output (merge_c).
 * SpGEMM runs cusparseSpGEMM per product and downloads the result into the host CSR buffer that
 * the shared sparse accumulator consumes.
 * Every call is synchronous with respect to the host (the stream is drained before returning), so
 * compute (cuSPARSE work) and staging (copies) are timed apart with the host clock and the
 * staging buffers may be refilled as soon as a call returns. Sparse tiles go to the device as CSR
 * with 32-bit indices (row pointers converted from the windows' 64-bit ones). */

#define CACHE_SLOTS 4 /* per operand: covers SUMMA's refine <= 4 B tiles reused across a step */

typedef struct dtile {
    int64_t rows, cols, nnz;
    int32_t *row; /* rows + 1 (sparse) */
    int32_t *col; /* nnz (sparse) */
    void *val;    /* nnz (sparse) or rows * cols (dense, row-major) */
} dtile;

typedef struct cache_slot {
    int valid, ti, tj;
    uint64_t used; /* stamp of the last use (least recently used is refilled) */
    dtile t;
} cache_slot;

typedef struct dmat_dev {
    const sp2_dmat *mat;
    int n_tiles;
    dtile *own;                 /* tr * tc; allocated only where have[] */
    unsigned char *have;        /* 1: this rank's tile, resident */
    int64_t max_rows, max_vals; /* over all tiles; values = nnz (sparse) or rows * cols */
    cache_slot cache[CACHE_SLOTS];
} dmat_dev;

typedef struct gpu_engine {
    rt_cuda_ctx *ctx;
    cudaStream_t stream;
    cusparseHandle_t h;
    int have_h;
    const char *kernel;
    rt_precision prec;
    size_t eb;
    cudaDataType type;
    int spgemm;
    dmat_dev A, B;
    uint64_t clock;
    int32_t *h_row32; /* pinned (cudaMallocHost): row pointers in 32 bits, both directions */
    int64_t h_row32_len;
    /* SpMM C */
    const int64_t *c_off;
    int64_t c_elems;
    void *d_c;    /* owned C tiles */
    void *d_part; /* one partial C tile (the largest) */
    void *h_merge;
    void *spmm_buf;
    size_t spmm_buf_bytes;
    /* SpGEMM */
    void *sg_buf1, *sg_buf2;
    size_t sg_buf1_bytes, sg_buf2_bytes;
    int32_t *sg_row; /* max C tile rows + 1 */
    int32_t *sg_col;
    void *sg_val;
    int64_t sg_cap;
    /* host buffers registered (pinned) at setup */
    int n_pinned;
    void *pinned[SP2_MAX_HOST_BUFS];
    int pin_failures;
} gpu_engine;

/* ---------------------------------------------------------------------------------------------
 * Error helpers: every CUDA and cuSPARSE status is checked and named. */

static int cuda_fail(const gpu_engine *g, const char *call, cudaError_t e, rt_err *err)
{
    return rt_err_set(err, "%s: %s failed: %s", g->kernel, call, cudaGetErrorString(e));
}

static int cusparse_fail(const gpu_engine *g, const char *call, cusparseStatus_t st, rt_err *err)
{
    return rt_err_set(err, "%s: %s failed: %s", g->kernel, call, cusparseGetErrorString(st));
}

#define CU_RET(call)                                                                               \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess)                                                                     \
            return cuda_fail(g, #call, e_, err);                                                   \
    } while (0)

/* Inside functions with descriptors to release: record the failure and jump to `done`. */
#define CS_GO(call)                                                                                \
    do {                                                                                           \
        const cusparseStatus_t st_ = (call);                                                       \
        if (st_ != CUSPARSE_STATUS_SUCCESS) {                                                      \
            cusparse_fail(g, #call, st_, err);                                                     \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

#define CU_GO(call)                                                                                \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            cuda_fail(g, #call, e_, err);                                                          \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

static double now(void)
{
    return rt_clock_now();
}

/* A failed rt_cuda_alloc: "device full" stays RT_INFEASIBLE (a property of the point), named with
 * the kernel; anything else is an error. */
static int keep_infeasible(const gpu_engine *g, int rc, rt_err *err)
{
    if (rc != RT_INFEASIBLE)
        return -1;
    rt_err_prefix(err, "%s", g->kernel);
    return RT_INFEASIBLE;
}

/* Grows a device buffer to at least `bytes` (contents are not kept). */
static int grow(gpu_engine *g, void **buf, size_t *cap, size_t bytes, const char *what, rt_err *err)
{
    if (*buf && *cap >= bytes)
        return 0;
    rt_cuda_free(g->ctx, *buf);
    *buf = NULL;
    *cap = 0;
    const int rc = rt_cuda_alloc(g->ctx, buf, bytes, what, err);
    if (rc != 0)
        return keep_infeasible(g, rc, err);
    *cap = bytes;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Device tiles */

static void dtile_free(gpu_engine *g, dtile *t)
{
    rt_cuda_free(g->ctx, t->row);
    rt_cuda_free(g->ctx, t->col);
    rt_cuda_free(g->ctx, t->val);
    memset(t, 0, sizeof *t);
}

/* Room for a tile of up to `rows` rows and `vals` values of matrix kind `kind`. */
static int dtile_alloc(gpu_engine *g, sp2_kind kind, int64_t rows, int64_t vals, dtile *t,
                       const char *what, rt_err *err)
{
    memset(t, 0, sizeof *t);
    int rc = 0;
    if (kind == SP2_SPARSE) {
        rc = rt_cuda_alloc(g->ctx, (void **)&t->row, (size_t)(rows + 1) * sizeof(int32_t), what,
                           err);
        if (rc == 0)
            rc = rt_cuda_alloc(g->ctx, (void **)&t->col, (size_t)vals * sizeof(int32_t), what, err);
    }
    if (rc == 0)
        rc = rt_cuda_alloc(g->ctx, &t->val, (size_t)vals * g->eb, what, err);
    if (rc != 0) {
        dtile_free(g, t);
        return keep_infeasible(g, rc, err);
    }
    return 0;
}

/* Copies the host view h into the device tile d (which has room for it) and waits. */
static int dtile_upload(gpu_engine *g, const sp2_tile *h, dtile *d, rt_err *err)
{
    d->rows = h->rows;
    d->cols = h->cols;
    d->nnz = h->nnz;
    if (h->kind == SP2_SPARSE) {
        if (h->rows + 1 > g->h_row32_len)
            return rt_err_set(err, "%s: a %lld-row tile exceeds the row-pointer buffer", g->kernel,
                              (long long)h->rows);
        for (int64_t r = 0; r <= h->rows; ++r)
            g->h_row32[r] = (int32_t)h->rowptr[r]; /* < 2^31: checked at setup */
        CU_RET(cudaMemcpyAsync(d->row, g->h_row32, (size_t)(h->rows + 1) * sizeof(int32_t),
                               cudaMemcpyHostToDevice, g->stream));
        if (h->nnz > 0)
            CU_RET(cudaMemcpyAsync(d->col, h->colidx, (size_t)h->nnz * sizeof(int32_t),
                                   cudaMemcpyHostToDevice, g->stream));
    }
    if (h->nnz > 0)
        CU_RET(cudaMemcpyAsync(d->val, h->val, (size_t)h->nnz * g->eb, cudaMemcpyHostToDevice,
                               g->stream));
    /* The host block may be refilled (next get, next broadcast) once this returns. */
    CU_RET(cudaStreamSynchronize(g->stream));
    return 0;
}

static void dmat_dev_free(gpu_engine *g, dmat_dev *m)
{
    for (int t = 0; m->own && t < m->n_tiles; ++t)
        if (m->have[t])
            dtile_free(g, &m->own[t]);
    for (int q = 0; q < CACHE_SLOTS; ++q)
        dtile_free(g, &m->cache[q].t);
    free(m->own);
    free(m->have);
    m->own = NULL;
    m->have = NULL;
}

/* Sizes the operand's buffers from its directory, uploads the tiles this rank owns and makes
 * room for fetched ones. Returns 0, -1 or RT_INFEASIBLE. */
/* The most rows of any tile of mat. */
static int64_t max_tile_rows(const sp2_dmat *mat)
{
    int64_t m = 0;
    for (int ti = 0; ti < mat->tr; ++ti)
        for (int tj = 0; tj < mat->tc; ++tj) {
            const sp2_tile_info *e = sp2_dmat_info(mat, ti, tj);
            if (e->rows > m)
                m = e->rows;
        }
    return m;
}

static int dmat_dev_init(gpu_engine *g, dmat_dev *m, const sp2_dmat *mat, rt_err *err)
{
    m->mat = mat;
    m->n_tiles = mat->tr * mat->tc;
    m->own = calloc((size_t)(m->n_tiles > 0 ? m->n_tiles : 1), sizeof *m->own);
    m->have = calloc((size_t)(m->n_tiles > 0 ? m->n_tiles : 1), 1);
    if (!m->own || !m->have)
        return rt_err_set(err, "%s: out of memory for the device tile map of %s", g->kernel,
                          mat->name);
    for (int ti = 0; ti < mat->tr; ++ti)
        for (int tj = 0; tj < mat->tc; ++tj) {
            const sp2_tile_info *e = sp2_dmat_info(mat, ti, tj);
            const int64_t vals = mat->kind == SP2_SPARSE ? e->nnz : e->rows * e->cols;
            /* cuSPARSE gets 32-bit indices: every row pointer of a tile must fit. */
            if (mat->kind == SP2_SPARSE && (e->nnz > INT32_MAX || e->rows >= INT32_MAX)) {
                rt_err_set(err,
                           "%s: tile (%d, %d) of %s has %lld nonzeros, beyond 32-bit cuSPARSE "
                           "indices (use a larger refine)",
                           g->kernel, ti, tj, mat->name, (long long)e->nnz);
                return RT_INFEASIBLE;
            }
            if (e->rows > m->max_rows)
                m->max_rows = e->rows;
            if (vals > m->max_vals)
                m->max_vals = vals;
        }
    char what[160];
    for (int ti = 0; ti < mat->tr; ++ti)
        for (int tj = 0; tj < mat->tc; ++tj) {
            const void *blk = sp2_dmat_local_block(mat, ti, tj);
            if (!blk)
                continue;
            const int t = ti * mat->tc + tj;
            const sp2_tile_info *e = sp2_dmat_info(mat, ti, tj);
            const int64_t vals = mat->kind == SP2_SPARSE ? e->nnz : e->rows * e->cols;
            snprintf(what, sizeof what, "tile (%d, %d) of %s", ti, tj, mat->name);
            const int rc = dtile_alloc(g, mat->kind, e->rows, vals, &m->own[t], what, err);
            if (rc != 0)
                return rc;
            m->have[t] = 1;
            sp2_tile view;
            sp2_dmat_view(mat, ti, tj, blk, &view);
            if (dtile_upload(g, &view, &m->own[t], err) != 0)
                return -1;
        }
    for (int q = 0; q < CACHE_SLOTS; ++q) {
        snprintf(what, sizeof what, "staging buffers of %s on the device", mat->name);
        const int rc =
            dtile_alloc(g, mat->kind, m->max_rows, m->max_vals, &m->cache[q].t, what, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The device copy of an operand: resident when it is this rank's tile, else a buffer set that
 * holds it already (same tile this execution) or is refilled from the host block (staging). */
static int operand_tile(gpu_engine *g, dmat_dev *m, const sp2_operand *op, const dtile **out,
                        sp2_etimes *t, rt_err *err)
{
    const int idx = op->ti * m->mat->tc + op->tj;
    if (m->have[idx] && op->block == sp2_dmat_local_block(m->mat, op->ti, op->tj)) {
        *out = &m->own[idx];
        return 0;
    }
    cache_slot *victim = &m->cache[0];
    for (int q = 0; q < CACHE_SLOTS; ++q) {
        cache_slot *c = &m->cache[q];
        if (c->valid && c->ti == op->ti && c->tj == op->tj) {
            /* Tiles never change during a point, so the same tile is the same data. */
            c->used = ++g->clock;
            *out = &c->t;
            return 0;
        }
        if (!c->valid || c->used < victim->used)
            victim = c;
        if (!c->valid)
            break;
    }
    const double t0 = now();
    victim->valid = 0;
    if (dtile_upload(g, &op->t, &victim->t, err) != 0)
        return -1;
    t->staging += now() - t0;
    victim->valid = 1;
    victim->ti = op->ti;
    victim->tj = op->tj;
    victim->used = ++g->clock;
    *out = &victim->t;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * cuSPARSE products */

/* c (a->rows x b->cols on the device, row-major, leading dimension ldc) += a * b; waits. */
static int dev_spmm(gpu_engine *g, const dtile *a, const dtile *b, void *c, int64_t ldc,
                    rt_err *err)
{
    cusparseSpMatDescr_t ma = NULL;
    cusparseDnMatDescr_t mb = NULL, mc = NULL;
    const float one_f = 1.0f;
    const double one_d = 1.0;
    const void *one = g->prec == RT_FP32 ? (const void *)&one_f : (const void *)&one_d;
    int rc = -1;
    CS_GO(cusparseCreateCsr(&ma, a->rows, a->cols, a->nnz, a->row, a->col, a->val,
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                            g->type));
    CS_GO(cusparseCreateDnMat(&mb, b->rows, b->cols, b->cols, b->val, g->type, CUSPARSE_ORDER_ROW));
    CS_GO(cusparseCreateDnMat(&mc, a->rows, b->cols, ldc, c, g->type, CUSPARSE_ORDER_ROW));
    size_t need = 0;
    CS_GO(cusparseSpMM_bufferSize(g->h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  CUSPARSE_OPERATION_NON_TRANSPOSE, one, ma, mb, one, mc, g->type,
                                  CUSPARSE_SPMM_ALG_DEFAULT, &need));
    if (grow(g, &g->spmm_buf, &g->spmm_buf_bytes, need, "the cuSPARSE SpMM workspace", err) != 0)
        goto done;
    /* beta = 1: accumulate into C. */
    CS_GO(cusparseSpMM(g->h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                       one, ma, mb, one, mc, g->type, CUSPARSE_SPMM_ALG_DEFAULT, g->spmm_buf));
    CU_GO(cudaStreamSynchronize(g->stream));
    rc = 0;
done:
    if (mc)
        cusparseDestroyDnMat(mc);
    if (mb)
        cusparseDestroyDnMat(mb);
    if (ma)
        cusparseDestroySpMat(ma);
    return rc;
}

static int gpu_spmm_acc(void *es, const sp2_operand *a, const sp2_operand *b, int c_slot, void *c,
                        double *flops, sp2_etimes *t, rt_err *err)
{
    gpu_engine *g = es;
    (void)c; /* the owned C tile lives on the device; the host copy receives remote partials */
    *flops = 0.0;
    const dtile *da = NULL, *db = NULL;
    if (operand_tile(g, &g->A, a, &da, t, err) != 0 || operand_tile(g, &g->B, b, &db, t, err) != 0)
        return -1;
    const double t0 = now();
    void *dc = (unsigned char *)g->d_c + (size_t)g->c_off[c_slot] * g->eb;
    if (dev_spmm(g, da, db, dc, b->t.cols, err) != 0)
        return -1;
    t->compute += now() - t0;
    *flops = 2.0 * (double)a->t.nnz * (double)b->t.cols;
    return 0;
}

static int gpu_spmm_partial(void *es, int n, const sp2_operand *a, const sp2_operand *b,
                            int64_t rows, int64_t cols, void *part, double *flops, sp2_etimes *t,
                            rt_err *err)
{
    gpu_engine *g = es;
    *flops = 0.0;
    const size_t bytes = (size_t)(rows * cols) * g->eb;
    if (n <= 0) {
        memset(part, 0, bytes);
        return 0;
    }
    double t0 = now();
    CU_RET(cudaMemsetAsync(g->d_part, 0, bytes, g->stream));
    CU_RET(cudaStreamSynchronize(g->stream));
    t->compute += now() - t0;
    for (int q = 0; q < n; ++q) {
        const dtile *da = NULL, *db = NULL;
        if (operand_tile(g, &g->A, &a[q], &da, t, err) != 0 ||
            operand_tile(g, &g->B, &b[q], &db, t, err) != 0)
            return -1;
        t0 = now();
        if (dev_spmm(g, da, db, g->d_part, cols, err) != 0)
            return -1;
        t->compute += now() - t0;
        *flops += 2.0 * (double)a[q].t.nnz * (double)cols;
    }
    t0 = now();
    CU_RET(cudaMemcpyAsync(part, g->d_part, bytes, cudaMemcpyDeviceToHost, g->stream));
    CU_RET(cudaStreamSynchronize(g->stream));
    t->staging += now() - t0;
    return 0;
}

/* Multiply-adds of a sparse product, from the host views: 2 per A(r,c) per nonzero of B row c. */
static double spgemm_flops(const sp2_tile *a, const sp2_tile *b)
{
    double f = 0.0;
    for (int64_t e = 0; e < a->nnz; ++e) {
        const int32_t c = a->colidx[e];
        f += (double)(b->rowptr[c + 1] - b->rowptr[c]);
    }
    return 2.0 * f;
}

static int gpu_spgemm(void *es, const sp2_operand *a, const sp2_operand *b, sp2_csrbuf *out,
                      double *flops, sp2_etimes *t, rt_err *err)
{
    gpu_engine *g = es;
    const int64_t rows = a->t.rows, cols = b->t.cols;
    *flops = spgemm_flops(&a->t, &b->t);
    if (a->t.nnz == 0 || b->t.nnz == 0) { /* empty product: cuSPARSE is not asked */
        if (sp2_csrbuf_reset(out, g->prec, rows, cols, 0, err) != 0)
            return -1;
        memset(out->rowptr, 0, (size_t)(rows + 1) * sizeof *out->rowptr);
        return 0;
    }
    if (rows + 1 > g->h_row32_len)
        return rt_err_set(err, "%s: a %lld-row product exceeds the row-pointer buffer", g->kernel,
                          (long long)rows);
    const dtile *da = NULL, *db = NULL;
    if (operand_tile(g, &g->A, a, &da, t, err) != 0 || operand_tile(g, &g->B, b, &db, t, err) != 0)
        return -1;
    cusparseSpMatDescr_t ma = NULL, mb = NULL, mc = NULL;
    cusparseSpGEMMDescr_t sd = NULL;
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    const void *one = g->prec == RT_FP32 ? (const void *)&one_f : (const void *)&one_d;
    const void *zero = g->prec == RT_FP32 ? (const void *)&zero_f : (const void *)&zero_d;
    const cusparseOperation_t nt = CUSPARSE_OPERATION_NON_TRANSPOSE;
    int rc = -1;
    int64_t c_rows = 0, c_cols = 0, c_nnz = 0;
    double t0 = now();
    CS_GO(cusparseCreateCsr(&ma, da->rows, da->cols, da->nnz, da->row, da->col, da->val,
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                            g->type));
    CS_GO(cusparseCreateCsr(&mb, db->rows, db->cols, db->nnz, db->row, db->col, db->val,
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                            g->type));
    CS_GO(cusparseCreateCsr(&mc, rows, cols, 0, g->sg_row, NULL, NULL, CUSPARSE_INDEX_32I,
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, g->type));
    CS_GO(cusparseSpGEMM_createDescr(&sd));
    size_t need1 = 0, need2 = 0;
    CS_GO(cusparseSpGEMM_workEstimation(g->h, nt, nt, one, ma, mb, zero, mc, g->type,
                                        CUSPARSE_SPGEMM_DEFAULT, sd, &need1, NULL));
    if (grow(g, &g->sg_buf1, &g->sg_buf1_bytes, need1, "the cuSPARSE SpGEMM work estimate", err) !=
        0)
        goto done;
    CS_GO(cusparseSpGEMM_workEstimation(g->h, nt, nt, one, ma, mb, zero, mc, g->type,
                                        CUSPARSE_SPGEMM_DEFAULT, sd, &need1, g->sg_buf1));
    CS_GO(cusparseSpGEMM_compute(g->h, nt, nt, one, ma, mb, zero, mc, g->type,
                                 CUSPARSE_SPGEMM_DEFAULT, sd, &need2, NULL));
    /* buffer 1 stays alive (and unchanged) until compute has run with buffer 2. */
    if (grow(g, &g->sg_buf2, &g->sg_buf2_bytes, need2, "the cuSPARSE SpGEMM workspace", err) != 0)
        goto done;
    CS_GO(cusparseSpGEMM_compute(g->h, nt, nt, one, ma, mb, zero, mc, g->type,
                                 CUSPARSE_SPGEMM_DEFAULT, sd, &need2, g->sg_buf2));
    CS_GO(cusparseSpMatGetSize(mc, &c_rows, &c_cols, &c_nnz));
    if (c_rows != rows || c_cols != cols || c_nnz < 0) {
        rt_err_set(err, "%s: cuSPARSE SpGEMM returned a %lld x %lld product for %lld x %lld",
                   g->kernel, (long long)c_rows, (long long)c_cols, (long long)rows,
                   (long long)cols);
        goto done;
    }
    if (c_nnz > g->sg_cap) {
        rt_cuda_free(g->ctx, g->sg_col);
        rt_cuda_free(g->ctx, g->sg_val);
        g->sg_col = NULL;
        g->sg_val = NULL;
        g->sg_cap = 0;
        const int64_t cap = c_nnz + c_nnz / 2;
        if (rt_cuda_alloc(g->ctx, (void **)&g->sg_col, (size_t)cap * sizeof(int32_t),
                          "SpGEMM product columns", err) != 0 ||
            rt_cuda_alloc(g->ctx, &g->sg_val, (size_t)cap * g->eb, "SpGEMM product values", err) !=
                0) {
            rt_err_prefix(err, "%s", g->kernel);
            goto done;
        }
        g->sg_cap = cap;
    }
    CS_GO(cusparseCsrSetPointers(mc, g->sg_row, g->sg_col, g->sg_val));
    CS_GO(cusparseSpGEMM_copy(g->h, nt, nt, one, ma, mb, zero, mc, g->type, CUSPARSE_SPGEMM_DEFAULT,
                              sd));
    CU_GO(cudaStreamSynchronize(g->stream));
    t->compute += now() - t0;

    /* The product to the host CSR buffer the shared accumulation reads. */
    t0 = now();
    if (sp2_csrbuf_reset(out, g->prec, rows, cols, c_nnz, err) != 0)
        goto done;
    CU_GO(cudaMemcpyAsync(g->h_row32, g->sg_row, (size_t)(rows + 1) * sizeof(int32_t),
                          cudaMemcpyDeviceToHost, g->stream));
    if (c_nnz > 0) {
        CU_GO(cudaMemcpyAsync(out->colidx, g->sg_col, (size_t)c_nnz * sizeof(int32_t),
                              cudaMemcpyDeviceToHost, g->stream));
        CU_GO(cudaMemcpyAsync(out->val, g->sg_val, (size_t)c_nnz * g->eb, cudaMemcpyDeviceToHost,
                              g->stream));
    }
    CU_GO(cudaStreamSynchronize(g->stream));
    for (int64_t r = 0; r <= rows; ++r)
        out->rowptr[r] = g->h_row32[r];
    out->nnz = c_nnz;
    t->staging += now() - t0;
    if (out->rowptr[0] != 0 || out->rowptr[rows] != c_nnz) {
        rt_err_set(err, "%s: cuSPARSE SpGEMM row pointers end at %lld for %lld nonzeros", g->kernel,
                   (long long)out->rowptr[rows], (long long)c_nnz);
        goto done;
    }
    rc = 0;
done:
    if (sd)
        cusparseSpGEMM_destroyDescr(sd);
    if (mc)
        cusparseDestroySpMat(mc);
    if (mb)
        cusparseDestroySpMat(mb);
    if (ma)
        cusparseDestroySpMat(ma);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Life cycle */

static int gpu_begin_run(void *es, rt_err *err)
{
    gpu_engine *g = es;
    if (rt_cuda_ctx_make_current(g->ctx, err) != 0)
        return -1;
    for (int q = 0; q < CACHE_SLOTS; ++q)
        g->A.cache[q].valid = g->B.cache[q].valid = 0;
    if (g->d_c && g->c_elems > 0) {
        CU_RET(cudaMemsetAsync(g->d_c, 0, (size_t)g->c_elems * g->eb, g->stream));
        CU_RET(cudaStreamSynchronize(g->stream));
    }
    return 0;
}

static int gpu_merge_c(void *es, void *host_c, rt_err *err)
{
    gpu_engine *g = es;
    if (!g->d_c || g->c_elems == 0)
        return 0;
    if (rt_cuda_ctx_make_current(g->ctx, err) != 0)
        return -1;
    const size_t bytes = (size_t)g->c_elems * g->eb;
    CU_RET(cudaMemcpyAsync(g->h_merge, g->d_c, bytes, cudaMemcpyDeviceToHost, g->stream));
    CU_RET(cudaStreamSynchronize(g->stream));
    if (g->prec == RT_FP32) {
        float *c = host_c;
        const float *d = g->h_merge;
        for (int64_t q = 0; q < g->c_elems; ++q)
            c[q] += d[q];
    } else {
        double *c = host_c;
        const double *d = g->h_merge;
        for (int64_t q = 0; q < g->c_elems; ++q)
            c[q] += d[q];
    }
    /* Moved, not copied: a second output call must not add it again. */
    CU_RET(cudaMemsetAsync(g->d_c, 0, bytes, g->stream));
    CU_RET(cudaStreamSynchronize(g->stream));
    return 0;
}

static int gpu_flush(void *es, rt_err *err)
{
    gpu_engine *g = es;
    return rt_cuda_flush_l2(g->ctx, err);
}

static void gpu_teardown(void *es)
{
    gpu_engine *g = es;
    if (!g)
        return;
    rt_err ignored;
    if (g->ctx)
        (void)rt_cuda_ctx_make_current(g->ctx, &ignored);
    if (g->stream)
        (void)cudaStreamSynchronize(g->stream);
    if (g->have_h)
        cusparseDestroy(g->h);
    dmat_dev_free(g, &g->A);
    dmat_dev_free(g, &g->B);
    rt_cuda_free(g->ctx, g->d_c);
    rt_cuda_free(g->ctx, g->d_part);
    rt_cuda_free(g->ctx, g->spmm_buf);
    rt_cuda_free(g->ctx, g->sg_buf1);
    rt_cuda_free(g->ctx, g->sg_buf2);
    rt_cuda_free(g->ctx, g->sg_row);
    rt_cuda_free(g->ctx, g->sg_col);
    rt_cuda_free(g->ctx, g->sg_val);
    if (g->h_row32)
        (void)cudaFreeHost(g->h_row32);
    for (int q = 0; q < g->n_pinned; ++q)
        (void)cudaHostUnregister(g->pinned[q]);
    (void)cudaGetLastError(); /* nothing above may leave an error for the next point */
    free(g->h_merge);
    free(g);
}

static int gpu_setup(void *backend, const sp2_engine_setup *info, void **es, rt_err *err)
{
    gpu_engine *g = calloc(1, sizeof *g);
    *es = g;
    if (!g)
        return rt_err_set(err, "%s: out of memory for the GPU engine", info->kernel);
    g->kernel = info->kernel;
    g->ctx = backend;
    if (!g->ctx)
        return rt_err_set(err, "%s: no CUDA context", info->kernel);
    if (rt_cuda_ctx_make_current(g->ctx, err) != 0)
        return -1;
    g->stream = (cudaStream_t)rt_cuda_ctx_stream(g->ctx);
    g->prec = info->prec;
    g->eb = rt_precision_bytes(info->prec);
    g->type = info->prec == RT_FP32 ? CUDA_R_32F : CUDA_R_64F;
    g->spgemm = info->spgemm;
    g->c_off = info->c_off;
    g->c_elems = info->spgemm ? 0 : info->c_elems;

    /* A handle of our own, on the context's stream (the spmm.cuda.cusparse memo keeps its
     * layout private; creating one per point costs milliseconds of setup). */
    const cusparseStatus_t st = cusparseCreate(&g->h);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return cusparse_fail(g, "cusparseCreate", st, err);
    g->have_h = 1;
    const cusparseStatus_t st2 = cusparseSetStream(g->h, g->stream);
    if (st2 != CUSPARSE_STATUS_SUCCESS)
        return cusparse_fail(g, "cusparseSetStream", st2, err);

    /* Pinned staging: copies from pageable memory go through a driver bounce buffer. A host that
     * refuses to pin (locked-memory limits) still runs, with pageable copies. */
    for (int q = 0; q < info->n_bufs; ++q) {
        const cudaError_t e =
            cudaHostRegister(info->bufs[q], info->buf_bytes[q], cudaHostRegisterDefault);
        if (e == cudaSuccess) {
            g->pinned[g->n_pinned++] = info->bufs[q];
        } else {
            (void)cudaGetLastError();
            g->pin_failures++;
        }
    }

    /* The pinned row-pointer buffer first: uploading the own tiles below converts through it. */
    int64_t maxr = max_tile_rows(info->A);
    if (max_tile_rows(info->B) > maxr)
        maxr = max_tile_rows(info->B);
    if (info->max_c_rows > maxr)
        maxr = info->max_c_rows;
    g->h_row32_len = maxr + 1;
    CU_RET(cudaMallocHost((void **)&g->h_row32, (size_t)g->h_row32_len * sizeof(int32_t)));

    int rc = dmat_dev_init(g, &g->A, info->A, err);
    if (rc == 0)
        rc = dmat_dev_init(g, &g->B, info->B, err);
    if (rc != 0)
        return rc;

    const int64_t part = info->max_c_rows * info->max_c_cols;
    if (!info->spgemm) {
        rc = rt_cuda_alloc(g->ctx, &g->d_c, (size_t)g->c_elems * g->eb, "the owned C tiles", err);
        if (rc == 0)
            rc = rt_cuda_alloc(g->ctx, &g->d_part, (size_t)part * g->eb, "a partial C tile", err);
        if (rc != 0)
            return keep_infeasible(g, rc, err);
        g->h_merge = malloc((size_t)(g->c_elems > 0 ? g->c_elems : 1) * g->eb);
        if (!g->h_merge)
            return rt_err_set(err, "%s: out of host memory for the C download", g->kernel);
        CU_RET(cudaMemsetAsync(g->d_c, 0, (size_t)g->c_elems * g->eb, g->stream));
        CU_RET(cudaStreamSynchronize(g->stream));
    } else {
        rc = rt_cuda_alloc(g->ctx, (void **)&g->sg_row,
                           (size_t)(info->max_c_rows + 1) * sizeof(int32_t),
                           "SpGEMM product row pointers", err);
        if (rc != 0)
            return keep_infeasible(g, rc, err);
    }
    return 0;
}

static const sp2_engine gpu_engine_ops = {
    .name = "cuda",
    .stages = 1,
    .setup = gpu_setup,
    .teardown = gpu_teardown,
    .begin_run = gpu_begin_run,
    .spmm_acc = gpu_spmm_acc,
    .spmm_partial = gpu_spmm_partial,
    .spgemm = gpu_spgemm,
    .merge_c = gpu_merge_c,
    .flush = gpu_flush,
};

/* ---------------------------------------------------------------------------------------------
 * Descriptors: the shared hooks, a setup that picks the GPU engine, the context as backend. */

static int gpu_kernel_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                            const rt_kernel_env *env, void **state, rt_err *err)
{
    return sp2_setup_with_engine(self, inputs, p, env, &gpu_engine_ops, self->backend_ctx, state,
                                 err);
}

void sp2_cuda_describe(const rt_cuda_catalog_entry *e, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    rt_cuda_catalog_describe(e, d);
    sp2_fill_hooks(d);
    d->setup = gpu_kernel_setup;
    d->backend_ctx = ctx;
}
