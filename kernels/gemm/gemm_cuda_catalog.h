/* gemm_cuda_catalog: names, summaries and parameter schemas of the gemm family's GPU kernels
 * (plain C; see backends/rt_cuda_catalog.h). */
#ifndef GEMM_CUDA_CATALOG_H
#define GEMM_CUDA_CATALOG_H

#include "rt_cuda_catalog.h"
#include "rt_matrix.h"

#define RT_GEMM_CUDA_TILED    "gemm.cuda.tiled"
#define RT_GEMM_CUDA_CUBLAS   "gemm.cuda.cublas"
#define RT_GEMM_CUDA_CUBLASXT "gemm.cuda.cublasxt"

/* cuBLAS's math modes (cublasSetMathMode) as gemm.cuda.cublas's math_mode words: tf32 and bf16x9
 * change FP32 products only, fp64_emulated FP64 products only (the library uses emulation where
 * it pays); the others apply to both. A paper config's baseline sweeps every mode of its
 * precisions (tests/gemm/test_baselines.sh). */
#define GEMM_CUBLAS_MATH_MODES "default|pedantic|tf32|bf16x9|fp64_emulated"

enum { RT_GEMM_CUDA_KIND_TILED = 0, RT_GEMM_CUDA_KIND_CUBLAS = 1, RT_GEMM_CUDA_KIND_CUBLASXT = 2 };

const rt_cuda_catalog_entry *rt_gemm_cuda_catalog(int *n);

/* Whether cuBLAS math mode `word` (a word of GEMM_CUBLAS_MATH_MODES) changes the products of
 * precision prec: 1 or 0; -1 for a word outside the domain. */
int rt_gemm_cublas_mode_applies(const char *word, rt_precision prec);

#endif
