/* spmm.cuda.tiled_tma: the Tiled SpMM with Hopper's bulk copies (cp.async.bulk) of row-major B
 * into an mbarrier ring fed by a producer warp; see src/spmm_tiled_tma.cu and
 * kernels/spmm/spmm_tiled_tma_rules.h. */
#ifndef SPMM_CUDA_TILED_TMA_H
#define SPMM_CUDA_TILED_TMA_H

#include "spmm_cuda_common.h"

/* Its own hooks (spmm_cuda_describe.c makes the descriptor). */
extern const rt_spmm_cuda_hooks rt_spmm_cuda_tiled_tma_hooks;

#endif
