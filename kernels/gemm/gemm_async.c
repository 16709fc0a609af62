#include "gemm_async.h"

#include <stdlib.h>

struct gemm_async {
    const gemm_async_dev *dev;
    void *ctx;
    int gpus, n_ev;
    int64_t slots;
    int64_t *gen;    /* [gpus][slots]: loads into each slot so far */
    int64_t *waited; /* [gpus][GEMM_ASYNC_COMPUTE][slots]: the load each compute stream waited */
    unsigned char *c_stored; /* [gpus][slots]: a write-back of the C slot recorded CFREE */
};

int gemm_async_create(const gemm_async_dev *dev, void *ctx, int gpus, int64_t slots, int lookahead,
                      gemm_async **out, rt_err *err)
{
    *out = NULL;
    gemm_async *a = calloc(1, sizeof *a);
    if (!a)
        return rt_err_set(err, "gemm: out of memory");
    *out = a;
    a->dev = dev;
    a->ctx = ctx;
    a->gpus = gpus;
    a->slots = slots;
    a->n_ev = gemm_async_ring(lookahead);
    a->gen = calloc((size_t)(gpus * slots), sizeof *a->gen);
    a->waited = calloc((size_t)(gpus * GEMM_ASYNC_COMPUTE * slots), sizeof *a->waited);
    a->c_stored = calloc((size_t)(gpus * slots), 1);
    if (!a->gen || !a->waited || !a->c_stored)
        return rt_err_set(err, "gemm: out of memory for the slots' load counts");
    return 0;
}

void gemm_async_free(gemm_async *a)
{
    if (!a)
        return;
    free(a->gen);
    free(a->waited);
    free(a->c_stored);
    free(a);
}

/* One of this process's events (not per chunk). */
static gemm_ev ev_of(int g, gemm_ev_kind kind, int64_t index)
{
    return (gemm_ev){.peer = -1, .g = g, .via = g, .kind = kind, .index = index, .seq = -1};
}

/* GPU g's event of chunk s (a per-chunk kind: COPIED, OWN, LOADED; COMPUTED: stream j's). */
static gemm_ev chunk_ev(const gemm_async *a, int g, gemm_ev_kind kind, int64_t s, int j)
{
    const int64_t i = s % a->n_ev;
    return (gemm_ev){.peer = -1,
                     .g = g,
                     .via = g,
                     .kind = kind,
                     .index = kind == GEMM_EV_COMPUTED ? i * GEMM_ASYNC_COMPUTE + j : i,
                     .seq = s};
}

/* Node rank peer's GPU h's interprocess event of chunk s, through its import on this process's
 * GPU `via` (only that GPU's streams may wait for it: gemm_async.h). */
static gemm_ev peer_ev(const gemm_async *a, int peer, int h, int via, gemm_ev_kind kind, int64_t s)
{
    return (gemm_ev){
        .peer = peer, .g = h, .via = via, .kind = kind, .index = s % a->n_ev, .seq = s};
}

static void *host_alloc(void *eng, size_t bytes)
{
    gemm_async *a = eng;
    return a->dev->host_alloc(a->ctx, bytes);
}

static int host_pin(void *eng, void *p, size_t bytes, rt_err *err)
{
    gemm_async *a = eng;
    return a->dev->host_pin(a->ctx, p, bytes, err);
}

static void host_free(void *eng, void *p)
{
    gemm_async *a = eng;
    a->dev->host_free(a->ctx, p);
}

static int share(void *eng, MPI_Comm node, rt_err *err)
{
    gemm_async *a = eng;
    return a->dev->share(a->ctx, node, err);
}

/* A load into GPU g's slot on stream st was issued: products that read the slot wait for it. */
static int loaded_into(gemm_async *a, int g, int64_t slot, int st, rt_err *err)
{
    a->gen[g * a->slots + slot]++;
    return a->dev->record(a->ctx, g, st, ev_of(g, GEMM_EV_READY, slot), err);
}

static int load_host(void *eng, int g, int64_t slot, const void *src, size_t bytes, rt_err *err)
{
    gemm_async *a = eng;
    if (a->dev->h2d(a->ctx, g, GEMM_ST_H2D, slot, src, bytes, err) != 0)
        return -1;
    return loaded_into(a, g, slot, GEMM_ST_H2D, err);
}

