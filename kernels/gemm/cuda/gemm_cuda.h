/* The gemm family's GPU kernels (built into the CUDA plugin only):
 *   gemm_cuda_tiled.c   gemm.cuda.tiled: gemm_tiled.h's schedule on gemm_cuda_engine.h;
 *   gemm_cuda_blas.c    gemm.cuda.cublas (data on the GPU) and gemm.cuda.cublasxt (host data);
 *   gemm_cuda_describe.c the plugin entry point. */
#ifndef GEMM_CUDA_H
#define GEMM_CUDA_H

#include "rt_cuda_ctx.h"
#include "rt_registry.h"

void rt_gemm_cuda_tiled_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);
void rt_gemm_cuda_cublas_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);
void rt_gemm_cuda_cublasxt_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
