#include "dspmm_family.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dspmm_part.h"
#include "rt_schema.h"
#include "rt_tables.h"
#include "spmm_scale.h"

const rt_param_schema rt_dspmm_problem_params[RT_DSPMM_N_PROBLEM_PARAMS] = {
    SPMM_PARAM_K,
    RT_PARAM_STR("precision", "fp32|fp64", "fp32",
                 "precision in which B and C are stored, multiplied, sent and reduced"),
    RT_PARAM_STR("layout", "row", "row", "layout of B and C: row-major only"),
    SPMM_PARAM_SEED,
};
_Static_assert(sizeof rt_dspmm_problem_params / sizeof rt_dspmm_problem_params[0] ==
                   RT_DSPMM_N_PROBLEM_PARAMS,
               "RT_DSPMM_N_PROBLEM_PARAMS counts the problem parameters");

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
    if (rt_schema_int(rt_dspmm_problem_params, RT_DSPMM_N_PROBLEM_PARAMS, owner, problem, "K", k,
                      err) != 0 ||
        rt_schema_str(rt_dspmm_problem_params, RT_DSPMM_N_PROBLEM_PARAMS, owner, problem,
                      "precision", prec_name, sizeof prec_name, err) != 0)
        return -1;
    const int p = rt_precision_parse(prec_name);
    if (p < 0)
        return rt_err_set(err, "%s: cannot parse precision '%s'", owner, prec_name);
    *prec = (rt_precision)p;
    return 0;
}
