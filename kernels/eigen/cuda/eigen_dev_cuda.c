#include "eigen_dev_cuda.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eigen_packed.h"
#include "eigen_spmm_cache.h"

struct eg_cuda_dev {
    cudaStream_t stream;
    cublasHandle_t blas;
    cusparseHandle_t sparse;
    /* Copy timing without a host wait per copy: each copy is bracketed by a pair of events from
     * this pool, read only once the stream has been synchronised anyway (dev_sync). */
    cudaEvent_t *ev;      /* pairs: ev[2k] before copy k, ev[2k + 1] after */
    int ev_used, ev_cap;  /* events recorded since the last harvest, events created */
    eg_spmm_cache *plans; /* SpMM descriptors and workspace sizes, made once per call */
    void *work; /* cusparseSpMM workspace (outside the pool: library scratch, not tiles) */
    size_t work_bytes;
    /* Workspaces outgrown: kept until destroy, since a captured graph may still use one. */
    void *retired[64];
    int n_retired;
    void *blas_work; /* cuBLAS workspace set explicitly, so a capture allocates nothing */
    int capturing;   /* between capture_begin and capture_end */
    void **pinned;   /* registered range starts */
    int n_pinned;
    double copy_s;
};

static int cuda_fail(rt_err *err, const char *call, cudaError_t e)
{
    return rt_err_set(err, "eigen CUDA device: %s failed: %s", call, cudaGetErrorString(e));
}

static int blas_fail(rt_err *err, const char *call, cublasStatus_t s)
{
    return rt_err_set(err, "eigen CUDA device: %s failed (cuBLAS status %d)", call, (int)s);
}

static int sparse_fail(rt_err *err, const char *call, cusparseStatus_t s)
{
    return rt_err_set(err, "eigen CUDA device: %s failed: %s", call, cusparseGetErrorString(s));
}

static int dev_pool_create(void *impl, size_t bytes, void **base, rt_err *err)
{
    (void)impl;
    const cudaError_t e = cudaMalloc(base, bytes ? bytes : 256);
    if (e != cudaSuccess) {
        *base = NULL;
        return rt_err_set(err, "eigen CUDA device: cudaMalloc of the %zu-byte pool failed: %s",
                          bytes, cudaGetErrorString(e));
    }
    return 0;
}

static void dev_pool_destroy(void *impl, void *base)
{
    (void)impl;
    if (base)
        cudaFree(base);
}

/* Adds the time of every copy recorded since the last harvest; the stream must be idle. */
static int harvest_copy_times(eg_cuda_dev *d, rt_err *err)
{
    for (int k = 0; k + 1 < d->ev_used; k += 2) {
        float ms = 0.0f;
        const cudaError_t e = cudaEventElapsedTime(&ms, d->ev[k], d->ev[k + 1]);
        if (e != cudaSuccess)
            return cuda_fail(err, "cudaEventElapsedTime (copy timing)", e);
        d->copy_s += 1e-3 * (double)ms;
    }
    d->ev_used = 0;
    return 0;
}

/* Two events for the next copy: from the pool, grown on demand up to a bound; a full pool is
 * harvested after a synchronisation (rare: 4096 copies without a host task in between). */
static int copy_events(eg_cuda_dev *d, cudaEvent_t *before, cudaEvent_t *after, rt_err *err)
{
    enum { max_events = 8192 };
    if (d->ev_used + 2 > d->ev_cap && d->ev_cap >= max_events) {
        const cudaError_t e = cudaStreamSynchronize(d->stream);
        if (e != cudaSuccess)
            return cuda_fail(err, "cudaStreamSynchronize (copy timing pool full)", e);
        if (harvest_copy_times(d, err) != 0)
            return -1;
    }
    if (d->ev_used + 2 > d->ev_cap) {
        const int cap = d->ev_cap ? 2 * d->ev_cap : 64;
        cudaEvent_t *grown = realloc(d->ev, (size_t)cap * sizeof *grown);
        if (!grown)
            return rt_err_set(err, "eigen CUDA device: out of memory for %d copy events", cap);
        d->ev = grown;
        for (; d->ev_cap < cap; ++d->ev_cap) {
            const cudaError_t e = cudaEventCreate(&d->ev[d->ev_cap]);
            if (e != cudaSuccess)
                return cuda_fail(err, "cudaEventCreate (copy timing)", e);
        }
    }
    *before = d->ev[d->ev_used];
    *after = d->ev[d->ev_used + 1];
    d->ev_used += 2;
    return 0;
}

/* Enqueues a copy on the stream with its timing events; the host does not wait here (it waits
 * in dev_sync, before a host task reads anything). */
