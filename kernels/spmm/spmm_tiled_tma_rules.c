#include "spmm_tiled_tma_rules.h"

#include <stdio.h>

#include "rt_registry.h"

/* The kernel's warp: ELL slices and the producer are one warp. */
#define TMA_WARP_SIZE 32
/* 2-byte shared indices address this many slots. */
#define TMA_INDEX16_SLOTS 65536
/* Threads of one block on every NVIDIA GPU the kernel runs on. */
#define TMA_MAX_THREADS 1024

rt_tiled_tma_layout rt_tiled_tma_layout_of(const rt_tiled_tma_config *c)
{
    rt_tiled_tma_layout l = {0};
    if (c->register_tile < 1 || c->elem == 0 || c->n_buffers < 1 || c->block_size < 1)
        return l;
    l.row_bytes = (size_t)c->register_tile * c->elem;
    l.buffsize = c->buffer_kib > 0 ? c->buffer_kib * 1024 / (int64_t)l.row_bytes : 0;
    l.buffer_bytes = (size_t)l.buffsize * l.row_bytes;
    l.c_offset = (size_t)c->n_buffers * l.buffer_bytes;
    l.c_bytes = c->c_bulk ? (size_t)c->block_size * l.row_bytes : 0;
    l.barrier_offset = l.c_offset + l.c_bytes;
    l.total = l.barrier_offset + 2 * (size_t)c->n_buffers * sizeof(uint64_t);
    l.threads = c->block_size + (c->producer ? TMA_WARP_SIZE : 0);
    return l;
}

static int flag_rule(const char *name, int64_t v, char *why, size_t whylen)
{
    if (v == 0 || v == 1)
        return 0;
    snprintf(why, whylen, "%s=%lld must be 0 or 1", name, (long long)v);
    return RT_INFEASIBLE;
}

/* What bulk copies ask of the data: row-major rows of 16-byte multiples. */
static int copy_rules(const rt_tiled_tma_config *c, char *why, size_t whylen)
{
    if (c->elem != 4 && c->elem != 8) {
        snprintf(why, whylen, "values of %zu bytes: spmm.cuda.tiled_tma runs fp32 or fp64",
                 c->elem);
        return RT_INFEASIBLE;
    }
    const long long width = RT_TILED_TMA_ALIGN / (long long)c->elem;
    if (!c->row_major) {
        snprintf(why, whylen,
                 "layout=col: spmm.cuda.tiled_tma bulk-copies rows of row-major B, and a "
                 "column-major B has no contiguous rows to copy (use spmm.cuda.tiled_pipe)");
        return RT_INFEASIBLE;
    }
    if (c->k % width != 0) {
        snprintf(why, whylen,
                 "K=%lld: rows of B and C of %lld bytes are not multiples of %d bytes, so bulk "
                 "copies cannot start at every row (K must be a multiple of %lld values)",
                 (long long)c->k, (long long)c->k * (long long)c->elem, RT_TILED_TMA_ALIGN, width);
        return RT_INFEASIBLE;
    }
    if (c->register_tile < 1 || c->register_tile % width != 0) {
        snprintf(why, whylen,
                 "register_tile=%lld: a staged row of %lld bytes is not a multiple of %d bytes "
                 "(bulk copies move 16-byte multiples; register_tile must be a multiple of %lld)",
                 (long long)c->register_tile, (long long)c->register_tile * (long long)c->elem,
                 RT_TILED_TMA_ALIGN, width);
        return RT_INFEASIBLE;
    }
    if (c->merge_runs && c->register_tile != c->k) {
        snprintf(why, whylen,
                 "merge_runs=1 copies runs of whole rows of B: register_tile=%lld must equal "
                 "K=%lld",
                 (long long)c->register_tile, (long long)c->k);
        return RT_INFEASIBLE;
    }
    if (c->skew && c->register_tile == width) {
        snprintf(why, whylen,
                 "skew=1 with register_tile=%lld: a register tile of one 16-byte chunk has "
                 "nothing to rotate (skew 0 is the same kernel)",
                 (long long)c->register_tile);
        return RT_INFEASIBLE;
    }
    return 0;
}

