/* sptrsv_cuda_data: what every sptrsv GPU kernel keeps on the device, and the hooks they share.
 *
 * L's CSR copy with 32-bit row pointers and columns (what cuSPARSE and the own kernels index
 * with; a factor with 2^31 or more entries is infeasible, said by sptrsv_cuda_check), B and X as
 * n x nrhs, row-major (the own kernels) or column-major (cuSPARSE's vectors, one column per
 * right-hand side). X starts as NaN so a row the solve never wrote fails the gate. The output and
 * metrics hooks download X, turn it row-major and hand it to the family's canonical-rows and
 * residual code, so every kernel is verified by the same path as the CPU ones. */
#ifndef SPTRSV_CUDA_DATA_H
#define SPTRSV_CUDA_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "rt_cuda_ctx.h"
#include "rt_error.h"
#include "rt_metrics.h"
#include "rt_registry.h"
#include "sptrsv_family.h"

typedef struct sptrsv_cuda_data {
    rt_cuda_ctx *ctx;
    const rt_sptrsv_inputs *in;
    int col_major; /* layout of B and X on the device */
    int32_t *rowptr, *colidx;
    double *val, *b, *x; /* device */
    double *x_host;      /* n x nrhs, row-major, filled by sptrsv_cuda_data_fetch */
    double upload_s;     /* L and B to the device, wall clock */
} sptrsv_cuda_data;

/* The check hook of the sptrsv GPU kernels that solve with L both ways: L must fit 32-bit
 * indices. */
int sptrsv_cuda_check_both(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                           const rt_kernel_env *env, char *why, size_t whylen, rt_err *err);
/* The same for the forward-only ones, which also refuse `solve: backward`. */
int sptrsv_cuda_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, char *why, size_t whylen, rt_err *err);

/* Allocates and uploads B and a NaN X only (a kernel that uploads L in a format of its own). */
int sptrsv_cuda_data_create_vectors(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                                    int col_major, sptrsv_cuda_data *d, rt_err *err);

/* Allocates and uploads L, B and a NaN X. Returns 0, RT_INFEASIBLE (device full) or -1. */
int sptrsv_cuda_data_create(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                            int col_major, sptrsv_cuda_data *d, rt_err *err);
void sptrsv_cuda_data_free(sptrsv_cuda_data *d);

/* Downloads X into x_host (row-major). */
int sptrsv_cuda_data_fetch(sptrsv_cuda_data *d, rt_err *err);

/* The output hook's work: fetch X, copy this rank's canonical rows. */
int sptrsv_cuda_data_output(sptrsv_cuda_data *d, double *out, rt_err *err);

/* Factor metrics, residual of the fetched X and upload time. */
int sptrsv_cuda_data_metrics(sptrsv_cuda_data *d, rt_metrics *m, rt_err *err);

/* The traffic hook of every sptrsv GPU kernel: 2 nnz(L) nrhs flops; compulsory device-memory
 * bytes of L once (8-byte values, 4-byte columns and row pointers), B read and X written. */
int sptrsv_cuda_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, rt_traffic *t, rt_err *err);

#endif
