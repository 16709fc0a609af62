/* eg_spmm_cache: cuSPARSE SpMM descriptors kept per call.
 *
 * An out-of-core solver's SpMM is one cusparseSpMM per packed block A(i, j); creating the three
 * descriptors and asking cusparseSpMM_bufferSize for every one of them costs host time on each
 * call, every iteration. In core every iteration repeats the same calls on the same addresses, so
 * the descriptors and the workspace size are made once, on first sight of a call (its block,
 * operands, shapes and beta), and looked up after. The table is bounded: when it fills (out of
 * core, tiles move and addresses keep changing) it is emptied and refilled. */
#ifndef EIGEN_SPMM_CACHE_H
#define EIGEN_SPMM_CACHE_H

#include <cusparse.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

typedef struct eg_spmm_plan {
    cusparseSpMatDescr_t a;
    cusparseDnMatDescr_t x, y;
    size_t work_bytes; /* what cusparseSpMM_bufferSize asked for */
} eg_spmm_plan;

/* One SpMM call: y (rows x ncols, ldy) = A x (cols x ncols, ldx) + beta y, A the packed CSR
 * block at a (eigen_packed.h). */
typedef struct eg_spmm_call {
    const void *a;
    const double *x;
    double *y;
    int64_t rows, cols, nnz, ldx, ldy, ncols;
    double beta;
} eg_spmm_call;

typedef struct eg_spmm_cache eg_spmm_cache;

int eg_spmm_cache_create(eg_spmm_cache **out, rt_err *err);
void eg_spmm_cache_destroy(eg_spmm_cache *c);
/* The plan of call, made (descriptors, workspace size) the first time the call is seen. */
int eg_spmm_cache_get(eg_spmm_cache *c, cusparseHandle_t h, const eg_spmm_call *call,
                      const eg_spmm_plan **plan, rt_err *err);

#endif