static int load_peer(void *eng, int g, int64_t slot, int src_g, int64_t src_slot, size_t bytes,
                     rt_err *err)
{
    gemm_async *a = eng;
    if (a->dev->wait(a->ctx, g, GEMM_ST_P2P, ev_of(src_g, GEMM_EV_READY, src_slot), err) != 0 ||
        a->dev->d2d(a->ctx, g, GEMM_ST_P2P, slot, src_g, src_slot, bytes, err) != 0)
        return -1;
    return loaded_into(a, g, slot, GEMM_ST_P2P, err);
}

static int load_remote(void *eng, int g, int64_t slot, int peer, int src_g, int64_t src_slot,
                       size_t bytes, rt_err *err)
{
    gemm_async *a = eng;
    if (a->dev->pull(a->ctx, g, GEMM_ST_P2P, slot, peer, src_g, src_slot, bytes, err) != 0)
        return -1;
    return loaded_into(a, g, slot, GEMM_ST_P2P, err);
}

/* The streams that write GPU g's slots wait for ev. */
static int loads_wait(gemm_async *a, int g, gemm_ev ev, rt_err *err)
{
    if (a->dev->wait(a->ctx, g, GEMM_ST_H2D, ev, err) != 0 ||
        a->dev->wait(a->ctx, g, GEMM_ST_P2P, ev, err) != 0)
        return -1;
    return 0;
}

static int loads_begin(void *eng, int g, int64_t after, rt_err *err)
{
    gemm_async *a = eng;
    if (after < 0)
        return 0;
    for (int j = 0; j < GEMM_ASYNC_COMPUTE; ++j)
        if (loads_wait(a, g, chunk_ev(a, g, GEMM_EV_COMPUTED, after, j), err) != 0)
            return -1;
    /* The other GPUs' copies through COPIED, a plain event: LOADED is interprocess, and another
     * device's stream waiting for it crashed libcuda (gemm_async.h). */
    for (int h = 0; h < a->gpus; ++h)
        if (h != g && loads_wait(a, g, chunk_ev(a, h, GEMM_EV_COPIED, after, 0), err) != 0)
            return -1;
    return 0;
}

static int mark(void *eng, int64_t s, int what, rt_err *err)
{
    gemm_async *a = eng;
    const gemm_ev_kind kind = what == GEMM_MARK_OWN ? GEMM_EV_OWN : GEMM_EV_LOADED;
    for (int g = 0; g < a->gpus; ++g) {
        const gemm_ev h = ev_of(g, GEMM_EV_H2D_MARK, 0), p = ev_of(g, GEMM_EV_P2P_MARK, 0);
        if (a->dev->record(a->ctx, g, GEMM_ST_H2D, h, err) != 0 ||
            a->dev->record(a->ctx, g, GEMM_ST_P2P, p, err) != 0 ||
            a->dev->wait(a->ctx, g, GEMM_ST_JOIN, h, err) != 0 ||
            a->dev->wait(a->ctx, g, GEMM_ST_JOIN, p, err) != 0 ||
            a->dev->record(a->ctx, g, GEMM_ST_JOIN, chunk_ev(a, g, kind, s, 0), err) != 0)
            return -1;
        if (kind == GEMM_EV_LOADED &&
            a->dev->record(a->ctx, g, GEMM_ST_JOIN, chunk_ev(a, g, GEMM_EV_COPIED, s, 0), err) != 0)
            return -1;
    }
    return 0;
}

static int wait_peer(void *eng, int peer, int64_t s, int what, rt_err *err)
{
    gemm_async *a = eng;
    const gemm_ev_kind kind = what == GEMM_MARK_OWN ? GEMM_EV_OWN : GEMM_EV_LOADED;
    for (int g = 0; g < a->gpus; ++g)
        for (int h = 0; h < a->gpus; ++h) {
            const gemm_ev ev = peer_ev(a, peer, h, g, kind, s);
            const int rc = what == GEMM_MARK_OWN ? a->dev->wait(a->ctx, g, GEMM_ST_P2P, ev, err)
                                                 : loads_wait(a, g, ev, err);
            if (rc != 0)
                return -1;
        }
    return 0;
}

