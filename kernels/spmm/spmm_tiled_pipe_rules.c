#include "spmm_tiled_pipe_rules.h"

#include <stdio.h>

#include "rt_registry.h"

/* The kernel's warp: ELL slices are one warp of rows. */
#define PIPE_WARP_SIZE 32
/* 2-byte shared indices address this many slots. */
#define PIPE_INDEX16_SLOTS 65536

int64_t rt_tiled_pipe_buffsize(const rt_tiled_pipe_config *c)
{
    if (c->register_tile < 1 || c->elem == 0)
        return 0;
    return c->buffer_kib * 1024 / (c->register_tile * (int64_t)c->elem);
}

size_t rt_tiled_pipe_dynamic_shared(const rt_tiled_pipe_config *c)
{
    const int64_t buffsize = rt_tiled_pipe_buffsize(c);
    return (size_t)c->n_buffers * (size_t)buffsize * (size_t)c->register_tile * c->elem;
}

int64_t rt_tiled_pipe_plan_rows(const rt_tiled_pipe_config *c)
{
    if (c->warp_rows > 0)
        return c->block_size / PIPE_WARP_SIZE * c->warp_rows;
    return c->block_size;
}

int64_t rt_tiled_pipe_vector_width(const rt_tiled_pipe_config *c)
{
    return c->elem > 0 ? 16 / (int64_t)c->elem : 0;
}

/* The warp mapping's rules (warp_rows > 0; lane_values must be 1 otherwise, so that a sweep
 * over both mappings does not measure Listing 1's twice). */
static int warp_rules(const rt_tiled_pipe_config *c, char *why, size_t whylen)
{
    if (c->warp_rows < 0) {
        snprintf(why, whylen, "warp_rows=%lld must be 0 (a thread per row) or positive",
                 (long long)c->warp_rows);
        return RT_INFEASIBLE;
    }
    if (c->warp_rows == 0) {
        if (c->lane_values != 1) {
            snprintf(why, whylen,
                     "lane_values=%lld applies to the warp mapping only: with warp_rows=0 it "
                     "must be 1",
                     (long long)c->lane_values);
            return RT_INFEASIBLE;
        }
        return 0;
    }
    if (c->use_ell) {
        snprintf(why, whylen, "warp_rows=%lld reads A row by row: it needs staging=csr, not ell",
                 (long long)c->warp_rows);
        return RT_INFEASIBLE;
    }
    if (c->block_size % PIPE_WARP_SIZE != 0) {
        snprintf(why, whylen, "warp_rows=%lld needs block_size to be a multiple of %d, not %lld",
                 (long long)c->warp_rows, PIPE_WARP_SIZE, (long long)c->block_size);
        return RT_INFEASIBLE;
    }
    if (c->register_tile % PIPE_WARP_SIZE != 0) {
        snprintf(why, whylen,
                 "warp_rows=%lld spreads a row's register_tile=%lld columns over the %d lanes "
                 "of a warp: register_tile must be a multiple of %d",
                 (long long)c->warp_rows, (long long)c->register_tile, PIPE_WARP_SIZE,
                 PIPE_WARP_SIZE);
        return RT_INFEASIBLE;
    }
    const int64_t row_values = c->register_tile / PIPE_WARP_SIZE;
    const int64_t groups = c->lane_values > 0 ? c->lane_values / row_values : 0;
    if (c->lane_values < 1 || c->lane_values % row_values != 0 ||
        (groups != 1 && groups != 2 && groups != 4) || (int64_t)c->elem * c->lane_values > 16) {
        snprintf(why, whylen,
                 "lane_values=%lld with register_tile=%lld: a lane holds register_tile/32 = "
                 "%lld values of each row, so lane_values must be 1, 2 or 4 times that and at "
                 "most 16 bytes (%lld values of %zu bytes)",
                 (long long)c->lane_values, (long long)c->register_tile, (long long)row_values,
                 (long long)(16 / (int64_t)c->elem), c->elem);
        return RT_INFEASIBLE;
    }
    if (c->vector > 1) {
        snprintf(why, whylen,
                 "vector=%lld stores C in 16-byte vectors per thread; with warp_rows=%lld each "
                 "lane stores its own columns: use vector 0 or 1",
                 (long long)c->vector, (long long)c->warp_rows);
        return RT_INFEASIBLE;
    }
    if (rt_tiled_pipe_plan_rows(c) < 1) {
        snprintf(why, whylen, "block_size=%lld holds no whole warp", (long long)c->block_size);
        return RT_INFEASIBLE;
    }
    return 0;
}

