#include "gemm_cuda_engine.h"

#include <stdio.h>
#include <stdlib.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

/* Compute streams per logical GPU: a 1024 x 1024 tile product alone does not fill an H100, so the
 * products of different C tiles run side by side. C tile `slot` always goes to stream
 * slot mod GEMM_CUDA_STREAMS, so the updates of one tile (and its write-back) stay in order. */
#define GEMM_CUDA_STREAMS 4

typedef struct lgpu {
    int device; /* physical device ordinal (the context's own with gpu_map = logical) */
    char *mem;  /* slots x tile_bytes */
    cudaStream_t copy, compute[GEMM_CUDA_STREAMS];
    cublasHandle_t blas[GEMM_CUDA_STREAMS]; /* one per stream: a handle's workspace is not shared */
    cudaEvent_t *copied;                    /* per chunk, ring of n_ev */
    cudaEvent_t *computed[GEMM_CUDA_STREAMS]; /* per chunk and compute stream */
    cudaEvent_t latest;                       /* re-recorded before each peer copy from here */
    int n_blas, n_streams;
} lgpu;

struct gemm_cuda_engine {
    rt_cuda_ctx *ctx;
    int gpus, n_ev;
    int multi;       /* 1: the GPUs are on more than one device (each call selects its device) */
    int peer_access; /* 1: every pair of distinct devices has peer access enabled */
    int64_t slots;
    size_t tile_bytes;
    rt_precision prec;
    lgpu *g;
};

#define CK(call, what)                                                                             \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess)                                                                     \
            return rt_err_set(err, "gemm.cuda: %s: %s", what, cudaGetErrorString(e_));             \
    } while (0)

#define CKB(call, what)                                                                            \
    do {                                                                                           \
        const cublasStatus_t s_ = (call);                                                          \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                           \
            return rt_err_set(err, "gemm.cuda: %s: cuBLAS status %d", what, (int)s_);              \
    } while (0)

static char *slot_ptr(gemm_cuda_engine *e, int g, int64_t slot)
{
    return e->g[g].mem + (size_t)slot * e->tile_bytes;
}

/* With several devices, makes GPU g's device current: its streams, events, cuBLAS handles and
 * memory belong to that device's primary context. One device: the context is already current. */
static int on_device(gemm_cuda_engine *e, int g, rt_err *err)
{
    if (e->multi)
        CK(cudaSetDevice(e->g[g].device), "selecting a GPU's device");
    return 0;
}

/* The slots of GPU g on its own device (the context's allocator serves the context's device). */
static int alloc_slots(gemm_cuda_engine *e, int g, size_t bytes, rt_err *err)
{
    char what[128];
    snprintf(what, sizeof what, "the %lld tile slots of GPU %d (device %d)", (long long)e->slots, g,
             e->g[g].device);
    if (!e->multi)
        return rt_cuda_alloc(e->ctx, (void **)&e->g[g].mem, bytes, what, err);
    const cudaError_t rc = cudaMalloc((void **)&e->g[g].mem, bytes);
    if (rc == cudaSuccess)
        return 0;
    e->g[g].mem = NULL;
    (void)cudaGetLastError(); /* out of memory is not sticky */
    rt_err_set(err, "gemm.cuda: %s: cudaMalloc of %zu bytes: %s", what, bytes,
               cudaGetErrorString(rc));
    return rc == cudaErrorMemoryAllocation ? RT_INFEASIBLE : -1;
}

/* Peer access between every two distinct devices, both ways, so tile copies between GPUs go
 * device to device (cudaMemcpyPeerAsync also works without it, staged through the host: then
 * peer_access stays 0 and the point says so). Access enabled by an earlier point is kept. */
