/* eigen_solver: the out-of-core eigensolvers (block LOBPCG and Lanczos with full
 * reorthogonalisation) for the few smallest eigenvalues of a symmetric matrix, FP64, on an abstract
 * device (eigen_dev.h) whose memory is a pool of `budget` bytes run by the memory manager.
 *
 * A solver is created once per point (tiling, tile map, pool) and run many times; every run starts
 * from the same block of vectors (a pure function of seed, row and column, so every tiling gives
 * the same start), runs exactly `iters` iterations (one task graph per iteration, scheduled as
 * asked) and returns the Ritz values, relative residual norms ||A x - theta x|| / ||A||_inf of the
 * `nev` smallest pairs and the memory manager's byte counts. */
#ifndef EIGEN_SOLVER_H
#define EIGEN_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "eigen_dag.h"
#include "eigen_solver_types.h"
#include "eigen_dev.h"
#include "eigen_mem.h"
#include "rt_error.h"
#include "rt_matrix.h"

/* Checks the configuration against the matrix, tiles the matrix and opens the pool. Returns
 * RT_INFEASIBLE (err says why) when the budget cannot hold the operands of one task. */
int eg_solver_create(const rt_csr *a, const eg_config *cfg, eg_dev dev, eg_solver **out,
                     rt_err *err);
int eg_solver_run(eg_solver *s, eg_result *res, rt_err *err);
void eg_solver_destroy(eg_solver *s);
/* Facts for metrics: the footprint of every tile and of the matrix blocks, the tile count. */
void eg_solver_sizes(const eg_solver *s, double *all_bytes, double *a_bytes, int64_t *ntiles);

#endif