/* Rules that need no device. */
static int shape_rules(const rt_tiled_pipe_config *c, char *why, size_t whylen)
{
    const int64_t buffsize = rt_tiled_pipe_buffsize(c);
    if (c->n_buffers < 1 || c->blocks_per_sm < 1 || c->stage_split < 1 || c->block_size < 1) {
        snprintf(why, whylen,
                 "n_buffers=%lld, blocks_per_sm=%lld, stage_split=%lld and block_size=%lld must "
                 "all be at least 1",
                 (long long)c->n_buffers, (long long)c->blocks_per_sm, (long long)c->stage_split,
                 (long long)c->block_size);
        return RT_INFEASIBLE;
    }
    if (buffsize < 1) {
        snprintf(why, whylen,
                 "buffer_kib=%lld holds no staged row of register_tile=%lld values of %zu bytes "
                 "(buffsize 0)",
                 (long long)c->buffer_kib, (long long)c->register_tile, c->elem);
        return RT_INFEASIBLE;
    }
    if (c->cluster != 1 && c->cluster != 2 && c->cluster != 4 && c->cluster != 8) {
        snprintf(why, whylen, "cluster=%lld must be 1, 2, 4 or 8 blocks", (long long)c->cluster);
        return RT_INFEASIBLE;
    }
    if (c->index_bytes == 2 && buffsize > PIPE_INDEX16_SLOTS) {
        snprintf(why, whylen,
                 "index_bytes=2 addresses %d shared slots, buffer_kib=%lld gives buffsize %lld",
                 PIPE_INDEX16_SLOTS, (long long)c->buffer_kib, (long long)buffsize);
        return RT_INFEASIBLE;
    }
    if (c->index_bytes == 2 && buffsize * c->cluster > PIPE_INDEX16_SLOTS) {
        snprintf(why, whylen,
                 "index_bytes=2 addresses %d shared slots, cluster=%lld blocks of buffsize %lld "
                 "(buffer_kib=%lld) stage %lld",
                 PIPE_INDEX16_SLOTS, (long long)c->cluster, (long long)buffsize,
                 (long long)c->buffer_kib, (long long)(buffsize * c->cluster));
        return RT_INFEASIBLE;
    }
    if (c->use_ell && c->block_size % PIPE_WARP_SIZE != 0) {
        snprintf(why, whylen, "staging=ell needs block_size to be a multiple of %d, not %lld",
                 PIPE_WARP_SIZE, (long long)c->block_size);
        return RT_INFEASIBLE;
    }
    const int warp = warp_rules(c, why, whylen);
    if (warp != 0)
        return warp;
    if (c->skew != 0 && c->skew != 1) {
        snprintf(why, whylen, "skew=%lld must be 0 or 1", (long long)c->skew);
        return RT_INFEASIBLE;
    }
    if (c->skew && (!c->row_major || c->warp_rows > 0)) {
        snprintf(why, whylen,
                 "skew=1 rotates a thread's reads along a row-major stage: it needs row-major B "
                 "and C and warp_rows=0 (here %s, warp_rows=%lld)",
                 c->row_major ? "row-major" : "column-major", (long long)c->warp_rows);
        return RT_INFEASIBLE;
    }
    if (c->tile_interleave != 0 && c->tile_interleave != 1) {
        snprintf(why, whylen, "tile_interleave=%lld must be 0 or 1", (long long)c->tile_interleave);
        return RT_INFEASIBLE;
    }
    if (c->swizzle != 0 && c->swizzle != 1) {
        snprintf(why, whylen, "swizzle=%lld must be 0 or 1", (long long)c->swizzle);
        return RT_INFEASIBLE;
    }
    if (c->swizzle) {
        const int64_t w = rt_tiled_pipe_vector_width(c);
        const int64_t chunks = w > 0 ? c->register_tile / w : 0;
        if (!c->row_major || c->warp_rows > 0 || c->skew || c->vector < 1 || w < 1 ||
            c->register_tile % w != 0 || chunks < 1 || (chunks & (chunks - 1)) != 0) {
            snprintf(why, whylen,
                     "swizzle=1 permutes the 16-byte chunks of row-major staged rows by XOR: it "
                     "needs row-major B and C, warp_rows=0, skew=0, vector 1 or 2 and "
                     "register_tile / %lld a power of two (here %s, warp_rows=%lld, skew=%lld, "
                     "vector=%lld, register_tile=%lld)",
                     (long long)w, c->row_major ? "row-major" : "column-major",
                     (long long)c->warp_rows, (long long)c->skew, (long long)c->vector,
                     (long long)c->register_tile);
            return RT_INFEASIBLE;
        }
    }
    if (c->bank_order && (!c->use_ell || (c->row_major && !c->swizzle) || c->warp_rows > 0)) {
        snprintf(why, whylen,
                 "nnz_order=banks orders ELL steps by the banks of a column-major stage (slot mod "
                 "32) or of a swizzled row-major one (swizzle=1: slot mod 8 per quarter-warp): it "
                 "needs staging=ell, warp_rows=0 and column-major B and C or swizzle=1 (here %s, "
                 "%s, swizzle=%lld, warp_rows=%lld)",
                 c->use_ell ? "ell" : "csr", c->row_major ? "row-major" : "column-major",
                 (long long)c->swizzle, (long long)c->warp_rows);
        return RT_INFEASIBLE;
    }
    if (c->cluster > 1 && c->bank_order) {
        snprintf(why, whylen,
                 "cluster=%lld with nnz_order=banks: the bank order colours cluster slots, whose "
                 "banks in the owner block's buffer are others (use nnz_order=columns)",
                 (long long)c->cluster);
        return RT_INFEASIBLE;
    }
    if (c->vector) {
        const int64_t w = rt_tiled_pipe_vector_width(c);
        if (!c->row_major) {
            snprintf(why, whylen,
                     "vector=%lld needs row-major B and C (a column-major stage gathers "
                     "single values of B)",
                     (long long)c->vector);
            return RT_INFEASIBLE;
        }
        if (c->register_tile % w != 0 || c->k % w != 0) {
            snprintf(why, whylen,
                     "vector=%lld moves %lld values at a time: register_tile=%lld and K=%lld "
                     "must both be multiples of %lld",
                     (long long)c->vector, (long long)w, (long long)c->register_tile,
                     (long long)c->k, (long long)w);
            return RT_INFEASIBLE;
        }
    }
    return 0;
}

