/* sp2_problem: the problems of the 2D distributed kernels, which two families share (spmm2d and
 * spgemm2d: kernels/spmm2d/, kernels/spgemm2d/), and the family hooks they have in common.
 *
 *   "spmm2d"   C = A * B, A sparse m x k (the matrix of the point), B dense k x N.
 *              Problem parameters: N (1..65536, default 128), precision (fp32|fp64, default
 *              fp32), seed (of B's values, default 1).
 *   "spgemm2d" C = A * A, A square. Problem parameters: precision, seed (of the verification
 *              signature, default 1).
 *
 * Both families want the whole matrix on every rank (wants_whole_matrix): their kernels tile it
 * over a process grid of their own and exchange tiles themselves. B's element (r, c) is a pure
 * function of (seed, r, c) (sp2_b_value), so each rank generates only the B tiles it owns, and the
 * reference needs no copy of B.
 *
 * What each rank outputs and verifies. A kernel's tiles belong to ranks according to its own
 * process grid (a kernel parameter), but a family's reference cannot depend on kernel parameters.
 * So the output is laid out canonically, whatever the grid: rank r of P answers for the rows
 * [m r / P, m (r+1) / P) of C (sp2_split(m, P, r)); kernels hand their C tiles over to this
 * layout in their output hook (an untimed redistribution).
 *   spmm2d:   output_elems = rows * N: C's canonical rows, row-major, as doubles.
 *   spgemm2d: output_elems = rows * SP2_SIG_COLS: the canonical rows of C * X, where X is a fixed
 *             pseudo-random m x SP2_SIG_COLS matrix with entries in [-1, 1) drawn from (seed,
 *             column, signature column) (sp2_sig_value). Why a signature and not C itself: C's
 *             rows have data-dependent lengths (the runner compares fixed-length vectors) and a
 *             dense copy of C's rows would not fit for realistic m. Why it is sound: this is
 *             Freivalds' check — for a wrong result C' = C + E, E X = 0 only when every row of E
 *             is orthogonal to SP2_SIG_COLS independent random vectors, which a bug does not
 *             arrange; and for random X with independent zero-mean entries E||E X||^2 is
 *             proportional to ||E||_F^2, so the relative error of the signatures estimates
 *             ||C' - C||_F / ||C||_F, the same normwise error the SpMM gate bounds. The reference
 *             computes A (A X) in double, which equals (A A) X exactly in exact arithmetic.
 *
 * Rates: flops() and nonzeros() are this rank's share of the canonical rows (the runner sums them
 * over ranks): spmm2d 2 * nnz(rows) * N; spgemm2d 2 * sum over the rows' nonzeros a(r, c) of
 * nnz(row c of A), the multiply-adds of C = A * A. */
#ifndef SP2_PROBLEM_H
#define SP2_PROBLEM_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_registry.h"
#include "rt_tables.h"

#define SP2_SIG_COLS 8

typedef struct sp2_inputs {
    int spgemm;      /* 0: spmm2d, 1: spgemm2d */
    const rt_csr *a; /* the whole matrix (borrowed) */
    int64_t n;       /* columns of B and C: N (spmm2d) or a->cols (spgemm2d) */
    rt_precision prec;
    uint64_t seed;
    int rank, nranks; /* the job that measures the point (rt_job) */
    int64_t r0, r1;   /* canonical rows of this rank */
    int64_t max_row_nnz;
    double flops_share;
    double nnz_share;
} sp2_inputs;

/* Builds inputs directly (what make_inputs does once the problem parameters are read); rank and
 * nranks name the canonical share. Fails on an invalid matrix, a non-square matrix for SpGEMM,
 * n outside 1..65536, or a rank outside 0..nranks-1. */
int sp2_inputs_create(int spgemm, const rt_csr *a, int64_t n, rt_precision prec, uint64_t seed,
                      int rank, int nranks, sp2_inputs **out, rt_err *err);
void sp2_inputs_destroy(sp2_inputs *in);

/* B(row, col) of spmm2d in [-1, 1), never 0, with 24 random bits: exact in float and double, so
 * fp32 tiles of B and the reference read the same numbers. */
double sp2_b_value(uint64_t seed, int64_t row, int64_t col);
/* X(col, s) of the spgemm2d signature, in [-1, 1). */
double sp2_sig_value(uint64_t seed, int64_t col, int s);

/* The precision problem parameter of both families: its schema entry, and its value read from a
 * problem schema (fp32|fp64). */
#define SP2_PARAM_PRECISION                                                                        \
    RT_PARAM_STR("precision", "fp32|fp64", "fp32", "precision of the tiles and the arithmetic")
int sp2_read_precision(const rt_param_schema *schema, int n, const char *owner, const rt_params *p,
                       rt_precision *prec, rt_err *err);

/* The family hooks both problems share (rt_family_desc): free_inputs, output_elems, flops,
 * nonzeros, and the footprint of job->rank's tiles (spgemm: C counted as large as A; N read from
 * the schema otherwise). */
void sp2_free_inputs(void *inputs);
int64_t sp2_output_elems(const void *inputs);
double sp2_flops(const void *inputs);
double sp2_nonzeros(const void *inputs);
int sp2_footprint(int spgemm, const rt_param_schema *schema, int n_schema, const rt_csr *a,
                  const rt_params *problem, const rt_job *job, rt_footprint *out, rt_err *err);

#endif
