/* sptrsv_family: the "sptrsv" problem — the triangular solve L X = B (forward) or L^T X = B
 * (backward) with L the supernodal Cholesky factor of the config's SPD matrix (P A P^T = L L^T,
 * CHOLMOD) and B dense, n x nrhs (nrhs > 1 makes it an SpTRSM), all in double precision.
 *
 * Problem parameters:
 *   nrhs          int  1..64               right-hand sides                    (default 1)
 *   ordering      str  amd|metis|natural   CHOLMOD's fill-reducing ordering    (default amd)
 *   max_supernode int  0..65536            split supernodes wider than this (0: CHOLMOD's own)
 *   seed          int                      seed of B's values                  (default 1)
 *   solve         str  forward|backward    L X = B or L^T X = B                (default forward)
 *   precision     str  fp64                the only precision
 *
 * The family wants the whole matrix: every rank factorises the same A (CHOLMOD is deterministic)
 * and builds the same B. X and B are row-major n x nrhs in L's (permuted) numbering. Rank r of N
 * reports the rows [r n / N, (r + 1) n / N) of X (the canonical block, whatever the kernel's own
 * distribution); the reference is a sequential forward (or, for L^T, backward) substitution on the
 * CSR copy of L with long double accumulation. flops() is this rank's share of 2 nnz(L) nrhs (by
 * its rows).
 *
 * Beside the gate (X against the reference), every kernel reports the residual of L X = B
 * (sptrsv_residual) as a metric. */
#ifndef SPTRSV_FAMILY_H
#define SPTRSV_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_metrics.h"
#include "rt_registry.h"
#include "rt_tables.h"
#include "sptrsv_dag.h"
#include "sptrsv_factor.h"

typedef struct rt_sptrsv_inputs {
    sptrsv_factor f;
    sptrsv_dag dag;
    int64_t n, nrhs;
    double *b; /* n x nrhs, row-major */
    int rank, nranks;
    int64_t row0, row1; /* the canonical rows this rank reports */
    sptrsv_ordering ordering;
    int backward;      /* 1: solve L^T X = B (set after rt_sptrsv_inputs_create) */
    int factor_cached; /* 1: the factor came from the factor cache (sptrsv_factor_cache.h) */
} rt_sptrsv_inputs;

const rt_family_desc *rt_sptrsv_family(void);

/* Builds inputs (factor, DAG, B) for rank `rank` of `nranks`. */
int rt_sptrsv_inputs_create(const rt_csr *a, int64_t nrhs, sptrsv_ordering ordering,
                            int64_t max_supernode, uint64_t seed, int rank, int nranks,
                            rt_sptrsv_inputs **out, rt_err *err);
void rt_sptrsv_inputs_destroy(rt_sptrsv_inputs *in);

/* Sequential substitution X = L^-1 B, or L^-T B when in->backward (n x nrhs, row-major), the
 * family's reference. */
void sptrsv_reference_solve(const rt_sptrsv_inputs *in, double *x);

/* max_i |(T X - B)_i| / (max_i |B_i| + max_i (|T| |X|)_i) with T = L (or L^T when in->backward):
 * the relative residual of a full solution (n x nrhs, row-major); about the unit roundoff for a
 * backward-stable solve. */
double sptrsv_residual(const rt_sptrsv_inputs *in, const double *x);

/* The check hook's answer for kernels that solve with L only: RT_INFEASIBLE (why filled) for a
 * backward point, else 0. */
int sptrsv_forward_only(const void *inputs, const char *kernel, char *why, size_t whylen);

/* The factor's facts as deterministic metrics: n, nnz(L), supernodes (count, mean and max
 * columns), DAG levels (scalar and supernodal), edges, CHOLMOD's analysis and factorisation time
 * (not deterministic). */
void sptrsv_factor_metrics(const rt_sptrsv_inputs *in, rt_metrics *m);

/* The compulsory traffic of one solve into t, times share (a rank's part of it): 2 flops per
 * nonzero of L and right-hand side; L once (8-byte values and 4-byte column indices, plus
 * rowptr_bytes per row pointer: 0 where the kernel walks L by supernodes), B read and X written. */
void sptrsv_compulsory_traffic(const rt_sptrsv_inputs *in, double rowptr_bytes, double share,
                               rt_traffic *t);

/* Copies the canonical rows of a full solution into out (the output hook's job). */
void sptrsv_canonical_rows(const rt_sptrsv_inputs *in, const double *x, double *out);

/* Schema entries a CPU kernel shares with its CUDA counterpart (sptrsv_cuda_catalog.c): the
 * message-driven distributed solve's and the persistent solve's waits. */
#define SPTRSV_PARAM_DIST_POLL_TIMEOUT                                                             \
    RT_PARAM_REAL(                                                                                 \
        "poll_timeout_s", "0.001..3600", "60",                                                     \
        "give up (naming the missing message) when no expected message arrives for this long")
#define SPTRSV_PARAM_PERSIST_POLL_TIMEOUT                                                          \
    RT_PARAM_REAL(                                                                                 \
        "poll_timeout_s", "0.001..3600", "30",                                                     \
        "a wait longer than this ends the execution, naming the task and what it waited for")

#endif
