#include "eigen_family.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eigen_dev_host.h"
#include "eigen_micro.h"
#include "rt_schema.h"
#include "rt_stencil_spectrum.h"
#include "rt_tables.h"

static const rt_param_schema eigen_problem[] = {
    RT_PARAM_STR(
        "solver", "lobpcg|lanczos|spmm|xty", "lobpcg",
        "block LOBPCG or Lanczos; spmm (Y = A X) and xty (X'Y): the out-of-core microbenchmarks"),
    RT_PARAM_INT(
        "block", "1..128", "48",
        "LOBPCG block width, and the width of X and Y for spmm and xty (Lanczos ignores it)"),
    RT_PARAM_INT("nev", "1..128", "4", "smallest eigenpairs returned and verified"),
    RT_PARAM_INT("iters", "1..100000", "20", "LOBPCG iterations or Lanczos steps"),
    RT_PARAM_INT("seed", "", "1", "seed of the starting block"),
    RT_PARAM_INT("symmetrize", "0..1", "0",
                 "1: solve for (A + A')/2 (R-MAT); 0: a non-symmetric matrix is an error"),
    RT_PARAM_REAL(
        "res_tol", "1e-14..1", "1e-6",
        "every returned pair must reach ||A x - theta x|| / ||A||_inf below this (the gate)"),
};
#define EIGEN_N_PROBLEM ((int)(sizeof eigen_problem / sizeof eigen_problem[0]))

void eg_inputs_destroy(eg_inputs *in)
{
    if (!in)
        return;
    rt_csr_free(&in->sym);
    free(in);
}

/* The first (row, col) where A differs from A', or 0 when symmetric. */
static int find_asymmetry(const rt_csr *a, int64_t *row, int64_t *col)
{
    for (int64_t r = 0; r < a->rows; ++r)
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {
            const int64_t c = a->colidx[e];
            double mirror = 0.0;
            for (int64_t f = a->rowptr[c]; f < a->rowptr[c + 1]; ++f)
                if (a->colidx[f] == r) {
                    mirror = a->val[f];
                    break;
                }
            if (mirror != a->val[e]) {
                *row = r;
                *col = c;
                return 1;
            }
        }
    return 0;
}

static int symmetrized(const rt_csr *a, rt_csr *out, rt_err *err)
{
    const int64_t nnz = 2 * a->nnz;
    int64_t *ri = malloc((size_t)(nnz ? nnz : 1) * sizeof *ri);
    int64_t *ci = malloc((size_t)(nnz ? nnz : 1) * sizeof *ci);
    double *v = malloc((size_t)(nnz ? nnz : 1) * sizeof *v);
    int rc = -1;
    if (!ri || !ci || !v) {
        rt_err_set(err, "eigen: out of memory symmetrizing %lld nonzeros", (long long)a->nnz);
    } else {
        int64_t o = 0;
        for (int64_t r = 0; r < a->rows; ++r)
            for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {
                ri[o] = r;
                ci[o] = a->colidx[e];
                v[o++] = 0.5 * a->val[e];
                ri[o] = a->colidx[e];
                ci[o] = r;
                v[o++] = 0.5 * a->val[e];
            }
        rc = rt_csr_from_coo(out, a->rows, a->cols, nnz, ri, ci, v, err);
    }
    free(ri);
    free(ci);
    free(v);
    return rc;
}

int eg_inputs_create(const rt_csr *a, const eg_config *problem, int symmetrize, double res_tol,
                     eg_inputs **out, rt_err *err)
{
    *out = NULL;
    if (!a)
        return rt_err_set(err, "eigen: no matrix given");
    if (a->rows != a->cols)
        return rt_err_set(err, "eigen: the matrix must be square; this one is %lld x %lld",
                          (long long)a->rows, (long long)a->cols);
    eg_inputs *in = calloc(1, sizeof *in);
    if (!in)
        return rt_err_set(err, "eigen: out of memory");
    in->cfg = *problem;
    in->res_tol = res_tol;
    in->a = a;
    int64_t r = 0, c = 0;
    if (eg_micro_is(problem->solver)) /* a product: any square matrix will do */
        in->exact = 0;
    else if (find_asymmetry(a, &r, &c)) {
        if (!symmetrize) {
            eg_inputs_destroy(in);
            return rt_err_set(err,
                              "eigen: the matrix is not symmetric (entry (%lld, %lld) differs "
                              "from (%lld, %lld)); set the problem parameter symmetrize: 1 to "
                              "solve for (A + A')/2",
                              (long long)r, (long long)c, (long long)c, (long long)r);
        }
        if (symmetrized(a, &in->sym, err) != 0) {
            eg_inputs_destroy(in);
            return -1;
        }
        in->a = &in->sym;
    }
    rt_stencil_shape shape;
    in->exact =
        !eg_micro_is(problem->solver) && rt_stencil_match(in->a, &shape) && shape.points != 125;
    *out = in;
    return 0;
}