int rt_tiled_pipe_feasible(const rt_tiled_pipe_config *c, const rt_device_info *dev, char *why,
                           size_t whylen)
{
    const int rc = shape_rules(c, why, whylen);
    if (rc != 0 || !dev)
        return rc;
    if (c->cluster > 1 && dev->cc_major < 9) {
        snprintf(why, whylen,
                 "cluster=%lld needs thread-block clusters (compute capability 9.0), the device "
                 "has %d.%d",
                 (long long)c->cluster, dev->cc_major, dev->cc_minor);
        return RT_INFEASIBLE;
    }
    const size_t dynamic = rt_tiled_pipe_dynamic_shared(c);
    if ((int64_t)dynamic > dev->max_shared_per_block_optin) {
        snprintf(why, whylen,
                 "n_buffers=%lld x buffer_kib=%lld (%zu bytes of staged B) exceeds the device's "
                 "opt-in limit of %lld bytes of shared memory per block",
                 (long long)c->n_buffers, (long long)c->buffer_kib, dynamic,
                 (long long)dev->max_shared_per_block_optin);
        return RT_INFEASIBLE;
    }
    const int64_t per_sm =
        c->blocks_per_sm * ((int64_t)dynamic + (int64_t)RT_TILED_PIPE_RESERVED_SHARED);
    if (dev->max_shared_per_sm > 0 && per_sm > dev->max_shared_per_sm) {
        snprintf(why, whylen,
                 "blocks_per_sm=%lld blocks of %zu bytes of shared memory (n_buffers=%lld x "
                 "buffer_kib=%lld, plus %d reserved each) need %lld bytes, an SM has %lld",
                 (long long)c->blocks_per_sm, dynamic, (long long)c->n_buffers,
                 (long long)c->buffer_kib, RT_TILED_PIPE_RESERVED_SHARED, (long long)per_sm,
                 (long long)dev->max_shared_per_sm);
        return RT_INFEASIBLE;
    }
    if (dev->max_threads_per_sm > 0 && c->blocks_per_sm * c->block_size > dev->max_threads_per_sm) {
        snprintf(why, whylen,
                 "blocks_per_sm=%lld blocks of block_size=%lld threads exceed the SM's %d threads",
                 (long long)c->blocks_per_sm, (long long)c->block_size, dev->max_threads_per_sm);
        return RT_INFEASIBLE;
    }
    return 0;
}
