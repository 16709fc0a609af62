#include "gemm_family.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "rt_tables.h"
#include "rt_schema.h"

/* The problem parameters (gemm_family.h: GEMM_N_PROBLEM entries). */
const rt_param_schema gemm_problem[GEMM_N_PROBLEM] = {
    RT_PARAM_INT("N", "1..4194304", "256", "columns of B and C (and M, K when they are 0)"),
    RT_PARAM_INT("M", "0..4194304", "0", "rows of A and C (0: N)"),
    RT_PARAM_INT("K", "0..4194304", "0", "columns of A, rows of B (0: N)"),
    RT_PARAM_STR("precision", "fp32|fp64", "fp64", "precision of the tiles and the arithmetic"),
    RT_PARAM_INT("seed", "", "1", "seed of the values of A and B"),
};

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t salt_of(char matrix)
{
    return matrix == 'A' ? 0xA11CEULL : 0xB0B0ULL;
}

/* 24 random bits are exact in float; an exact zero would hide an unwritten tile. */
static inline double value_of(uint64_t seed, uint64_t salt, int64_t row, int64_t col)
{
    const uint64_t x = mix(seed ^ mix(salt ^ ((uint64_t)row << 32) ^ (uint64_t)col));
    const double v = (double)(x >> 40) * 0x1.0p-23 - 1.0;
    return v == 0.0 ? 0.5 : v;
}

double gemm_value(uint64_t seed, char matrix, int64_t row, int64_t col)
{
    return value_of(seed, salt_of(matrix), row, col);
}

void gemm_sample_at(const gemm_inputs *in, int64_t s, int64_t *row, int64_t *col)
{
    if (in->m * in->n <= GEMM_ALL_ENTRIES) {
        *row = s / in->n;
        *col = s % in->n;
    } else if (s == 0) { /* the last entry: in the ragged corner tile when there is one */
        *row = in->m - 1;
        *col = in->n - 1;
    } else {
        const uint64_t h = mix(in->seed ^ mix(0x5A3D1EULL + (uint64_t)s));
        *row = (int64_t)((h >> 32) % (uint64_t)in->m);
        *col = (int64_t)((h & 0xFFFFFFFFULL) % (uint64_t)in->n);
    }
}

/* The setup of a large point fills tens of GB: one loop per precision, the hash inlined. */
void gemm_fill_tile(const gemm_inputs *in, char matrix, int64_t row0, int64_t col0, int64_t rows,
                    int64_t cols, void *tile)
{
    const uint64_t salt = salt_of(matrix), seed = in->seed;
    if (in->prec == RT_FP64) {
        for (int64_t c = 0; c < cols; ++c) {
            double *dst = (double *)tile + c * rows;
            for (int64_t r = 0; r < rows; ++r)
                dst[r] = value_of(seed, salt, row0 + r, col0 + c);
        }
        return;
    }
    for (int64_t c = 0; c < cols; ++c) {
        float *dst = (float *)tile + c * rows;
        for (int64_t r = 0; r < rows; ++r)
            dst[r] = (float)value_of(seed, salt, row0 + r, col0 + c);
    }
}

/* N, M, K (0: as N) and the precision of a gemm problem point, as written (M and K not yet
 * defaulted), for make_inputs and the footprint. */
static int read_problem(const rt_params *problem, int64_t *n, int64_t *m, int64_t *k, int *pv,
                        rt_err *err)
{
    const char *owner = "gemm problem";
    char prec[16];
    if (rt_schema_int(gemm_problem, GEMM_N_PROBLEM, owner, problem, "N", n, err) != 0 ||
        rt_schema_int(gemm_problem, GEMM_N_PROBLEM, owner, problem, "M", m, err) != 0 ||
        rt_schema_int(gemm_problem, GEMM_N_PROBLEM, owner, problem, "K", k, err) != 0 ||
        rt_schema_str(gemm_problem, GEMM_N_PROBLEM, owner, problem, "precision", prec, sizeof prec,
                      err) != 0)
        return -1;
    *pv = rt_precision_parse(prec);
    if (*pv < 0)
        return rt_err_set(err, "%s: unknown precision '%s'", owner, prec);
    return 0;
}

