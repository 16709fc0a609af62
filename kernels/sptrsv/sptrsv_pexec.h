/* sptrsv_pexec: the arithmetic of the persistent solve's steps on the CPU (sptrsv_pplan.h), and
 * the inverse diagonal blocks every implementation of it uses (the GPU's too: they are computed
 * here, on the host, in setup).
 *
 * Why inverses: a diagonal block solved by substitution is a chain of ncols dependent steps,
 * each a broadcast of one unknown; with inv(L_ss) precomputed it is one dense matrix-vector
 * product, as parallel as any update, so the critical path through a supernode is two products
 * (DIAG and the next chunk) rather than ncols steps. The inverse of a lower-triangular block is
 * lower triangular; it is kept dense, column-major, ncols x ncols. (SuperLU_DIST's GPU solve
 * inverts its diagonal blocks for the same reason.)
 *
 * X, B and the partial sums are row-major n x nrhs. */
#ifndef SPTRSV_PEXEC_H
#define SPTRSV_PEXEC_H

#include <stdint.h>

#include "rt_error.h"
#include "sptrsv_factor.h"
#include "sptrsv_pplan.h"

/* The inverse diagonal blocks of the supernodes owned by `part` (all when part < 0): *off gets
 * nsuper offsets (-1 for a supernode not included) into *inv. Threads: OpenMP, over supernodes. */
int sptrsv_pexec_inverses(const sptrsv_factor *f, const sptrsv_pplan *p, int part, double **inv,
                          int64_t **off, int64_t *total, rt_err *err);

/* DIAG(s): r = b_s - lsum_s - the received partials (slots at recv + recv_off[...]), lsum_s set
 * to zero, x_s = inv r (or inv^T r backward) written to x (s's rows). */
void sptrsv_pexec_diag(const sptrsv_factor *f, const sptrsv_pplan *p, int64_t s, const double *inv,
                       const double *b, double *lsum, const double *recv, double *x);

/* A chunk's update into lsum. atomic: other threads add into the same lsum (OpenMP atomics). */
void sptrsv_pexec_chunk(const sptrsv_factor *f, const sptrsv_pplan *p, int64_t c, const double *x,
                        double *lsum, int atomic);

#endif
