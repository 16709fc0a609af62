/* spdnn_cuda_catalog: names, summaries and parameter schemas of the sparse-DNN CUDA kernels
 * (plain C; see backends/rt_cuda_catalog.h). */
#ifndef SPDNN_CUDA_CATALOG_H
#define SPDNN_CUDA_CATALOG_H

#include "rt_cuda_catalog.h"

#define RT_SPDNN_CUDA_FUSED    "spdnn.cuda.fused"
#define RT_SPDNN_CUDA_CUSPARSE "spdnn.cuda.cusparse"

typedef enum rt_spdnn_cuda_kind {
    RT_SPDNN_CUDA_KIND_FUSED = 0,
    RT_SPDNN_CUDA_KIND_CUSPARSE = 1,
    RT_SPDNN_CUDA_KIND_COUNT = 2
} rt_spdnn_cuda_kind;

const rt_cuda_catalog_entry *rt_spdnn_cuda_catalog(int *n);
/* The entry of one kind; NULL for an out-of-range kind. */
const rt_cuda_catalog_entry *rt_spdnn_cuda_catalog_at(int kind);

#endif
