/* The family's reference, elementwise scale and residual run on blocks of right-hand sides in
 * parallel (kernels/sptrsv/sptrsv_family.c): every column must go through the same operations in
 * the same order as one thread doing the rows in order, so the numbers are bitwise those of the
 * plain loops below (the loops the family had before, one thread, row by row) on 1, 2 and 3
 * threads, forward and backward, with 1, 5 and 32 right-hand sides (5 on 3 threads: blocks of
 * unequal width). A residual with a NaN in X is NaN on every thread count. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"
#include "sptrsv_family.h"
#include "sptrsv_test_matrix.h"

/* X = L^-1 B or L^-T B, row by row, long double accumulation. */
static void plain_solve(const rt_sptrsv_inputs *in, double *x)
{
    const rt_csr *l = &in->f.csr;
    const int64_t k = in->nrhs, n = in->n;
    if (in->backward) {
        long double *acc = malloc((size_t)(n * k) * sizeof *acc);
        RT_CHECK(acc != NULL);
        if (!acc)
            return;
        for (int64_t i = 0; i < n * k; ++i)
            acc[i] = in->b[i];
        for (int64_t i = n - 1; i >= 0; --i) {
            const int64_t diag = l->rowptr[i + 1] - 1;
            for (int64_t j = 0; j < k; ++j)
                x[i * k + j] = (double)(acc[i * k + j] / l->val[diag]);
            for (int64_t e = l->rowptr[i]; e < diag; ++e)
                for (int64_t j = 0; j < k; ++j)
                    acc[(int64_t)l->colidx[e] * k + j] -= (long double)l->val[e] * x[i * k + j];
        }
        free(acc);
        return;
    }
    for (int64_t i = 0; i < n; ++i) {
        long double acc[64];
        for (int64_t j = 0; j < k; ++j)
            acc[j] = in->b[i * k + j];
        const int64_t diag = l->rowptr[i + 1] - 1;
        for (int64_t e = l->rowptr[i]; e < diag; ++e)
            for (int64_t j = 0; j < k; ++j)
                acc[j] -= (long double)l->val[e] * x[(int64_t)l->colidx[e] * k + j];
        for (int64_t j = 0; j < k; ++j)
            x[i * k + j] = (double)(acc[j] / l->val[diag]);
    }
}

/* w = M(L)^-1 |L| |X| (or of L^T), element by element, terms in the order of the row's entries. */
static void plain_scale(const rt_sptrsv_inputs *in, const double *x, double *w)
{
    const rt_csr *l = &in->f.csr;
    const int64_t k = in->nrhs, n = in->n;
    if (in->backward) {
        memset(w, 0, (size_t)(n * k) * sizeof *w);
        for (int64_t i = n - 1; i >= 0; --i) {
            const int64_t diag = l->rowptr[i + 1] - 1;
            const double d = fabs(l->val[diag]);
            for (int64_t j = 0; j < k; ++j)
                w[i * k + j] = (d * fabs(x[i * k + j]) + w[i * k + j]) / d;
            for (int64_t e = l->rowptr[i]; e < diag; ++e)
                for (int64_t j = 0; j < k; ++j)
                    w[(int64_t)l->colidx[e] * k + j] +=
                        fabs(l->val[e]) * (fabs(x[i * k + j]) + w[i * k + j]);
        }
        return;
    }
    for (int64_t i = 0; i < n; ++i) {
        const int64_t diag = l->rowptr[i + 1] - 1;
        const double d = fabs(l->val[diag]);
        for (int64_t j = 0; j < k; ++j) {
            double acc = d * fabs(x[i * k + j]);
            for (int64_t e = l->rowptr[i]; e < diag; ++e) {
                const int64_t c = (int64_t)l->colidx[e] * k + j;
                acc += fabs(l->val[e]) * (fabs(x[c]) + w[c]);
            }
            w[i * k + j] = acc / d;
        }
    }
}