static int timed_copy(eg_cuda_dev *d, void *dst, const void *src, size_t bytes,
                      enum cudaMemcpyKind kind, rt_err *err)
{
    const char *what =
        kind == cudaMemcpyHostToDevice ? "copy host to device" : "copy device to host";
    if (d->capturing) /* tiles move between segments, never inside a captured one */
        return rt_err_set(err, "eigen CUDA device: %s of %zu bytes during a graph capture", what,
                          bytes);
    cudaEvent_t before = NULL, after = NULL;
    if (copy_events(d, &before, &after, err) != 0)
        return rt_err_prefix(err, "%s", what);
    cudaError_t e = cudaEventRecord(before, d->stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(dst, src, bytes, kind, d->stream);
    if (e == cudaSuccess)
        e = cudaEventRecord(after, d->stream);
    return e == cudaSuccess ? 0 : cuda_fail(err, what, e);
}

static int dev_h2d(void *impl, void *dst, const void *src, size_t bytes, rt_err *err)
{
    return timed_copy(impl, dst, src, bytes, cudaMemcpyHostToDevice, err);
}

static int dev_d2h(void *impl, void *dst, const void *src, size_t bytes, rt_err *err)
{
    return timed_copy(impl, dst, src, bytes, cudaMemcpyDeviceToHost, err);
}

static int ensure_work(eg_cuda_dev *d, size_t bytes, rt_err *err)
{
    if (bytes <= d->work_bytes)
        return 0;
    if (d->capturing) /* the graph schedule runs a segment eagerly before capturing it */
        return rt_err_set(err,
                          "eigen CUDA device: cuSPARSE asked for a larger workspace (%zu "
                          "bytes) during a graph capture",
                          bytes);
    if (d->work && d->n_retired == (int)(sizeof d->retired / sizeof d->retired[0]))
        return rt_err_set(err, "eigen CUDA device: the cuSPARSE workspace grew too often");
    /* The old buffer is not freed: the stream or a captured graph (schedule graph) may still
     * use it. The size at least doubles, so the retired list stays short. */
    if (d->work)
        d->retired[d->n_retired++] = d->work;
    if (bytes < 2 * d->work_bytes)
        bytes = 2 * d->work_bytes;
    d->work = NULL;
    d->work_bytes = 0;
    const cudaError_t e = cudaMalloc(&d->work, bytes);
    if (e != cudaSuccess)
        return cuda_fail(err, "cudaMalloc (cuSPARSE workspace)", e);
    d->work_bytes = bytes;
    return 0;
}

static int dev_spmm(void *impl, const void *a, int64_t rows, int64_t cols, int64_t nnz,
                    const double *x, int64_t ldx, int64_t ncols, double beta, double *y,
                    int64_t ldy, rt_err *err)
{
    eg_cuda_dev *d = impl;
    if (rows == 0 || ncols == 0)
        return 0;
    if (beta == 0.0) {
        /* the pool holds stale bytes (possibly NaN patterns): start y from zeros */
        const cudaError_t e =
            cudaMemset2DAsync(y, (size_t)ldy * sizeof(double), 0, (size_t)ncols * sizeof(double),
                              (size_t)rows, d->stream);
        if (e != cudaSuccess)
            return cuda_fail(err, "cudaMemset2DAsync", e);
    }
    const eg_spmm_call call = {a, x, y, rows, cols, nnz, ldx, ldy, ncols, beta};
    const eg_spmm_plan *plan = NULL;
    if (eg_spmm_cache_get(d->plans, d->sparse, &call, &plan, err) != 0 ||
        ensure_work(d, plan->work_bytes, err) != 0)
        return -1;
    const double alpha = 1.0;
    const cusparseStatus_t s = cusparseSpMM(
        d->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
        plan->a, plan->x, &beta, plan->y, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, d->work);
    return s == CUSPARSE_STATUS_SUCCESS ? 0 : sparse_fail(err, "cusparseSpMM", s);
}

/* Row-major operands are the transposes of column-major ones: Z = U M (row-major, t x w) is
 * Z' = M' U' in cuBLAS's column-major terms. */
static int dev_gemm_nn(void *impl, int64_t t, int64_t r, int64_t w, double alpha, const double *u,
                       int64_t ldu, const double *m, int64_t ldm, double beta, double *z,
                       int64_t ldz, rt_err *err)
{
    eg_cuda_dev *d = impl;
    if (t == 0 || w == 0)
        return 0;
    const cublasStatus_t s = cublasDgemm(d->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)w, (int)t, (int)r,
                                         &alpha, m, (int)ldm, u, (int)ldu, &beta, z, (int)ldz);
    return s == CUBLAS_STATUS_SUCCESS ? 0 : blas_fail(err, "cublasDgemm (X*Y)", s);
}

