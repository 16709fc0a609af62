#include "gemm_cpu_engine.h"

#include <stdlib.h>
#include <string.h>

#include <cblas.h>

struct gemm_cpu_engine {
    int gpus;
    int64_t slots;
    size_t tile_bytes;
    rt_precision prec;
    char **mem; /* per emulated GPU: slots x tile_bytes */
    char *own;  /* malloc'ed slots of all GPUs, until shared */
    /* Shared (the ipc transport): the slots of every process of the node live in one MPI
     * shared-memory window, each process's G areas one after the other, readable by the others
     * as a GPU's are through CUDA IPC. */
    int shared;
    MPI_Win win;
    char **peer; /* per node rank: its slots' base */
};

int gemm_cpu_engine_create(int gpus, int64_t slots, size_t tile_bytes, rt_precision prec,
                           gemm_cpu_engine **out, rt_err *err)
{
    *out = NULL;
    gemm_cpu_engine *e = calloc(1, sizeof *e);
    if (!e)
        return rt_err_set(err, "gemm.cpu: out of memory");
    e->gpus = gpus;
    e->slots = slots;
    e->tile_bytes = tile_bytes;
    e->prec = prec;
    e->mem = calloc((size_t)gpus, sizeof *e->mem);
    *out = e;
    const size_t area = (size_t)slots * tile_bytes;
    e->own = malloc(area * (size_t)gpus + 1);
    if (!e->mem || !e->own)
        return rt_err_set(err,
                          "gemm.cpu: out of host memory for the %lld tile slots of %d emulated "
                          "GPU(s)",
                          (long long)slots, gpus);
    for (int g = 0; g < gpus; ++g)
        e->mem[g] = e->own + area * (size_t)g;
    return 0;
}

void gemm_cpu_engine_free(gemm_cpu_engine *e)
{
    if (!e)
        return;
    if (e->shared) {
        /* Collective over the node, like the share: every rank of it tears the point down. */
        MPI_Win_unlock_all(e->win);
        MPI_Win_free(&e->win);
    }
    free(e->peer);
    free(e->own);
    free(e->mem);
    free(e);
}

static char *slot_ptr(gemm_cpu_engine *e, int g, int64_t slot)
{
    return e->mem[g] + (size_t)slot * e->tile_bytes;
}

void gemm_cpu_tile_product(rt_precision prec, int64_t m, int64_t n, int64_t k, const void *a,
                           const void *b, void *c, int accumulate)
{
    if (prec == RT_FP64)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, a,
                    (int)m, b, (int)k, accumulate ? 1.0 : 0.0, c, (int)m);
    else
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, a,
                    (int)m, b, (int)k, accumulate ? 1.0f : 0.0f, c, (int)m);
}

static void *host_alloc(void *eng, size_t bytes)
{
    (void)eng;
    return malloc(bytes);
}

static int host_pin(void *eng, void *p, size_t bytes, rt_err *err)
{
    (void)eng;
    (void)p;
    (void)bytes;
    (void)err;
    return 0; /* host memory is what the emulated GPUs copy from anyway */
}

static void host_free(void *eng, void *p)
{
    (void)eng;
    free(p);
}

/* Moves the slots into one shared-memory window of the node (they hold nothing yet) and learns
 * where every node peer's are. */
static int share(void *eng, MPI_Comm node, rt_err *err)
{
    gemm_cpu_engine *e = eng;
    const size_t area = (size_t)e->slots * e->tile_bytes * (size_t)e->gpus;
    int n = 0;
    MPI_Comm_size(node, &n);
    e->peer = calloc((size_t)n, sizeof *e->peer);
    if (!e->peer)
        return rt_err_set(err, "gemm.cpu: out of memory");
    char *base = NULL;
    if (MPI_Win_allocate_shared((MPI_Aint)area + 1, 1, MPI_INFO_NULL, node, &base, &e->win) !=
        MPI_SUCCESS)
        return rt_err_set(err, "gemm.cpu: MPI_Win_allocate_shared of %zu bytes failed", area);
    e->shared = 1;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, e->win);
    for (int r = 0; r < n; ++r) {
        MPI_Aint size = 0;
        int disp = 0;
        if (MPI_Win_shared_query(e->win, r, &size, &disp, &e->peer[r]) != MPI_SUCCESS)
            return rt_err_set(err, "gemm.cpu: MPI_Win_shared_query of node rank %d failed", r);
    }
    free(e->own);
    e->own = NULL;
    for (int g = 0; g < e->gpus; ++g)
        e->mem[g] = base + (size_t)e->slots * e->tile_bytes * (size_t)g;
    return 0;
}

