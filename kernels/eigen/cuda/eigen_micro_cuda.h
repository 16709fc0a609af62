/* eigen_micro_cuda: the out-of-core microbenchmarks eigen.cuda.spmm_ooc and eigen.cuda.xty_ooc
 * (DeepSparseGPU, chapter 3, Figs. 3.7-3.9), for the eigen family's `solver: spmm` and `xty`
 * (eigen_micro.h).
 *
 * mode ooc: the operands stream through the GPU in row tiles of `tile` rows, on one stream or
 * two (tiles alternate, each stream with its own buffers, so tile i + 1's copies can overlap tile
 * i's compute); every copy and every compute step is bracketed by events, so the transfer and
 * compute time per kernel are measured, not modelled.
 *   spmm: X (n x block) is copied in once per run; per tile, its rows of A (packed CSR, int32)
 *         in, cusparseSpMM, its rows of Y out.
 *   xty:  per tile, its rows of X and Y in, cublasDgemm accumulating X_i' Y_i into a partial G
 *         per stream; the partials are summed on the device (cublasDgeam) and G copied out.
 * mode incore: the baseline: the operands are copied in at setup, a run is one cusparseSpMM (or
 * one cublasDgemm) over the whole operands, and the result is copied out for verification only.
 * Host buffers are pinned (cudaMallocHost) or pageable (malloc). Never managed memory. */
#ifndef EIGEN_MICRO_CUDA_H
#define EIGEN_MICRO_CUDA_H

#include "rt_cuda_catalog.h"
#include "rt_cuda_ctx.h"

void eg_micro_cuda_describe(const rt_cuda_catalog_entry *e, rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
