/* gemm_cuda_catalog: names, summaries and parameter schemas of the gemm family's GPU kernels
 * (plain C; see backends/rt_cuda_catalog.h). */
#ifndef GEMM_CUDA_CATALOG_H
#define GEMM_CUDA_CATALOG_H

#include "rt_cuda_catalog.h"

#define RT_GEMM_CUDA_TILED    "gemm.cuda.tiled"
#define RT_GEMM_CUDA_CUBLAS   "gemm.cuda.cublas"
#define RT_GEMM_CUDA_CUBLASXT "gemm.cuda.cublasxt"

enum { RT_GEMM_CUDA_KIND_TILED = 0, RT_GEMM_CUDA_KIND_CUBLAS = 1, RT_GEMM_CUDA_KIND_CUBLASXT = 2 };

const rt_cuda_catalog_entry *rt_gemm_cuda_catalog(int *n);

#endif
