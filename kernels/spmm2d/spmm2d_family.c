#include "spmm2d_family.h"

#include <math.h>
#include <stdlib.h>

#include "rt_schema.h"
#include "rt_tables.h"
#include "sp2_problem.h"
#include "spmm_family.h"

static const rt_param_schema spmm2d_problem[] = {
    RT_PARAM_INT("N", "1..65536", "128", "columns of the dense matrices B and C"),
    SP2_PARAM_PRECISION,
    SPMM_PARAM_SEED,
};
#define SPMM2D_N_PROBLEM ((int)(sizeof spmm2d_problem / sizeof spmm2d_problem[0]))

static int spmm2d_make_inputs(const rt_csr *a, const rt_params *problem, const rt_job *job,
                              void **inputs, rt_err *err)
{
    const char *owner = "spmm2d problem";
    int64_t n = 0, seed = 0;
    rt_precision prec = RT_FP32;
    if (rt_schema_int(spmm2d_problem, SPMM2D_N_PROBLEM, owner, problem, "N", &n, err) != 0 ||
        rt_schema_int(spmm2d_problem, SPMM2D_N_PROBLEM, owner, problem, "seed", &seed, err) != 0 ||
        sp2_read_precision(spmm2d_problem, SPMM2D_N_PROBLEM, owner, problem, &prec, err) != 0)
        return -1;
    sp2_inputs *in = NULL;
    if (rt_job_check(job, owner, err) != 0 ||
        sp2_inputs_create(0, a, n, prec, (uint64_t)seed, job->rank, job->nranks, &in, err) != 0)
        return -1;
    *inputs = in;
    return 0;
}

/* As spmm's (spmm_family.c explains the bound): reductions of at most max_row_nnz terms. */
static double spmm2d_tolerance(const void *inputs)
{
    const sp2_inputs *in = inputs;
    return rt_spmm_tolerance_for(in->prec, in->max_row_nnz);
}

static int spmm2d_reference(const void *inputs, double *out, rt_err *err)
{
    const sp2_inputs *in = inputs;
    if (!in || !out)
        return rt_err_set(err, "spmm2d reference: no inputs or output buffer");
    const rt_csr *a = in->a;
    const int64_t n = in->n;
    for (int64_t r = in->r0; r < in->r1; ++r) {
        double *row = out + (r - in->r0) * n;
        for (int64_t j = 0; j < n; ++j)
            row[j] = 0.0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {
            const double v = a->val[e];
            const int64_t c = a->colidx[e];
            for (int64_t j = 0; j < n; ++j)
                row[j] += v * sp2_b_value(in->seed, c, j);
        }
    }
    return 0;
}

/* |A||B| of the canonical rows: the scale of each element's rounding error, so the gate checks
 * every element as well as the norm (rt_family_desc.reference_scale). */
static int spmm2d_reference_scale(const void *inputs, double *scale, rt_err *err)
{
    const sp2_inputs *in = inputs;
    if (!in || !scale)
        return rt_err_set(err, "spmm2d reference scale: no inputs or output buffer");
    const rt_csr *a = in->a;
    const int64_t n = in->n;
    for (int64_t r = in->r0; r < in->r1; ++r) {
        double *row = scale + (r - in->r0) * n;
        for (int64_t j = 0; j < n; ++j)
            row[j] = 0.0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {
            const double v = fabs(a->val[e]);
            const int64_t c = a->colidx[e];
            for (int64_t j = 0; j < n; ++j)
                row[j] += v * fabs(sp2_b_value(in->seed, c, j));
        }
    }
    return 0;
}

static int spmm2d_footprint(const rt_csr *a, const rt_params *problem, const rt_job *job,
                            rt_footprint *out, rt_err *err)
{
    return sp2_footprint(0, spmm2d_problem, SPMM2D_N_PROBLEM, a, problem, job, out, err);
}

static const rt_family_desc spmm2d_desc = {
    .name = "spmm2d",
    .summary = "2D distributed SpMM C = A * B (A sparse, B dense k x N) over a process grid",
    .problem_params = spmm2d_problem,
    .n_problem_params = SPMM2D_N_PROBLEM,
    .make_inputs = spmm2d_make_inputs,
    .free_inputs = sp2_free_inputs,
    .output_elems = sp2_output_elems,
    .tolerance = spmm2d_tolerance,
    .reference = spmm2d_reference,
    .reference_scale = spmm2d_reference_scale,
    .footprint = spmm2d_footprint,
    .flops = sp2_flops,
    .nonzeros = sp2_nonzeros,
    .wants_whole_matrix = 1,
};

const rt_family_desc *rt_spmm2d_family(void)
{
    return &spmm2d_desc;
}
