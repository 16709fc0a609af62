/* sptrsv_cuda: the descriptors of the sptrsv family's GPU kernels (built into the CUDA plugin
 * only), one file each:
 *   sptrsv.cuda.cusparse  sptrsv_cuda_cusparse.c  cusparseSpSV, the library baseline
 *   sptrsv.cuda.levelset  sptrsv_cuda_levelset.c  one launch per level of the row DAG
 *   sptrsv.cuda.syncfree  sptrsv_cuda_syncfree.c  one launch, per-row ready flags
 *   sptrsv.cuda.supernodal sptrsv_cuda_supernodal.c one launch, a block per supernode, counters
 *   sptrsv.cuda.distributed sptrsv_cuda_dist.c     one rank per GPU, the CPU solve's messages
 *   sptrsv.cuda.persistent sptrsv_cuda_persistent.c one persistent kernel per GPU, IPC signals */
#ifndef SPTRSV_CUDA_H
#define SPTRSV_CUDA_H

#include "rt_cuda_ctx.h"
#include "rt_registry.h"

/* Catalog index (sptrsv_cuda_catalog.h) to runnable descriptor. */
void rt_sptrsv_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx);

void rt_sptrsv_cuda_cusparse_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);
void rt_sptrsv_cuda_levelset_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);
void rt_sptrsv_cuda_syncfree_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);
void rt_sptrsv_cuda_supernodal_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);
void rt_sptrsv_cuda_dist_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);
void rt_sptrsv_cuda_persistent_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
