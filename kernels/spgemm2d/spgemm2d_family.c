#include "spgemm2d_family.h"

#include <math.h>
#include <stdlib.h>

#include "rt_schema.h"
#include "rt_tables.h"
#include "sp2_problem.h"
#include "spmm_family.h"

static const rt_param_schema spgemm2d_problem[] = {
    SP2_PARAM_PRECISION,
    RT_PARAM_INT("seed", "", "1", "seed of the verification signature"),
};
#define SPGEMM2D_N_PROBLEM ((int)(sizeof spgemm2d_problem / sizeof spgemm2d_problem[0]))

static int spgemm2d_make_inputs(const rt_csr *a, const rt_params *problem, const rt_job *job,
                                void **inputs, rt_err *err)
{
    const char *owner = "spgemm2d problem";
    int64_t seed = 0;
    rt_precision prec = RT_FP32;
    if (rt_schema_int(spgemm2d_problem, SPGEMM2D_N_PROBLEM, owner, problem, "seed", &seed, err) !=
            0 ||
        sp2_read_precision(spgemm2d_problem, SPGEMM2D_N_PROBLEM, owner, problem, &prec, err) != 0)
        return -1;
    sp2_inputs *in = NULL;
    if (rt_job_check(job, owner, err) != 0 ||
        sp2_inputs_create(1, a, 0, prec, (uint64_t)seed, job->rank, job->nranks, &in, err) != 0)
        return -1;
    *inputs = in;
    return 0;
}

/* As spmm's (spmm_family.c explains the bound): reductions of at most max_row_nnz terms. fp32
 * rounds both factors of each product (A appears twice), so the bound doubles. */
static double spgemm2d_tolerance(const void *inputs)
{
    const sp2_inputs *in = inputs;
    const double t = rt_spmm_tolerance_for(in->prec, in->max_row_nnz);
    return in->prec == RT_FP32 ? 2.0 * t : t;
}

static int spgemm2d_reference(const void *inputs, double *out, rt_err *err)
{
    const sp2_inputs *in = inputs;
    if (!in || !out)
        return rt_err_set(err, "spgemm2d reference: no inputs or output buffer");
    const rt_csr *a = in->a;
    const int S = SP2_SIG_COLS;
    /* Y = A X for the rows of A that the canonical rows reach, then out = A Y. */
    double *y = calloc((size_t)a->rows * S, sizeof *y);
    double *x = malloc((size_t)a->cols * S * sizeof *x);
    char *need = calloc((size_t)a->rows, 1);
    if (!y || !x || !need) {
        free(y);
        free(x);
        free(need);
        return rt_err_set(err, "spgemm2d reference: out of memory for %lld x %d signatures",
                          (long long)a->rows, S);
    }
    for (int64_t c = 0; c < a->cols; ++c)
        for (int s = 0; s < S; ++s)
            x[c * S + s] = sp2_sig_value(in->seed, c, s);
    for (int64_t e = a->rowptr[in->r0]; e < a->rowptr[in->r1]; ++e)
        need[a->colidx[e]] = 1;
    for (int64_t k = 0; k < a->rows; ++k) {
        if (!need[k])
            continue;
        for (int64_t e = a->rowptr[k]; e < a->rowptr[k + 1]; ++e)
            for (int s = 0; s < S; ++s)
                y[k * S + s] += a->val[e] * x[(int64_t)a->colidx[e] * S + s];
    }
    for (int64_t r = in->r0; r < in->r1; ++r) {
        double *row = out + (r - in->r0) * S;
        for (int s = 0; s < S; ++s)
            row[s] = 0.0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
            for (int s = 0; s < S; ++s)
                row[s] += a->val[e] * y[(int64_t)a->colidx[e] * S + s];
    }
    free(y);
    free(x);
    free(need);
    return 0;
}

/* |A| (|A| |X|) of the canonical rows: the signature (A A) X's elementwise error scale. */
static int spgemm2d_reference_scale(const void *inputs, double *scale, rt_err *err)
{
    const sp2_inputs *in = inputs;
    if (!in || !scale)
        return rt_err_set(err, "spgemm2d reference scale: no inputs or output buffer");
    const rt_csr *a = in->a;
    const int S = SP2_SIG_COLS;
    double *y = calloc((size_t)a->rows * S, sizeof *y);
    if (!y)
        return rt_err_set(err, "spgemm2d reference scale: out of memory for %lld x %d values",
                          (long long)a->rows, S);
    for (int64_t k = 0; k < a->rows; ++k)
        for (int64_t e = a->rowptr[k]; e < a->rowptr[k + 1]; ++e)
            for (int s = 0; s < S; ++s)
                y[k * S + s] += fabs(a->val[e]) * fabs(sp2_sig_value(in->seed, a->colidx[e], s));
    for (int64_t r = in->r0; r < in->r1; ++r) {
        double *row = scale + (r - in->r0) * S;
        for (int s = 0; s < S; ++s)
            row[s] = 0.0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
            for (int s = 0; s < S; ++s)
                row[s] += fabs(a->val[e]) * y[(int64_t)a->colidx[e] * S + s];
    }
    free(y);
    return 0;
}

static int spgemm2d_footprint(const rt_csr *a, const rt_params *problem, const rt_job *job,
                              rt_footprint *out, rt_err *err)
{
    return sp2_footprint(1, spgemm2d_problem, SPGEMM2D_N_PROBLEM, a, problem, job, out, err);
}

static const rt_family_desc spgemm2d_desc = {
    .name = "spgemm2d",
    .summary = "2D distributed SpGEMM C = A * A over a process grid (verified by signature)",
    .problem_params = spgemm2d_problem,
    .n_problem_params = SPGEMM2D_N_PROBLEM,
    .make_inputs = spgemm2d_make_inputs,
    .free_inputs = sp2_free_inputs,
    .output_elems = sp2_output_elems,
    .tolerance = spgemm2d_tolerance,
    .reference = spgemm2d_reference,
    .reference_scale = spgemm2d_reference_scale,
    .footprint = spgemm2d_footprint,
    .flops = sp2_flops,
    .nonzeros = sp2_nonzeros,
    .wants_whole_matrix = 1,
};

const rt_family_desc *rt_spgemm2d_family(void)
{
    return &spgemm2d_desc;
}
