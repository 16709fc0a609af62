/* The dspmm family descriptor: make_inputs, reference, tolerance, flops and the model-only hook
 * over the inputs of dspmm_family.h (kept apart so that the inputs do not depend on the model). */
#include "dspmm_desc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dspmm_model_only.h"
#include "dspmm_part.h"
#include "rt_schema.h"
#include "spmm_scale.h"
#include "dspmm_family.h"

static int dspmm_make_inputs(const rt_csr *a, const rt_params *problem, const rt_job *job,
                             void **inputs, rt_err *err)
{
    int64_t k = 0, seed = 0;
    rt_precision prec = RT_FP32;
    char layout[16];
    if (rt_job_check(job, "dspmm problem", err) != 0 ||
        rt_dspmm_problem(problem, &k, &prec, err) != 0 ||
        rt_schema_int(rt_dspmm_problem_params, RT_DSPMM_N_PROBLEM_PARAMS, "dspmm problem", problem,
                      "seed", &seed, err) != 0 ||
        rt_schema_str(rt_dspmm_problem_params, RT_DSPMM_N_PROBLEM_PARAMS, "dspmm problem", problem,
                      "layout", layout, sizeof layout, err) != 0)
        return -1;
    /* The job's place, not a communicator: kernels check that it is their environment's. */
    rt_dspmm_inputs *in = NULL;
    if (rt_dspmm_inputs_create(a, k, prec, (uint64_t)seed, job->rank, job->nranks, &in, err) != 0)
        return -1;
    *inputs = in;
    return 0;
}

static void dspmm_free_inputs(void *inputs)
{
    rt_dspmm_inputs_destroy(inputs);
}

static int64_t dspmm_output_elems(const void *inputs)
{
    const rt_dspmm_inputs *in = inputs;
    return (in->c_row1 - in->c_row0) * in->spmm->k;
}

static double dspmm_tolerance(const void *inputs)
{
    const rt_dspmm_inputs *in = inputs;
    /* A row's sum is split among column blocks and reduced in a tree; the length that drives the
     * rounding error is still the row's nonzero count, so the spmm bound holds. */
    return rt_spmm_tolerance_for(in->spmm->prec, rt_spmm_max_row_nnz(in->spmm->a));
}

static int dspmm_reference(const void *inputs, double *out, rt_err *err)
{
    const rt_dspmm_inputs *in = inputs;
    if (!in || !out)
        return rt_err_set(err, "dspmm reference: no inputs or output buffer");
    const rt_csr *a = in->spmm->a;
    const int64_t k = in->spmm->k, ld = in->spmm->b.ld;
    const int fp32 = in->spmm->prec == RT_FP32;
    const float *bf = in->spmm->b.data;
    const double *bd = in->spmm->b.data;
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t r = in->c_row0; r < in->c_row1; ++r) {
        double *c = out + (r - in->c_row0) * k;
        for (int64_t j = 0; j < k; ++j)
            c[j] = 0.0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {
            const double v = a->val[e];
            const int64_t col = a->colidx[e];
            if (fp32)
                for (int64_t j = 0; j < k; ++j)
                    c[j] += v * (double)bf[col * ld + j];
            else
                for (int64_t j = 0; j < k; ++j)
                    c[j] += v * bd[col * ld + j];
        }
    }
    return 0;
}

static int dspmm_reference_scale(const void *inputs, double *scale, rt_err *err)
{
    const rt_dspmm_inputs *in = inputs;
    if (!in || !scale)
        return rt_err_set(err, "dspmm reference scale: no inputs or output buffer");
    rt_spmm_abs_product_rows(in->spmm, in->c_row0, in->c_row1, scale);
    return 0;
}

static double block_nnz(const rt_dspmm_inputs *in)
{
    const rt_csr *a = in->spmm->a;
    return (double)(a->rowptr[in->c_row1] - a->rowptr[in->c_row0]);
}

static double dspmm_flops(const void *inputs)
{
    const rt_dspmm_inputs *in = inputs;
    return 2.0 * block_nnz(in) * (double)in->spmm->k;
}

static double dspmm_nonzeros(const void *inputs)
{
    return block_nnz(inputs);
}

/* Every rank builds B (cols x K) whole from the seed and owns its canonical rows of C; a device
 * kernel copies A (CSR, 32-bit indices) and B. The partial rows a kernel exchanges are its own
 * workspace, not counted: the estimate is a lower bound. */
static int dspmm_footprint(const rt_csr *a, const rt_params *problem, const rt_job *job,
                           rt_footprint *out, rt_err *err)
{
    int64_t k = 0;
    rt_precision prec = RT_FP32;
    if (rt_job_check(job, "dspmm problem", err) != 0 ||
        rt_dspmm_problem(problem, &k, &prec, err) != 0)
        return -1;
    int64_t r0 = 0, r1 = 0;
    dspmm_canonical_rows(a, job->rank, job->nranks, &r0, &r1);
    const int64_t esize = (int64_t)rt_precision_bytes(prec);
    const int64_t b_bytes = a->cols * k * esize;
    out->input_bytes = b_bytes;
    out->output_elems = (r1 - r0) * k;
    out->output_bytes = (r1 - r0) * k * esize;
    out->operand_bytes = (a->rows + 1) * 4 + a->nnz * (4 + esize) + b_bytes;
    return 0;
}

static const rt_family_desc dspmm_family_desc = {
    .name = "dspmm",
    .summary = "distributed SpMM C = A * B over all ranks (batch x data parallelism)",
    .problem_params = rt_dspmm_problem_params,
    .n_problem_params = RT_DSPMM_N_PROBLEM_PARAMS,
    .make_inputs = dspmm_make_inputs,
    .free_inputs = dspmm_free_inputs,
    .output_elems = dspmm_output_elems,
    .tolerance = dspmm_tolerance,
    .reference = dspmm_reference,
    .reference_scale = dspmm_reference_scale,
    .footprint = dspmm_footprint,
    .flops = dspmm_flops,
    .nonzeros = dspmm_nonzeros,
    .wants_whole_matrix = 1,
    .model = &dspmm_model,
};

const rt_family_desc *rt_dspmm_family(void)
{
    return &dspmm_family_desc;
}
