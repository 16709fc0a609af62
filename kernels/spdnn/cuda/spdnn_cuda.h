/* spdnn_cuda: the CUDA kernels of the "spdnn" family (kernels/spdnn/spdnn_family.h), one sparse
 * DNN inference (every layer, with compaction of dead features) per execution, timed with device
 * events around the whole inference:
 *
 *   spdnn.cuda.fused     per layer one launch of src/spdnn_fused.cu: the Tiled SpMM (the plan of
 *                        kernels/spmm/spmm_tiled.h over W_l^T, built once per layer at setup)
 *                        fused with bias, clamped ReLU and liveness flags; the next layer reads
 *                        the survivors through a list (no copy). Parameters as spmm.cuda.tiled:
 *                        block_size, shared_kib, register_tile (features per thread),
 *                        min_blocks, staging, index_bytes, allow_spills.
 *   spdnn.cuda.cusparse  per layer cusparseSpMM on W_l^T (CSR, COO or Blocked-ELL), then a
 *                        separate bias + ReLU kernel, and a gather of the survivors into a dense
 *                        block for the next SpMM (cuSPARSE reads dense operands only): the
 *                        baseline of the thesis's Fig. 2(b). Parameters: alg (every cuSPARSE
 *                        SpMM algorithm), layout (col|row: the features column- or row-major),
 *                        ell_block.
 * Both compact the live features between layers on the device (spdnn_cuda_common.h).
 * Metrics: categories, layers_run, feature_layers (deterministic), preprocess_s; the fused
 * kernel adds its plans' facts summed over the layers and its variant's registers, spills and
 * occupancy. */
#ifndef SPDNN_CUDA_H
#define SPDNN_CUDA_H

#include "rt_cuda_ctx.h"
#include "rt_registry.h"

void rt_spdnn_cuda_fused_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);
void rt_spdnn_cuda_cusparse_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);
/* The family's entry for the plugin: catalog index (rt_spdnn_cuda_kind) to descriptor. */
void rt_spdnn_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
