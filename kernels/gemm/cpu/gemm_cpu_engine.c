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
    if (!e->mem) {
        free(e);
        return rt_err_set(err, "gemm.cpu: out of memory");
    }
    *out = e;
    for (int g = 0; g < gpus; ++g)
        if (!(e->mem[g] = malloc((size_t)slots * tile_bytes)))
            return rt_err_set(err,
                              "gemm.cpu: out of host memory for the %lld tile slots of emulated "
                              "GPU %d",
                              (long long)slots, g);
    return 0;
}

void gemm_cpu_engine_free(gemm_cpu_engine *e)
{
    if (!e)
        return;
    for (int g = 0; e->mem && g < e->gpus; ++g)
        free(e->mem[g]);
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

static void host_free(void *eng, void *p)
{
    (void)eng;
    free(p);
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

/* Copies and products happen in program order on the host: nothing to wait for. */
static int in_order(void *eng, int64_t s, rt_err *err)
{
    (void)eng;
    (void)s;
    (void)err;
    return 0;
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
    .host_free = host_free,
    .load_host = load_host,
    .load_peer = load_peer,
    .loads_begin = in_order,
    .loads_end = in_order,
    .compute_begin = in_order,
    .gemm = tile_gemm,
    .compute_end = in_order,
    .store_c = store_c,
    .loads_done = in_order,
    .finish = finish,
};

const gemm_engine_ops *gemm_cpu_engine_ops(void)
{
    return &cpu_ops;
}
