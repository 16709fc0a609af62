/* spmm.cuda.tiled: Tiled SpMM (multi-stage shared-memory staging of B, register tiling). */
#ifndef SPMM_CUDA_TILED_H
#define SPMM_CUDA_TILED_H

#include "spmm_cuda_common.h"

/* Its own hooks (spmm_cuda_describe.c makes the descriptor). */
extern const rt_spmm_cuda_hooks rt_spmm_cuda_tiled_hooks;

#endif
