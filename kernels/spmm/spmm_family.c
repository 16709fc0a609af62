#include "spmm_family.h"
#include "spmm_scale.h"
#include "spmm_traffic.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_kernels.h"

#define SPMM_K_MAX 65536

static const rt_param_schema spmm_problem_params[] = {
    {"K", RT_V_INT, "1..65536", "32", 0, "columns of the dense matrices B and C"},
    {"precision", RT_V_STR, "fp32|fp64", "fp32", 0,
     "precision in which B and C are stored and the kernel computes"},
    {"layout", RT_V_STR, "row|col", "row", 0, "layout of B and C (row- or column-major)"},
    {"seed", RT_V_INT, "", "1", 0, "seed of the values of B"},
};
#define SPMM_N_PROBLEM_PARAMS ((int)(sizeof spmm_problem_params / sizeof spmm_problem_params[0]))

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

static int spmm_make_inputs(const rt_csr *a, const rt_params *problem, void **inputs, rt_err *err)
{
    const char *owner = "spmm problem";
    int64_t k = 0, seed = 0;
    char prec_name[16], layout_name[16];
    if (rt_kernels_param_int(spmm_problem_params, SPMM_N_PROBLEM_PARAMS, owner, problem, "K", &k,
                             err) != 0 ||
        rt_kernels_param_int(spmm_problem_params, SPMM_N_PROBLEM_PARAMS, owner, problem, "seed",
                             &seed, err) != 0 ||
        rt_kernels_param_str(spmm_problem_params, SPMM_N_PROBLEM_PARAMS, owner, problem,
                             "precision", prec_name, sizeof prec_name, err) != 0 ||
        rt_kernels_param_str(spmm_problem_params, SPMM_N_PROBLEM_PARAMS, owner, problem, "layout",
                             layout_name, sizeof layout_name, err) != 0)
        return -1;
    const int prec = rt_precision_parse(prec_name);
    const int layout = rt_layout_parse(layout_name);
    if (prec < 0 || layout < 0)
        return rt_err_set(err, "%s: cannot parse precision '%s' or layout '%s'", owner, prec_name,
                          layout_name);
    rt_spmm_inputs *in = NULL;
    if (rt_spmm_inputs_create(a, k, (rt_precision)prec, (rt_layout)layout, (uint64_t)seed, &in,
                              err) != 0)
        return -1;
    *inputs = in;
    return 0;
}

static void spmm_free_inputs(void *inputs)
{
    rt_spmm_inputs_destroy(inputs);
}

static int64_t spmm_output_elems(const void *inputs)
{
    const rt_spmm_inputs *in = inputs;
    return in->a->rows * in->k;
}

static double spmm_tolerance(const void *inputs)
{
    const rt_spmm_inputs *in = inputs;
    return rt_spmm_tolerance_for(in->prec, rt_spmm_max_row_nnz(in->a));
}

/* One output row in double; B is read through its own precision and layout. */
static void reference_row(const rt_spmm_inputs *in, int64_t r, double *restrict c_row)
{
    const rt_csr *a = in->a;
    const int64_t k = in->k;
    const int64_t ld = in->b.ld;
    for (int64_t j = 0; j < k; ++j)
        c_row[j] = 0.0;
    for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {
        const double v = a->val[e];
        const int64_t col = a->colidx[e];
        if (in->prec == RT_FP32) {
            const float *b = in->b.data;
            if (in->layout == RT_ROW_MAJOR)
                for (int64_t j = 0; j < k; ++j)
                    c_row[j] += v * (double)b[col * ld + j];
            else
                for (int64_t j = 0; j < k; ++j)
                    c_row[j] += v * (double)b[j * ld + col];
        } else {
            const double *b = in->b.data;
            if (in->layout == RT_ROW_MAJOR)
                for (int64_t j = 0; j < k; ++j)
                    c_row[j] += v * b[col * ld + j];
            else
                for (int64_t j = 0; j < k; ++j)
                    c_row[j] += v * b[j * ld + col];
        }
    }
}

static int spmm_reference(const void *inputs, double *out, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    if (!in || !out)
        return rt_err_set(err, "spmm reference: no inputs or output buffer");
    const int64_t rows = in->a->rows;
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t r = 0; r < rows; ++r)
        reference_row(in, r, out + r * in->k);
    return 0;
}

static int spmm_reference_scale(const void *inputs, double *scale, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    if (!in || !scale)
        return rt_err_set(err, "spmm reference scale: no inputs or output buffer");
    rt_spmm_abs_product_rows(in, 0, in->a->rows, scale);
    return 0;
}

static double spmm_flops(const void *inputs)
{
    const rt_spmm_inputs *in = inputs;
    return 2.0 * (double)in->a->nnz * (double)in->k;
}

static double spmm_nonzeros(const void *inputs)
{
    const rt_spmm_inputs *in = inputs;
    return (double)in->a->nnz;
}

rt_traffic rt_spmm_traffic_compulsory(const rt_spmm_inputs *in, rt_precision value_prec)
{
    const rt_csr *a = in->a;
    const double vb = (double)rt_precision_bytes(value_prec);
    const double a_bytes = (double)a->nnz * (vb + 4.0) + (double)(a->rows + 1) * 8.0;
    rt_traffic t;
    rt_err err;
    if (rt_spmm_traffic_fill(in, a_bytes, 0, &t, &err) != 0) {
        /* Only when the column bitmap cannot be allocated: leave B out rather than count all of
         * it, so the model stays a lower bound (kernels' hooks report the error instead). */
        const double db = (double)rt_precision_bytes(in->prec);
        memset(&t, 0, sizeof t);
        t.flops = 2.0 * (double)a->nnz * (double)in->k;
        t.bytes[RT_LEVEL_DRAM] = a_bytes + (double)a->rows * (double)in->k * db;
    }
    return t;
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

static const rt_family_desc spmm_family_desc = {
    .name = "spmm",
    .summary = "sparse times dense matrix product C = A * B (B, C dense n x K, m x K)",
    .problem_params = spmm_problem_params,
    .n_problem_params = SPMM_N_PROBLEM_PARAMS,
    .make_inputs = spmm_make_inputs,
    .free_inputs = spmm_free_inputs,
    .output_elems = spmm_output_elems,
    .tolerance = spmm_tolerance,
    .reference = spmm_reference,
    .reference_scale = spmm_reference_scale,
    .flops = spmm_flops,
    .nonzeros = spmm_nonzeros,
};

const rt_family_desc *rt_spmm_family(void)
{
    return &spmm_family_desc;
}
