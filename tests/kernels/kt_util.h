/* kt_util: helpers the kernel tests share. Matrices are kept as coordinate triplets (kt_coo) and
 * turned into CSR with rt_csr_from_coo; the dense reference is computed from the triplets
 * themselves, so it shares no code with the CSR path, the family reference or any kernel. */
#ifndef KT_UTIL_H
#define KT_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_generators.h"
#include "rt_matrix.h"
#include "rt_metrics.h"
#include "rt_registry.h"
#include "spmm_family.h"

typedef struct kt_coo {
    int64_t rows, cols, n, cap;
    int64_t *ri, *ci;
    double *v;
} kt_coo;

static inline uint64_t kt_rand(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

/* Uniform in [-1, 1), never exactly 0 (zeros would blur missing-entry checks). */
static inline double kt_value(uint64_t *state)
{
    const double v = (double)(kt_rand(state) % 2000001) / 1000000.0 - 1.0;
    return v == 0.0 ? 0.25 : v;
}

static inline void kt_coo_init(kt_coo *m, int64_t rows, int64_t cols)
{
    memset(m, 0, sizeof *m);
    m->rows = rows;
    m->cols = cols;
}

static inline void kt_coo_add(kt_coo *m, int64_t r, int64_t c, double v)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->ri = realloc(m->ri, (size_t)m->cap * sizeof *m->ri);
        m->ci = realloc(m->ci, (size_t)m->cap * sizeof *m->ci);
        m->v = realloc(m->v, (size_t)m->cap * sizeof *m->v);
        if (!m->ri || !m->ci || !m->v)
            abort(); /* test helper: out of memory ends the test */
    }
    m->ri[m->n] = r;
    m->ci[m->n] = c;
    m->v[m->n] = v;
    m->n++;
}

static inline void kt_coo_free(kt_coo *m)
{
    free(m->ri);
    free(m->ci);
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* Random pattern: each entry present with probability density; rows listed in empty_rows stay
 * empty. */
static inline void kt_coo_random(kt_coo *m, int64_t rows, int64_t cols, double density,
                                 uint64_t seed, const int64_t *empty_rows, int n_empty)
{
    kt_coo_init(m, rows, cols);
    uint64_t st = seed * 2654435761ULL + 1;
    for (int64_t r = 0; r < rows; ++r) {
        int skip = 0;
        for (int e = 0; e < n_empty; ++e)
            skip |= empty_rows[e] == r;
        if (skip)
            continue;
        for (int64_t c = 0; c < cols; ++c)
            if ((double)(kt_rand(&st) % 1000000) < density * 1000000.0)
                kt_coo_add(m, r, c, kt_value(&st));
    }
}

/* rows x cols with row `row` dense (values from kt_value seeded with seed), then the entries (0,
 * c0) = v0 and (rows - 1, c1) = v1. */
static inline void kt_coo_dense_row(kt_coo *m, int64_t rows, int64_t cols, int64_t row,
                                    uint64_t seed, int64_t c0, double v0, int64_t c1, double v1)
{
    kt_coo_init(m, rows, cols);
    uint64_t st = seed;
    for (int64_t c = 0; c < cols; ++c)
        kt_coo_add(m, row, c, kt_value(&st));
    kt_coo_add(m, 0, c0, v0);
    kt_coo_add(m, rows - 1, c1, v1);
}

/* rows x 1 with an entry scale * (r + 1) in every step-th row r. */
static inline void kt_coo_column(kt_coo *m, int64_t rows, int64_t step, double scale)
{
    kt_coo_init(m, rows, 1);
    for (int64_t r = 0; r < rows; r += step)
        kt_coo_add(m, r, 0, scale * (double)(r + 1));
}

static inline int kt_coo_to_csr(const kt_coo *m, rt_csr *out, rt_err *err)
{
    return rt_csr_from_coo(out, m->rows, m->cols, m->n, m->ri, m->ci, m->v, err);
}

/* C = A * B as rows x K row-major doubles, accumulated straight from the triplets (duplicates
 * add up) in triplet order, with B read element by element through rt_dense_get: no CSR, no
 * family code, no kernel code involved. */
static inline void kt_dense_reference(const kt_coo *m, const rt_dense *b, double *out)
{
    const int64_t k = b->cols;
    for (int64_t i = 0; i < m->rows * k; ++i)
        out[i] = 0.0;
    for (int64_t e = 0; e < m->n; ++e)
        for (int64_t j = 0; j < k; ++j)
            out[m->ri[e] * k + j] += m->v[e] * rt_dense_get(b, m->ci[e], j);
}

/* Triplets of a CSR matrix (for generated matrices, which come as CSR). */
static inline void kt_coo_from_csr(kt_coo *m, const rt_csr *a)
{
    kt_coo_init(m, a->rows, a->cols);
    for (int64_t r = 0; r < a->rows; ++r)
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
            kt_coo_add(m, r, a->colidx[e], a->val[e]);
}

/* Runs one point of kernel k the way the runner does: check, setup, two executions (the second
 * must give the same output as the first), output, metrics, teardown. Returns 0, RT_INFEASIBLE
 * or -1 (err filled). */
static inline int kt_run_kernel(const rt_kernel_desc *k, const rt_spmm_inputs *in,
                                const rt_params *p, double *out, rt_metrics *metrics, rt_err *err)
{
    rt_kernel_env env;
    memset(&env, 0, sizeof env);
    char why[256] = "";
    if (k->check) {
        const int c = k->check(k, in, p, &env, why, sizeof why, err);
        if (c != 0) {
            if (c == RT_INFEASIBLE)
                rt_err_set(err, "%s", why);
            return c;
        }
    }
    void *state = NULL;
    const int s = k->setup(k, in, p, &env, &state, err);
    if (s != 0)
        return s;
    const int64_t n = in->a->rows * in->k;
    double *first = malloc((size_t)(n > 0 ? n : 1) * sizeof *first);
    double sec = 0.0;
    int rc = 0;
    if (!first || k->run(state, &sec, err) != 0 || k->output(state, first, err) != 0 ||
        k->run(state, &sec, err) != 0 || k->output(state, out, err) != 0)
        rc = -1;
    for (int64_t i = 0; rc == 0 && i < n; ++i)
        if (memcmp(&first[i], &out[i], sizeof(double)) != 0)
            rc = rt_err_set(err, "%s: second execution differs at output %lld", k->name,
                            (long long)i);
    if (rc == 0 && metrics && k->metrics && k->metrics(state, metrics, err) != 0)
        rc = -1;
    free(first);
    k->teardown(state);
    return rc;
}

/* A matrix from generator gen with the n integer arguments keys[i] = vals[i] (rt_matrix_build). */
static inline int kt_generate(const char *gen, const char *const *keys, const int64_t *vals, int n,
                              rt_csr *a, rt_err *err)
{
    rt_params args;
    rt_params_init(&args);
    for (int i = 0; i < n; ++i)
        if (rt_params_set(&args, keys[i], rt_value_int(vals[i]), err) != 0)
            return -1;
    return rt_matrix_build(gen, &args, NULL, NULL, a, err);
}

#endif
