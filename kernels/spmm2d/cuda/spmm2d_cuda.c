#include "spmm2d_cuda.h"

#include "spmm_cuda_catalog.h"

void rt_spmm2d_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    rt_spmm_cuda_describe(rt_cuda_catalog_entry(RT_CUDA_CATALOG_SPMM2D_FIRST + index), d);
    d->unavailable = "not implemented yet";
    (void)ctx;
}