static int enable_peers(gemm_cuda_engine *e, rt_err *err)
{
    e->peer_access = 1;
    for (int g = 0; g < e->gpus; ++g)
        for (int h = 0; h < e->gpus; ++h) {
            const int dg = e->g[g].device, dh = e->g[h].device;
            if (dg == dh)
                continue;
            int can = 0;
            CK(cudaDeviceCanAccessPeer(&can, dg, dh), "asking for peer access");
            if (!can) {
                e->peer_access = 0;
                continue;
            }
            CK(cudaSetDevice(dg), "selecting a GPU's device");
            const cudaError_t rc = cudaDeviceEnablePeerAccess(dh, 0);
            if (rc == cudaErrorPeerAccessAlreadyEnabled)
                (void)cudaGetLastError();
            else
                CK(rc, "enabling peer access");
        }
    return 0;
}

int gemm_cuda_engine_create(rt_cuda_ctx *ctx, int gpus, const int *devices, int64_t slots,
                            size_t tile_bytes, rt_precision prec, int lookahead,
                            gemm_cuda_engine **out, rt_err *err)
{
    *out = NULL;
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    gemm_cuda_engine *e = calloc(1, sizeof *e);
    if (!e)
        return rt_err_set(err, "gemm.cuda: out of memory");
    *out = e;
    e->ctx = ctx;
    e->gpus = gpus;
    e->slots = slots;
    e->tile_bytes = tile_bytes;
    e->prec = prec;
    e->n_ev = 2 * lookahead + 3;
    e->g = calloc((size_t)gpus, sizeof *e->g);
    if (!e->g)
        return rt_err_set(err, "gemm.cuda: out of memory");
    const int own = rt_cuda_ctx_ordinal(ctx);
    for (int g = 0; g < gpus; ++g) {
        e->g[g].device = devices ? devices[g] : own;
        e->multi |= e->g[g].device != own;
    }
    for (int g = 0; g < gpus; ++g) {
        lgpu *L = &e->g[g];
        if (on_device(e, g, err) != 0)
            return -1;
        const int rc = alloc_slots(e, g, (size_t)slots * tile_bytes, err);
        if (rc != 0)
            return rc;
        CK(cudaStreamCreateWithFlags(&L->copy, cudaStreamNonBlocking), "creating a stream");
        L->n_streams = 1;
        for (int j = 0; j < GEMM_CUDA_STREAMS; ++j) {
            CK(cudaStreamCreateWithFlags(&L->compute[j], cudaStreamNonBlocking),
               "creating a stream");
            L->n_streams = j + 2;
            CKB(cublasCreate(&L->blas[j]), "creating a cuBLAS handle");
            L->n_blas = j + 1;
            CKB(cublasSetStream(L->blas[j], L->compute[j]), "binding cuBLAS to a stream");
            L->computed[j] = calloc((size_t)e->n_ev, sizeof *L->computed[j]);
            if (!L->computed[j])
                return rt_err_set(err, "gemm.cuda: out of memory");
            for (int i = 0; i < e->n_ev; ++i)
                CK(cudaEventCreateWithFlags(&L->computed[j][i], cudaEventDisableTiming),
                   "an event");
        }
        L->copied = calloc((size_t)e->n_ev, sizeof *L->copied);
        if (!L->copied)
            return rt_err_set(err, "gemm.cuda: out of memory");
        for (int i = 0; i < e->n_ev; ++i)
            CK(cudaEventCreateWithFlags(&L->copied[i], cudaEventDisableTiming), "an event");
        CK(cudaEventCreateWithFlags(&L->latest, cudaEventDisableTiming), "an event");
    }
    if (e->multi && enable_peers(e, err) != 0)
        return -1;
    return rt_cuda_ctx_make_current(ctx, err);
}

int gemm_cuda_engine_devices(const gemm_cuda_engine *e)
{
    int n = 0;
    for (int g = 0; g < e->gpus; ++g) {
        int seen = 0;
        for (int h = 0; h < g; ++h)
            seen |= e->g[h].device == e->g[g].device;
        n += !seen;
    }
    return n;
}

int gemm_cuda_engine_peer_access(const gemm_cuda_engine *e)
{
    return e->multi ? e->peer_access : 1;
}

