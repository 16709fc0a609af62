/* spmm_cuda_catalog: names, summaries and parameter schemas of the CUDA SpMM kernels.
 *
 * Plain C with no CUDA dependency, compiled into the main binary and into the CUDA plugin (see
 * backends/rt_cuda_catalog.h): the plugin describes the real kernels with these schemas, and a host
 * without a GPU lists the same kernels as unavailable, so a config written on a laptop is checked
 * exactly as it will be on the GPU node. */
#ifndef SPMM_CUDA_CATALOG_H
#define SPMM_CUDA_CATALOG_H

#include "rt_cuda_catalog.h"
#include "rt_tables.h"

#define RT_SPMM_CUDA_CSR        "spmm.cuda.csr"
#define RT_SPMM_CUDA_ELL        "spmm.cuda.ell"
#define RT_SPMM_CUDA_TILED      "spmm.cuda.tiled"
#define RT_SPMM_CUDA_CUSPARSE   "spmm.cuda.cusparse"
#define RT_SPMM_CUDA_TILED_PIPE "spmm.cuda.tiled_pipe"
#define RT_SPMM_CUDA_TILED_TMA  "spmm.cuda.tiled_tma"

/* Index of each kernel in the family's catalog. */
typedef enum rt_spmm_cuda_kind {
    RT_SPMM_CUDA_KIND_CSR = 0,
    RT_SPMM_CUDA_KIND_ELL = 1,
    RT_SPMM_CUDA_KIND_TILED = 2,
    RT_SPMM_CUDA_KIND_CUSPARSE = 3,
    RT_SPMM_CUDA_KIND_TILED_PIPE = 4,
    RT_SPMM_CUDA_KIND_TILED_TMA = 5,
    RT_SPMM_CUDA_KIND_COUNT = 6
} rt_spmm_cuda_kind;

/* Schema entries the Tiled kernels share (spmm.cuda.tiled, spmm.cuda.tiled_pipe, and the sparse
 * DNN's fused layer, which builds on them: kernels/spdnn); `of` names the sparse matrix ("A",
 * "W^T"). */
#define RT_TILED_PARAM_MIN_BLOCKS                                                                  \
    RT_PARAM_INT_NVRTC("min_blocks", "0..32", "1",                                                 \
                       "NUMBLOCKS of __launch_bounds__ (0: only the block size)")
#define RT_TILED_PARAM_STAGING(of)                                                                 \
    RT_PARAM_STR_NVRTC("staging", "ell|csr", "ell",                                                \
                       "storage of " of                                                            \
                       " per stage: ELL padded per warp (coalesced) or CSR per row")
#define RT_TILED_PARAM_INDEX_BYTES(of)                                                             \
    RT_PARAM_INT_NVRTC("index_bytes", "2|4", "2",                                                  \
                       "bytes per shared-memory index of " of " (2 needs buffsize <= 65536)")
#define RT_TILED_PARAM_ALLOW_SPILLS                                                                \
    RT_PARAM_INT(                                                                                  \
        "allow_spills", "0|1", "0",                                                                \
        "1: run variants that spill registers to local memory; 0: record them as infeasible")

/* The family's table (what kernels/rt_family_list.h expects of a family with CUDA kernels). */
const rt_cuda_catalog_entry *rt_spmm_cuda_catalog(int *n);
/* The entry of one kind; NULL for an out-of-range kind. */
const rt_cuda_catalog_entry *rt_spmm_cuda_catalog_at(int kind);

#endif
