/* The gemm family's GPU kernels (built into the CUDA plugin only):
 *   gemm_cuda_tiled.c   gemm.cuda.tiled: gemm_tiled.h's schedule on gemm_cuda_engine.h;
 *   gemm_cuda_blas.c    gemm.cuda.cublas (data on the GPU) and gemm.cuda.cublasxt (host data);
 *   gemm_cuda_describe.c the plugin entry point. */
#ifndef GEMM_CUDA_H
#define GEMM_CUDA_H

#include "gemm_family.h"
#include "rt_cuda_ctx.h"
#include "rt_registry.h"

/* The flops of a GEMM point's roofline bound: cuBLAS DGEMM runs on the FP64 tensor cores of
 * compute capability 8.0 and later (67 TFLOP/s on an H100 against the FMA pipes' 34), so the
 * traffic says so (fp64_tensor) and the bound uses the machine's fp64_tensor_gflops (leaving the
 * term out on a machine without one); FP32 and older GPUs use the FMA peak. */
static inline void gemm_cuda_flops_model(const gemm_inputs *in, const rt_device_info *dev,
                                         rt_traffic *t)
{
    t->fp64_tensor = in->prec == RT_FP64 && dev && dev->cc_major >= 8;
}

void rt_gemm_cuda_tiled_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);
void rt_gemm_cuda_cublas_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);
void rt_gemm_cuda_cublasxt_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
