/* The gemm family's CUDA entry point for the plugin (kernels/rt_family_list.h). */
#include "gemm_cuda.h"
#include "gemm_cuda_catalog.h"

void rt_gemm_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    switch (index) {
    case RT_GEMM_CUDA_KIND_TILED: rt_gemm_cuda_tiled_describe(d, ctx); break;
    case RT_GEMM_CUDA_KIND_CUBLAS: rt_gemm_cuda_cublas_describe(d, ctx); break;
    case RT_GEMM_CUDA_KIND_CUBLASXT: rt_gemm_cuda_cublasxt_describe(d, ctx); break;
    default: break;
    }
}
