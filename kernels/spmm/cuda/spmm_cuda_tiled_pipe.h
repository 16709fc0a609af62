/* spmm.cuda.tiled_pipe: Tiled SpMM for Hopper (cp.async multi-buffered staging of B, block rows
 * split over several blocks, 16-byte vectors); see src/spmm_tiled_pipe.cu and
 * kernels/spmm/spmm_tiled_pipe_rules.h. */
#ifndef SPMM_CUDA_TILED_PIPE_H
#define SPMM_CUDA_TILED_PIPE_H

#include "spmm_cuda_common.h"

/* Its own hooks (spmm_cuda_describe.c makes the descriptor). */
extern const rt_spmm_cuda_hooks rt_spmm_cuda_tiled_pipe_hooks;

#endif
