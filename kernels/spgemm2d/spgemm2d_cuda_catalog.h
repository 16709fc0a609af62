/* spgemm2d_cuda_catalog: names, summaries and parameter schemas of the spgemm2d GPU kernels (plain
 * C; see backends/rt_cuda_catalog.h). Entry i is the GPU twin of the i-th CPU kernel of
 * rt_spgemm2d_kernels(). */
#ifndef SPGEMM2D_CUDA_CATALOG_H
#define SPGEMM2D_CUDA_CATALOG_H

#include "rt_cuda_catalog.h"

#define RT_SPGEMM2D_CUDA_COUNT 3

const rt_cuda_catalog_entry *rt_spgemm2d_cuda_catalog(int *n);

#endif