/* G = U' V (row-major r1 x r2): G' (column-major r2 x r1) = V_cm (r2 x t) * U_cm' (t x r1). */
static int dev_gemm_tn(void *impl, int64_t t, int64_t r1, int64_t r2, double alpha, const double *u,
                       int64_t ldu, const double *v, int64_t ldv, double beta, double *g,
                       int64_t ldg, rt_err *err)
{
    eg_cuda_dev *d = impl;
    if (r1 == 0 || r2 == 0)
        return 0;
    const cublasStatus_t s =
        cublasDgemm(d->blas, CUBLAS_OP_N, CUBLAS_OP_T, (int)r2, (int)r1, (int)t, &alpha, v,
                    (int)ldv, u, (int)ldu, &beta, g, (int)ldg);
    return s == CUBLAS_STATUS_SUCCESS ? 0 : blas_fail(err, "cublasDgemm (X'*Y)", s);
}

static int dev_geam(void *impl, int64_t t, int64_t w, double alpha, const double *u, int64_t ldu,
                    double beta, const double *v, int64_t ldv, double *z, int64_t ldz, rt_err *err)
{
    eg_cuda_dev *d = impl;
    if (t == 0 || w == 0)
        return 0;
    /* with beta = 0, v may be absent: pass u, which beta = 0 leaves unread */
    const double *vv = beta == 0.0 ? u : v;
    const int64_t ldvv = beta == 0.0 ? ldu : ldv;
    const cublasStatus_t s = cublasDgeam(d->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)w, (int)t, &alpha,
                                         u, (int)ldu, &beta, vv, (int)ldvv, z, (int)ldz);
    return s == CUBLAS_STATUS_SUCCESS ? 0 : blas_fail(err, "cublasDgeam", s);
}

static int dev_sync(void *impl, rt_err *err)
{
    eg_cuda_dev *d = impl;
    const cudaError_t e = cudaStreamSynchronize(d->stream);
    if (e != cudaSuccess)
        return cuda_fail(err, "cudaStreamSynchronize", e);
    return harvest_copy_times(d, err);
}

/* Stream capture of a segment's operations (the graph schedule). Thread-local mode: a call that
 * is unsafe during capture (a cudaMalloc, a synchronisation) fails in this thread instead of
 * silently running outside the graph. */
static int dev_capture_begin(void *impl, rt_err *err)
{
    eg_cuda_dev *d = impl;
    const cudaError_t e = cudaStreamBeginCapture(d->stream, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess)
        return cuda_fail(err, "cudaStreamBeginCapture", e);
    d->capturing = 1;
    return 0;
}

static int dev_capture_end(void *impl, int keep, void **graph, rt_err *err)
{
    eg_cuda_dev *d = impl;
    *graph = NULL;
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamEndCapture(d->stream, &g);
    d->capturing = 0;
    if (e != cudaSuccess) {
        if (g)
            cudaGraphDestroy(g);
        return cuda_fail(err, "cudaStreamEndCapture", e);
    }
    if (!keep) {
        cudaGraphDestroy(g);
        return 0;
    }
    cudaGraphExec_t exec = NULL;
    e = cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    if (e != cudaSuccess)
        return cuda_fail(err, "cudaGraphInstantiate", e);
    *graph = exec;
    return 0;
}

static int dev_graph_launch(void *impl, void *graph, rt_err *err)
{
    eg_cuda_dev *d = impl;
    const cudaError_t e = cudaGraphLaunch((cudaGraphExec_t)graph, d->stream);
    return e == cudaSuccess ? 0 : cuda_fail(err, "cudaGraphLaunch", e);
}

static void dev_graph_destroy(void *impl, void *graph)
{
    (void)impl;
    if (graph)
        cudaGraphExecDestroy((cudaGraphExec_t)graph);
}

static const eg_dev_ops cuda_ops = {
    .name = "cuda",
    .pool_create = dev_pool_create,
    .pool_destroy = dev_pool_destroy,
    .h2d = dev_h2d,
    .d2h = dev_d2h,
    .spmm = dev_spmm,
    .gemm_nn = dev_gemm_nn,
    .gemm_tn = dev_gemm_tn,
    .geam = dev_geam,
    .sync = dev_sync,
    .capture_begin = dev_capture_begin,
    .capture_end = dev_capture_end,
    .graph_launch = dev_graph_launch,
    .graph_destroy = dev_graph_destroy,
};

eg_dev eg_cuda_dev_ops(eg_cuda_dev *d)
{
    eg_dev dev = {&cuda_ops, d};
    return dev;
}

void eg_cuda_dev_destroy(eg_cuda_dev *d)
{
    if (!d)
        return;
    eg_cuda_dev_unpin(d);
    if (d->stream)
        cudaStreamSynchronize(d->stream);
    cudaFree(d->work);
    for (int i = 0; i < d->n_retired; ++i)
        cudaFree(d->retired[i]);
    eg_spmm_cache_destroy(d->plans);
    if (d->sparse)
        cusparseDestroy(d->sparse);
    if (d->blas)
        cublasDestroy(d->blas);
    cudaFree(d->blas_work);
    for (int k = 0; k < d->ev_cap; ++k)
        cudaEventDestroy(d->ev[k]);
    free(d->ev);
    if (d->stream)
        cudaStreamDestroy(d->stream);
    free(d);
}

