/* dspmm_cuda_sender: the distributed sender-multiplies SpMM on GPUs (kernel dspmm.cuda.sender),
 * built into the CUDA plugin. Same plan and roles as dspmm.cpu.sender (kernels/dspmm/dspmm_plan.h);
 * the local multiply runs on the rank's GPU and each hop of the plan moves device buffers. */
#ifndef DSPMM_CUDA_SENDER_H
#define DSPMM_CUDA_SENDER_H

#include "rt_cuda_ctx.h"
#include "rt_registry.h"

/* Fills d (the catalog entry RT_DSPMM_CUDA_SENDER plus hooks) for the plugin's context. */
void rt_dspmm_cuda_sender_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx);
/* The family's entry for the plugin: catalog index 0 is the sender. */
void rt_dspmm_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
