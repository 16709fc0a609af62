/* eigen_micro: the problems of the out-of-core microbenchmarks (DeepSparseGPU, chapter 3), the
 * eigen family's `solver: spmm` and `solver: xty`, on the host.
 *
 *   spmm  Y = A X, X (n x block) the seeded starting block of the solvers;
 *   xty   G = X' Y (block x block), X and Y two seeded n x block blocks (seeds seed, seed + 1).
 *
 * The output is Y row-major (n x block) or G row-major (block x block); the reference is the same
 * product on the host in double (eg_micro_reference), and the kernels are eigen.cuda.spmm_ooc and
 * eigen.cuda.xty_ooc (cuda/eigen_micro_cuda.c). */
#ifndef EIGEN_MICRO_H
#define EIGEN_MICRO_H

#include <stdint.h>

#include "eigen_solver_types.h"
#include "rt_error.h"
#include "rt_matrix.h"

/* 1 for the microbenchmark operations. */
int eg_micro_is(eg_solver_kind k);
/* Output values of the operation. */
int64_t eg_micro_output_elems(eg_solver_kind k, int64_t n, int64_t block);
/* X (which 0) or Y (which 1) of the operation at (row, col). */
double eg_micro_value(uint64_t seed, int which, int64_t row, int64_t col);
/* Fills dense row-major rows [r0, r1) of X or Y (ld = block). */
void eg_micro_fill(uint64_t seed, int which, int64_t r0, int64_t r1, int64_t block, double *out);
int eg_micro_reference(const rt_csr *a, eg_solver_kind k, int64_t block, uint64_t seed, double *out,
                       rt_err *err);
double eg_micro_flops(const rt_csr *a, eg_solver_kind k, int64_t block);

#endif
