/* spmm_tiled: the preprocessing of Tiled SpMM (Hidayetoglu, thesis proposal, sections 2.3-2.4):
 * a plan that stages, for every thread block of `block_size` rows, the rows of B its nonzeros
 * touch into a shared-memory buffer of `buffsize` slots, in as many stages as needed, and rewrites
 * A's column indices as offsets into that buffer.
 *
 * Construction, per block b (rows [b * block_size, (b+1) * block_size)):
 *   1. footprint: the distinct columns the block's nonzeros touch, in increasing order;
 *   2. stages: the footprint cut into consecutive chunks of at most buffsize columns; stage s
 *      stages column map[mapdispl[s] + i] at shared slot i;
 *   3. entries: each nonzero (r, c) goes to the stage that stages c, with index = slot of c.
 *      Within a (stage, row) the entries keep A's column order, and stages follow the column
 *      order, so every row is accumulated in the same order as A's CSR.
 * Stage storage is either ELL padded per (stage, warp) to the warp's longest row in that stage
 * (coalesced on a GPU; padding is value 0, index 0 unless bank_order says otherwise) or CSR per
 * (stage, row).
 *
 * The plan is plain host memory in 64-bit counts, built in O(nnz log) time with OpenMP over
 * blocks and O(nnz) extra memory; the CUDA kernel copies it to the device. */
#ifndef SPMM_TILED_H
#define SPMM_TILED_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_metrics.h"

typedef struct rt_tiled_params {
    int block_size;   /* threads = rows per thread block */
    int64_t buffsize; /* shared-memory slots per stage (per B column) */
    int warp_size;    /* 32 */
    int use_ell;      /* 1: per (stage, warp) ELL padded to the warp's longest row; 0: CSR per
                         (stage,row) */
    int index_bytes;  /* 2: uint16 shared offsets (requires buffsize <= 65536), 4: int32 */
    int bank_order;   /* ELL only. 0: a lane takes its row's nonzeros in A's column order (the
                         paper's plan); 1: the slice's entries are ordered so that the lanes of
                         every ELL row read slots in different banks of feature-major stages
                         (slot mod 32 distinct; spmm_bank_order.h), in as few ELL rows as that
                         allows: the longest row or the most nonzeros on one bank, whichever is
                         more. Padding then repeats a slot another lane of the row reads (a
                         broadcast, not a conflict). Rows are summed in another order. */
    int bank_lanes;   /* with bank_order = 1: the lanes that share one pass of shared memory.
                         0 or 32: 4-byte reads, the whole warp in one pass, keys slot mod 32
                         (feature-major stages). 8: 16-byte reads of slot-major stages whose
                         16-byte chunks are XOR-swizzled so that a slot's chunk q lies in bank
                         group slot mod 8 (spdnn_fused.cu's slot_xor): a warp reads in four passes
                         of 8 lanes, and the key of lane l is (l / 8, slot mod 8). Padding repeats
                         a slot its pass reads. */
} rt_tiled_params;

typedef struct rt_tiled_plan {
    int64_t rows, cols, nnz;
    rt_tiled_params p;
    int64_t nblocks;    /* ceil(rows / block_size) */
    int64_t nstages;    /* total stages over all blocks */
    int64_t *buffdispl; /* nblocks+1: block b owns stages [buffdispl[b], buffdispl[b+1]) */
    int64_t *mapdispl;  /* nstages+1: stage s stages map[mapdispl[s] .. mapdispl[s+1]) */
    int32_t *map;       /* global column of B staged at shared slot (i - mapdispl[s]) */
    /* ELL (use_ell=1): warps_per_block = block_size / warp_size (block_size must be a multiple
       of warp_size); slice w = s * warps_per_block + warp_in_block; ELL rows m in
       [displ[w], displ[w+1]); entry (m, lane) at m * warp_size + lane. NULL when use_ell = 0. */
    int64_t *displ; /* nstages * warps_per_block + 1 */
    /* CSR (use_ell=0): row r of block b in stage s: entries [rowdispl[s*block_size + (r -
       b*block_size)], ... +1). NULL when use_ell = 1. */
    int64_t *rowdispl; /* nstages * block_size + 1 */
    int64_t stored;    /* entries including padding */
    uint16_t
        *index16; /* stored entries when index_bytes == 2: offset into the stage's shared slots */
    int32_t *index32; /* when index_bytes == 4 (the other one is NULL) */
    double *value;    /* stored entries; padding: value 0 (index 0, or with bank_order = 1 the
                         index of another entry of its ELL row) */
    /* Added beyond the shared contract: */
    int64_t warps_per_block; /* block_size / warp_size for ELL, 0 for CSR */
    int64_t nmap;            /* mapdispl[nstages]: staged B rows per B column, over all stages */
    int64_t max_stages;      /* most stages of any block */
} rt_tiled_plan;

