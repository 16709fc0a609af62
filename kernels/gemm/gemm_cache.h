/* gemm_cache: the tile cache of one GPU (real or emulated): an LRU pool of A tiles and one of B
 * tiles, each a fixed set of slots. A tile taken for a chunk is pinned until the chunk has been
 * computed, so the tiles of the chunks loaded ahead (lookahead) are never evicted; the victim of
 * a miss is the least recently taken unpinned tile of the pool. Host-side bookkeeping only: the
 * engine moves the data. */
#ifndef GEMM_CACHE_H
#define GEMM_CACHE_H

#include <stdint.h>

#include "rt_error.h"

typedef struct gemm_cache gemm_cache;

enum { GEMM_POOL_A = 0, GEMM_POOL_B = 1 };

/* Pools of cap_a and cap_b slots; the slots are numbered base_a.. and base_b.. (the engine's slot
 * numbers on the GPU). */
int gemm_cache_create(int64_t cap_a, int64_t base_a, int64_t cap_b, int64_t base_b,
                      gemm_cache **out, rt_err *err);
void gemm_cache_free(gemm_cache *c);
/* Forgets every tile (the start of an execution). */
void gemm_cache_reset(gemm_cache *c);

/* Takes tile `key` of the pool and pins it: *hit = 1 and its slot when present; else *hit = 0 and
 * the slot of the evicted (or a free) entry, which the caller must fill; *used = 1 when that slot
 * held a tile since the last reset (its readers must be done before it is overwritten). Fails
 * when every slot of the pool is pinned. */
int gemm_cache_take(gemm_cache *c, int pool, int64_t key, int64_t *slot, int *hit, int *used,
                    rt_err *err);
/* The slot of tile `key` when present and pinned (a peer may copy from it), else -1. */
int64_t gemm_cache_pinned_slot(const gemm_cache *c, int pool, int64_t key);
/* Unpins the tile in `slot` (taken once more than released before). */
int gemm_cache_release(gemm_cache *c, int pool, int64_t slot, rt_err *err);

#endif