int eg_cuda_dev_create(eg_cuda_dev **out, rt_err *err)
{
    *out = NULL;
    eg_cuda_dev *d = calloc(1, sizeof *d);
    if (!d)
        return rt_err_set(err, "eigen CUDA device: out of memory");
    cudaError_t e = cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        eg_cuda_dev_destroy(d);
        return cuda_fail(err, "stream creation", e);
    }
    cublasStatus_t b = cublasCreate(&d->blas);
    if (b == CUBLAS_STATUS_SUCCESS)
        b = cublasSetStream(d->blas, d->stream); /* resets the workspace: set ours after */
    /* cuBLAS's advice for graphs: a workspace of the user's, so captured GEMMs allocate nothing */
    const size_t blas_work_bytes = (size_t)32 << 20;
    if (b == CUBLAS_STATUS_SUCCESS) {
        e = cudaMalloc(&d->blas_work, blas_work_bytes);
        if (e != cudaSuccess) {
            d->blas_work = NULL;
            eg_cuda_dev_destroy(d);
            return cuda_fail(err, "cudaMalloc (cuBLAS workspace)", e);
        }
        b = cublasSetWorkspace(d->blas, d->blas_work, blas_work_bytes);
    }
    if (b != CUBLAS_STATUS_SUCCESS) {
        eg_cuda_dev_destroy(d);
        return blas_fail(err, "cublasCreate", b);
    }
    if (eg_spmm_cache_create(&d->plans, err) != 0) {
        eg_cuda_dev_destroy(d);
        return -1;
    }
    cusparseStatus_t s = cusparseCreate(&d->sparse);
    if (s == CUSPARSE_STATUS_SUCCESS)
        s = cusparseSetStream(d->sparse, d->stream);
    if (s != CUSPARSE_STATUS_SUCCESS) {
        eg_cuda_dev_destroy(d);
        return sparse_fail(err, "cusparseCreate", s);
    }
    *out = d;
    return 0;
}

typedef struct page_range {
    uintptr_t lo, hi;
} page_range;

static int cmp_range(const void *a, const void *b)
{
    const uintptr_t x = ((const page_range *)a)->lo, y = ((const page_range *)b)->lo;
    return (x > y) - (x < y);
}

int eg_cuda_dev_pin(eg_cuda_dev *d, void *const *host, const size_t *bytes, int n, rt_err *err)
{
    const long ps = sysconf(_SC_PAGESIZE);
    const uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096u;
    page_range *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    d->pinned = calloc((size_t)(n ? n : 1), sizeof *d->pinned);
    if (!r || !d->pinned) {
        free(r);
        return rt_err_set(err, "eigen CUDA device: out of memory pinning %d ranges", n);
    }
    int m = 0;
    for (int i = 0; i < n; ++i) {
        if (bytes[i] == 0)
            continue;
        const uintptr_t a = (uintptr_t)host[i];
        r[m].lo = a / page * page;
        r[m].hi = (a + bytes[i] + page - 1) / page * page;
        ++m;
    }
    qsort(r, (size_t)m, sizeof *r, cmp_range);
    int k = 0;
    for (int i = 0; i < m; ++i) {
        if (k > 0 && r[i].lo <= r[k - 1].hi) {
            if (r[i].hi > r[k - 1].hi)
                r[k - 1].hi = r[i].hi;
        } else {
            r[k++] = r[i];
        }
    }
    for (int i = 0; i < k; ++i) {
        void *p = (void *)r[i].lo;
        const size_t len = (size_t)(r[i].hi - r[i].lo);
        const cudaError_t e = cudaHostRegister(p, len, cudaHostRegisterDefault);
        if (e != cudaSuccess) {
            free(r);
            return rt_err_set(err, "eigen CUDA device: cudaHostRegister of %zu bytes failed: %s",
                              len, cudaGetErrorString(e));
        }
        d->pinned[d->n_pinned++] = p;
    }
    free(r);
    return 0;
}

void eg_cuda_dev_unpin(eg_cuda_dev *d)
{
    for (int i = 0; i < d->n_pinned; ++i)
        cudaHostUnregister(d->pinned[i]);
    free(d->pinned);
    d->pinned = NULL;
    d->n_pinned = 0;
}

double eg_cuda_dev_copy_seconds(const eg_cuda_dev *d)
{
    return d->copy_s;
}

void eg_cuda_dev_reset_copy_seconds(eg_cuda_dev *d)
{
    d->copy_s = 0.0;
}
