/* eigen_family: the problem of the out-of-core eigensolver kernels (DeepSparse, issue 17).
 *
 * Problem parameters: solver (lobpcg|lanczos), block (LOBPCG block width, 8..128, default 48),
 * nev (pairs returned, default 4), iters (LOBPCG iterations or Lanczos steps, default 20), seed
 * (of the starting block), symmetrize (0: a non-symmetric matrix is an error; 1: use (A + A')/2,
 * for R-MAT), res_tol (the residual every returned pair must reach).
 *
 * The output is 2 nev values: the nev smallest Ritz values after exactly `iters` iterations, then
 * one residual score per pair, max(1, ||A x - theta x|| / ||A||_inf / res_tol). The reference is
 * independent of the solver where it can be: for a stencil matrix with a closed-form spectrum
 * (2D/3D Laplacian, 27-point; recognised entry for entry, rt_stencil_spectrum.h) the exact
 * eigenvalues; otherwise the same solver run in core on the host with one tile. The reference
 * scores are 1, so a pair whose residual is above res_tol fails the gate. eg_gate_output builds
 * the kernels' output from a result. */
#ifndef EIGEN_FAMILY_H
#define EIGEN_FAMILY_H

#include "eigen_solver.h"
#include "rt_matrix.h"
#include "rt_registry.h"
#include "rt_tables.h"

typedef struct eg_inputs {
    const rt_csr *a; /* the matrix used: the given one or sym */
    rt_csr sym;      /* (A + A')/2 when symmetrized */
    eg_config cfg;   /* solver, block, nev, iters, seed; tile/schedule/budget set by kernels */
    double res_tol;  /* relative residual every returned pair must reach */
    int exact;       /* 1: the reference is the closed-form spectrum of a stencil matrix */
} eg_inputs;

/* out[0..nev): Ritz values; out[nev..2 nev): residual scores max(1, rel_res / res_tol). */
void eg_gate_output(const eg_inputs *in, const eg_result *res, double *out);

const rt_family_desc *rt_eigen_family(void);

/* Builds inputs directly (what make_inputs does after reading the problem parameters). */
int eg_inputs_create(const rt_csr *a, const eg_config *problem, int symmetrize, double res_tol,
                     eg_inputs **out, rt_err *err);
void eg_inputs_destroy(eg_inputs *in);

/* Schema entries of the out-of-core solvers, CPU (cpu/eigen_cpu.c) and CUDA (eigen_cuda_catalog.c).
 */
#define EIGEN_PARAM_TILE                                                                           \
    RT_PARAM_INT("tile", "1..2147483647", "8192", "rows per tile (row and column blocks)")
#define EIGEN_PARAM_GPU_MEM_BUDGET                                                                 \
    RT_PARAM_INT("gpu_mem_budget", "0..1099511627776", "0",                                        \
                 "bytes of the device pool; 0: room for every tile (in core)")

#endif
