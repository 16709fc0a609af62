/* The sptrsv family's CUDA entry point for the plugin (kernels/rt_family_list.h). */
#include "sptrsv_cuda.h"
#include "sptrsv_cuda_catalog.h"

void rt_sptrsv_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    switch (index) {
    case RT_SPTRSV_CUDA_KIND_CUSPARSE: rt_sptrsv_cuda_cusparse_describe(d, ctx); break;
    case RT_SPTRSV_CUDA_KIND_LEVELSET: rt_sptrsv_cuda_levelset_describe(d, ctx); break;
    case RT_SPTRSV_CUDA_KIND_SYNCFREE: rt_sptrsv_cuda_syncfree_describe(d, ctx); break;
    case RT_SPTRSV_CUDA_KIND_SUPERNODAL: rt_sptrsv_cuda_supernodal_describe(d, ctx); break;
    case RT_SPTRSV_CUDA_KIND_DISTRIBUTED: rt_sptrsv_cuda_dist_describe(d, ctx); break;
    case RT_SPTRSV_CUDA_KIND_PERSISTENT: rt_sptrsv_cuda_persistent_describe(d, ctx); break;
    default: break;
    }
}