/* A real parameter through the problem schema (set value or default, domain checked); integers
 * are accepted as reals. */
static int read_real(const char *owner, const rt_params *p, const char *name, double *out,
                     rt_err *err)
{
    const rt_param_schema *s = NULL;
    for (int k = 0; k < EIGEN_N_PROBLEM; ++k)
        if (strcmp(eigen_problem[k].name, name) == 0)
            s = &eigen_problem[k];
    const rt_value *set = rt_params_get(p, name);
    rt_value v;
    if (set)
        v = *set;
    else if (rt_param_default(s, &v, err) != 0)
        return rt_err_prefix(err, "%s", owner);
    char why[256];
    if (rt_param_check(s, &v, why, sizeof why) != 0)
        return rt_err_set(err, "%s: %s", owner, why);
    *out = v.kind == RT_V_INT ? (double)v.i : v.r;
    return 0;
}

static int eigen_make_inputs(const rt_csr *a, const rt_params *p, const rt_job *job, void **inputs,
                             rt_err *err)
{
    (void)job; /* every rank of the job solves the whole problem */
    const char *owner = "eigen problem";
    char solver[16];
    int64_t block = 0, nev = 0, iters = 0, seed = 0, sym = 0;
    double res_tol = 0.0;
    if (rt_schema_str(eigen_problem, EIGEN_N_PROBLEM, owner, p, "solver", solver, sizeof solver,
                      err) != 0 ||
        rt_schema_int(eigen_problem, EIGEN_N_PROBLEM, owner, p, "block", &block, err) != 0 ||
        rt_schema_int(eigen_problem, EIGEN_N_PROBLEM, owner, p, "nev", &nev, err) != 0 ||
        rt_schema_int(eigen_problem, EIGEN_N_PROBLEM, owner, p, "iters", &iters, err) != 0 ||
        rt_schema_int(eigen_problem, EIGEN_N_PROBLEM, owner, p, "seed", &seed, err) != 0 ||
        rt_schema_int(eigen_problem, EIGEN_N_PROBLEM, owner, p, "symmetrize", &sym, err) != 0 ||
        read_real(owner, p, "res_tol", &res_tol, err) != 0)
        return -1;
    eg_config c;
    memset(&c, 0, sizeof c);
    c.solver = (eg_solver_kind)eg_solver_parse(solver);
    c.block = block;
    c.nev = nev;
    c.iters = iters;
    c.seed = (uint64_t)seed;
    eg_inputs *in = NULL;
    if (eg_inputs_create(a, &c, (int)sym, res_tol, &in, err) != 0)
        return -1;
    *inputs = in;
    return 0;
}

static void eigen_free_inputs(void *inputs)
{
    eg_inputs_destroy(inputs);
}

void eg_gate_output(const eg_inputs *in, const eg_result *res, double *out)
{
    const int64_t nev = in->cfg.nev;
    for (int64_t j = 0; j < nev; ++j) {
        out[j] = res->ritz[j];
        const double score = res->rel_res[j] / in->res_tol;
        /* A NaN residual stays NaN: the gate treats a non-finite output as wrong. */
        out[nev + j] = score <= 1.0 ? 1.0 : score;
    }
}

static int64_t eigen_output_elems(const void *inputs)
{
    const eg_inputs *in = inputs;
    if (eg_micro_is(in->cfg.solver))
        return eg_micro_output_elems(in->cfg.solver, in->a->rows, in->cfg.block);
    return 2 * in->cfg.nev;
}

/* A pair with residual r (relative to ||A||) has an eigenvalue within r ||A|| of its Ritz value
 * (and within about r^2 ||A||^2 / gap once converged), so res_tol bounds the Ritz error too; a
 * residual score above 1 + res_tol fails. Both are relative to the norm of the reference vector,
 * which is at least sqrt(nev) (the scores). */
static double eigen_tolerance(const void *inputs)
{
    const eg_inputs *in = inputs;
    /* the microbenchmarks' products in FP64 differ from the reference only by summation order */
    return eg_micro_is(in->cfg.solver) ? 1e-12 : in->res_tol;
}

