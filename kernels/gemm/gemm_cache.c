#include "gemm_cache.h"

#include <stdlib.h>

/* One pool: slots in an LRU list (head = least recent) and an open-addressing map key -> slot. */
typedef struct pool {
    int64_t cap, base;
    int64_t *key;         /* per slot; -1 free */
    int32_t *pins;        /* per slot */
    int64_t *prev, *next; /* LRU list over slots; -1 ends */
    int64_t head, tail;
    int64_t *map; /* map_size entries: slot index or -1 */
    int64_t map_size;
} pool;

struct gemm_cache {
    pool p[2];
};

static uint64_t hash_key(int64_t k)
{
    uint64_t z = (uint64_t)k * 0x9E3779B97F4A7C15ULL;
    return z ^ (z >> 29);
}

static void pool_free(pool *p)
{
    free(p->key);
    free(p->pins);
    free(p->prev);
    free(p->next);
    free(p->map);
}

static void unlink_slot(pool *p, int64_t s)
{
    if (p->prev[s] >= 0)
        p->next[p->prev[s]] = p->next[s];
    else
        p->head = p->next[s];
    if (p->next[s] >= 0)
        p->prev[p->next[s]] = p->prev[s];
    else
        p->tail = p->prev[s];
    p->prev[s] = p->next[s] = -1;
}

static void push_tail(pool *p, int64_t s)
{
    p->prev[s] = p->tail;
    p->next[s] = -1;
    if (p->tail >= 0)
        p->next[p->tail] = s;
    else
        p->head = s;
    p->tail = s;
}

static void pool_reset(pool *p)
{
    p->head = p->tail = -1;
    for (int64_t s = 0; s < p->cap; ++s) {
        p->key[s] = -1;
        p->pins[s] = 0;
        push_tail(p, s);
    }
    for (int64_t i = 0; i < p->map_size; ++i)
        p->map[i] = -1;
}

static int pool_init(pool *p, int64_t cap, int64_t base)
{
    p->cap = cap;
    p->base = base;
    p->map_size = 16;
    while (p->map_size < 2 * cap)
        p->map_size *= 2;
    const size_t n = (size_t)(cap > 0 ? cap : 1);
    p->key = malloc(n * sizeof *p->key);
    p->pins = malloc(n * sizeof *p->pins);
    p->prev = malloc(n * sizeof *p->prev);
    p->next = malloc(n * sizeof *p->next);
    p->map = malloc((size_t)p->map_size * sizeof *p->map);
    if (!p->key || !p->pins || !p->prev || !p->next || !p->map)
        return -1;
    pool_reset(p);
    return 0;
}

/* Position of key in the map, or of the empty entry where it would go. */
static int64_t map_find(const pool *p, int64_t key)
{
    int64_t i = (int64_t)(hash_key(key) & (uint64_t)(p->map_size - 1));
    while (p->map[i] >= 0 && p->key[p->map[i]] != key)
        i = (i + 1) & (p->map_size - 1);
    return i;
}

/* Removes key from the map (backward-shift deletion keeps the probe chains intact). */
static void map_erase(pool *p, int64_t key)
{
    int64_t i = map_find(p, key);
    if (p->map[i] < 0)
        return;
    p->map[i] = -1;
    for (int64_t j = (i + 1) & (p->map_size - 1); p->map[j] >= 0; j = (j + 1) & (p->map_size - 1)) {
        const int64_t s = p->map[j];
        p->map[j] = -1;
        p->map[map_find(p, p->key[s])] = s;
    }
}

int gemm_cache_create(int64_t cap_a, int64_t base_a, int64_t cap_b, int64_t base_b,
                      gemm_cache **out, rt_err *err)
{
    *out = NULL;
    if (cap_a < 1 || cap_b < 1)
        return rt_err_set(err, "gemm cache: pools of %lld and %lld tiles cannot hold a tile",
                          (long long)cap_a, (long long)cap_b);
    gemm_cache *c = calloc(1, sizeof *c);
    if (!c || pool_init(&c->p[0], cap_a, base_a) != 0 || pool_init(&c->p[1], cap_b, base_b) != 0) {
        gemm_cache_free(c);
        return rt_err_set(err, "gemm cache: out of memory for pools of %lld and %lld tiles",
                          (long long)cap_a, (long long)cap_b);
    }
    *out = c;
    return 0;
}

void gemm_cache_free(gemm_cache *c)
{
    if (!c)
        return;
    pool_free(&c->p[0]);
    pool_free(&c->p[1]);
    free(c);
}

void gemm_cache_reset(gemm_cache *c)
{
    pool_reset(&c->p[0]);
    pool_reset(&c->p[1]);
}

int gemm_cache_take(gemm_cache *c, int which, int64_t key, int64_t *slot, int *hit, int *used,
                    rt_err *err)
{
    pool *p = &c->p[which];
    const int64_t i = map_find(p, key);
    int64_t s = p->map[i];
    *used = 0;
    if (s >= 0) {
        *hit = 1;
    } else {
        *hit = 0;
        for (s = p->head; s >= 0 && p->pins[s] > 0; s = p->next[s])
            ;
        if (s < 0)
            return rt_err_set(err,
                              "gemm cache: all %lld slots of the %c pool are pinned by the chunks "
                              "in flight",
                              (long long)p->cap, which == GEMM_POOL_A ? 'A' : 'B');
        if (p->key[s] >= 0) {
            map_erase(p, p->key[s]);
            *used = 1;
        }
        p->key[s] = key;
        p->map[map_find(p, key)] = s;
    }
    unlink_slot(p, s);
    push_tail(p, s);
    p->pins[s]++;
    *slot = p->base + s;
    return 0;
}

int64_t gemm_cache_pinned_slot(const gemm_cache *c, int which, int64_t key)
{
    const pool *p = &c->p[which];
    const int64_t s = p->map[map_find(p, key)];
    return s >= 0 && p->pins[s] > 0 ? p->base + s : -1;
}

int gemm_cache_release(gemm_cache *c, int which, int64_t slot, rt_err *err)
{
    pool *p = &c->p[which];
    const int64_t s = slot - p->base;
    if (s < 0 || s >= p->cap || p->pins[s] <= 0)
        return rt_err_set(err, "gemm cache: slot %lld of the %c pool is not pinned",
                          (long long)slot, which == GEMM_POOL_A ? 'A' : 'B');
    p->pins[s]--;
    return 0;
}
