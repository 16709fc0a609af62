/* gemm_family: the dense product C (M x N) = A (M x K) * B (K x N), FP32 or FP64.
 *
 * Element values come from a stateless hash of (seed, matrix, row, column), so every rank builds
 * the tiles it owns without communication, and each value is exact in FP32 (24 random bits), so
 * both precisions multiply the same numbers. The config's matrix is not used (a dense family: its
 * sizes are the problem parameters M, N, K).
 *
 * Verification compares a set of sampled C entries (all entries when M N <= GEMM_ALL_ENTRIES,
 * else GEMM_SAMPLES entries spread by a hash, the last entry always among them): rank r of R
 * outputs the samples [r S / R, (r + 1) S / R), whoever computed them; the reference is each
 * sample's dot product in double precision. */
#ifndef GEMM_FAMILY_H
#define GEMM_FAMILY_H

#include <stdint.h>

#include "rt_matrix.h"
#include "rt_registry.h"

#define GEMM_ALL_ENTRIES 16384
#define GEMM_SAMPLES     4096

typedef struct gemm_inputs {
    int64_t m, n, k;
    rt_precision prec;
    uint64_t seed;
    int rank, nranks;         /* the job that measures the point (rt_job) */
    int64_t n_samples;        /* S, over all ranks */
    int64_t sample0, sample1; /* this rank's canonical share [sample0, sample1) */
} gemm_inputs;

/* The value of element (row, col) of matrix 'A' or 'B' (exact in FP32). */
double gemm_value(uint64_t seed, char matrix, int64_t row, int64_t col);

/* The C entry checked as sample s (0 <= s < n_samples). */
void gemm_sample_at(const gemm_inputs *in, int64_t s, int64_t *row, int64_t *col);

/* Fills a column-major tile (rows x cols, leading dimension rows) of matrix 'A' or 'B' whose
 * first element is (row0, col0), in the inputs' precision. */
void gemm_fill_tile(const gemm_inputs *in, char matrix, int64_t row0, int64_t col0, int64_t rows,
                    int64_t cols, void *tile);

/* The family's problem parameters (N, M, K, precision, seed) and hooks; the descriptor that
 * gathers them, with the model-only mode, is gemm_desc.h's. */
#define GEMM_N_PROBLEM 5
extern const rt_param_schema gemm_problem[GEMM_N_PROBLEM];
/* Inputs of job->rank's share of the samples of C among job->nranks ranks. */
int gemm_make_inputs(const rt_csr *a, const rt_params *problem, const rt_job *job, void **inputs,
                     rt_err *err);
void gemm_free_inputs(void *inputs);
int64_t gemm_output_elems(const void *inputs);
double gemm_tolerance(const void *inputs);
int gemm_reference(const void *inputs, double *out, rt_err *err);
/* Each sample's |A||B| (rt_family_desc.reference_scale), for the elementwise gate. */
int gemm_reference_scale(const void *inputs, double *scale, rt_err *err);
double gemm_flops(const void *inputs);
/* Host bytes of job->rank's share of A, B and C, and its sampled output (the runner's estimate). */
int gemm_footprint(const rt_csr *a, const rt_params *problem, const rt_job *job, rt_footprint *out,
                   rt_err *err);

#endif
