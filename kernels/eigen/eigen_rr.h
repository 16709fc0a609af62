/* eigen_rr: the small Rayleigh-Ritz problem of LOBPCG, GA c = theta GB c, solved robustly.
 *
 * Once pairs converge, the residual columns of [X R P] become numerically dependent and GB is no
 * longer positive definite, so a Cholesky-based dsygv fails. Instead GB = V L V' is diagonalised
 * (LAPACKE_dsyevd, divide and conquer: the faster one with vectors), directions with L below a
 * relative threshold are dropped, and the standard problem W' GA W y = theta y is solved on W = V
 * L^(-1/2) of the kept directions; c = W y. The columns of C are GB-orthonormal. Deterministic for
 * given GA, GB, so every schedule (which sums the same partials in the same order) keeps the same
 * iterates. */
#ifndef EIGEN_RR_H
#define EIGEN_RR_H

#include <stdint.h>

#include "rt_error.h"

/* ga, gb: m x m row-major, symmetric. theta (b values, ascending) and c (m x b row-major) receive
 * the b smallest pairs. Returns 0, 1 when GB has fewer than b independent directions, or -1 on a
 * LAPACK or allocation failure (err filled). */
int eg_rr_solve(const double *ga, const double *gb, int64_t m, int64_t b, double *theta, double *c,
                rt_err *err);

#endif
