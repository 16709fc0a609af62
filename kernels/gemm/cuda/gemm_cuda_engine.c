#include "gemm_cuda_engine.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "gemm_async.h"
#include "rt_registry.h" /* RT_INFEASIBLE */

/* Compute streams per GPU (gemm_async.h): a 1024 x 1024 tile product alone does not fill an
 * H100, so the products of different C tiles run side by side. */
#define GEMM_CUDA_STREAMS GEMM_ASYNC_COMPUTE

typedef struct lgpu {
    int device; /* physical device ordinal (the context's own with gpu_map = logical) */
    char *mem;  /* slots x tile_bytes (cudaMalloc: exportable) */
    cudaStream_t h2d, p2p, d2h, join, compute[GEMM_CUDA_STREAMS];
    int have_streams;                       /* h2d, p2p, d2h, join created */
    int n_compute;                          /* compute streams created */
    cublasHandle_t blas[GEMM_CUDA_STREAMS]; /* one per stream: a handle's workspace is not shared */
    int n_blas;
    cudaEvent_t *ready;                       /* per slot: its last load */
    cudaEvent_t *cdone, *cfree;               /* per C slot: last product; write-back done */
    cudaEvent_t *computed[GEMM_CUDA_STREAMS]; /* per chunk (ring of n_ev) and compute stream */
    cudaEvent_t *own, *loaded;                /* per chunk (ring): interprocess marks */
    cudaEvent_t *copied; /* per chunk (ring): loaded's plain twin, for the process's GPUs */
    cudaEvent_t h2d_mark, p2p_mark;
    int n_ready, n_c, n_ring; /* events created, for teardown */
    /* ipc: the node peers' OWN and LOADED marks opened on this GPU's device
     * ([(peer * gpus + h) * n_ev + i]; NULL for this process and where not opened), which only
     * this device's streams may wait for (gemm_async.h). GPUs of one device share the first one's
     * (imports_owner). */
    cudaEvent_t *r_own, *r_loaded;
    int imports_owner;
} lgpu;

struct gemm_cuda_engine {
    rt_cuda_ctx *ctx;
    int gpus, n_ev, lookahead;
    int multi;       /* 1: the GPUs are on more than one device (each call selects its device) */
    int peer_access; /* 1: every pair of distinct devices has peer access enabled */
    int64_t slots, c_slots;
    size_t tile_bytes;
    rt_precision prec;
    lgpu *g;
    /* ipc: node peers' slots mapped here, per local GPU ([g][peer * gpus + h], NULL for this
     * process and where not opened); their marks are per local GPU too (lgpu.r_own). */
    int shared;
    MPI_Comm node;
    int n_node, me;
    char ***rmem;
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

/* The slots of GPU g on its own device, with cudaMalloc so that ipc can export them. */
static int alloc_slots(gemm_cuda_engine *e, int g, size_t bytes, rt_err *err)
{
    const cudaError_t rc = cudaMalloc((void **)&e->g[g].mem, bytes);
    if (rc == cudaSuccess)
        return 0;
    e->g[g].mem = NULL;
    (void)cudaGetLastError(); /* out of memory is not sticky */
    rt_err_set(err,
               "gemm.cuda: the %lld tile slots of GPU %d (device %d): cudaMalloc of %zu bytes: %s",
               (long long)e->slots, g, e->g[g].device, bytes, cudaGetErrorString(rc));
    return rc == cudaErrorMemoryAllocation ? RT_INFEASIBLE : -1;
}

/* Peer access between every two distinct devices, both ways, so tile copies between GPUs go
 * device to device (cudaMemcpyPeerAsync also works without it, staged through the host: then
 * peer_access stays 0 and the point says so). Access enabled by an earlier point is kept; the
 * pairs enabled so far live in a memo of the context (GEMM_PEERS_MEMO), so a later point does not
 * ask again: enabling twice returns cudaErrorPeerAccessAlreadyEnabled, which compute-sanitizer
 * reports as an API error of every such point. */
#define GEMM_PEERS_MEMO "gemm.peers"
#define GEMM_PEERS_MAX  64 /* devices a memo row has bits for */

static uint64_t *peers_memo(rt_cuda_ctx *ctx, rt_err *err)
{
    uint64_t *rows = rt_cuda_ctx_memo(ctx, GEMM_PEERS_MEMO);
    if (rows)
        return rows;
    rows = calloc(GEMM_PEERS_MAX, sizeof *rows);
    if (!rows) {
        rt_err_set(err, "gemm.cuda: out of memory for the peer-access memo");
        return NULL;
    }
    if (rt_cuda_ctx_set_memo(ctx, GEMM_PEERS_MEMO, rows, free, err) != 0) {
        free(rows);
        return NULL;
    }
    return rows;
}

static int enable_peers(gemm_cuda_engine *e, rt_err *err)
{
    uint64_t *enabled = peers_memo(e->ctx, err);
    if (!enabled)
        return -1;
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
            const int known = dg < GEMM_PEERS_MAX && dh < GEMM_PEERS_MAX;
            if (known && (enabled[dg] >> dh & 1u))
                continue;
            CK(cudaSetDevice(dg), "selecting a GPU's device");
            const cudaError_t rc = cudaDeviceEnablePeerAccess(dh, 0);
            if (rc == cudaErrorPeerAccessAlreadyEnabled)
                (void)cudaGetLastError(); /* enabled outside this context's memo */
            else
                CK(rc, "enabling peer access");
            if (known)
                enabled[dg] |= (uint64_t)1 << dh;
        }
    return 0;
}

