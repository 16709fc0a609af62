#include "spmm_family.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_schema.h"
#include "rt_tables.h"
#include "spmm_scale.h"

static const rt_param_schema spmm_problem_params[] = {
    SPMM_PARAM_K,
    RT_PARAM_STR("precision", "fp32|fp64", "fp32",
                 "precision in which B and C are stored and the kernel computes"),
    RT_PARAM_STR("layout", "row|col", "row", "layout of B and C (row- or column-major)"),
    SPMM_PARAM_SEED,
};
#define SPMM_N_PROBLEM_PARAMS ((int)(sizeof spmm_problem_params / sizeof spmm_problem_params[0]))

static int spmm_make_inputs(const rt_csr *a, const rt_params *problem, const rt_job *job,
                            void **inputs, rt_err *err)
{
    (void)job; /* the runner hands each rank its rows of A: B and C follow from them */
    const char *owner = "spmm problem";
    int64_t k = 0, seed = 0;
    char prec_name[16], layout_name[16];
    if (rt_schema_int(spmm_problem_params, SPMM_N_PROBLEM_PARAMS, owner, problem, "K", &k, err) !=
            0 ||
        rt_schema_int(spmm_problem_params, SPMM_N_PROBLEM_PARAMS, owner, problem, "seed", &seed,
                      err) != 0 ||
        rt_schema_str(spmm_problem_params, SPMM_N_PROBLEM_PARAMS, owner, problem, "precision",
                      prec_name, sizeof prec_name, err) != 0 ||
        rt_schema_str(spmm_problem_params, SPMM_N_PROBLEM_PARAMS, owner, problem, "layout",
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

/* B (cols x K) on the host; C (rows x K) as kernels hold it; A (CSR, 32-bit indices) and B as a
 * device kernel copies them, all in the point's precision. */
static int spmm_footprint(const rt_csr *a, const rt_params *problem, const rt_job *job,
                          rt_footprint *out, rt_err *err)
{
    (void)job; /* a is this rank's rows already */
    const char *owner = "spmm problem";
    int64_t k = 0;
    char prec_name[16];
    if (rt_schema_int(spmm_problem_params, SPMM_N_PROBLEM_PARAMS, owner, problem, "K", &k, err) !=
            0 ||
        rt_schema_str(spmm_problem_params, SPMM_N_PROBLEM_PARAMS, owner, problem, "precision",
                      prec_name, sizeof prec_name, err) != 0)
        return -1;
    const int prec = rt_precision_parse(prec_name);
    if (prec < 0)
        return rt_err_set(err, "%s: cannot parse precision '%s'", owner, prec_name);
    const int64_t esize = (int64_t)rt_precision_bytes((rt_precision)prec);
    const int64_t b_bytes = a->cols * k * esize;
    out->input_bytes = b_bytes;
    out->output_elems = a->rows * k;
    out->output_bytes = a->rows * k * esize;
    out->operand_bytes = (a->rows + 1) * 4 + a->nnz * (4 + esize) + b_bytes;
    return 0;
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
    .footprint = spmm_footprint,
    .flops = spmm_flops,
    .nonzeros = spmm_nonzeros,
};

const rt_family_desc *rt_spmm_family(void)
{
    return &spmm_family_desc;
}
