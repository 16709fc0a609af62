/* spmm.cuda.csr: CSR, one thread per row, register-tiled over K. */
#ifndef SPMM_CUDA_CSR_H
#define SPMM_CUDA_CSR_H

#include "spmm_cuda_common.h"

/* Its own hooks (spmm_cuda_describe.c makes the descriptor). */
extern const rt_spmm_cuda_hooks rt_spmm_cuda_csr_hooks;

#endif
