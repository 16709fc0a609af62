#include "eigen_spmm_cache.h"

#include <stdlib.h>
#include <string.h>

#include "eigen_packed.h"

/* A power of two; emptied when three quarters full, so probes stay short. */
#define EG_SPMM_CACHE_SLOTS 4096

typedef struct slot {
    int used;
    eg_spmm_call key;
    eg_spmm_plan plan;
} slot;

struct eg_spmm_cache {
    slot *slots;
    int n_used;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    return h;
}

static uint64_t hash_call(const eg_spmm_call *k)
{
    uint64_t h = 0;
    h = mix(h, (uint64_t)(uintptr_t)k->a);
    h = mix(h, (uint64_t)(uintptr_t)k->x);
    h = mix(h, (uint64_t)(uintptr_t)k->y);
    h = mix(h, (uint64_t)k->rows);
    h = mix(h, (uint64_t)k->cols);
    h = mix(h, (uint64_t)k->nnz);
    h = mix(h, (uint64_t)k->ldx);
    h = mix(h, (uint64_t)k->ldy);
    h = mix(h, (uint64_t)k->ncols);
    return h;
}

/* Field by field: the struct has padding, so no memcmp. */
static int same_call(const eg_spmm_call *p, const eg_spmm_call *q)
{
    return p->a == q->a && p->x == q->x && p->y == q->y && p->rows == q->rows &&
           p->cols == q->cols && p->nnz == q->nnz && p->ldx == q->ldx && p->ldy == q->ldy &&
           p->ncols == q->ncols && p->beta == q->beta;
}

static void destroy_plan(eg_spmm_plan *p)
{
    if (p->y)
        cusparseDestroyDnMat(p->y);
    if (p->x)
        cusparseDestroyDnMat(p->x);
    if (p->a)
        cusparseDestroySpMat(p->a);
    memset(p, 0, sizeof *p);
}

static void empty(eg_spmm_cache *c)
{
    for (int i = 0; i < EG_SPMM_CACHE_SLOTS; ++i)
        if (c->slots[i].used) {
            destroy_plan(&c->slots[i].plan);
            c->slots[i].used = 0;
        }
    c->n_used = 0;
}

int eg_spmm_cache_create(eg_spmm_cache **out, rt_err *err)
{
    *out = NULL;
    eg_spmm_cache *c = calloc(1, sizeof *c);
    if (c)
        c->slots = calloc(EG_SPMM_CACHE_SLOTS, sizeof *c->slots);
    if (!c || !c->slots) {
        free(c);
        return rt_err_set(err, "eigen CUDA device: out of memory for the SpMM descriptor cache");
    }
    *out = c;
    return 0;
}

void eg_spmm_cache_destroy(eg_spmm_cache *c)
{
    if (!c)
        return;
    empty(c);
    free(c->slots);
    free(c);
}

static int make_plan(cusparseHandle_t h, const eg_spmm_call *k, eg_spmm_plan *p, rt_err *err)
{
    memset(p, 0, sizeof *p);
    const eg_packed_view v = eg_packed_at((void *)(uintptr_t)k->a, k->rows, k->nnz);
    const double alpha = 1.0;
    cusparseStatus_t s = cusparseCreateCsr(&p->a, k->rows, k->cols, k->nnz, v.rowptr, v.colidx,
                                           v.val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    if (s == CUSPARSE_STATUS_SUCCESS)
        s = cusparseCreateDnMat(&p->x, k->cols, k->ncols, k->ldx, (void *)(uintptr_t)k->x,
                                CUDA_R_64F, CUSPARSE_ORDER_ROW);
    if (s == CUSPARSE_STATUS_SUCCESS)
        s = cusparseCreateDnMat(&p->y, k->rows, k->ncols, k->ldy, k->y, CUDA_R_64F,
                                CUSPARSE_ORDER_ROW);
    if (s == CUSPARSE_STATUS_SUCCESS)
        s = cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                    CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, p->a, p->x, &k->beta,
                                    p->y, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, &p->work_bytes);
    if (s != CUSPARSE_STATUS_SUCCESS) {
        destroy_plan(p);
        return rt_err_set(err, "eigen CUDA device: cusparseSpMM setup failed: %s",
                          cusparseGetErrorString(s));
    }
    return 0;
}

int eg_spmm_cache_get(eg_spmm_cache *c, cusparseHandle_t h, const eg_spmm_call *call,
                      const eg_spmm_plan **plan, rt_err *err)
{
    *plan = NULL;
    if (4 * (c->n_used + 1) > 3 * EG_SPMM_CACHE_SLOTS)
        empty(c);
    const unsigned mask = EG_SPMM_CACHE_SLOTS - 1;
    unsigned i = (unsigned)hash_call(call) & mask;
    while (c->slots[i].used) {
        if (same_call(&c->slots[i].key, call)) {
            *plan = &c->slots[i].plan;
            return 0;
        }
        i = (i + 1) & mask;
    }
    slot *s = &c->slots[i];
    if (make_plan(h, call, &s->plan, err) != 0)
        return -1;
    s->key = *call;
    s->used = 1;
    c->n_used++;
    *plan = &s->plan;
    return 0;
}