static int make_events(cudaEvent_t **out, int n, unsigned flags, int *made, rt_err *err)
{
    *out = calloc((size_t)(n > 0 ? n : 1), sizeof **out);
    if (!*out)
        return rt_err_set(err, "gemm.cuda: out of memory for events");
    for (int i = 0; i < n; ++i) {
        CK(cudaEventCreateWithFlags(&(*out)[i], flags), "creating an event");
        if (made)
            *made = i + 1;
    }
    return 0;
}

/* GPU g's streams, cuBLAS handles and events, on its device. */
static int make_gpu(gemm_cuda_engine *e, int g, rt_err *err)
{
    lgpu *L = &e->g[g];
    const unsigned plain = cudaEventDisableTiming;
    const unsigned shareable = cudaEventDisableTiming | cudaEventInterprocess;
#define N_EV(kind) ((int)gemm_async_events(kind, e->slots, e->c_slots, e->lookahead))
    CK(cudaStreamCreateWithFlags(&L->h2d, cudaStreamNonBlocking), "creating a stream");
    CK(cudaStreamCreateWithFlags(&L->p2p, cudaStreamNonBlocking), "creating a stream");
    CK(cudaStreamCreateWithFlags(&L->d2h, cudaStreamNonBlocking), "creating a stream");
    CK(cudaStreamCreateWithFlags(&L->join, cudaStreamNonBlocking), "creating a stream");
    L->have_streams = 1;
    for (int j = 0; j < GEMM_CUDA_STREAMS; ++j) {
        CK(cudaStreamCreateWithFlags(&L->compute[j], cudaStreamNonBlocking), "creating a stream");
        L->n_compute = j + 1;
        CKB(cublasCreate(&L->blas[j]), "creating a cuBLAS handle");
        L->n_blas = j + 1;
        CKB(cublasSetStream(L->blas[j], L->compute[j]), "binding cuBLAS to a stream");
    }
    /* As many of each kind as gemm_async may name (gemm_async_events); only OWN and LOADED are
     * interprocess (gemm_ev_interprocess): a stream of another device must not wait for them. */
    if (make_events(&L->ready, N_EV(GEMM_EV_READY), plain, &L->n_ready, err) != 0 ||
        make_events(&L->cdone, N_EV(GEMM_EV_CDONE), plain, NULL, err) != 0 ||
        make_events(&L->cfree, N_EV(GEMM_EV_CFREE), plain, &L->n_c, err) != 0)
        return -1;
    for (int j = 0; j < GEMM_CUDA_STREAMS; ++j)
        if (make_events(&L->computed[j], N_EV(GEMM_EV_COMPUTED) / GEMM_CUDA_STREAMS, plain, NULL,
                        err) != 0)
            return -1;
    if (make_events(&L->own, N_EV(GEMM_EV_OWN), shareable, NULL, err) != 0 ||
        make_events(&L->copied, N_EV(GEMM_EV_COPIED), plain, NULL, err) != 0 ||
        make_events(&L->loaded, N_EV(GEMM_EV_LOADED), shareable, &L->n_ring, err) != 0)
        return -1;
#undef N_EV
    CK(cudaEventCreateWithFlags(&L->h2d_mark, plain), "creating an event");
    CK(cudaEventCreateWithFlags(&L->p2p_mark, plain), "creating an event");
    return 0;
}

