/* spmm.cuda.ell: warp-sliced ELL (slices of 32 rows), one thread per row. */
#ifndef SPMM_CUDA_ELL_H
#define SPMM_CUDA_ELL_H

#include "spmm_cuda_common.h"

/* Its own hooks (spmm_cuda_describe.c makes the descriptor). */
extern const rt_spmm_cuda_hooks rt_spmm_cuda_ell_hooks;

#endif
