#include "dspmm_family.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dspmm_model_only.h"
#include "dspmm_part.h"
#include "rt_schema.h"

static const rt_param_schema dspmm_problem_params[] = {
    {"K", RT_V_INT, "1..65536", "32", 0, "columns of the dense matrices B and C"},
    {"precision", RT_V_STR, "fp32|fp64", "fp32", 0,
     "precision in which B and C are stored, multiplied, sent and reduced"},
    {"layout", RT_V_STR, "row", "row", 0, "layout of B and C: row-major only"},
    {"seed", RT_V_INT, "", "1", 0, "seed of the values of B"},
};
#define DSPMM_N_PROBLEM ((int)(sizeof dspmm_problem_params / sizeof dspmm_problem_params[0]))

void rt_dspmm_inputs_destroy(rt_dspmm_inputs *in)
{
    if (!in)
        return;
    rt_spmm_inputs_destroy(in->spmm);
    free(in);
}

int rt_dspmm_inputs_create(const rt_csr *a, int64_t k, rt_precision prec, uint64_t seed, int rank,
                           int nranks, rt_dspmm_inputs **out, rt_err *err)
{
    *out = NULL;
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return rt_err_set(err, "dspmm: rank %d of %d ranks", rank, nranks);
    rt_dspmm_inputs *in = calloc(1, sizeof *in);
    if (!in)
        return rt_err_set(err, "dspmm: out of memory allocating inputs");
    /* The spmm family's inputs are exactly ours (validated A, B from the seed): reuse them. */
    if (rt_spmm_inputs_create(a, k, prec, RT_ROW_MAJOR, seed, &in->spmm, err) != 0) {
        free(in);
        return rt_err_prefix(err, "dspmm");
    }
    in->rank = rank;
    in->nranks = nranks;
    dspmm_canonical_rows(a, rank, nranks, &in->c_row0, &in->c_row1);
    *out = in;
    return 0;
}

int rt_dspmm_problem(const rt_params *problem, int64_t *k, rt_precision *prec, rt_err *err)
{
    const char *owner = "dspmm problem";
    char prec_name[16];
    if (rt_schema_int(dspmm_problem_params, DSPMM_N_PROBLEM, owner, problem, "K", k, err) != 0 ||
        rt_schema_str(dspmm_problem_params, DSPMM_N_PROBLEM, owner, problem, "precision", prec_name,
                      sizeof prec_name, err) != 0)
        return -1;
    const int p = rt_precision_parse(prec_name);
    if (p < 0)
        return rt_err_set(err, "%s: cannot parse precision '%s'", owner, prec_name);
    *prec = (rt_precision)p;
    return 0;
}

static int dspmm_make_inputs(const rt_csr *a, const rt_params *problem, void **inputs, rt_err *err)
{
    int64_t k = 0, seed = 0;
    rt_precision prec = RT_FP32;
    char layout[16];
    if (rt_dspmm_problem(problem, &k, &prec, err) != 0 ||
        rt_schema_int(dspmm_problem_params, DSPMM_N_PROBLEM, "dspmm problem", problem, "seed",
                      &seed, err) != 0 ||
        rt_schema_str(dspmm_problem_params, DSPMM_N_PROBLEM, "dspmm problem", problem, "layout",
                      layout, sizeof layout, err) != 0)
        return -1;
    /* The family has no view of the harness's communicator, only of MPI itself; the harness's
     * world communicator is a duplicate of MPI_COMM_WORLD, so the ranks agree (kernels check). */
    int rank = 0, nranks = 1, inited = 0;
    MPI_Initialized(&inited);
    if (inited) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    }
    rt_dspmm_inputs *in = NULL;
    if (rt_dspmm_inputs_create(a, k, prec, (uint64_t)seed, rank, nranks, &in, err) != 0)
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

static const rt_family_desc dspmm_family_desc = {
    .name = "dspmm",
    .summary = "distributed SpMM C = A * B over all ranks (batch x data parallelism)",
    .problem_params = dspmm_problem_params,
    .n_problem_params = DSPMM_N_PROBLEM,
    .make_inputs = dspmm_make_inputs,
    .free_inputs = dspmm_free_inputs,
    .output_elems = dspmm_output_elems,
    .tolerance = dspmm_tolerance,
    .reference = dspmm_reference,
    .flops = dspmm_flops,
    .nonzeros = dspmm_nonzeros,
    .wants_whole_matrix = 1,
    .model = dspmm_model_only,
};

const rt_family_desc *rt_dspmm_family(void)
{
    return &dspmm_family_desc;
}