int gemm_cuda_engine_create(rt_cuda_ctx *ctx, int gpus, const int *devices, int64_t slots,
                            int64_t c_slots, size_t tile_bytes, rt_precision prec, int lookahead,
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
    e->c_slots = c_slots;
    e->tile_bytes = tile_bytes;
    e->prec = prec;
    e->lookahead = lookahead;
    e->n_ev = gemm_async_ring(lookahead);
    e->node = MPI_COMM_NULL;
    e->g = calloc((size_t)gpus, sizeof *e->g);
    if (!e->g)
        return rt_err_set(err, "gemm.cuda: out of memory");
    const int own = rt_cuda_ctx_ordinal(ctx);
    for (int g = 0; g < gpus; ++g) {
        e->g[g].device = devices ? devices[g] : own;
        e->multi |= e->g[g].device != own;
    }
    for (int g = 0; g < gpus; ++g) {
        if (on_device(e, g, err) != 0)
            return -1;
        const int rc = alloc_slots(e, g, (size_t)slots * tile_bytes, err);
        if (rc != 0)
            return rc;
        if (make_gpu(e, g, err) != 0)
            return -1;
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

static void destroy_events(cudaEvent_t *ev, int n)
{
    for (int i = 0; ev && i < n; ++i)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    free(ev);
}

/* Unmaps the node peers' slots and closes their events (importers first, then a barrier, so no
 * process frees memory a peer still maps). */
static void unshare(gemm_cuda_engine *e)
{
    for (int g = 0; e->rmem && g < e->gpus; ++g) {
        if (!e->rmem[g])
            continue;
        /* GPUs on one device share one mapping: close it once, on the first of them. */
        int first = 1;
        for (int h = 0; h < g; ++h)
            first &= e->g[h].device != e->g[g].device;
        if (first) {
            (void)cudaSetDevice(e->g[g].device);
            for (int i = 0; i < e->n_node * e->gpus; ++i)
                if (e->rmem[g][i])
                    (void)cudaIpcCloseMemHandle(e->rmem[g][i]);
        }
        free(e->rmem[g]);
    }
    free(e->rmem);
    e->rmem = NULL;
    for (int g = 0; e->g && g < e->gpus; ++g) {
        lgpu *L = &e->g[g];
        if (L->imports_owner) {
            destroy_events(L->r_own, e->n_node * e->gpus * e->n_ev);
            destroy_events(L->r_loaded, e->n_node * e->gpus * e->n_ev);
        }
        L->r_own = L->r_loaded = NULL;
        L->imports_owner = 0;
    }
    (void)MPI_Barrier(e->node);
}

void gemm_cuda_engine_drain(gemm_cuda_engine *e)
{
    if (!e)
        return;
    rt_err ignored;
    (void)rt_cuda_ctx_make_current(e->ctx, &ignored);
    for (int g = 0; e->g && g < e->gpus; ++g) {
        lgpu *L = &e->g[g];
        if (e->multi)
            (void)cudaSetDevice(L->device);
        if (L->have_streams) {
            cudaStreamSynchronize(L->h2d);
            cudaStreamSynchronize(L->p2p);
            cudaStreamSynchronize(L->d2h);
            cudaStreamSynchronize(L->join);
        }
        for (int j = 0; j < L->n_compute; ++j)
            cudaStreamSynchronize(L->compute[j]);
    }
    (void)rt_cuda_ctx_make_current(e->ctx, &ignored);
}

void gemm_cuda_engine_free(gemm_cuda_engine *e)
{
    if (!e)
        return;
    rt_err ignored;
    gemm_cuda_engine_drain(e);
    if (e->shared)
        unshare(e);
    for (int g = 0; e->g && g < e->gpus; ++g) {
        lgpu *L = &e->g[g];
        if (e->multi)
            (void)cudaSetDevice(L->device);
        destroy_events(L->ready, L->n_ready);
        destroy_events(L->cdone, L->n_c);
        destroy_events(L->cfree, L->n_c);
        for (int j = 0; j < GEMM_CUDA_STREAMS; ++j)
            destroy_events(L->computed[j], L->computed[j] ? e->n_ev : 0);
        destroy_events(L->own, L->own ? e->n_ev : 0);
        destroy_events(L->copied, L->copied ? e->n_ev : 0);
        destroy_events(L->loaded, L->n_ring);
        if (L->h2d_mark)
            cudaEventDestroy(L->h2d_mark);
        if (L->p2p_mark)
            cudaEventDestroy(L->p2p_mark);
        for (int j = 0; j < L->n_blas; ++j)
            cublasDestroy(L->blas[j]);
        if (L->have_streams) {
            cudaStreamDestroy(L->h2d);
            cudaStreamDestroy(L->p2p);
            cudaStreamDestroy(L->d2h);
            cudaStreamDestroy(L->join);
        }
        for (int j = 0; j < L->n_compute; ++j)
            cudaStreamDestroy(L->compute[j]);
        if (L->mem)
            cudaFree(L->mem);
    }
    (void)rt_cuda_ctx_make_current(e->ctx, &ignored);
    free(e->g);
    free(e);
}

/* Page-locked memory for the host side of the copies: plain memory the caller fills (its threads
 * touch the pages in parallel), registered afterwards; cudaMallocHost would fault every page of
 * a matrix of tens of GB in from one thread. */
static void *host_alloc(void *dev, size_t bytes)
{
    (void)dev;
    const size_t page = 4096;
    return aligned_alloc(page, (bytes + page - 1) / page * page);
}

static int host_pin(void *dev, void *p, size_t bytes, rt_err *err)
{
    (void)dev;
    const cudaError_t rc = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
    if (rc == cudaSuccess)
        return 0;
    (void)cudaGetLastError();
    return rt_err_set(err, "gemm.cuda: pinning %zu bytes of host memory (cudaHostRegister): %s",
                      bytes, cudaGetErrorString(rc));
}

static void host_free(void *dev, void *p)
{
    (void)dev;
    if (!p)
        return;
    if (cudaHostUnregister(p) != cudaSuccess)
        (void)cudaGetLastError(); /* never pinned (a setup that failed before) */
    free(p);
}

/* What one process exports per GPU: its device, its slots and its interprocess marks. */
static size_t export_bytes(const gemm_cuda_engine *e)
{
    return sizeof(int) + sizeof(cudaIpcMemHandle_t) +
           2 * (size_t)e->n_ev * sizeof(cudaIpcEventHandle_t);
}

static int share(void *dev, MPI_Comm node, rt_err *err)
{
    gemm_cuda_engine *e = dev;
    MPI_Comm_rank(node, &e->me);
    MPI_Comm_size(node, &e->n_node);
    const size_t per = export_bytes(e), mine = per * (size_t)e->gpus;
    char *out = calloc(1, mine), *all = calloc((size_t)e->n_node, mine);
    int rc = out && all ? 0 : rt_err_set(err, "gemm.cuda: out of memory for the ipc handles");
    for (int g = 0; rc == 0 && g < e->gpus; ++g) {
        lgpu *L = &e->g[g];
        char *p = out + per * (size_t)g;
        memcpy(p, &L->device, sizeof(int));
        p += sizeof(int);
        if (on_device(e, g, err) != 0) {
            rc = -1;
            break;
        }
        cudaError_t c = cudaIpcGetMemHandle((cudaIpcMemHandle_t *)p, L->mem);
        p += sizeof(cudaIpcMemHandle_t);
        for (int i = 0; c == cudaSuccess && i < e->n_ev; ++i) {
            c = cudaIpcGetEventHandle((cudaIpcEventHandle_t *)p, L->own[i]);
            p += sizeof(cudaIpcEventHandle_t);
        }
        for (int i = 0; c == cudaSuccess && i < e->n_ev; ++i) {
            c = cudaIpcGetEventHandle((cudaIpcEventHandle_t *)p, L->loaded[i]);
            p += sizeof(cudaIpcEventHandle_t);
        }
        if (c != cudaSuccess)
            rc = rt_err_set(err, "gemm.cuda: exporting GPU %d's slots and events: %s", g,
                            cudaGetErrorString(c));
    }
    /* Everyone takes part in the exchange even after a local failure; the caller agrees next. */
    if (MPI_Allgather(out ? out : all, (int)mine, MPI_BYTE, all, (int)mine, MPI_BYTE, node) !=
        MPI_SUCCESS)
        rc = rt_err_set(err, "gemm.cuda: exchanging the ipc handles (MPI_Allgather) failed");
    e->node = node;
    e->shared = 1;
    const size_t peers = (size_t)e->n_node * (size_t)e->gpus;
    e->rmem = calloc((size_t)e->gpus, sizeof *e->rmem);
    if (rc == 0 && !e->rmem)
        rc = rt_err_set(err, "gemm.cuda: out of memory for the ipc handles");
    /* Each peer GPU's slots and marks, opened once per local device (a memory handle maps into
     * one device; an imported event belongs to the device it was opened on, and a stream of
     * another device must not wait for it: gemm_async.h). GPUs of one device share them. */
    for (int g = 0; rc == 0 && g < e->gpus; ++g) {
        lgpu *L = &e->g[g];
        int first = -1;
        for (int h = 0; h < g && first < 0; ++h)
            if (e->g[h].device == L->device)
                first = h;
        e->rmem[g] = calloc(peers, sizeof **e->rmem);
        if (!e->rmem[g]) {
            rc = rt_err_set(err, "gemm.cuda: out of memory for the ipc handles");
            break;
        }
        if (first >= 0) {
            memcpy(e->rmem[g], e->rmem[first], peers * sizeof **e->rmem);
            L->r_own = e->g[first].r_own;
            L->r_loaded = e->g[first].r_loaded;
            continue;
        }
        L->imports_owner = 1;
        L->r_own = calloc(peers * (size_t)e->n_ev, sizeof *L->r_own);
        L->r_loaded = calloc(peers * (size_t)e->n_ev, sizeof *L->r_loaded);
        if (!L->r_own || !L->r_loaded || cudaSetDevice(L->device) != cudaSuccess) {
            rc = rt_err_set(err, "gemm.cuda: opening the ipc handles on device %d", L->device);
            break;
        }
        for (int r = 0; rc == 0 && r < e->n_node; ++r)
            for (int h = 0; rc == 0 && r != e->me && h < e->gpus; ++h) {
                const char *p = all + mine * (size_t)r + per * (size_t)h;
                cudaIpcMemHandle_t mh;
                memcpy(&mh, p + sizeof(int), sizeof mh);
                void *ptr = NULL;
                cudaError_t c = cudaIpcOpenMemHandle(&ptr, mh, cudaIpcMemLazyEnablePeerAccess);
                if (c != cudaSuccess) {
                    int where = -1;
                    memcpy(&where, p, sizeof(int));
                    rc =
                        rt_err_set(err,
                                   "gemm.cuda: opening node rank %d's GPU %d (device %d) on device "
                                   "%d (cudaIpcOpenMemHandle): %s",
                                   r, h, where, L->device, cudaGetErrorString(c));
                    break;
                }
                e->rmem[g][(size_t)r * (size_t)e->gpus + (size_t)h] = ptr;
                const char *q = p + sizeof(int) + sizeof(cudaIpcMemHandle_t);
                const size_t at = ((size_t)r * (size_t)e->gpus + (size_t)h) * (size_t)e->n_ev;
                for (int i = 0; c == cudaSuccess && i < 2 * e->n_ev; ++i) {
                    cudaIpcEventHandle_t eh;
                    memcpy(&eh, q + (size_t)i * sizeof eh, sizeof eh);
                    c = cudaIpcOpenEventHandle(i < e->n_ev
                                                   ? &L->r_own[at + (size_t)i]
                                                   : &L->r_loaded[at + (size_t)(i - e->n_ev)],
                                               eh);
                }
                if (c != cudaSuccess)
                    rc = rt_err_set(err,
                                    "gemm.cuda: opening node rank %d's events on device %d "
                                    "(cudaIpcOpenEventHandle): %s",
                                    r, L->device, cudaGetErrorString(c));
            }
    }
    free(out);
    free(all);
    rt_err ignored;
    (void)rt_cuda_ctx_make_current(e->ctx, &ignored);
    return rc;
}

static cudaStream_t stream_of(gemm_cuda_engine *e, int g, int st)
{
    lgpu *L = &e->g[g];
    switch (st) {
    case GEMM_ST_H2D: return L->h2d;
    case GEMM_ST_P2P: return L->p2p;
    case GEMM_ST_D2H: return L->d2h;
    case GEMM_ST_JOIN: return L->join;
    default: return L->compute[st - GEMM_ST_COMPUTE];
    }
}

/* The CUDA event of a gemm_async event: a node peer's as opened on the device of GPU ev.via (NULL
 * where not opened). */
static cudaEvent_t event_of(gemm_cuda_engine *e, gemm_ev ev)
{
    if (ev.peer >= 0) {
        if (ev.via < 0 || ev.via >= e->gpus || ev.peer >= e->n_node || ev.g < 0 || ev.g >= e->gpus)
            return NULL;
        const lgpu *V = &e->g[ev.via];
        const cudaEvent_t *r = ev.kind == GEMM_EV_OWN ? V->r_own : V->r_loaded;
        return r ? r[((size_t)ev.peer * (size_t)e->gpus + (size_t)ev.g) * (size_t)e->n_ev +
                     (size_t)ev.index]
                 : NULL;
    }
    lgpu *L = &e->g[ev.g];
    switch (ev.kind) {
    case GEMM_EV_READY: return L->ready[ev.index];
    case GEMM_EV_CDONE: return L->cdone[ev.index];
    case GEMM_EV_CFREE: return L->cfree[ev.index];
    case GEMM_EV_COMPUTED:
        return L->computed[ev.index % GEMM_CUDA_STREAMS][ev.index / GEMM_CUDA_STREAMS];
    case GEMM_EV_OWN: return L->own[ev.index];
    case GEMM_EV_LOADED: return L->loaded[ev.index];
    case GEMM_EV_COPIED: return L->copied[ev.index];
    case GEMM_EV_H2D_MARK: return L->h2d_mark;
    default: return L->p2p_mark;
    }
}

static int record(void *dev, int g, int st, gemm_ev ev, rt_err *err)
{
    gemm_cuda_engine *e = dev;
    /* cudaEventRecord needs the event's own device (gemm_async.h). */
    if (ev.peer >= 0 || e->g[ev.g].device != e->g[g].device)
        return rt_err_set(err, "gemm.cuda: GPU %d would record an event of %s GPU %d", g,
                          ev.peer >= 0 ? "a node peer's" : "another device's", ev.g);
    if (on_device(e, g, err) != 0)
        return -1;
    CK(cudaEventRecord(event_of(e, ev), stream_of(e, g, st)), "recording an event");
    return 0;
}

static int wait(void *dev, int g, int st, gemm_ev ev, rt_err *err)
{
    gemm_cuda_engine *e = dev;
    const cudaEvent_t x = event_of(e, ev);
    if (!x)
        return rt_err_set(err, "gemm.cuda: node rank %d's events are not open here", ev.peer);
    /* An interprocess event (created or imported) waited for by a stream of another device
     * crashed libcuda (SIGSEGV in cuStreamWaitEvent, 4 x H100, CUDA 13.0): refused, not issued. */
    const int home = ev.peer >= 0 ? ev.via : ev.g;
    if (gemm_ev_interprocess(ev.kind) && e->g[home].device != e->g[g].device)
        return rt_err_set(err,
                          "gemm.cuda: GPU %d (device %d) would wait for an interprocess event of "
                          "device %d",
                          g, e->g[g].device, e->g[home].device);
    if (on_device(e, g, err) != 0)
        return -1;
    CK(cudaStreamWaitEvent(stream_of(e, g, st), x, 0), "ordering a stream after an event");
    return 0;
}

static int host_wait(void *dev, gemm_ev ev, rt_err *err)
{
    gemm_cuda_engine *e = dev;
    CK(cudaEventSynchronize(event_of(e, ev)), "waiting for copies");
    return 0;
}

static int h2d(void *dev, int g, int st, int64_t slot, const void *src, size_t bytes, rt_err *err)
{
    gemm_cuda_engine *e = dev;
    if (on_device(e, g, err) != 0)
        return -1;
    CK(cudaMemcpyAsync(slot_ptr(e, g, slot), src, bytes, cudaMemcpyHostToDevice,
                       stream_of(e, g, st)),
       "copying a tile to the GPU");
    return 0;
}

static int d2d(void *dev, int g, int st, int64_t slot, int src_g, int64_t src_slot, size_t bytes,
               rt_err *err)
{
    gemm_cuda_engine *e = dev;
    const lgpu *src = &e->g[src_g], *L = &e->g[g];
    if (on_device(e, g, err) != 0)
        return -1;
    if (src->device != L->device)
        CK(cudaMemcpyPeerAsync(slot_ptr(e, g, slot), L->device, slot_ptr(e, src_g, src_slot),
                               src->device, bytes, stream_of(e, g, st)),
           "copying a tile between devices");
    else
        CK(cudaMemcpyAsync(slot_ptr(e, g, slot), slot_ptr(e, src_g, src_slot), bytes,
                           cudaMemcpyDeviceToDevice, stream_of(e, g, st)),
           "copying a tile between GPUs");
    return 0;
}

static int pull(void *dev, int g, int st, int64_t slot, int peer, int src_g, int64_t src_slot,
                size_t bytes, rt_err *err)
{
    gemm_cuda_engine *e = dev;
    char *base = e->rmem && e->rmem[g] && peer >= 0 && peer < e->n_node && src_g < e->gpus
                     ? e->rmem[g][(size_t)peer * (size_t)e->gpus + (size_t)src_g]
                     : NULL;
    if (!base)
        return rt_err_set(err, "gemm.cuda: node rank %d's GPU %d is not mapped here", peer, src_g);
    if (on_device(e, g, err) != 0)
        return -1;
    CK(cudaMemcpyAsync(slot_ptr(e, g, slot), base + (size_t)src_slot * e->tile_bytes, bytes,
                       cudaMemcpyDefault, stream_of(e, g, st)),
       "copying a tile from a node peer's GPU");
    return 0;
}

static int d2h(void *dev, int g, int st, void *dst, int64_t slot, size_t bytes, rt_err *err)
{
    gemm_cuda_engine *e = dev;
    if (on_device(e, g, err) != 0)
        return -1;
    CK(cudaMemcpyAsync(dst, slot_ptr(e, g, slot), bytes, cudaMemcpyDeviceToHost,
                       stream_of(e, g, st)),
       "copying a C tile to the host");
    return 0;
}

static int tile_gemm(void *dev, int g, int st, int64_t cslot, int64_t aslot, int64_t bslot,
                     int64_t m, int64_t n, int64_t k, int accumulate, rt_err *err)
{
    gemm_cuda_engine *e = dev;
    if (on_device(e, g, err) != 0)
        return -1;
    const cublasHandle_t h = e->g[g].blas[st - GEMM_ST_COMPUTE];
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

static int finish(void *dev, rt_err *err)
{
    gemm_cuda_engine *e = dev;
    for (int g = 0; g < e->gpus; ++g)
        for (int st = 0; st < GEMM_ST_N; ++st)
            CK(cudaStreamSynchronize(stream_of(e, g, st)), "finishing the GPU's streams");
    return e->multi ? rt_cuda_ctx_make_current(e->ctx, err) : 0; /* the context's device again */
}

static const gemm_async_dev cuda_dev = {
    .host_alloc = host_alloc,
    .host_pin = host_pin,
    .host_free = host_free,
    .share = share,
    .record = record,
    .wait = wait,
    .host_wait = host_wait,
    .h2d = h2d,
    .d2d = d2d,
    .pull = pull,
    .d2h = d2h,
    .gemm = tile_gemm,
    .finish = finish,
};

const gemm_async_dev *gemm_cuda_engine_dev(void)
{
    return &cuda_dev;
}