/* max |T X - B| / (max |B| + max |T| |X|), element by element. */
static double plain_residual(const rt_sptrsv_inputs *in, const double *x)
{
    const rt_csr *l = &in->f.csr;
    const int64_t k = in->nrhs, n = in->n;
    double *r = malloc((size_t)(n * k) * sizeof *r), *lx = calloc((size_t)(n * k), sizeof *lx);
    RT_CHECK(r && lx);
    if (!r || !lx) {
        free(r);
        free(lx);
        return NAN;
    }
    for (int64_t i = 0; i < n * k; ++i)
        r[i] = -in->b[i];
    for (int64_t i = 0; i < n; ++i)
        for (int64_t e = l->rowptr[i]; e < l->rowptr[i + 1]; ++e)
            for (int64_t j = 0; j < k; ++j) {
                /* forward: row i gathers; backward: row i of L scatters into L^T's rows */
                const int64_t src = in->backward ? i : (int64_t)l->colidx[e];
                const int64_t dst = in->backward ? (int64_t)l->colidx[e] : i;
                const double t = l->val[e] * x[src * k + j];
                r[dst * k + j] += t;
                lx[dst * k + j] += fabs(t);
            }
    double rmax = 0.0, bmax = 0.0, lxmax = 0.0;
    for (int64_t i = 0; i < n * k; ++i) {
        rmax = fabs(r[i]) > rmax ? fabs(r[i]) : rmax;
        bmax = fabs(in->b[i]) > bmax ? fabs(in->b[i]) : bmax;
        lxmax = lx[i] > lxmax ? lx[i] : lxmax;
    }
    free(r);
    free(lx);
    return rmax / (bmax + lxmax);
}

static int same_bits(const double *a, const double *b, int64_t n)
{
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

static void check_case(const rt_csr *a, int64_t nrhs, int backward)
{
    rt_sptrsv_inputs *in = NULL;
    rt_err err;
    RT_CHECK_MSG(rt_sptrsv_inputs_create(a, nrhs, SPTRSV_ORDER_METIS, 24, 5, 0, 1, &in, &err) == 0,
                 "%s", err.msg);
    if (!in)
        return;
    in->backward = backward;
    const int64_t m = in->n * nrhs;
    double *want = malloc((size_t)m * sizeof *want), *want_w = malloc((size_t)m * sizeof *want_w),
           *x = malloc((size_t)m * sizeof *x), *w = malloc((size_t)m * sizeof *w);
    RT_CHECK(want && want_w && x && w);
    if (!want || !want_w || !x || !w) {
        free(want), free(want_w), free(x), free(w);
        rt_sptrsv_inputs_destroy(in);
        return;
    }
    plain_solve(in, want);
    plain_scale(in, want, want_w);
    const double want_r = plain_residual(in, want);
    const rt_family_desc *fam = rt_sptrsv_family();
    for (int threads = 1; threads <= 3; ++threads) {
        omp_set_num_threads(threads);
        sptrsv_reference_solve(in, x);
        RT_CHECK_MSG(same_bits(x, want, m), "%s nrhs %lld, %d thread(s): the reference differs",
                     backward ? "backward" : "forward", (long long)nrhs, threads);
        RT_CHECK(fam->reference_scale(in, w, &err) == 0);
        RT_CHECK_MSG(same_bits(w, want_w, m), "%s nrhs %lld, %d thread(s): the scale differs",
                     backward ? "backward" : "forward", (long long)nrhs, threads);
        const double r = sptrsv_residual(in, x);
        RT_CHECK_MSG(r == want_r && r < 1e-15, "%s nrhs %lld, %d thread(s): residual %g, want %g",
                     backward ? "backward" : "forward", (long long)nrhs, threads, r, want_r);
        /* One NaN in X, in the last column (the last thread's block): the residual says so. */
        x[m - 1] = NAN;
        RT_CHECK_MSG(isnan(sptrsv_residual(in, x)), "%s nrhs %lld, %d thread(s): NaN lost",
                     backward ? "backward" : "forward", (long long)nrhs, threads);
    }
    free(want), free(want_w), free(x), free(w);
    rt_sptrsv_inputs_destroy(in);
}

int main(void)
{
    rt_csr a;
    sptrsv_test_laplacian(&a, 27, 9);
    const int64_t nrhs[] = {1, 5, 32};
    for (size_t i = 0; i < sizeof nrhs / sizeof nrhs[0]; ++i)
        for (int backward = 0; backward <= 1; ++backward)
            check_case(&a, nrhs[i], backward);
    rt_csr_free(&a);
    return RT_TEST_RESULT();
}
