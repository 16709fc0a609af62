/* spmm.cuda.csr: CSR, one thread per row, register-tiled over K. */
#ifndef SPMM_CUDA_CSR_H
#define SPMM_CUDA_CSR_H

#include "rt_cuda_ctx.h"
#include "rt_registry.h"

/* Fills d with the catalog entry of spmm.cuda.csr and its hooks; backend_ctx = ctx. */
void rt_spmm_cuda_csr_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