static int eigen_reference(const void *inputs, double *out, rt_err *err)
{
    const eg_inputs *in = inputs;
    if (eg_micro_is(in->cfg.solver)) {
        const int rc =
            eg_micro_reference(in->a, in->cfg.solver, in->cfg.block, in->cfg.seed, out, err);
        return rc != 0 ? rt_err_prefix(err, "eigen reference") : 0;
    }
    for (int64_t j = 0; j < in->cfg.nev; ++j)
        out[in->cfg.nev + j] = 1.0;
    if (in->exact) {
        rt_stencil_shape shape;
        rt_stencil_match(in->a, &shape);
        const int rc = rt_stencil_smallest(&shape, in->cfg.nev, out, err);
        return rc < 0 ? rt_err_prefix(err, "eigen reference") : 0;
    }
    eg_config c = in->cfg;
    c.tile = in->a->rows;
    c.sched = EG_SCHED_KBK;
    c.budget = 0;
    eg_solver *s = NULL;
    const int rc = eg_solver_create(in->a, &c, eg_dev_host(), &s, err);
    if (rc != 0)
        return rc < 0 ? rt_err_prefix(err, "eigen reference") : -1;
    eg_result res;
    if (eg_solver_run(s, &res, err) != 0) {
        eg_solver_destroy(s);
        return rt_err_prefix(err, "eigen reference");
    }
    for (int64_t j = 0; j < c.nev; ++j)
        out[j] = res.ritz[j];
    eg_solver_destroy(s);
    return 0;
}

static double eigen_flops(const void *inputs)
{
    const eg_inputs *in = inputs;
    const double n = (double)in->a->rows, nnz = (double)in->a->nnz;
    const double it = (double)in->cfg.iters;
    if (eg_micro_is(in->cfg.solver))
        return eg_micro_flops(in->a, in->cfg.solver, in->cfg.block);
    if (in->cfg.solver == EG_LOBPCG) {
        const double b = (double)in->cfg.block;
        /* per iteration: SpMM, and 31 b x b products per row (residual, norms, scale, two 3b x 3b
         * Gram matrices, four updates); plus the first SpMM and the final residual */
        return it * (2.0 * nnz * b + 2.0 * n * b * b * 31.0) + 2.0 * nnz * b +
               2.0 * n * b * b * 2.0;
    }
    /* step k: SpMV, two projections and two updates on k + 1 columns, a norm and a scaling */
    return it * 2.0 * nnz + 8.0 * n * (it * (it + 1.0) / 2.0) + it * 4.0 * n;
}

static double eigen_nonzeros(const void *inputs)
{
    const eg_inputs *in = inputs;
    if (eg_micro_is(in->cfg.solver))
        return in->cfg.solver == EG_SPMM ? (double)in->a->nnz : 0.0;
    return (double)in->a->nnz * (double)(in->cfg.iters + 1);
}

/* The symmetrized copy of A when it is made (12 bytes a nonzero of A + A', at most twice A's),
 * and the solver's blocks of n rows, which every kernel keeps in host memory (device kernels move
 * tiles of them through their gpu_mem_budget): LOBPCG's eleven blocks of `block` columns (X, P, AX,
 * AP twice each; R, AR and a temporary), Lanczos's iters + 2 vectors (the basis and w) and its
 * iters x iters eigenvector matrix. The output is nev Ritz values and nev residual scores. */
static int eigen_footprint(const rt_csr *a, const rt_params *p, const rt_job *job,
                           rt_footprint *out, rt_err *err)
{
    (void)job; /* every rank holds the whole problem */
    const char *owner = "eigen problem";
    char solver[16];
    int64_t block = 0, nev = 0, iters = 0, sym = 0;
    if (rt_schema_str(eigen_problem, EIGEN_N_PROBLEM, owner, p, "solver", solver, sizeof solver,
                      err) != 0 ||
        rt_schema_int(eigen_problem, EIGEN_N_PROBLEM, owner, p, "block", &block, err) != 0 ||
        rt_schema_int(eigen_problem, EIGEN_N_PROBLEM, owner, p, "nev", &nev, err) != 0 ||
        rt_schema_int(eigen_problem, EIGEN_N_PROBLEM, owner, p, "iters", &iters, err) != 0 ||
        rt_schema_int(eigen_problem, EIGEN_N_PROBLEM, owner, p, "symmetrize", &sym, err) != 0)
        return -1;
    const int64_t n = a->rows;
    out->input_bytes = sym ? 2 * a->nnz * 12 + (n + 1) * 8 : 0;
    out->output_elems = 2 * nev;
    out->output_bytes = 2 * nev * 8;
    out->workspace_bytes =
        strcmp(solver, "lanczos") == 0 ? ((iters + 2) * n + iters * iters) * 8 : 11 * n * block * 8;
    return 0;
}

static const rt_family_desc eigen_desc = {
    .name = "eigen",
    .summary = "smallest eigenpairs by out-of-core block LOBPCG or Lanczos over tiles (DeepSparse)",
    .problem_params = eigen_problem,
    .n_problem_params = EIGEN_N_PROBLEM,
    .make_inputs = eigen_make_inputs,
    .free_inputs = eigen_free_inputs,
    .output_elems = eigen_output_elems,
    .footprint = eigen_footprint,
    .tolerance = eigen_tolerance,
    .reference = eigen_reference,
    .flops = eigen_flops,
    .nonzeros = eigen_nonzeros,
    .wants_whole_matrix = 1,
};

const rt_family_desc *rt_eigen_family(void)
{
    return &eigen_desc;
}
