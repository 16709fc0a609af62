/* spmm_tiled_pipe_rules: which points of spmm.cuda.tiled_pipe a device can run, and the shared
 * memory each one uses. Plain C (no CUDA), so the rules are tested on any machine and the plugin
 * applies exactly the same ones before it compiles or launches anything.
 *
 * The kernel (kernels/spmm/cuda/src/spmm_tiled_pipe.cu) stages B through n_buffers shared-memory
 * buffers of buffer_kib KiB each (cp.async, the next stages copied while the current one is
 * consumed), asks for blocks_per_sm resident blocks per SM, splits each block row's stages over
 * stage_split blocks (partial sums added into a zeroed C) and, with vector = 1 or 2, copies B
 * (and with 2 stores C) in 16-byte vectors. */
#ifndef SPMM_TILED_PIPE_RULES_H
#define SPMM_TILED_PIPE_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "rt_device.h"

typedef struct rt_tiled_pipe_config {
    int64_t block_size;    /* threads = rows of A per block */
    int64_t buffer_kib;    /* shared memory per buffer */
    int64_t n_buffers;     /* 1: stage then compute; 2, 3: the next stages copied meanwhile */
    int64_t blocks_per_sm; /* resident blocks asked of every SM (launch bounds) */
    int64_t register_tile; /* columns of C per thread */
    int64_t stage_split;   /* blocks sharing one block row's stages */
    int64_t vector;        /* 1: 16-byte copies of B; 2: and 16-byte stores of C */
    int64_t index_bytes;   /* 2 or 4 */
    int use_ell;           /* ELL staging needs whole warps */
    int64_t k;             /* columns of B and C */
    size_t elem;           /* bytes per value: 4 or 8 */
    int row_major;         /* layout of B and C */
} rt_tiled_pipe_config;

/* Bytes of shared memory the hardware keeps per resident block beside the dynamic allocation
 * (cudaDevAttrReservedSharedMemoryPerBlock is 1 KiB on sm_80 and sm_90). */
#define RT_TILED_PIPE_RESERVED_SHARED 1024

/* Staged B rows per buffer (buffer_kib * 1024 / (register_tile * elem)). */
int64_t rt_tiled_pipe_buffsize(const rt_tiled_pipe_config *c);
/* Dynamic shared memory of one block: n_buffers * buffsize * register_tile * elem. */
size_t rt_tiled_pipe_dynamic_shared(const rt_tiled_pipe_config *c);
/* Values per 16-byte vector: 4 (fp32) or 2 (fp64). */
int64_t rt_tiled_pipe_vector_width(const rt_tiled_pipe_config *c);

/* 0 when the point can run, RT_INFEASIBLE with the reason in why (naming the parameters) when it
 * cannot: a buffer that holds no staged row, 2-byte indices over 65536 slots, ELL staging with a
 * partial warp, vectors on column-major data or with register_tile or K not a multiple of the
 * vector width, and, when dev is given, shared memory past the per-block opt-in or past the SM's
 * capacity for blocks_per_sm blocks, or more threads than an SM holds. */
int rt_tiled_pipe_feasible(const rt_tiled_pipe_config *c, const rt_device_info *dev, char *why,
                           size_t whylen);

#endif