void gemm_cuda_engine_free(gemm_cuda_engine *e)
{
    if (!e)
        return;
    rt_err ignored;
    (void)rt_cuda_ctx_make_current(e->ctx, &ignored);
    for (int g = 0; e->g && g < e->gpus; ++g) {
        lgpu *L = &e->g[g];
        if (e->multi)
            (void)cudaSetDevice(L->device);
        if (L->n_streams > 0)
            cudaStreamSynchronize(L->copy);
        for (int j = 0; j + 1 < L->n_streams; ++j)
            cudaStreamSynchronize(L->compute[j]);
        for (int i = 0; i < e->n_ev; ++i) {
            if (L->copied && L->copied[i])
                cudaEventDestroy(L->copied[i]);
            for (int j = 0; j < GEMM_CUDA_STREAMS; ++j)
                if (L->computed[j] && L->computed[j][i])
                    cudaEventDestroy(L->computed[j][i]);
        }
        if (L->latest)
            cudaEventDestroy(L->latest);
        free(L->copied);
        for (int j = 0; j < GEMM_CUDA_STREAMS; ++j)
            free(L->computed[j]);
        for (int j = 0; j < L->n_blas; ++j)
            cublasDestroy(L->blas[j]);
        if (L->n_streams > 0)
            cudaStreamDestroy(L->copy);
        for (int j = 0; j + 1 < L->n_streams; ++j)
            cudaStreamDestroy(L->compute[j]);
        if (e->multi && L->mem)
            cudaFree(L->mem);
        else
            rt_cuda_free(e->ctx, L->mem);
    }
    (void)rt_cuda_ctx_make_current(e->ctx, &ignored);
    free(e->g);
    free(e);
}

static void *host_alloc(void *eng, size_t bytes)
{
    (void)eng;
    void *p = NULL;
    return cudaMallocHost(&p, bytes) == cudaSuccess ? p : NULL;
}

static void host_free(void *eng, void *p)
{
    (void)eng;
    if (p)
        cudaFreeHost(p);
}

static int load_host(void *eng, int g, int64_t slot, const void *src, size_t bytes, rt_err *err)
{
    gemm_cuda_engine *e = eng;
    if (on_device(e, g, err) != 0)
        return -1;
    CK(cudaMemcpyAsync(slot_ptr(e, g, slot), src, bytes, cudaMemcpyHostToDevice, e->g[g].copy),
       "copying a tile to the GPU");
    return 0;
}

static int load_peer(void *eng, int g, int64_t slot, int src_g, int64_t src_slot, size_t bytes,
                     rt_err *err)
{
    gemm_cuda_engine *e = eng;
    lgpu *src = &e->g[src_g];
    if (on_device(e, src_g, err) != 0)
        return -1;
    CK(cudaEventRecord(src->latest, src->copy), "ordering a peer copy");
    if (on_device(e, g, err) != 0)
        return -1;
    CK(cudaStreamWaitEvent(e->g[g].copy, src->latest, 0), "ordering a peer copy");
    if (src->device != e->g[g].device)
        CK(cudaMemcpyPeerAsync(slot_ptr(e, g, slot), e->g[g].device, slot_ptr(e, src_g, src_slot),
                               src->device, bytes, e->g[g].copy),
           "copying a tile between devices");
    else
        CK(cudaMemcpyAsync(slot_ptr(e, g, slot), slot_ptr(e, src_g, src_slot), bytes,
                           cudaMemcpyDeviceToDevice, e->g[g].copy),
           "copying a tile between GPUs");
    return 0;
}

static int loads_begin(void *eng, int64_t after, rt_err *err)
{
    gemm_cuda_engine *e = eng;
    if (after < 0)
        return 0;
    for (int g = 0; g < e->gpus; ++g) {
        if (on_device(e, g, err) != 0)
            return -1;
        for (int h = 0; h < e->gpus; ++h)
            for (int j = 0; j < GEMM_CUDA_STREAMS; ++j)
                CK(cudaStreamWaitEvent(e->g[g].copy, e->g[h].computed[j][after % e->n_ev], 0),
                   "ordering copies after products");
    }
    return 0;
}

static int loads_end(void *eng, int64_t s, rt_err *err)
{
    gemm_cuda_engine *e = eng;
    for (int g = 0; g < e->gpus; ++g) {
        if (on_device(e, g, err) != 0)
            return -1;
        CK(cudaEventRecord(e->g[g].copied[s % e->n_ev], e->g[g].copy), "recording copies");
    }
    return 0;
}

