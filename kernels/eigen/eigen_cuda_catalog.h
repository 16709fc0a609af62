/* eigen_cuda_catalog: names, summaries and parameter schemas of the eigen family's GPU kernels
 * (plain C, compiled into the main binary and the plugin; see backends/rt_cuda_catalog.h). */
#ifndef EIGEN_CUDA_CATALOG_H
#define EIGEN_CUDA_CATALOG_H

#include "rt_cuda_catalog.h"

#define RT_EIGEN_CUDA_LOBPCG   "eigen.cuda.lobpcg"
#define RT_EIGEN_CUDA_LANCZOS  "eigen.cuda.lanczos"
#define RT_EIGEN_CUDA_SPMM_OOC "eigen.cuda.spmm_ooc"
#define RT_EIGEN_CUDA_XTY_OOC  "eigen.cuda.xty_ooc"

const rt_cuda_catalog_entry *rt_eigen_cuda_catalog(int *n);

#endif
