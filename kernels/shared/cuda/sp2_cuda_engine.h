/* sp2_cuda_engine: the 2D SpMM and SpGEMM variants on GPUs (spmm2d.cuda.*, spgemm2d.cuda.*),
 * built into the CUDA plugin. The algorithms are the CPU kernels' (kernels/shared/sp2/sp2_setup.c,
 * sp2_run.c); the local multiplies run on the rank's GPU through cuSPARSE, with tiles staged
 * through the host. Each family's cuda/ folder describes its kernels with it. */
#ifndef SP2_CUDA_ENGINE_H
#define SP2_CUDA_ENGINE_H

#include "rt_cuda_catalog.h"
#include "rt_cuda_ctx.h"
#include "rt_registry.h"

/* Fills d for the GPU variant of catalog entry e (a 2D kernel's name, schema and family) for the
 * plugin's context: the shared hooks and the GPU engine's setup. */
void sp2_cuda_describe(const rt_cuda_catalog_entry *e, rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
