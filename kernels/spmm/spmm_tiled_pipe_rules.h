/* spmm_tiled_pipe_rules: which points of spmm.cuda.tiled_pipe a device can run, and the shared
 * memory each one uses. Plain C (no CUDA), so the rules are tested on any machine and the plugin
 * applies exactly the same ones before it compiles or launches anything.
 *
 * The kernel (kernels/spmm/cuda/src/spmm_tiled_pipe.cu) stages B through n_buffers shared-memory
 * buffers of buffer_kib KiB each (cp.async, the next stages copied while the current one is
 * consumed), asks for blocks_per_sm resident blocks per SM, splits each block row's stages over
 * stage_split blocks (partial sums added into a zeroed C) and, with vector = 1 or 2, copies B
 * (and with 2 stores C) in 16-byte vectors.
 *
 * Two mappings of threads to C. warp_rows = 0 is Listing 1's: each thread owns one row of C and
 * register_tile of its columns, so the lanes of a warp read 32 different staged rows of B at the
 * same column, and row-major stages put them in one shared-memory bank. warp_rows > 0: each warp
 * owns warp_rows rows of C and its lanes split the register_tile columns, lane_values each, so
 * register_tile / lane_values lanes read one staged row (contiguous, conflict-free) and a warp
 * takes 32 * lane_values / register_tile nonzeros of a row at a time; their partial sums meet by
 * warp shuffles once per row and stage. A block of block_size threads then covers
 * block_size / 32 * warp_rows rows of A (the plan's block rows). With a thread per row, skew = 1
 * has each lane start its register tile at a chunk rotated by its lane index, so the lanes of a
 * quarter-warp read different banks of a row-major stage; swizzle = 1 instead keeps each staged
 * row's 16-byte chunks XOR-swizzled so that chunk q of a slot lies in bank group slot mod 8, and
 * nnz_order = banks then orders every ELL step so that each quarter-warp reads 8 slots of
 * distinct slot mod 8 (the plan's bank_lanes 8): conflict-free 16-byte reads. cluster = 2, 4 or 8
 * groups that many consecutive row blocks into a thread-block cluster that stages the union of
 * their footprints once per stage, each block a share, read across the cluster through
 * distributed shared memory (spmm_tiled_cluster.h). */
#ifndef SPMM_TILED_PIPE_RULES_H
#define SPMM_TILED_PIPE_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "rt_device.h"

typedef struct rt_tiled_pipe_config {
    int64_t block_size;      /* threads per block (= rows of A per block when warp_rows is 0) */
    int64_t buffer_kib;      /* shared memory per buffer */
    int64_t n_buffers;       /* 1: stage then compute; 2, 3: the next stages copied meanwhile */
    int64_t blocks_per_sm;   /* resident blocks asked of every SM (launch bounds) */
    int64_t register_tile;   /* columns of C per thread */
    int64_t stage_split;     /* blocks sharing one block row's stages */
    int64_t vector;          /* 1: 16-byte copies of B; 2: and 16-byte stores of C */
    int64_t index_bytes;     /* 2 or 4 */
    int64_t warp_rows;       /* 0: a thread per row of C; else rows of C per warp */
    int64_t lane_values;     /* warp_rows > 0: columns of C per lane per nonzero (1, 2 or 4) */
    int64_t skew;            /* 1: lanes start their register tiles at rotated chunks */
    int64_t swizzle;         /* 1: a staged row's 16-byte chunks XOR-swizzled (row-major) */
    int64_t tile_interleave; /* 1: a block row's register tiles adjacent along grid.x */
    int64_t bank_order;      /* 1: each warp's ELL steps ordered by the banks of a column-major
                                stage, or with swizzle of a swizzled row-major one (spmm_tiled.h
                                bank_order, bank_lanes) */
    int64_t cluster;         /* blocks per thread-block cluster sharing staged rows (1: none) */
    int use_ell;             /* ELL staging needs whole warps */
    int64_t k;               /* columns of B and C */
    size_t elem;             /* bytes per value: 4 or 8 */
    int row_major;           /* layout of B and C */
} rt_tiled_pipe_config;

/* Bytes of shared memory the hardware keeps per resident block beside the dynamic allocation
 * (cudaDevAttrReservedSharedMemoryPerBlock is 1 KiB on sm_80 and sm_90). */
#define RT_TILED_PIPE_RESERVED_SHARED 1024

/* Staged B rows per buffer (buffer_kib * 1024 / (register_tile * elem)). */
int64_t rt_tiled_pipe_buffsize(const rt_tiled_pipe_config *c);
/* Dynamic shared memory of one block: n_buffers * buffsize * register_tile * elem. */
size_t rt_tiled_pipe_dynamic_shared(const rt_tiled_pipe_config *c);
/* Rows of A per block: block_size, or block_size / 32 * warp_rows (the plan's block size is this
 * times cluster). */
int64_t rt_tiled_pipe_plan_rows(const rt_tiled_pipe_config *c);
/* Values per 16-byte vector: 4 (fp32) or 2 (fp64). */
int64_t rt_tiled_pipe_vector_width(const rt_tiled_pipe_config *c);

/* 0 when the point can run, RT_INFEASIBLE with the reason in why (naming the parameters) when it
 * cannot: a buffer that holds no staged row, 2-byte indices over 65536 slots, ELL staging with a
 * partial warp, vectors on column-major data or with register_tile or K not a multiple of the
 * vector width, a warp mapping (warp_rows > 0) without CSR staging, with register_tile not a
 * multiple of 32, with lane_values that do not split register_tile into whole warps' worth of
 * lanes or pass 16 bytes, or with vector 2 (its C stores are per lane), skew on column-major
 * data or with the warp mapping, swizzle on column-major data, with the warp mapping, with skew,
 * without 16-byte copies (vector 0) or with register_tile / the vector width not a power of two,
 * bank_order without ELL staging, on row-major data without swizzle or with the warp mapping,
 * tile_interleave other than 0 or 1, cluster other than 1, 2, 4 or 8, cluster > 1 with
 * nnz_order banks (the order colours cluster slots, not the owner's banks) or with 2-byte indices
 * past 65536 cluster slots (cluster x buffsize), and, when dev is given,
 * shared memory past the per-block opt-in or past the SM's capacity for blocks_per_sm blocks,
 * more threads than an SM holds, or cluster > 1 below compute capability 9.0. Whether a cluster's
 * blocks fit a GPC together is the driver's to say (cuOccupancyMaxActiveClusters, asked by the
 * plugin once the variant is compiled). */
int rt_tiled_pipe_feasible(const rt_tiled_pipe_config *c, const rt_device_info *dev, char *why,
                           size_t whylen);

#endif