static int compute_begin(void *eng, int64_t s, rt_err *err)
{
    gemm_cuda_engine *e = eng;
    for (int g = 0; g < e->gpus; ++g) {
        if (on_device(e, g, err) != 0)
            return -1;
        for (int j = 0; j < GEMM_CUDA_STREAMS; ++j)
            CK(cudaStreamWaitEvent(e->g[g].compute[j], e->g[g].copied[s % e->n_ev], 0),
               "ordering products after copies");
    }
    return 0;
}

static int tile_gemm(void *eng, int g, int64_t cslot, int64_t aslot, int64_t bslot, int64_t m,
                     int64_t n, int64_t k, int accumulate, rt_err *err)
{
    gemm_cuda_engine *e = eng;
    if (on_device(e, g, err) != 0)
        return -1;
    const cublasHandle_t h = e->g[g].blas[cslot % GEMM_CUDA_STREAMS];
    if (e->prec == RT_FP64) {
        const double one = 1.0, beta = accumulate ? 1.0 : 0.0;
        CKB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &one,
                        (const double *)slot_ptr(e, g, aslot), (int)m,
                        (const double *)slot_ptr(e, g, bslot), (int)k, &beta,
                        (double *)slot_ptr(e, g, cslot), (int)m),
            "cublasDgemm");
    } else {
        const float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
        CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &one,
                        (const float *)slot_ptr(e, g, aslot), (int)m,
                        (const float *)slot_ptr(e, g, bslot), (int)k, &beta,
                        (float *)slot_ptr(e, g, cslot), (int)m),
            "cublasSgemm");
    }
    return 0;
}

static int compute_end(void *eng, int64_t s, rt_err *err)
{
    gemm_cuda_engine *e = eng;
    for (int g = 0; g < e->gpus; ++g) {
        if (on_device(e, g, err) != 0)
            return -1;
        for (int j = 0; j < GEMM_CUDA_STREAMS; ++j)
            CK(cudaEventRecord(e->g[g].computed[j][s % e->n_ev], e->g[g].compute[j]),
               "recording products");
    }
    return 0;
}

static int store_c(void *eng, int g, int64_t cslot, void *dst, size_t bytes, rt_err *err)
{
    gemm_cuda_engine *e = eng;
    if (on_device(e, g, err) != 0)
        return -1;
    CK(cudaMemcpyAsync(dst, slot_ptr(e, g, cslot), bytes, cudaMemcpyDeviceToHost,
                       e->g[g].compute[cslot % GEMM_CUDA_STREAMS]),
       "copying a C tile to the host");
    return 0;
}

static int loads_done(void *eng, int64_t s, rt_err *err)
{
    gemm_cuda_engine *e = eng;
    for (int g = 0; g < e->gpus; ++g)
        CK(cudaEventSynchronize(e->g[g].copied[s % e->n_ev]), "waiting for copies");
    return 0;
}

static int finish(void *eng, rt_err *err)
{
    gemm_cuda_engine *e = eng;
    for (int g = 0; g < e->gpus; ++g) {
        CK(cudaStreamSynchronize(e->g[g].copy), "finishing copies");
        for (int j = 0; j < GEMM_CUDA_STREAMS; ++j)
            CK(cudaStreamSynchronize(e->g[g].compute[j]), "finishing products");
    }
    return e->multi ? rt_cuda_ctx_make_current(e->ctx, err) : 0; /* the context's device again */
}

static const gemm_engine_ops cuda_ops = {
    .host_alloc = host_alloc,
    .host_free = host_free,
    .load_host = load_host,
    .load_peer = load_peer,
    .loads_begin = loads_begin,
    .loads_end = loads_end,
    .compute_begin = compute_begin,
    .gemm = tile_gemm,
    .compute_end = compute_end,
    .store_c = store_c,
    .loads_done = loads_done,
    .finish = finish,
};

const gemm_engine_ops *gemm_cuda_engine_ops(void)
{
    return &cuda_ops;
}