/* Compute stream j of GPU g waits for the last load into `slot`, once per load. */
static int wait_slot(gemm_async *a, int g, int j, int64_t slot, rt_err *err)
{
    int64_t *w = &a->waited[((int64_t)g * GEMM_ASYNC_COMPUTE + j) * a->slots + slot];
    const int64_t gen = a->gen[g * a->slots + slot];
    if (*w == gen)
        return 0;
    *w = gen;
    return a->dev->wait(a->ctx, g, GEMM_ST_COMPUTE + j, ev_of(g, GEMM_EV_READY, slot), err);
}

static int tile_gemm(void *eng, int g, int64_t cslot, int64_t aslot, int64_t bslot, int64_t m,
                     int64_t n, int64_t k, int accumulate, rt_err *err)
{
    gemm_async *a = eng;
    const int j = (int)(cslot % GEMM_ASYNC_COMPUTE), st = GEMM_ST_COMPUTE + j;
    if (wait_slot(a, g, j, aslot, err) != 0 || wait_slot(a, g, j, bslot, err) != 0)
        return -1;
    /* The slot's previous C tile must be back in host memory first (when there was one: a wait on
     * an event never recorded would order nothing). */
    if (!accumulate && a->c_stored[g * a->slots + cslot] &&
        a->dev->wait(a->ctx, g, st, ev_of(g, GEMM_EV_CFREE, cslot), err) != 0)
        return -1;
    return a->dev->gemm(a->ctx, g, st, cslot, aslot, bslot, m, n, k, accumulate, err);
}

static int compute_end(void *eng, int64_t s, rt_err *err)
{
    gemm_async *a = eng;
    for (int g = 0; g < a->gpus; ++g)
        for (int j = 0; j < GEMM_ASYNC_COMPUTE; ++j)
            if (a->dev->record(a->ctx, g, GEMM_ST_COMPUTE + j,
                               chunk_ev(a, g, GEMM_EV_COMPUTED, s, j), err) != 0)
                return -1;
    return 0;
}

static int store_c(void *eng, int g, int64_t cslot, void *dst, size_t bytes, rt_err *err)
{
    gemm_async *a = eng;
    const gemm_ev done = ev_of(g, GEMM_EV_CDONE, cslot);
    const int st = GEMM_ST_COMPUTE + (int)(cslot % GEMM_ASYNC_COMPUTE);
    if (a->dev->record(a->ctx, g, st, done, err) != 0 ||
        a->dev->wait(a->ctx, g, GEMM_ST_D2H, done, err) != 0 ||
        a->dev->d2h(a->ctx, g, GEMM_ST_D2H, dst, cslot, bytes, err) != 0)
        return -1;
    a->c_stored[g * a->slots + cslot] = 1;
    return a->dev->record(a->ctx, g, GEMM_ST_D2H, ev_of(g, GEMM_EV_CFREE, cslot), err);
}

static int loads_done(void *eng, int64_t s, rt_err *err)
{
    gemm_async *a = eng;
    for (int g = 0; g < a->gpus; ++g)
        if (a->dev->host_wait(a->ctx, chunk_ev(a, g, GEMM_EV_COPIED, s, 0), err) != 0)
            return -1;
    return 0;
}

static int finish(void *eng, rt_err *err)
{
    gemm_async *a = eng;
    return a->dev->finish(a->ctx, err);
}

static const gemm_engine_ops async_ops = {
    .host_alloc = host_alloc,
    .host_pin = host_pin,
    .host_free = host_free,
    .share = share,
    .load_host = load_host,
    .load_peer = load_peer,
    .load_remote = load_remote,
    .loads_begin = loads_begin,
    .mark = mark,
    .wait_peer = wait_peer,
    .gemm = tile_gemm,
    .compute_end = compute_end,
    .store_c = store_c,
    .loads_done = loads_done,
    .finish = finish,
};

const gemm_engine_ops *gemm_async_ops(void)
{
    return &async_ops;
}
