/* dspmm_family: the "dspmm" problem — C = A * B computed by all ranks of the job together, with
 * A sparse (m x n), B dense (n x K) and C dense (m x K), B and C row-major in `precision`.
 *
 * The family wants the whole matrix (wants_whole_matrix = 1): every rank builds the same A (the
 * generators are deterministic) and the same B (from `seed`, exactly as the spmm family fills
 * it), and each kernel partitions them itself.
 *
 * Problem parameters (those of spmm, so a config can sweep both families):
 *   K         int  1..65536  columns of B and C                          (default 32)
 *   precision str  fp32|fp64 storage and arithmetic precision of B and C  (default fp32)
 *   layout    str  row       only row-major (accepted so spmm configs carry over)
 *   seed      int            seed of B's values                          (default 1)
 *
 * Verification. How a kernel distributes C depends on its parameters (p_batch), but the family's
 * reference is computed once per problem point, so the family fixes a canonical distribution
 * that no kernel parameter changes: rank r of N reports the rows [r0, r1) of C, a block balanced
 * by A's nonzeros (dspmm_canonical_rows, the runner's own row split), all K columns, row-major, as
 * doubles. A kernel's `output` hook moves its result there (outside the timed region); the
 * reference computes the same block in double. The runner sums squared errors over ranks, so the
 * gate checks the whole C.
 *
 * Rates: flops() and nonzeros() are this rank's share of 2 * nnz * K and nnz (its canonical row
 * block), so their sum over ranks is the nominal total whatever the kernel does. */
#ifndef DSPMM_FAMILY_H
#define DSPMM_FAMILY_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_registry.h"
#include "spmm_family.h"

typedef struct rt_dspmm_inputs {
    rt_spmm_inputs *spmm;   /* the whole A (borrowed) and the whole B (owned), row-major */
    int rank, nranks;       /* the job that measures the point (rt_job) */
    int64_t c_row0, c_row1; /* the canonical rows of C this rank reports */
} rt_dspmm_inputs;

/* The problem parameters (K, precision, layout, seed), shared by the descriptor and
 * rt_dspmm_problem. */
#define RT_DSPMM_N_PROBLEM_PARAMS 4
extern const rt_param_schema rt_dspmm_problem_params[RT_DSPMM_N_PROBLEM_PARAMS];

/* Builds inputs for rank `rank` of `nranks` (make_inputs takes them from the job that measures the
 * point, rt_job.h). */
int rt_dspmm_inputs_create(const rt_csr *a, int64_t k, rt_precision prec, uint64_t seed, int rank,
                           int nranks, rt_dspmm_inputs **out, rt_err *err);
void rt_dspmm_inputs_destroy(rt_dspmm_inputs *in);

/* Reads K and precision of a dspmm problem point (defaults for what it does not set). */
int rt_dspmm_problem(const rt_params *problem, int64_t *k, rt_precision *prec, rt_err *err);

#endif
