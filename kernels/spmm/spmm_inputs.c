#include "spmm_inputs.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SPMM_K_MAX 65536

int64_t rt_spmm_max_row_nnz(const rt_csr *a)
{
    int64_t longest = 0;
    if (!a || !a->rowptr)
        return 0;
    for (int64_t r = 0; r < a->rows; ++r) {
        const int64_t len = a->rowptr[r + 1] - a->rowptr[r];
        if (len > longest)
            longest = len;
    }
    return longest;
}

/* Why these bounds (the gate compares the normwise relative error ||C - R||_F / ||R||_F):
 *
 * fp64: reference and kernel both compute in double from the same double values; they differ
 * only by summation order (split or tree reductions on GPUs) and FMA contraction. A reduction of
 * L terms then differs by about sqrt(L) * 2^-53 relative in practice: 4e-13 even for a row of
 * 1e6 nonzeros, so 1e-12 is safe while still catching any real bug (a wrong or missing term
 * changes the result by ~1/sqrt(nnz) relative in norm, far above 1e-12 for any matrix a machine
 * can hold).
 *
 * fp32: A's values are rounded once to float (relative u = 2^-24 per product) and each output
 * is an fp32 reduction of at most L = max nnz per row terms. B's values lie in [-1, 1) with
 * random signs, so partial sums are random walks and the rounding errors behave as independent
 * variables (probabilistic error analysis, Higham & Mary 2019): the error of one output grows
 * like sqrt(L) * u * |output| rather than the worst case L * u. The factor 4 is a margin over
 * that estimate (the Frobenius ratio averages over outputs, so it sits well below the largest
 * single deviation). The floor 1e-5 (about 170 u) covers short rows, where constant terms
 * dominate sqrt(L), and kernels that reassociate (tree reductions, split K). A genuinely wrong
 * row (a dropped or duplicated term) moves the norm by far more than this on the matrices fp32
 * verification is used for; an unwritten output is NAN and always fails. */
double rt_spmm_tolerance_for(rt_precision prec, int64_t max_row_nnz)
{
    if (prec == RT_FP64)
        return 1e-12;
    const double unit_roundoff = ldexp(1.0, -24);
    const double len = max_row_nnz > 1 ? (double)max_row_nnz : 1.0;
    const double probabilistic = 4.0 * unit_roundoff * sqrt(len);
    return probabilistic > 1e-5 ? probabilistic : 1e-5;
}

double rt_spmm_rel_error(const double *out, const double *ref, int64_t n)
{
    double diff2 = 0.0, ref2 = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        if (!isfinite(out[i]))
            return INFINITY;
        const double d = out[i] - ref[i];
        diff2 += d * d;
        ref2 += ref[i] * ref[i];
    }
    return ref2 > 0.0 ? sqrt(diff2 / ref2) : sqrt(diff2);
}

void rt_spmm_inputs_destroy(rt_spmm_inputs *in)
{
    if (!in)
        return;
    rt_dense_free(&in->b);
    free(in);
}

int rt_spmm_inputs_create(const rt_csr *a, int64_t k, rt_precision prec, rt_layout layout,
                          uint64_t seed, rt_spmm_inputs **out, rt_err *err)
{
    *out = NULL;
    if (!a)
        return rt_err_set(err, "spmm: no matrix A given");
    if (k < 1 || k > SPMM_K_MAX)
        return rt_err_set(err, "spmm: K = %" PRId64 " is outside 1..%d", k, SPMM_K_MAX);
    if (prec != RT_FP32 && prec != RT_FP64)
        return rt_err_set(err, "spmm: unknown precision code %d", (int)prec);
    if (layout != RT_ROW_MAJOR && layout != RT_COL_MAJOR)
        return rt_err_set(err, "spmm: unknown layout code %d", (int)layout);
    /* Kernels index B with A's column indices without checks, so a malformed matrix must be
     * refused here rather than become an out-of-bounds read inside a kernel. */
    if (rt_csr_validate(a, err) != 0)
        return rt_err_prefix(err, "spmm: matrix A is malformed");

    rt_spmm_inputs *in = calloc(1, sizeof *in);
    if (!in)
        return rt_err_set(err, "spmm: out of memory allocating inputs");
    in->a = a;
    in->k = k;
    in->prec = prec;
    in->layout = layout;
    in->seed = seed;
    if (rt_dense_alloc(&in->b, a->cols, k, layout, prec, err) != 0) {
        free(in);
        return rt_err_prefix(err, "spmm: dense B (%" PRId64 " x %" PRId64 ", %s)", a->cols, k,
                             rt_precision_name(prec));
    }
    rt_dense_fill_random(&in->b, seed);
    *out = in;
    return 0;
}

void rt_spmm_dense_poison(rt_dense *c)
{
    const int64_t n = c->rows * c->cols;
    if (!c->data || n <= 0)
        return;
    /* Both layouts are dense (ld equals the contiguous extent), so the storage is n elements. */
    if (c->prec == RT_FP32) {
        float *d = c->data;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; ++i)
            d[i] = NAN;
    } else {
        double *d = c->data;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; ++i)
            d[i] = NAN;
    }
}

void rt_spmm_dense_to_rowmajor(const rt_dense *c, double *out)
{
    const int64_t rows = c->rows, cols = c->cols, ld = c->ld;
    if (!c->data)
        return;
    const int row_major = c->layout == RT_ROW_MAJOR;
    if (c->prec == RT_FP32) {
        const float *d = c->data;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j)
                out[i * cols + j] = (double)(row_major ? d[i * ld + j] : d[j * ld + i]);
    } else {
        const double *d = c->data;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j)
                out[i * cols + j] = row_major ? d[i * ld + j] : d[j * ld + i];
    }
}

float *rt_spmm_values_to_float(const double *val, int64_t n, rt_err *err)
{
    float *f = malloc((size_t)(n > 0 ? n : 1) * sizeof *f);
    if (!f) {
        rt_err_set(err, "out of memory converting %" PRId64 " values to fp32 (%.1f MiB)", n,
                   (double)n * 4.0 / 1048576.0);
        return NULL;
    }
    for (int64_t i = 0; i < n; ++i)
        f[i] = (float)val[i];
    return f;
}
