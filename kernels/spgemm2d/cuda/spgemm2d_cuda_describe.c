/* The spgemm2d family's CUDA entry point for the plugin (kernels/rt_family_list.h): catalog index
 * to runnable descriptor, through the shared 2D GPU engine. */
#include "spgemm2d_cuda_catalog.h"
#include "sp2_cuda_engine.h"

void rt_spgemm2d_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    int n = 0;
    const rt_cuda_catalog_entry *table = rt_spgemm2d_cuda_catalog(&n);
    sp2_cuda_describe(rt_cuda_catalog_at(table, n, index), d, ctx);
}
