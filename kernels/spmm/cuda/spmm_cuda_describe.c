/* The spmm family's CUDA entry point for the plugin (kernels/rt_family_list.h): catalog index to
 * runnable descriptor. */
#include "spmm_cuda_describe.h"

#include "spmm_cuda_catalog.h"
#include "spmm_cuda_csr.h"
#include "spmm_cuda_cusparse.h"
#include "spmm_cuda_ell.h"
#include "spmm_cuda_tiled.h"
#include "spmm_cuda_tiled_pipe.h"

void rt_spmm_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    switch (index) {
    case RT_SPMM_CUDA_KIND_CSR: rt_spmm_cuda_csr_describe(d, ctx); break;
    case RT_SPMM_CUDA_KIND_ELL: rt_spmm_cuda_ell_describe(d, ctx); break;
    case RT_SPMM_CUDA_KIND_TILED: rt_spmm_cuda_tiled_describe(d, ctx); break;
    case RT_SPMM_CUDA_KIND_CUSPARSE: rt_spmm_cuda_cusparse_describe(d, ctx); break;
    case RT_SPMM_CUDA_KIND_TILED_PIPE: rt_spmm_cuda_tiled_pipe_describe(d, ctx); break;
    default: break;
    }
}
