/* spmm.cuda.cusparse: cusparseSpMM with a chosen algorithm and sparse format. */
#ifndef SPMM_CUDA_CUSPARSE_H
#define SPMM_CUDA_CUSPARSE_H

#include "rt_cuda_ctx.h"
#include "rt_registry.h"

/* Fills d with the catalog entry of spmm.cuda.cusparse and its hooks; backend_ctx = ctx. */
void rt_spmm_cuda_cusparse_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