int gemm_make_inputs(const rt_csr *a, const rt_params *problem, const rt_job *job, void **inputs,
                     rt_err *err)
{
    (void)a; /* dense: the sizes are problem parameters */
    const char *owner = "gemm problem";
    int64_t n = 0, m = 0, k = 0, seed = 0;
    int pv = 0;
    if (rt_job_check(job, owner, err) != 0 || read_problem(problem, &n, &m, &k, &pv, err) != 0 ||
        rt_schema_int(gemm_problem, GEMM_N_PROBLEM, owner, problem, "seed", &seed, err) != 0)
        return -1;
    gemm_inputs *in = calloc(1, sizeof *in);
    if (!in)
        return rt_err_set(err, "%s: out of memory", owner);
    in->n = n;
    in->m = m > 0 ? m : n;
    in->k = k > 0 ? k : n;
    in->prec = (rt_precision)pv;
    in->seed = (uint64_t)seed;
    in->rank = job->rank;
    in->nranks = job->nranks;
    in->n_samples = in->m * in->n <= GEMM_ALL_ENTRIES ? in->m * in->n : GEMM_SAMPLES;
    in->sample0 = in->n_samples * in->rank / in->nranks;
    in->sample1 = in->n_samples * (in->rank + 1) / in->nranks;
    *inputs = in;
    return 0;
}

void gemm_free_inputs(void *inputs)
{
    free(inputs);
}

int64_t gemm_output_elems(const void *inputs)
{
    const gemm_inputs *in = inputs;
    return in->sample1 - in->sample0;
}

/* Dot products of K terms of values in [-1, 1): rounding errors grow like sqrt(K) unit roundoffs
 * relative to the result for random signs; 16 sqrt(K) u leaves room for blocked summation. */
double gemm_tolerance(const void *inputs)
{
    const gemm_inputs *in = inputs;
    const double u = in->prec == RT_FP64 ? 0x1.0p-53 : 0x1.0p-24;
    return 16.0 * sqrt((double)in->k) * u + 4.0 * u;
}

/* Each of this rank's samples as a double-precision dot product of A's row and B's column: of
 * the values themselves (the reference), or of their magnitudes (the elementwise scale). */
static int sample_dots(const void *inputs, double *out, int magnitudes, rt_err *err)
{
    const gemm_inputs *in = inputs;
    if (!in || !out)
        return rt_err_set(err, "gemm reference: no inputs or output buffer");
    const int64_t n = in->sample1 - in->sample0;
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < n; ++s) {
        int64_t r, c;
        gemm_sample_at(in, in->sample0 + s, &r, &c);
        double acc = 0.0;
        for (int64_t k = 0; k < in->k; ++k) {
            const double a = gemm_value(in->seed, 'A', r, k), b = gemm_value(in->seed, 'B', k, c);
            acc += magnitudes ? fabs(a) * fabs(b) : a * b;
        }
        out[s] = acc;
    }
    return 0;
}

int gemm_reference(const void *inputs, double *out, rt_err *err)
{
    return sample_dots(inputs, out, 0, err);
}

/* Each sample's sum_k |a_rk| |b_kc|: its dot product's rounding error is a multiple of this, so
 * the gate checks every sample against its own bound as well as the norm of all of them. */
int gemm_reference_scale(const void *inputs, double *scale, rt_err *err)
{
    return sample_dots(inputs, scale, 1, err);
}

double gemm_flops(const void *inputs)
{
    const gemm_inputs *in = inputs;
    return 2.0 * (double)in->m * (double)in->n * (double)in->k / in->nranks;
}

/* Every kernel keeps this rank's share of A, B and C in host memory for the whole point (the data
 * start and end there: GPU kernels stream tiles through their gpu_mem_budget, so they have no
 * device need beyond that budget, which is theirs to check); the runner's arrays hold only the
 * sampled entries of C. */
int gemm_footprint(const rt_csr *a, const rt_params *problem, const rt_job *job, rt_footprint *out,
                   rt_err *err)
{
    (void)a;
    int64_t n = 0, m = 0, k = 0;
    int pv = 0;
    if (rt_job_check(job, "gemm problem", err) != 0 ||
        read_problem(problem, &n, &m, &k, &pv, err) != 0)
        return -1;
    m = m > 0 ? m : n;
    k = k > 0 ? k : n;
    const int rank = job->rank, nranks = job->nranks;
    const double esize = (double)rt_precision_bytes((rt_precision)pv);
    const double all = ((double)m * (double)k + (double)k * (double)n + (double)m * (double)n) *
                       esize / (double)nranks;
    const int64_t samples = m * n <= GEMM_ALL_ENTRIES ? m * n : GEMM_SAMPLES;
    out->output_elems = samples * (rank + 1) / nranks - samples * rank / nranks;
    out->workspace_bytes = all < 9.0e18 ? (int64_t)all : INT64_MAX;
    return 0;
}
