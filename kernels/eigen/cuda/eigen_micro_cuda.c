#include "eigen_micro_cuda.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eigen_family.h"
#include "eigen_hooks.h"
#include "eigen_micro.h"
#include "eigen_packed.h"
#include "rt_schema.h"
#include "rt_cuda_point.h"

#define MAX_STREAMS 2

typedef struct micro_state {
    rt_cuda_ctx *ctx;
    const eg_inputs *in;
    eg_solver_kind op;
    int64_t n, b, tile, ntiles;
    int streams, pinned, incore;
    /* host: X, Y (spmm: Y is the result; xty: an input), G (xty result), packed A tiles */
    double *hx, *hy, *hg;
    unsigned char *ha;
    size_t *a_off, *a_bytes;
    int64_t *t_nnz;
    size_t a_max;
    /* device */
    cudaStream_t st[MAX_STREAMS];
    cublasHandle_t blas[MAX_STREAMS];
    cusparseHandle_t sparse[MAX_STREAMS];
    void *work[MAX_STREAMS];
    void *da[MAX_STREAMS];         /* a tile of A (incore: all of A) */
    double *dx, *dxt[MAX_STREAMS]; /* spmm: all of X; xty: tiles of X */
    double *dyt[MAX_STREAMS];      /* tiles of Y (incore: all of Y) */
    double *dg[MAX_STREAMS];       /* xty partial G per stream */
    cudaEvent_t *ev;               /* 4 per tile: before in, after in, after compute, after out */
    cudaEvent_t t0, t1, join, g0, g1;
    /* the last run */
    double run_s, h2d_s, d2h_s, comp_s, h2d_bytes, d2h_bytes;
} micro_state;

static int cuda_fail(rt_err *err, const char *what, cudaError_t e)
{
    return rt_err_set(err, "eigen microbenchmark: %s failed: %s", what, cudaGetErrorString(e));
}

static int64_t tile_rows(const micro_state *s, int64_t i)
{
    const int64_t r0 = i * s->tile;
    return (r0 + s->tile <= s->n ? s->tile : s->n - r0);
}

static void host_free(const micro_state *s, void *p)
{
    if (!p)
        return;
    if (s->pinned)
        cudaFreeHost(p);
    else
        free(p);
}

static int host_alloc(const micro_state *s, size_t bytes, void **p, rt_err *err)
{
    *p = NULL;
    if (s->pinned) {
        const cudaError_t e = cudaMallocHost(p, bytes ? bytes : 8);
        if (e != cudaSuccess) {
            *p = NULL;
            return cuda_fail(err, "cudaMallocHost", e);
        }
        return 0;
    }
    *p = malloc(bytes ? bytes : 8);
    return *p ? 0 : rt_err_set(err, "eigen microbenchmark: out of memory (%zu bytes)", bytes);
}

static void micro_teardown(void *state)
{
    micro_state *s = state;
    if (!s)
        return;
    rt_err ignored;
    if (s->ctx)
        rt_cuda_ctx_make_current(s->ctx, &ignored);
    for (int k = 0; k < MAX_STREAMS; ++k) {
        if (s->st[k])
            cudaStreamSynchronize(s->st[k]);
        cudaFree(s->work[k]);
        cudaFree(s->da[k]);
        cudaFree(s->dxt[k]);
        cudaFree(s->dyt[k]);
        cudaFree(s->dg[k]);
        if (s->blas[k])
            cublasDestroy(s->blas[k]);
        if (s->sparse[k])
            cusparseDestroy(s->sparse[k]);
        if (s->st[k])
            cudaStreamDestroy(s->st[k]);
    }
    cudaFree(s->dx);
    if (s->ev)
        for (int64_t i = 0; i < 4 * s->ntiles; ++i)
            if (s->ev[i])
                cudaEventDestroy(s->ev[i]);
    cudaEvent_t *single[] = {&s->t0, &s->t1, &s->join, &s->g0, &s->g1};
    for (int k = 0; k < 5; ++k)
        if (*single[k])
            cudaEventDestroy(*single[k]);
    free(s->ev);
    host_free(s, s->hx);
    host_free(s, s->hy);
    host_free(s, s->hg);
    host_free(s, s->ha);
    free(s->a_off);
    free(s->a_bytes);
    free(s->t_nnz);
    free(s);
}

