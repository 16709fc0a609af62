#include "dspmm_cuda_sender.h"

#include "spmm_cuda_catalog.h"

void rt_dspmm_cuda_sender_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    rt_spmm_cuda_describe(rt_cuda_catalog_entry(RT_CUDA_CATALOG_DSPMM_SENDER), d);
    d->unavailable = "not implemented yet";
    (void)ctx;
}