/* The part of a plan that does not depend on buffsize (nor on the storage, the index width or the
 * bank order): for blocks of block_size rows, each block's footprint (the distinct columns its
 * nonzeros touch, in increasing order) and each nonzero's slot in its block's footprint. A plan's
 * map is the footprints one after another, cut into stages of buffsize; an entry's stage and
 * index are its slot / buffsize and slot % buffsize. A sweep over register_tile (hence buffsize)
 * builds them once per matrix and block size; a plan from them is the same plan, array for array,
 * as rt_tiled_plan_build's (kernels.tiled_plan checks it). Host memory: 8 bytes per nonzero at
 * most. */
typedef struct rt_tiled_footprints {
    int64_t rows, cols, nnz; /* of the matrix they were built from */
    int block_size;
    int64_t nblocks;
    int64_t *start; /* nblocks+1: block b's footprint is fp[start[b] .. start[b+1]) */
    int32_t *fp;    /* every block's footprint */
    int32_t *pos;   /* nnz: nonzero e's slot in its block's footprint */
    int64_t max_fp; /* the largest footprint */
} rt_tiled_footprints;

/* Validates a and builds its footprints for blocks of block_size rows (>= 1). On failure *out is
 * left empty (safe to free). */
int rt_tiled_footprints_build(const rt_csr *a, int block_size, rt_tiled_footprints *out,
                              rt_err *err);
void rt_tiled_footprints_free(rt_tiled_footprints *f);

/* rt_tiled_plan_build from footprints of a (rt_tiled_footprints_build's, which validated a; the
 * caller makes sure they are this matrix's, e.g. by rt_tiled_pattern_fingerprint): the same
 * parameter checks, then footprints of another shape or block size are refused. */
int rt_tiled_plan_build_with(const rt_csr *a, const rt_tiled_params *p,
                             const rt_tiled_footprints *f, rt_tiled_plan *out, rt_err *err);

/* Builds the plan of a (validated first) under p. Rejects impossible parameters with a message
 * naming the parameter: block_size or warp_size < 1, block_size not a multiple of warp_size with
 * use_ell = 1, use_ell not 0/1, buffsize < 1 or > 2^31-1, index_bytes not 2 or 4, index_bytes 2
 * with buffsize > 65536. On failure *out is left empty (safe to free). */
int rt_tiled_plan_build(const rt_csr *a, const rt_tiled_params *p, rt_tiled_plan *out, rt_err *err);
void rt_tiled_plan_free(rt_tiled_plan *plan);

/* Every nonzero of a appears exactly once with the right value, every staged index < the
 * stage's slot count, every map entry a valid column, staged columns distinct within a stage.
 * Also checks the shape of every array (offsets start at 0, never decrease, end at their
 * totals), that rows past the end of a hold nothing but padding, and that a stage never has more
 * than buffsize slots. In ELL mode an entry of value 0 at index 0 (at any index with
 * bank_order = 1) counts as padding unless a zero stored in a at that column is still unmatched:
 * the two are numerically the same. */
int rt_tiled_plan_verify(const rt_tiled_plan *plan, const rt_csr *a, rt_err *err);

/* Plan facts, all deterministic: padding_overhead (stored / nnz - 1), stages, blocks,
 * stages_per_block_avg, stages_per_block_max, reuse_factor (nnz / staged entries: how often a
 * staged value of B is used), staged_entries (B rows staged per B column, all stages),
 * staged_bytes (the same in bytes at the plan's 8-byte values, per B column; a kernel multiplies
 * by K and its precision's size / 8), plan_bytes (host memory of the plan's arrays). */
void rt_tiled_plan_metrics(const rt_tiled_plan *plan, rt_metrics *m);

/* A fingerprint of a's pattern (row offsets and column indices, not the values): what keys the
 * plan facts a CUDA context remembers between the points of a sweep, so that a different matrix
 * never meets another's facts. Only ever compared within one process, never stored: word-wise
 * and over threads (a point's setup and its traffic model each take one, of 8-12 bytes per
 * nonzero), the same value whatever the number of threads. */
uint64_t rt_tiled_pattern_fingerprint(const rt_csr *a);

#endif
