/* spmm.cuda.tiled_pipe: Tiled SpMM for Hopper (cp.async multi-buffered staging of B, block rows
 * split over several blocks, 16-byte vectors); see src/spmm_tiled_pipe.cu and
 * kernels/spmm/spmm_tiled_pipe_rules.h. */
#ifndef SPMM_CUDA_TILED_PIPE_H
#define SPMM_CUDA_TILED_PIPE_H

#include "rt_cuda_ctx.h"
#include "rt_registry.h"

/* Fills d with the catalog entry of spmm.cuda.tiled_pipe and its hooks; backend_ctx = ctx. */
void rt_spmm_cuda_tiled_pipe_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
