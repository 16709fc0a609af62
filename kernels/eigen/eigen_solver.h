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
#include "eigen_dev.h"
#include "eigen_mem.h"
#include "rt_error.h"
#include "rt_matrix.h"

#define EG_NEV_MAX 128

typedef enum eg_solver_kind { EG_LOBPCG = 0, EG_LANCZOS = 1 } eg_solver_kind;

/* "lobpcg" or "lanczos"; -1 when unknown. */
int eg_solver_parse(const char *s);
const char *eg_solver_name(eg_solver_kind k);

typedef struct eg_config {
    eg_solver_kind solver;
    int64_t block; /* LOBPCG block width (8..128); Lanczos ignores it */
    int64_t nev;   /* pairs returned, <= block for LOBPCG, <= iters for Lanczos */
    int64_t iters; /* LOBPCG iterations, or Lanczos steps */
    int64_t tile;  /* rows per tile */
    uint64_t seed;
    eg_schedule sched;
    size_t budget; /* device pool bytes; 0: in-core (room for every tile) */
} eg_config;

typedef struct eg_result {
    int64_t nev;
    double ritz[EG_NEV_MAX];
    double rel_res[EG_NEV_MAX];
    double max_rel_res;
    eg_mem_stats st;
    int64_t tasks;      /* tasks executed in the run */
    int64_t iterations; /* task graphs run (one per iteration) */
} eg_result;

typedef struct eg_solver eg_solver;

/* Checks the configuration against the matrix, tiles the matrix and opens the pool. Returns
 * RT_INFEASIBLE (err says why) when the budget cannot hold the operands of one task. */
int eg_solver_create(const rt_csr *a, const eg_config *cfg, eg_dev dev, eg_solver **out,
                     rt_err *err);
int eg_solver_run(eg_solver *s, eg_result *res, rt_err *err);
void eg_solver_destroy(eg_solver *s);
/* Facts for metrics: the footprint of every tile and of the matrix blocks, the tile count. */
void eg_solver_sizes(const eg_solver *s, double *all_bytes, double *a_bytes, int64_t *ntiles);

/* Value of the starting block at (row, col), in [-1, 1). */
double eg_start_value(uint64_t seed, int64_t row, int64_t col);

#endif
