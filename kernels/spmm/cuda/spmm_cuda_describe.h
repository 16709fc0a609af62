/* spmm_cuda_describe: the spmm family's CUDA kernels as runnable descriptors (plugin only). */
#ifndef SPMM_CUDA_DESCRIBE_H
#define SPMM_CUDA_DESCRIBE_H

#include "rt_cuda_ctx.h"
#include "rt_registry.h"

/* Fills d for catalog entry `index` (rt_spmm_cuda_kind) with the plugin's context. */
void rt_spmm_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
