/* sptrsv_block: the two dense operations of a supernodal forward solve, shared by every CPU solve
 * that works by supernodes (the distributed solve, the model's calibration).
 *
 * X and the partial sums are row-major n x nrhs arrays in L's numbering; a supernode's columns are
 * consecutive, so its rows of X are one contiguous block. */
#ifndef SPTRSV_BLOCK_H
#define SPTRSV_BLOCK_H

#include <stdint.h>

#include "sptrsv_dag.h"
#include "sptrsv_factor.h"

/* x (rows of s) holds b - (sum of the updates); solves with s's lower-triangular diagonal block in
 * place. */
void sptrsv_block_solve_diag(const sptrsv_factor *f, int64_t s, int64_t nrhs, double *x);

/* lsum[row] += L(row, columns of s) x_s for the rows at positions [rbeg, rend) of f->rows (an
 * edge's rows, below s's diagonal block). xs: s's rows of X (ncols x nrhs). */
void sptrsv_block_update(const sptrsv_factor *f, int64_t s, int64_t rbeg, int64_t rend,
                         int64_t nrhs, const double *xs, double *lsum);

/* The whole solve X = L^-1 B by supernodes in index order, one thread; lsum is scratch (n x nrhs,
 * zeroed here). */
void sptrsv_block_solve_all(const sptrsv_factor *f, const sptrsv_dag *d, int64_t nrhs,
                            const double *b, double *x, double *lsum);

/* Bytes the solve of supernode s reads and writes: its values (8 per entry) and row indices
 * (4 per row), its rows of B, X and the partial sums. */
double sptrsv_block_bytes(const sptrsv_factor *f, int64_t s, int64_t nrhs);

#endif
