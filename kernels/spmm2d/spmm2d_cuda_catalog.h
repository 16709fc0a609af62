/* spmm2d_cuda_catalog: names, summaries and parameter schemas of the spmm2d GPU kernels (plain C;
 * see backends/rt_cuda_catalog.h). Entry i is the GPU twin of the i-th CPU kernel of
 * rt_spmm2d_kernels(). */
#ifndef SPMM2D_CUDA_CATALOG_H
#define SPMM2D_CUDA_CATALOG_H

#include "rt_cuda_catalog.h"

#define RT_SPMM2D_CUDA_COUNT 7

const rt_cuda_catalog_entry *rt_spmm2d_cuda_catalog(int *n);

#endif