/* A's row tiles packed (eigen_packed.h layout: int32 rowptr from 0, int32 global colidx, val). */
static int pack_tiles(micro_state *s, rt_err *err)
{
    const rt_csr *a = s->in->a;
    s->a_off = calloc((size_t)s->ntiles, sizeof *s->a_off);
    s->a_bytes = calloc((size_t)s->ntiles, sizeof *s->a_bytes);
    s->t_nnz = calloc((size_t)s->ntiles, sizeof *s->t_nnz);
    if (!s->a_off || !s->a_bytes || !s->t_nnz)
        return rt_err_set(err, "eigen microbenchmark: out of memory for %lld tiles",
                          (long long)s->ntiles);
    size_t total = 0;
    for (int64_t i = 0; i < s->ntiles; ++i) {
        const int64_t r0 = i * s->tile, rows = tile_rows(s, i);
        s->t_nnz[i] = a->rowptr[r0 + rows] - a->rowptr[r0];
        if (s->t_nnz[i] > INT32_MAX || a->cols > INT32_MAX)
            return rt_err_set(err, "eigen microbenchmark: tile %lld has more than 2^31 entries",
                              (long long)i);
        s->a_off[i] = total;
        s->a_bytes[i] = eg_packed_bytes(rows, s->t_nnz[i]);
        total += (s->a_bytes[i] + 255) / 256 * 256;
        if (s->a_bytes[i] > s->a_max)
            s->a_max = s->a_bytes[i];
    }
    if (host_alloc(s, total, (void **)&s->ha, err) != 0)
        return -1;
    for (int64_t i = 0; i < s->ntiles; ++i) {
        const int64_t r0 = i * s->tile, rows = tile_rows(s, i);
        const eg_packed_view v = eg_packed_at(s->ha + s->a_off[i], rows, s->t_nnz[i]);
        const int64_t e0 = a->rowptr[r0];
        for (int64_t r = 0; r <= rows; ++r)
            v.rowptr[r] = (int32_t)(a->rowptr[r0 + r] - e0);
        for (int64_t e = 0; e < s->t_nnz[i]; ++e) {
            v.colidx[e] = (int32_t)a->colidx[e0 + e];
            v.val[e] = a->val[e0 + e];
        }
    }
    return 0;
}

static int dev_alloc(void **p, size_t bytes, rt_err *err)
{
    const cudaError_t e = cudaMalloc(p, bytes ? bytes : 256);
    if (e != cudaSuccess) {
        *p = NULL;
        return rt_err_set(err, "eigen microbenchmark: cudaMalloc of %zu bytes failed: %s", bytes,
                          cudaGetErrorString(e));
    }
    return 0;
}

