/* spmm_inputs: the inputs of the "spmm" problem, C = A * B, shared by every SpMM kernel (CPU and
 * CUDA) and by the families built on it (the descriptor is spmm_family.h).
 *
 * A is the rank's m x n sparse matrix (CSR, double values), B is n x K dense, C is m x K dense;
 * B and C are stored in the point's `layout` and `precision`. Problem parameters:
 *   K         int  1..65536   columns of B and C                       (default 32)
 *   precision str  fp32|fp64  storage and arithmetic precision of B, C  (default fp32)
 *   layout    str  row|col    layout of B and C                         (default row)
 *   seed      int             seed of B's values                        (default 1)
 *
 * Output convention: every SpMM kernel's `output` hook and the family `reference` produce C as
 * m x K doubles in ROW-MAJOR order whatever `layout` is, so verification never depends on layout.
 *
 * Verification metric: the tolerance returned by the family bounds the NORMWISE relative error
 * ||C - R||_F / ||R||_F (rt_spmm_rel_error; the runner's gate computes the same over all ranks),
 * not an elementwise one: single outputs may cancel to nearly zero, and an elementwise ratio
 * would then fail correct kernels.
 *
 * Rates: flops = 2 * nnz * K per execution (GFLOP/s, what the papers report); nonzeros = nnz per
 * execution (GNNZ/s counts each stored nonzero of A once, however many columns of B it meets). */
#ifndef SPMM_INPUTS_H
#define SPMM_INPUTS_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_params.h"
#include "rt_registry.h"

typedef struct rt_spmm_inputs {
    const rt_csr *a; /* borrowed: outlives the inputs */
    rt_dense b;      /* a->cols x k, owned */
    int64_t k;
    rt_precision prec;
    rt_layout layout;
    uint64_t seed;
} rt_spmm_inputs;

/* Builds inputs from explicit values (what make_inputs does after reading the problem params).
 * Fails on a NULL or invalid matrix, k outside 1..65536, or when B cannot be allocated. */
int rt_spmm_inputs_create(const rt_csr *a, int64_t k, rt_precision prec, rt_layout layout,
                          uint64_t seed, rt_spmm_inputs **out, rt_err *err);
void rt_spmm_inputs_destroy(rt_spmm_inputs *in);

/* Longest row of a (stored entries), the reduction length that drives rounding error. */
int64_t rt_spmm_max_row_nnz(const rt_csr *a);

/* Tolerance on the normwise relative error for a point of this shape (see spmm_family.c). */
double rt_spmm_tolerance_for(rt_precision prec, int64_t max_row_nnz);

/* ||out - ref||_2 / ||ref||_2 over n values (||out - ref||_2 when ref is all zeros); INFINITY
 * when any value of out is NAN or infinite, so a poisoned (unwritten) output can never pass. */
double rt_spmm_rel_error(const double *out, const double *ref, int64_t n);

/* Helpers for kernels. */
/* Fills every element of c with NAN, so an output a kernel never writes fails verification. */
void rt_spmm_dense_poison(rt_dense *c);
/* Copies c (either layout and precision) into out as rows x cols doubles, row-major. */
void rt_spmm_dense_to_rowmajor(const rt_dense *c, double *out);
/* A's values converted to float (fp32 kernels multiply in their own precision); NULL with err
 * filled when memory is short. Free with free(). */
float *rt_spmm_values_to_float(const double *val, int64_t n, rt_err *err);

#endif
