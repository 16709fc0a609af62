/* spmm2d_cuda: the 2D SpMM and SpGEMM variants on GPUs (spmm2d.cuda.*, spgemm2d.cuda.*), built
 * into the CUDA plugin. The algorithms are the CPU kernels' (kernels/spmm2d/spmm2d_setup.c,
 * spmm2d_run.c); the local multiplies run on the rank's GPU through cuSPARSE, with tiles staged
 * through the host. */
#ifndef SPMM2D_CUDA_H
#define SPMM2D_CUDA_H

#include "rt_cuda_ctx.h"
#include "rt_registry.h"

/* Fills d for variant `index` (0 .. RT_SPMM2D_CUDA_COUNT-1, the catalog's order) for the plugin's
 * context. */
void rt_spmm2d_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
