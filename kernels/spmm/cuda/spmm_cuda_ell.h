/* spmm.cuda.ell: warp-sliced ELL (slices of 32 rows), one thread per row. */
#ifndef SPMM_CUDA_ELL_H
#define SPMM_CUDA_ELL_H

#include "rt_cuda_ctx.h"
#include "rt_registry.h"

/* Fills d with the catalog entry of spmm.cuda.ell and its hooks; backend_ctx = ctx. */
void rt_spmm_cuda_ell_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