/* y (rows x b) = A_tile x (n x b), all row-major, on stream k. */
static int spmm_tile(micro_state *s, int k, const void *a, int64_t rows, int64_t nnz, double *y,
                     size_t *need, rt_err *err)
{
    const eg_packed_view v = eg_packed_at((void *)(uintptr_t)a, rows, nnz);
    cusparseSpMatDescr_t ma = NULL;
    cusparseDnMatDescr_t mx = NULL, my = NULL;
    const double one = 1.0, zero = 0.0;
    cusparseStatus_t st =
        cusparseCreateCsr(&ma, rows, s->n, nnz, v.rowptr, v.colidx, v.val, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    if (st == CUSPARSE_STATUS_SUCCESS)
        st = cusparseCreateDnMat(&mx, s->n, s->b, s->b, s->dx, CUDA_R_64F, CUSPARSE_ORDER_ROW);
    if (st == CUSPARSE_STATUS_SUCCESS)
        st = cusparseCreateDnMat(&my, rows, s->b, s->b, y, CUDA_R_64F, CUSPARSE_ORDER_ROW);
    if (st == CUSPARSE_STATUS_SUCCESS && need) /* sizing only (setup) */
        st = cusparseSpMM_bufferSize(s->sparse[k], CUSPARSE_OPERATION_NON_TRANSPOSE,
                                     CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, mx, &zero, my,
                                     CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, need);
    else if (st == CUSPARSE_STATUS_SUCCESS)
        st = cusparseSpMM(s->sparse[k], CUSPARSE_OPERATION_NON_TRANSPOSE,
                          CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, mx, &zero, my, CUDA_R_64F,
                          CUSPARSE_SPMM_ALG_DEFAULT, s->work[k]);
    if (my)
        cusparseDestroyDnMat(my);
    if (mx)
        cusparseDestroyDnMat(mx);
    if (ma)
        cusparseDestroySpMat(ma);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return rt_err_set(err, "eigen microbenchmark: cusparseSpMM: %s",
                          cusparseGetErrorString(st));
    return 0;
}

/* G (b x b, row-major) = X_t' Y_t + beta G, X_t and Y_t (rows x b, row-major), on stream k; in
 * cuBLAS's column-major terms G' = Y_cm X_cm'. */
static int xty_tile(micro_state *s, int k, const double *x, const double *y, int64_t rows,
                    double beta, double *g, rt_err *err)
{
    const double one = 1.0;
    const cublasStatus_t st =
        cublasDgemm(s->blas[k], CUBLAS_OP_N, CUBLAS_OP_T, (int)s->b, (int)s->b, (int)rows, &one, y,
                    (int)s->b, x, (int)s->b, &beta, g, (int)s->b);
    return st == CUBLAS_STATUS_SUCCESS
               ? 0
               : rt_err_set(err, "eigen microbenchmark: cublasDgemm (X'Y) status %d", (int)st);
}

static int read_params(const rt_kernel_desc *self, const rt_params *p, micro_state *s, rt_err *err)
{
    int64_t tile = 0, streams = 0;
    char mem[16], mode[16];
    if (rt_schema_int(self->params, self->n_params, self->name, p, "tile", &tile, err) != 0 ||
        rt_schema_int(self->params, self->n_params, self->name, p, "streams", &streams, err) != 0 ||
        rt_schema_str(self->params, self->n_params, self->name, p, "host_mem", mem, sizeof mem,
                      err) != 0 ||
        rt_schema_str(self->params, self->n_params, self->name, p, "mode", mode, sizeof mode,
                      err) != 0)
        return -1;
    s->pinned = strcmp(mem, "pinned") == 0;
    s->incore = strcmp(mode, "incore") == 0;
    s->streams = s->incore ? 1 : (int)streams;
    s->tile = s->incore || tile > s->n ? s->n : tile;
    s->ntiles = (s->n + s->tile - 1) / s->tile;
    if (s->streams > s->ntiles) /* a stream with no tile would leave its partial G unset */
        s->streams = (int)s->ntiles;
    return 0;
}

static int create_streams(micro_state *s, rt_err *err)
{
    for (int k = 0; k < s->streams; ++k) {
        cudaError_t e = cudaStreamCreateWithFlags(&s->st[k], cudaStreamNonBlocking);
        if (e != cudaSuccess)
            return cuda_fail(err, "cudaStreamCreate", e);
        if (cublasCreate(&s->blas[k]) != CUBLAS_STATUS_SUCCESS ||
            cublasSetStream(s->blas[k], s->st[k]) != CUBLAS_STATUS_SUCCESS)
            return rt_err_set(err, "eigen microbenchmark: cublasCreate failed");
        if (cusparseCreate(&s->sparse[k]) != CUSPARSE_STATUS_SUCCESS ||
            cusparseSetStream(s->sparse[k], s->st[k]) != CUSPARSE_STATUS_SUCCESS)
            return rt_err_set(err, "eigen microbenchmark: cusparseCreate failed");
    }
    s->ev = calloc((size_t)(4 * s->ntiles), sizeof *s->ev);
    if (!s->ev)
        return rt_err_set(err, "eigen microbenchmark: out of memory for events");
    for (int64_t i = 0; i < 4 * s->ntiles; ++i) {
        const cudaError_t e = cudaEventCreate(&s->ev[i]);
        if (e != cudaSuccess)
            return cuda_fail(err, "cudaEventCreate", e);
    }
    cudaEvent_t *single[] = {&s->t0, &s->t1, &s->join, &s->g0, &s->g1};
    for (int k = 0; k < 5; ++k) {
        const cudaError_t e = cudaEventCreate(single[k]);
        if (e != cudaSuccess)
            return cuda_fail(err, "cudaEventCreate", e);
    }
    return 0;
}

static int setup_buffers(micro_state *s, rt_err *err)
{
    const size_t nb = (size_t)(s->n * s->b) * sizeof(double);
    const size_t tb = (size_t)(s->tile * s->b) * sizeof(double);
    const size_t gb = (size_t)(s->b * s->b) * sizeof(double);
    if (host_alloc(s, nb, (void **)&s->hx, err) != 0 ||
        host_alloc(s, nb, (void **)&s->hy, err) != 0)
        return -1;
    eg_micro_fill(s->in->cfg.seed, 0, 0, s->n, s->b, s->hx);
    if (s->op == EG_SPMM) {
        if (pack_tiles(s, err) != 0 || dev_alloc((void **)&s->dx, nb, err) != 0)
            return -1;
        for (int k = 0; k < s->streams; ++k)
            if (dev_alloc(&s->da[k], s->a_max, err) != 0 ||
                dev_alloc((void **)&s->dyt[k], tb, err) != 0)
                return -1;
        /* workspaces sized for every tile, so a run allocates nothing */
        for (int k = 0; k < s->streams; ++k) {
            size_t most = 0;
            for (int64_t i = k; i < s->ntiles; i += s->streams) {
                size_t need = 0;
                if (spmm_tile(s, k, s->da[k], tile_rows(s, i), s->t_nnz[i], s->dyt[k], &need,
                              err) != 0)
                    return -1;
                if (need > most)
                    most = need;
            }
            if (dev_alloc(&s->work[k], most, err) != 0)
                return -1;
        }
    } else {
        eg_micro_fill(s->in->cfg.seed, 1, 0, s->n, s->b, s->hy);
        if (host_alloc(s, gb, (void **)&s->hg, err) != 0)
            return -1;
        for (int k = 0; k < s->streams; ++k)
            if (dev_alloc((void **)&s->dxt[k], tb, err) != 0 ||
                dev_alloc((void **)&s->dyt[k], tb, err) != 0 ||
                dev_alloc((void **)&s->dg[k], gb, err) != 0)
                return -1;
    }
    if (!s->incore)
        return 0;
    /* in core: the operands go to the device once, here (untimed) */
    cudaError_t e = cudaSuccess;
    if (s->op == EG_SPMM) {
        e = cudaMemcpy(s->dx, s->hx, nb, cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemcpy(s->da[0], s->ha, s->a_bytes[0], cudaMemcpyHostToDevice);
    } else {
        e = cudaMemcpy(s->dxt[0], s->hx, nb, cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemcpy(s->dyt[0], s->hy, nb, cudaMemcpyHostToDevice);
    }
    return e == cudaSuccess ? 0 : cuda_fail(err, "cudaMemcpy (in-core operands)", e);
}

static int micro_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, void **state, rt_err *err)
{
    (void)env;
    const eg_inputs *in = inputs;
    micro_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    s->ctx = self->backend_ctx;
    s->in = in;
    s->op = in->cfg.solver;
    s->n = in->a->rows;
    s->b = in->cfg.block;
    int rc = read_params(self, p, s, err);
    if (rc == 0)
        rc = rt_cuda_ctx_make_current(s->ctx, err);
    if (rc == 0)
        rc = create_streams(s, err);
    if (rc == 0)
        rc = setup_buffers(s, err);
    if (rc != 0) {
        rt_err_prefix(err, "%s", self->name);
        micro_teardown(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t st,
                rt_err *err)
{
    const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, st);
    return e == cudaSuccess ? 0 : cuda_fail(err, "cudaMemcpyAsync", e);
}

static int record(cudaEvent_t ev, cudaStream_t st, rt_err *err)
{
    const cudaError_t e = cudaEventRecord(ev, st);
    return e == cudaSuccess ? 0 : cuda_fail(err, "cudaEventRecord", e);
}

/* Stream k (> 0) waits for what stream 0 has enqueued so far. */
static int fork_streams(micro_state *s, rt_err *err)
{
    if (record(s->join, s->st[0], err) != 0)
        return -1;
    for (int k = 1; k < s->streams; ++k) {
        const cudaError_t e = cudaStreamWaitEvent(s->st[k], s->join, 0);
        if (e != cudaSuccess)
            return cuda_fail(err, "cudaStreamWaitEvent", e);
    }
    return 0;
}

/* Stream 0 waits for the other streams' work. */
static int join_streams(micro_state *s, rt_err *err)
{
    for (int k = 1; k < s->streams; ++k) {
        cudaError_t e = cudaEventRecord(s->join, s->st[k]);
        if (e == cudaSuccess)
            e = cudaStreamWaitEvent(s->st[0], s->join, 0);
        if (e != cudaSuccess)
            return cuda_fail(err, "joining streams", e);
    }
    return 0;
}

static int run_tiles(micro_state *s, rt_err *err)
{
    const int64_t b = s->b;
    for (int64_t i = 0; i < s->ntiles; ++i) {
        const int k = (int)(i % s->streams);
        const cudaStream_t st = s->st[k];
        const int64_t r0 = i * s->tile, rows = tile_rows(s, i);
        const size_t tb = (size_t)(rows * b) * sizeof(double);
        cudaEvent_t *ev = &s->ev[4 * i];
        if (record(ev[0], st, err) != 0)
            return -1;
        if (!s->incore) {
            if (s->op == EG_SPMM) {
                if (copy(s->da[k], s->ha + s->a_off[i], s->a_bytes[i], cudaMemcpyHostToDevice, st,
                         err) != 0)
                    return -1;
                s->h2d_bytes += (double)s->a_bytes[i];
            } else {
                if (copy(s->dxt[k], s->hx + r0 * b, tb, cudaMemcpyHostToDevice, st, err) != 0 ||
                    copy(s->dyt[k], s->hy + r0 * b, tb, cudaMemcpyHostToDevice, st, err) != 0)
                    return -1;
                s->h2d_bytes += 2.0 * (double)tb;
            }
        }
        if (record(ev[1], st, err) != 0)
            return -1;
        int rc = 0;
        if (s->op == EG_SPMM)
            rc = spmm_tile(s, k, s->da[k], rows, s->t_nnz[i], s->dyt[k], NULL, err);
        else /* the first tile of each stream starts its partial G */
            rc = xty_tile(s, k, s->dxt[k], s->dyt[k], rows, i < s->streams ? 0.0 : 1.0, s->dg[k],
                          err);
        if (rc != 0 || record(ev[2], st, err) != 0)
            return -1;
        if (!s->incore && s->op == EG_SPMM) {
            if (copy(s->hy + r0 * b, s->dyt[k], tb, cudaMemcpyDeviceToHost, st, err) != 0)
                return -1;
            s->d2h_bytes += (double)tb;
        }
        if (record(ev[3], st, err) != 0)
            return -1;
    }
    return 0;
}

static float elapsed_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0.0f;
    return cudaEventElapsedTime(&ms, a, b) == cudaSuccess ? ms : 0.0f;
}

static int micro_run(void *state, double *seconds, rt_err *err)
{
    micro_state *s = state;
    if (rt_cuda_ctx_make_current(s->ctx, err) != 0)
        return -1;
    s->h2d_bytes = s->d2h_bytes = 0.0;
    double x_in_ms = 0.0;
    if (record(s->t0, s->st[0], err) != 0)
        return -1;
    if (!s->incore && s->op == EG_SPMM) { /* X in once, before any tile */
        const size_t nb = (size_t)(s->n * s->b) * sizeof(double);
        if (copy(s->dx, s->hx, nb, cudaMemcpyHostToDevice, s->st[0], err) != 0 ||
            record(s->g0, s->st[0], err) != 0)
            return -1;
        s->h2d_bytes += (double)nb;
    }
    if (fork_streams(s, err) != 0 || run_tiles(s, err) != 0 || join_streams(s, err) != 0)
        return -1;
    const size_t gb = (size_t)(s->b * s->b) * sizeof(double);
    if (s->op == EG_XTY) {
        if (s->streams > 1) {
            const double one = 1.0;
            if (cublasDgeam(s->blas[0], CUBLAS_OP_N, CUBLAS_OP_N, (int)s->b, (int)s->b, &one,
                            s->dg[0], (int)s->b, &one, s->dg[1], (int)s->b, s->dg[0],
                            (int)s->b) != CUBLAS_STATUS_SUCCESS)
                return rt_err_set(err, "eigen microbenchmark: cublasDgeam (sum of partials)");
        }
        if (record(s->g0, s->st[0], err) != 0)
            return -1;
        if (!s->incore) {
            if (copy(s->hg, s->dg[0], gb, cudaMemcpyDeviceToHost, s->st[0], err) != 0)
                return -1;
            s->d2h_bytes += (double)gb;
        }
        if (record(s->g1, s->st[0], err) != 0)
            return -1;
    }
    if (record(s->t1, s->st[0], err) != 0)
        return -1;
    const cudaError_t e = cudaEventSynchronize(s->t1);
    if (e != cudaSuccess)
        return cuda_fail(err, "cudaEventSynchronize", e);
    if (!s->incore && s->op == EG_SPMM)
        x_in_ms = elapsed_ms(s->t0, s->g0);
    s->run_s = 1e-3 * elapsed_ms(s->t0, s->t1);
    double h2d = x_in_ms, comp = 0.0, d2h = 0.0;
    for (int64_t i = 0; i < s->ntiles; ++i) {
        const cudaEvent_t *ev = &s->ev[4 * i];
        h2d += elapsed_ms(ev[0], ev[1]);
        comp += elapsed_ms(ev[1], ev[2]);
        d2h += elapsed_ms(ev[2], ev[3]);
    }
    if (s->op == EG_XTY) {
        d2h += elapsed_ms(s->g0, s->g1);
    }
    s->h2d_s = 1e-3 * h2d;
    s->comp_s = 1e-3 * comp;
    s->d2h_s = 1e-3 * d2h;
    *seconds = s->run_s;
    return 0;
}

static int micro_output(void *state, double *out, rt_err *err)
{
    micro_state *s = state;
    if (rt_cuda_ctx_make_current(s->ctx, err) != 0)
        return -1;
    const size_t nb = (size_t)(s->n * s->b) * sizeof(double);
    const size_t gb = (size_t)(s->b * s->b) * sizeof(double);
    cudaError_t e = cudaSuccess;
    if (s->incore) /* the result stays on the device in core: fetch it, untimed */
        e = s->op == EG_SPMM ? cudaMemcpy(s->hy, s->dyt[0], nb, cudaMemcpyDeviceToHost)
                             : cudaMemcpy(s->hg, s->dg[0], gb, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        return cuda_fail(err, "cudaMemcpy (result)", e);
    memcpy(out, s->op == EG_SPMM ? s->hy : s->hg, s->op == EG_SPMM ? nb : gb);
    return 0;
}

static int micro_metrics(void *state, rt_metrics *m, rt_err *err)
{
    (void)err;
    const micro_state *s = state;
    const double transfer = s->h2d_s + s->d2h_s;
    rt_metrics_add(m, "h2d_bytes", "B", s->h2d_bytes, 1);
    rt_metrics_add(m, "d2h_bytes", "B", s->d2h_bytes, 1);
    rt_metrics_add(m, "tiles", "", (double)s->ntiles, 1);
    rt_metrics_add(m, "streams", "", (double)s->streams, 1);
    rt_metrics_add(m, "host_mem_pinned", "", (double)s->pinned, 1);
    rt_metrics_add(m, "h2d_s", "s", s->h2d_s, 0);
    rt_metrics_add(m, "d2h_s", "s", s->d2h_s, 0);
    rt_metrics_add(m, "transfer_s", "s", transfer, 0);
    rt_metrics_add(m, "compute_s", "s", s->comp_s, 0);
    rt_metrics_add(m, "transfer_over_compute", "", s->comp_s > 0.0 ? transfer / s->comp_s : 0.0, 0);
    rt_metrics_add(m, "h2d_bandwidth", "B/s", s->h2d_s > 0.0 ? s->h2d_bytes / s->h2d_s : 0.0, 0);
    /* above 1: copies and compute of different tiles overlapped (two streams) */
    rt_metrics_add(m, "overlap", "", s->run_s > 0.0 ? (transfer + s->comp_s) / s->run_s : 0.0, 0);
    return 0;
}

void eg_micro_cuda_describe(const rt_cuda_catalog_entry *e, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {eg_hooks_check, micro_setup,     micro_run,
                                              micro_output,   micro_metrics,   NULL,
                                              micro_teardown, eg_hooks_traffic};
    rt_cuda_point_describe(d, e, &hooks, ctx);
}
