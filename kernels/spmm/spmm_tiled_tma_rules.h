/* spmm_tiled_tma_rules: which points of spmm.cuda.tiled_tma a device can run, its shared-memory
 * layout, and how many bulk copies a stage of the plan costs. Plain C (no CUDA), so the rules and
 * the layout are tested on any machine and the plugin applies exactly the same ones before it
 * compiles or launches anything.
 *
 * The kernel (kernels/spmm/cuda/src/spmm_tiled_tma.cu) runs Listing 1's plan (spmm_tiled.h) a
 * thread per row of C and stages B with Hopper's bulk copies (cp.async.bulk): each staged row of
 * row-major B, register_tile values, is one copy into a ring of n_buffers shared-memory buffers,
 * and the copies of a stage complete on the buffer's mbarrier, which counts their bytes. A
 * producer warp (producer = 1, one warp beside the block_size consumer threads) or warp 0 of the
 * consumers (producer = 0) issues them; merge_runs = 1 copies runs of consecutive staged columns
 * as one copy (whole rows only: register_tile = K); skew = 1 rotates each lane's walk along its
 * register tile by 16-byte chunks; c_store = bulk stages each warp's tile of C in shared memory
 * and bulk-copies it to C (one copy per warp when the tile is the whole row), c_store = direct
 * stores it with 16-byte vectors; tile_interleave as spmm.cuda.tiled_pipe.
 *
 * A bulk copy moves a multiple of 16 bytes between 16-byte aligned addresses: the rows of B and
 * C (K values) and the staged rows (register_tile values) must be 16-byte multiples, so only
 * row-major data with K and register_tile multiples of 4 (fp32) or 2 (fp64) values runs. */
#ifndef SPMM_TILED_TMA_RULES_H
#define SPMM_TILED_TMA_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "rt_device.h"

typedef struct rt_tiled_tma_config {
    int64_t block_size;      /* consumer threads = rows of A per block */
    int64_t buffer_kib;      /* shared memory per stage buffer */
    int64_t n_buffers;       /* buffers of the ring, 1 to 4 */
    int64_t producer;        /* 1: a producer warp beside the consumers; 0: warp 0 copies too */
    int64_t blocks_per_sm;   /* resident blocks asked of every SM (launch bounds) */
    int64_t register_tile;   /* columns of C per thread */
    int64_t merge_runs;      /* 1: a run of consecutive staged columns is one copy */
    int64_t skew;            /* 1: lanes start their register tiles at rotated chunks */
    int64_t c_bulk;          /* 1: C through shared memory and bulk copies (c_store = bulk) */
    int64_t tile_interleave; /* 1: a block row's register tiles adjacent along grid.x */
    int64_t index_bytes;     /* 2 or 4 */
    int use_ell;             /* ELL staging (needs whole warps: block_size a multiple of 32) */
    int64_t k;               /* columns of B and C */
    size_t elem;             /* bytes per value: 4 or 8 */
    int row_major;           /* layout of B and C */
} rt_tiled_tma_config;

/* Bulk copies move multiples of this many bytes between addresses aligned to it. */
#define RT_TILED_TMA_ALIGN 16
/* An mbarrier phase counts at most this many bytes of copies (its tx-count is 20 bits). */
#define RT_TILED_TMA_MAX_TX ((1 << 20) - 1)
/* Bytes of shared memory the hardware keeps per resident block beside the dynamic allocation. */
#define RT_TILED_TMA_RESERVED_SHARED 1024
/* Slots per window of the producer's run search (one warp-wide ballot). */
#define RT_TILED_TMA_RUN_WINDOW 32

/* The dynamic shared memory of one block, in the kernel's order: the stage buffers, the C area
 * (c_bulk: block_size x register_tile values), then the n_buffers full and n_buffers empty
 * mbarriers (8 bytes each). Every offset is a multiple of 16 where the rules hold. */
typedef struct rt_tiled_tma_layout {
    int64_t buffsize;      /* staged rows of B per buffer */
    size_t row_bytes;      /* a staged row: register_tile x elem */
    size_t buffer_bytes;   /* buffsize x row_bytes */
    size_t c_offset;       /* n_buffers x buffer_bytes */
    size_t c_bytes;        /* block_size x row_bytes with c_bulk, else 0 */
    size_t barrier_offset; /* c_offset + c_bytes */
    size_t total;          /* barrier_offset + 2 x n_buffers x 8 */
    int64_t threads;       /* block_size + 32 x producer */
} rt_tiled_tma_layout;

/* The layout of c (zeros where a count is not positive). */
rt_tiled_tma_layout rt_tiled_tma_layout_of(const rt_tiled_tma_config *c);

/* 0 when the point can run, RT_INFEASIBLE with the reason in why (naming the parameter) when it
 * cannot: column-major data, K or register_tile not a multiple of 16 bytes of values, a block
 * that is not whole warps or has more than 1024 threads with its producer warp, n_buffers outside
 * 1..4, producer, merge_runs, skew, c_bulk or tile_interleave outside 0..1, merge_runs with a
 * register tile that is not the whole row (register_tile != K), skew with a register tile of one
 * chunk (it would rotate nothing), a buffer that holds no staged row or more bytes than an
 * mbarrier phase counts, 2-byte indices past 65536 slots, index_bytes other than 2 or 4, and,
 * when dev is given, compute capability below 9.0, shared memory past the per-block opt-in or past
 * the SM's capacity for blocks_per_sm blocks, or more threads than an SM holds. */
int rt_tiled_tma_feasible(const rt_tiled_tma_config *c, const rt_device_info *dev, char *why,
                          size_t whylen);

/* The bulk copies the producer issues for one stage whose staged columns are map[0 .. n) (the
 * plan's map, ascending): n, or with merge one per run of consecutive columns within each window
 * of RT_TILED_TMA_RUN_WINDOW slots, as the kernel's ballot finds them. With runs non-NULL, the
 * length of each copy in staged rows is written there (at most n of them). */
int64_t rt_tiled_tma_stage_copies(const int32_t *map, int64_t n, int merge, int64_t *runs);

#endif