/* The block and its buffers, without the device. */
static int shape_rules(const rt_tiled_tma_config *c, const rt_tiled_tma_layout *l, char *why,
                       size_t whylen)
{
    if (c->block_size < TMA_WARP_SIZE || c->block_size % TMA_WARP_SIZE != 0) {
        snprintf(why, whylen,
                 "block_size=%lld: the consumers are whole warps (a multiple of %d; the empty "
                 "barriers count warps)",
                 (long long)c->block_size, TMA_WARP_SIZE);
        return RT_INFEASIBLE;
    }
    if (l->threads > TMA_MAX_THREADS) {
        snprintf(why, whylen,
                 "block_size=%lld with producer=1: %lld threads pass the %d of a block",
                 (long long)c->block_size, (long long)l->threads, TMA_MAX_THREADS);
        return RT_INFEASIBLE;
    }
    if (c->n_buffers < 1 || c->n_buffers > 4) {
        snprintf(why, whylen, "n_buffers=%lld must be 1 to 4", (long long)c->n_buffers);
        return RT_INFEASIBLE;
    }
    if (c->blocks_per_sm < 1) {
        snprintf(why, whylen, "blocks_per_sm=%lld must be at least 1", (long long)c->blocks_per_sm);
        return RT_INFEASIBLE;
    }
    if (l->buffsize < 1) {
        snprintf(why, whylen,
                 "buffer_kib=%lld holds no staged row of register_tile=%lld values (%zu bytes)",
                 (long long)c->buffer_kib, (long long)c->register_tile, l->row_bytes);
        return RT_INFEASIBLE;
    }
    if (l->buffer_bytes > RT_TILED_TMA_MAX_TX) {
        snprintf(why, whylen,
                 "buffer_kib=%lld: a stage of %zu bytes passes the %d bytes an mbarrier phase "
                 "counts",
                 (long long)c->buffer_kib, l->buffer_bytes, RT_TILED_TMA_MAX_TX);
        return RT_INFEASIBLE;
    }
    if (c->index_bytes != 2 && c->index_bytes != 4) {
        snprintf(why, whylen, "index_bytes=%lld must be 2 or 4", (long long)c->index_bytes);
        return RT_INFEASIBLE;
    }
    if (c->index_bytes == 2 && l->buffsize > TMA_INDEX16_SLOTS) {
        snprintf(why, whylen,
                 "index_bytes=2 addresses %d slots, but buffer_kib=%lld holds %lld staged rows",
                 TMA_INDEX16_SLOTS, (long long)c->buffer_kib, (long long)l->buffsize);
        return RT_INFEASIBLE;
    }
    return 0;
}

static int device_rules(const rt_tiled_tma_config *c, const rt_tiled_tma_layout *l,
                        const rt_device_info *dev, char *why, size_t whylen)
{
    if (dev->cc_major < 9) {
        snprintf(why, whylen,
                 "spmm.cuda.tiled_tma needs bulk copies and mbarrier byte counts (compute "
                 "capability 9.0); the device is %d.%d",
                 dev->cc_major, dev->cc_minor);
        return RT_INFEASIBLE;
    }
    if ((int64_t)l->total > dev->max_shared_per_block_optin) {
        snprintf(why, whylen,
                 "n_buffers=%lld x buffer_kib=%lld%s: %zu bytes of shared memory pass the "
                 "device's %lld per block",
                 (long long)c->n_buffers, (long long)c->buffer_kib,
                 c->c_bulk ? " with c_store=bulk's C area" : "", l->total,
                 (long long)dev->max_shared_per_block_optin);
        return RT_INFEASIBLE;
    }
    const int64_t per_sm = c->blocks_per_sm * ((int64_t)l->total + RT_TILED_TMA_RESERVED_SHARED);
    if (dev->max_shared_per_sm > 0 && per_sm > dev->max_shared_per_sm) {
        snprintf(why, whylen,
                 "blocks_per_sm=%lld blocks of %zu bytes of shared memory (+%d reserved) pass "
                 "the SM's %lld",
                 (long long)c->blocks_per_sm, l->total, RT_TILED_TMA_RESERVED_SHARED,
                 (long long)dev->max_shared_per_sm);
        return RT_INFEASIBLE;
    }
    if (dev->max_threads_per_sm > 0 && c->blocks_per_sm * l->threads > dev->max_threads_per_sm) {
        snprintf(why, whylen, "blocks_per_sm=%lld blocks of %lld threads pass the SM's %d",
                 (long long)c->blocks_per_sm, (long long)l->threads, dev->max_threads_per_sm);
        return RT_INFEASIBLE;
    }
    return 0;
}

int rt_tiled_tma_feasible(const rt_tiled_tma_config *c, const rt_device_info *dev, char *why,
                          size_t whylen)
{
    if (flag_rule("producer", c->producer, why, whylen) != 0 ||
        flag_rule("merge_runs", c->merge_runs, why, whylen) != 0 ||
        flag_rule("skew", c->skew, why, whylen) != 0 ||
        flag_rule("c_store (bulk)", c->c_bulk, why, whylen) != 0 ||
        flag_rule("tile_interleave", c->tile_interleave, why, whylen) != 0)
        return RT_INFEASIBLE;
    if (copy_rules(c, why, whylen) != 0)
        return RT_INFEASIBLE;
    const rt_tiled_tma_layout l = rt_tiled_tma_layout_of(c);
    if (shape_rules(c, &l, why, whylen) != 0)
        return RT_INFEASIBLE;
    if (dev && device_rules(c, &l, dev, why, whylen) != 0)
        return RT_INFEASIBLE;
    return 0;
}

int64_t rt_tiled_tma_stage_copies(const int32_t *map, int64_t n, int merge, int64_t *runs)
{
    if (!merge) {
        for (int64_t i = 0; runs && i < n; ++i)
            runs[i] = 1;
        return n > 0 ? n : 0;
    }
    int64_t copies = 0;
    for (int64_t base = 0; base < n; base += RT_TILED_TMA_RUN_WINDOW) {
        const int64_t end = base + RT_TILED_TMA_RUN_WINDOW < n ? base + RT_TILED_TMA_RUN_WINDOW : n;
        int64_t start = base;
        for (int64_t s = base + 1; s <= end; ++s)
            if (s == end || map[s - 1] + 1 != map[s]) {
                if (runs)
                    runs[copies] = s - start;
                ++copies;
                start = s;
            }
    }
    return copies;
}