static int load_host(void *eng, int g, int64_t slot, const void *src, size_t bytes, rt_err *err)
{
    (void)err;
    memcpy(slot_ptr(eng, g, slot), src, bytes);
    return 0;
}

static int load_peer(void *eng, int g, int64_t slot, int src_g, int64_t src_slot, size_t bytes,
                     rt_err *err)
{
    (void)err;
    memcpy(slot_ptr(eng, g, slot), slot_ptr(eng, src_g, src_slot), bytes);
    return 0;
}

static int load_remote(void *eng, int g, int64_t slot, int peer, int src_g, int64_t src_slot,
                       size_t bytes, rt_err *err)
{
    gemm_cpu_engine *e = eng;
    if (!e->shared)
        return rt_err_set(err, "gemm.cpu: a tile from node rank %d before the slots were shared",
                          peer);
    const char *src =
        e->peer[peer] + ((size_t)src_g * (size_t)e->slots + (size_t)src_slot) * e->tile_bytes;
    memcpy(slot_ptr(e, g, slot), src, bytes);
    return 0;
}

/* Copies and products happen in program order on the host: nothing to wait for. */
static int in_order(void *eng, int g, int64_t s, rt_err *err)
{
    (void)eng;
    (void)g;
    (void)s;
    (void)err;
    return 0;
}

static int chunk_done(void *eng, int64_t s, rt_err *err)
{
    (void)eng;
    (void)s;
    (void)err;
    return 0;
}

/* What the GPU orders with events, the messages order here; the window's memory needs a
 * synchronization on each side of them (MPI's separate memory model allows stale views). */
static int mark(void *eng, int64_t s, int what, rt_err *err)
{
    gemm_cpu_engine *e = eng;
    (void)s;
    (void)what;
    (void)err;
    if (e->shared)
        MPI_Win_sync(e->win);
    return 0;
}

static int wait_peer(void *eng, int peer, int64_t s, int what, rt_err *err)
{
    (void)peer;
    return mark(eng, s, what, err);
}

static int tile_gemm(void *eng, int g, int64_t cslot, int64_t aslot, int64_t bslot, int64_t m,
                     int64_t n, int64_t k, int accumulate, rt_err *err)
{
    (void)err;
    gemm_cpu_engine *e = eng;
    gemm_cpu_tile_product(e->prec, m, n, k, slot_ptr(e, g, aslot), slot_ptr(e, g, bslot),
                          slot_ptr(e, g, cslot), accumulate);
    return 0;
}

static int store_c(void *eng, int g, int64_t cslot, void *dst, size_t bytes, rt_err *err)
{
    (void)err;
    memcpy(dst, slot_ptr(eng, g, cslot), bytes);
    return 0;
}

static int finish(void *eng, rt_err *err)
{
    (void)eng;
    (void)err;
    return 0;
}

static const gemm_engine_ops cpu_ops = {
    .host_alloc = host_alloc,
    .host_pin = host_pin,
    .host_free = host_free,
    .share = share,
    .load_host = load_host,
    .load_peer = load_peer,
    .load_remote = load_remote,
    .loads_begin = in_order,
    .mark = mark,
    .wait_peer = wait_peer,
    .gemm = tile_gemm,
    .compute_end = chunk_done,
    .store_c = store_c,
    .loads_done = chunk_done,
    .finish = finish,
};

const gemm_engine_ops *gemm_cpu_engine_ops(void)
{
    return &cpu_ops;
}
