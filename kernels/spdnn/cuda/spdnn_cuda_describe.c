/* The spdnn family's CUDA entry point for the plugin (kernels/rt_family_list.h). */
#include "spdnn_cuda.h"
#include "spdnn_cuda_catalog.h"

void rt_spdnn_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    switch (index) {
    case RT_SPDNN_CUDA_KIND_FUSED: rt_spdnn_cuda_fused_describe(d, ctx); break;
    case RT_SPDNN_CUDA_KIND_CUSPARSE: rt_spdnn_cuda_cusparse_describe(d, ctx); break;
    default: break;
    }
}
