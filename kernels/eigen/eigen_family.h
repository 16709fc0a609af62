/* eigen_family: the problem of the out-of-core eigensolver kernels (DeepSparse, issue 17).
 *
 * Problem parameters: solver (lobpcg|lanczos), block (LOBPCG block width, 8..128, default 48),
 * nev (pairs returned, default 4), iters (LOBPCG iterations or Lanczos steps, default 20), seed
 * (of the starting block), symmetrize (0: a non-symmetric matrix is an error; 1: use (A + A')/2,
 * for R-MAT). The output is the nev smallest Ritz values after exactly `iters` iterations from
 * the seeded start. The reference is the same solver run in core on the host device with one tile
 * and program order: the gate checks that tiling, scheduling, staging and the device arithmetic
 * leave the iterates unchanged (to rounding). Whether the pairs converged is a metric
 * (max_rel_residual), and the tests check Laplacian eigenvalues against their closed form. */
#ifndef EIGEN_FAMILY_H
#define EIGEN_FAMILY_H

#include "eigen_solver.h"
#include "rt_matrix.h"
#include "rt_registry.h"

typedef struct eg_inputs {
    const rt_csr *a; /* the matrix used: the given one or sym */
    rt_csr sym;      /* (A + A')/2 when symmetrized */
    eg_config cfg;   /* solver, block, nev, iters, seed; tile/schedule/budget set by kernels */
} eg_inputs;

const rt_family_desc *rt_eigen_family(void);

/* Builds inputs directly (what make_inputs does after reading the problem parameters). */
int eg_inputs_create(const rt_csr *a, const eg_config *problem, int symmetrize, eg_inputs **out,
                     rt_err *err);
void eg_inputs_destroy(eg_inputs *in);

#endif
