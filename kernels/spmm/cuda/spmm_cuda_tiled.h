/* spmm.cuda.tiled: Tiled SpMM (multi-stage shared-memory staging of B, register tiling). */
#ifndef SPMM_CUDA_TILED_H
#define SPMM_CUDA_TILED_H

#include "rt_cuda_ctx.h"
#include "rt_registry.h"

/* Fills d with the catalog entry of spmm.cuda.tiled and its hooks; backend_ctx = ctx. */
void rt_spmm_cuda_tiled_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
