#include "sptrsv_family.h"

#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_tables.h"
#include "rt_rng.h"
#include "rt_schema.h"
#include "sptrsv_factor_cache.h"

static const rt_param_schema sptrsv_problem_params[] = {
    RT_PARAM_INT("nrhs", "1..64", "1", "right-hand sides (columns of B and X): > 1 is an SpTRSM"),
    RT_PARAM_STR("ordering", "amd|metis|natural", "amd",
                 "CHOLMOD's fill-reducing ordering of the factorisation"),
    RT_PARAM_INT(
        "max_supernode", "0..65536", "0",
        "split supernodes into pieces of at most this many columns (0: as CHOLMOD made them)"),
    RT_PARAM_INT("seed", "", "1", "seed of the values of B"),
    RT_PARAM_STR("precision", "fp64", "fp64", "precision of L, B and X: double only"),
    RT_PARAM_STR("solve", "forward|backward", "forward",
                 "forward: L X = B; backward: L^T X = B (the second half of a Cholesky solve)"),
};
#define N_PROBLEM ((int)(sizeof sptrsv_problem_params / sizeof sptrsv_problem_params[0]))

void rt_sptrsv_inputs_destroy(rt_sptrsv_inputs *in)
{
    if (!in)
        return;
    sptrsv_dag_free(&in->dag);
    sptrsv_factor_free(&in->f);
    free(in->b);
    free(in);
}

int rt_sptrsv_inputs_create(const rt_csr *a, int64_t nrhs, sptrsv_ordering ordering,
                            int64_t max_supernode, uint64_t seed, int rank, int nranks,
                            rt_sptrsv_inputs **out, rt_err *err)
{
    *out = NULL;
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return rt_err_set(err, "sptrsv: rank %d of %d ranks", rank, nranks);
    if (nrhs < 1 || nrhs > 64)
        return rt_err_set(err, "sptrsv: nrhs = %" PRId64 " is outside 1..64", nrhs);
    rt_sptrsv_inputs *in = calloc(1, sizeof *in);
    if (!in)
        return rt_err_set(err, "sptrsv: out of memory allocating inputs");
    in->nrhs = nrhs;
    in->ordering = ordering;
    in->rank = rank;
    in->nranks = nranks;
    char cache_dir[1024];
    sptrsv_factor_cache_dir(cache_dir, sizeof cache_dir);
    if (sptrsv_factor_create_cached(a, ordering, max_supernode, cache_dir, &in->f,
                                    &in->factor_cached, err) != 0 ||
        sptrsv_dag_build(&in->f, &in->dag, err) != 0) {
        rt_sptrsv_inputs_destroy(in);
        return -1;
    }
    in->n = in->f.n;
    in->row0 = in->n * rank / nranks;
    in->row1 = in->n * (rank + 1) / nranks;
    in->b = malloc((size_t)(in->n * nrhs > 0 ? in->n * nrhs : 1) * sizeof *in->b);
    if (!in->b) {
        rt_sptrsv_inputs_destroy(in);
        return rt_err_set(err, "sptrsv: out of memory for B (%" PRId64 " x %" PRId64 ")", in->n,
                          nrhs);
    }
    rt_rng g;
    rt_rng_seed(&g, seed, 0);
    for (int64_t i = 0; i < in->n * nrhs; ++i)
        in->b[i] = rt_rng_symmetric(&g);
    *out = in;
    return 0;
}

/* The reference, its elementwise scale and the residual work on columns of X (right-hand sides)
 * that never meet: each column's substitution reads only its own column of B and X. Threads (the
 * OpenMP team, at most one per column) take blocks of whole columns, and every column goes through
 * the same operations in the same order as on one thread, so the numbers are bitwise the same
 * whatever the thread count. Why threads: on the paper factor (nnz(L) 2.6e8) with 32 right-hand
 * sides a point's inputs took about two minutes on one thread (4 x H200 host, 3e5ba14), and the
 * reference and the scale were two thirds of the inputs' time in a profile of a smaller factor. */
static int column_threads(int64_t k)
{
    const int t = omp_get_max_threads();
    return k < (int64_t)t ? (int)k : t;
}

/* This thread's block [*j0, *j1) of the k columns. */
static void column_block(int64_t k, int64_t *j0, int64_t *j1)
{
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    *j0 = k * t / nt;
    *j1 = k * (t + 1) / nt;
}

/* L^T X = B for columns [j0, j1) by rows of L taken last to first: x_i is final once every row
 * below it has been subtracted, then row i's entries scatter x_i into the rows it couples
 * (column-oriented L^T); acc is the n x k accumulator, its other columns untouched. */
static void backward_columns(const rt_sptrsv_inputs *in, long double *acc, double *x, int64_t j0,
                             int64_t j1)
{
    const rt_csr *l = &in->f.csr;
    const int64_t k = in->nrhs;
    for (int64_t i = 0; i < in->n; ++i)
        for (int64_t j = j0; j < j1; ++j)
            acc[i * k + j] = in->b[i * k + j];
    for (int64_t i = in->n - 1; i >= 0; --i) {
        const int64_t diag = l->rowptr[i + 1] - 1;
        for (int64_t j = j0; j < j1; ++j)
            x[i * k + j] = (double)(acc[i * k + j] / l->val[diag]);
        for (int64_t e = l->rowptr[i]; e < diag; ++e) {
            const long double v = l->val[e];
            long double *ar = acc + (int64_t)l->colidx[e] * k;
            for (int64_t j = j0; j < j1; ++j)
                ar[j] -= v * x[i * k + j];
        }
    }
}

/* L X = B for columns [j0, j1), row by row. */
static void forward_columns(const rt_sptrsv_inputs *in, double *x, int64_t j0, int64_t j1)
{
    const rt_csr *l = &in->f.csr;
    const int64_t k = in->nrhs;
    long double acc[64];
    for (int64_t i = 0; i < in->n; ++i) {
        for (int64_t j = j0; j < j1; ++j)
            acc[j - j0] = in->b[i * k + j];
        const int64_t diag = l->rowptr[i + 1] - 1;
        for (int64_t e = l->rowptr[i]; e < diag; ++e) {
            const long double v = l->val[e];
            const double *xr = x + (int64_t)l->colidx[e] * k;
            for (int64_t j = j0; j < j1; ++j)
                acc[j - j0] -= v * xr[j];
        }
        for (int64_t j = j0; j < j1; ++j)
            x[i * k + j] = (double)(acc[j - j0] / l->val[diag]);
    }
}

void sptrsv_reference_solve(const rt_sptrsv_inputs *in, double *x)
{
    const int64_t k = in->nrhs;
    long double *acc = NULL;
    if (in->backward) {
        acc = malloc((size_t)(in->n * k > 0 ? in->n * k : 1) * sizeof *acc);
        if (!acc) { /* NaN fails the gate, saying nothing is right, rather than crash */
            for (int64_t i = 0; i < in->n * k; ++i)
                x[i] = NAN;
            return;
        }
    }
    const int nt = column_threads(k);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int64_t j0, j1;
        column_block(k, &j0, &j1);
        if (in->backward)
            backward_columns(in, acc, x, j0, j1);
        else
            forward_columns(in, x, j0, j1);
    }
    free(acc);
}

/* A NaN anywhere must show, not vanish in a max. */
static int keep_max(double *rmax, double r)
{
    if (!(fabs(r) <= *rmax))
        *rmax = isnan(r) ? NAN : fabs(r);
    return isnan(*rmax);
}

/* The maxima of a residual: |T X - B|, |B| and |T| |X|; rmax NaN when any residual was. */
typedef struct residual_max {
    double r, b, lx;
} residual_max;

/* Each thread's maxima into the whole's: max is exact, so the order does not matter; a NaN of any
 * thread is the result's. */
static void residual_merge(residual_max *all, const residual_max *mine)
{
#pragma omp critical(sptrsv_residual_merge)
    {
        if (!isnan(all->r))
            keep_max(&all->r, mine->r);
        if (mine->b > all->b)
            all->b = mine->b;
        if (mine->lx > all->lx)
            all->lx = mine->lx;
    }
}

static double residual_ratio(const residual_max *m)
{
    const double denom = m->b + m->lx;
    return denom > 0.0 && !isnan(m->r) ? m->r / denom : m->r;
}

/* L^T X - B and |L^T| |X| for columns [j0, j1) by scattering the rows of L (entry (i, c) of L is
 * (c, i) of L^T) into r and lx (n x k), then their maxima. */
static void backward_residual_columns(const rt_sptrsv_inputs *in, const double *x, double *r,
                                      double *lx, int64_t j0, int64_t j1, residual_max *out)
{
    const rt_csr *l = &in->f.csr;
    const int64_t k = in->nrhs;
    for (int64_t i = 0; i < in->n; ++i)
        for (int64_t j = j0; j < j1; ++j) {
            r[i * k + j] = -in->b[i * k + j];
            lx[i * k + j] = 0.0;
        }
    for (int64_t i = 0; i < in->n; ++i)
        for (int64_t e = l->rowptr[i]; e < l->rowptr[i + 1]; ++e)
            for (int64_t j = j0; j < j1; ++j) {
                const double t = l->val[e] * x[i * k + j];
                r[(int64_t)l->colidx[e] * k + j] += t;
                lx[(int64_t)l->colidx[e] * k + j] += fabs(t);
            }
    residual_max m = {0.0, 0.0, 0.0};
    for (int64_t i = 0; i < in->n && !isnan(m.r); ++i)
        for (int64_t j = j0; j < j1; ++j) {
            if (keep_max(&m.r, r[i * k + j]))
                break;
            if (fabs(in->b[i * k + j]) > m.b)
                m.b = fabs(in->b[i * k + j]);
            if (lx[i * k + j] > m.lx)
                m.lx = lx[i * k + j];
        }
    *out = m;
}

/* L X - B and |L| |X| for columns [j0, j1), row by row: each element's terms in the order of the
 * row's entries. */
static void forward_residual_columns(const rt_sptrsv_inputs *in, const double *x, int64_t j0,
                                     int64_t j1, residual_max *out)
{
    const rt_csr *l = &in->f.csr;
    const int64_t k = in->nrhs;
    double r[64], lx[64];
    residual_max m = {0.0, 0.0, 0.0};
    for (int64_t i = 0; i < in->n && !isnan(m.r); ++i) {
        for (int64_t j = j0; j < j1; ++j) {
            r[j - j0] = -in->b[i * k + j];
            lx[j - j0] = 0.0;
        }
        for (int64_t e = l->rowptr[i]; e < l->rowptr[i + 1]; ++e) {
            const double v = l->val[e];
            const double *xr = x + (int64_t)l->colidx[e] * k;
            for (int64_t j = j0; j < j1; ++j) {
                const double t = v * xr[j];
                r[j - j0] += t;
                lx[j - j0] += fabs(t);
            }
        }
        for (int64_t j = j0; j < j1; ++j) {
            if (keep_max(&m.r, r[j - j0]))
                break;
            if (fabs(in->b[i * k + j]) > m.b)
                m.b = fabs(in->b[i * k + j]);
            if (lx[j - j0] > m.lx)
                m.lx = lx[j - j0];
        }
    }
    *out = m;
}

double sptrsv_residual(const rt_sptrsv_inputs *in, const double *x)
{
    const int64_t k = in->nrhs, nk = in->n * k;
    double *r = NULL, *lx = NULL;
    if (in->backward) {
        r = malloc((size_t)(nk > 0 ? nk : 1) * sizeof *r);
        lx = malloc((size_t)(nk > 0 ? nk : 1) * sizeof *lx);
        if (!r || !lx) {
            free(r);
            free(lx);
            return NAN;
        }
    }
    residual_max all = {0.0, 0.0, 0.0};
    const int nt = column_threads(k);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int64_t j0, j1;
        column_block(k, &j0, &j1);
        residual_max mine;
        if (in->backward)
            backward_residual_columns(in, x, r, lx, j0, j1, &mine);
        else
            forward_residual_columns(in, x, j0, j1, &mine);
        residual_merge(&all, &mine);
    }
    free(r);
    free(lx);
    return residual_ratio(&all);
}

int sptrsv_forward_only(const void *inputs, const char *kernel, char *why, size_t whylen)
{
    const rt_sptrsv_inputs *in = inputs;
    if (in && in->backward) {
        snprintf(why, whylen,
                 "%s solves with L only (solve: forward); the backward solve L^T X = B is "
                 "sptrsv.cuda.cusparse's, sptrsv.cpu.persistent's and sptrsv.cuda.persistent's",
                 kernel);
        return RT_INFEASIBLE;
    }
    return 0;
}

void sptrsv_canonical_rows(const rt_sptrsv_inputs *in, const double *x, double *out)
{
    memcpy(out, x + in->row0 * in->nrhs, (size_t)((in->row1 - in->row0) * in->nrhs) * sizeof *out);
}

void sptrsv_compulsory_traffic(const rt_sptrsv_inputs *in, double rowptr_bytes, double share,
                               rt_traffic *t)
{
    const double nnz = (double)in->f.csr.nnz, n = (double)in->n, k = (double)in->nrhs;
    t->flops = 2.0 * nnz * k * share;
    t->bytes[RT_LEVEL_DRAM] = (12.0 * nnz + rowptr_bytes * (n + 1.0) + 16.0 * n * k) * share;
}

void sptrsv_factor_metrics(const rt_sptrsv_inputs *in, rt_metrics *m)
{
    const sptrsv_factor *f = &in->f;
    int64_t widest = 0;
    for (int64_t s = 0; s < f->nsuper; ++s)
        if (sptrsv_ncols(f, s) > widest)
            widest = sptrsv_ncols(f, s);
    rt_metrics_add(m, "n", "count", (double)f->n, 1);
    rt_metrics_add(m, "nnz_l", "count", (double)f->csr.nnz, 1);
    rt_metrics_add(m, "supernodes", "count", (double)f->nsuper, 1);
    rt_metrics_add(m, "supernodes_cholmod", "count", (double)f->cholmod_nsuper, 1);
    rt_metrics_add(m, "supernode_cols_mean", "count",
                   f->nsuper ? (double)f->n / (double)f->nsuper : 0.0, 1);
    rt_metrics_add(m, "supernode_cols_max", "count", (double)widest, 1);
    rt_metrics_add(m, "dag_levels", "count", (double)in->dag.n_levels, 1);
    rt_metrics_add(m, "dag_max_level_rows", "count", (double)in->dag.max_level_width, 1);
    rt_metrics_add(m, "super_levels", "count", (double)in->dag.super_levels, 1);
    rt_metrics_add(m, "super_edges", "count", (double)in->dag.n_edges, 1);
    rt_metrics_add(m, "cholmod_analyse_s", "s", f->analyse_s, 0);
    rt_metrics_add(m, "cholmod_factor_s", "s", f->factor_s, 0);
    rt_metrics_add(m, "factor_cached", "flag", (double)in->factor_cached, 0);
}

static int sptrsv_make_inputs(const rt_csr *a, const rt_params *problem, const rt_job *job,
                              void **inputs, rt_err *err)
{
    const char *owner = "sptrsv problem";
    int64_t nrhs = 1, cap = 0, seed = 1;
    char ord[16], prec[16], dir[16];
    if (rt_schema_int(sptrsv_problem_params, N_PROBLEM, owner, problem, "nrhs", &nrhs, err) != 0 ||
        rt_schema_int(sptrsv_problem_params, N_PROBLEM, owner, problem, "max_supernode", &cap,
                      err) != 0 ||
        rt_schema_int(sptrsv_problem_params, N_PROBLEM, owner, problem, "seed", &seed, err) != 0 ||
        rt_schema_str(sptrsv_problem_params, N_PROBLEM, owner, problem, "ordering", ord, sizeof ord,
                      err) != 0 ||
        rt_schema_str(sptrsv_problem_params, N_PROBLEM, owner, problem, "precision", prec,
                      sizeof prec, err) != 0 ||
        rt_schema_str(sptrsv_problem_params, N_PROBLEM, owner, problem, "solve", dir, sizeof dir,
                      err) != 0)
        return -1;
    const int o = sptrsv_ordering_parse(ord);
    if (o < 0)
        return rt_err_set(err, "%s: unknown ordering '%s'", owner, ord);
    if (rt_job_check(job, owner, err) != 0)
        return -1;
    rt_sptrsv_inputs *in = NULL;
    if (rt_sptrsv_inputs_create(a, nrhs, (sptrsv_ordering)o, cap, (uint64_t)seed, job->rank,
                                job->nranks, &in, err) != 0)
        return -1;
    in->backward = strcmp(dir, "backward") == 0;
    *inputs = in;
    return 0;
}

static void sptrsv_free_inputs(void *inputs)
{
    rt_sptrsv_inputs_destroy(inputs);
}

static int64_t sptrsv_output_elems(const void *inputs)
{
    const rt_sptrsv_inputs *in = inputs;
    return (in->row1 - in->row0) * in->nrhs;
}

static double sptrsv_tolerance(const void *inputs)
{
    const rt_sptrsv_inputs *in = inputs;
    /* Forward substitution is backward stable; the forward error grows with the dependency chain
     * (levels) and L's conditioning. Grid Laplacian factors are well conditioned: a bound linear
     * in the chain length, with a wide margin over the errors observed (1e-15 .. 1e-13). */
    return 1e-13 * (double)(in->dag.n_levels + 16);
}

static int sptrsv_reference(const void *inputs, double *out, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    double *x = malloc((size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1) * sizeof *x);
    if (!x)
        return rt_err_set(err, "sptrsv reference: out of memory");
    sptrsv_reference_solve(in, x);
    sptrsv_canonical_rows(in, x, out);
    free(x);
    return 0;
}

/* w = M(L)^-1 |L| |X| (M(L^T)^-1 |L^T| |X| backward) for columns [j0, j1) of x and w. */
static void scale_columns(const rt_sptrsv_inputs *in, const double *x, double *w, int64_t j0,
                          int64_t j1)
{
    const rt_csr *l = &in->f.csr;
    const int64_t k = in->nrhs;
    if (in->backward) {
        /* The same bound for L^T, by rows of L last to first: w gathers, in the rows an entry
         * couples, |l_ij| (|x_i| + w_i) once row i is final (the terms stay nonnegative). */
        for (int64_t i = 0; i < in->n; ++i)
            for (int64_t j = j0; j < j1; ++j)
                w[i * k + j] = 0.0;
        for (int64_t i = in->n - 1; i >= 0; --i) {
            const int64_t diag = l->rowptr[i + 1] - 1;
            const double d = fabs(l->val[diag]);
            for (int64_t j = j0; j < j1; ++j)
                w[i * k + j] = (d * fabs(x[i * k + j]) + w[i * k + j]) / d;
            for (int64_t e = l->rowptr[i]; e < diag; ++e)
                for (int64_t j = j0; j < j1; ++j)
                    w[(int64_t)l->colidx[e] * k + j] +=
                        fabs(l->val[e]) * (fabs(x[i * k + j]) + w[i * k + j]);
        }
        return;
    }
    double acc[64];
    for (int64_t i = 0; i < in->n; ++i) {
        const int64_t diag = l->rowptr[i + 1] - 1;
        const double d = fabs(l->val[diag]);
        for (int64_t j = j0; j < j1; ++j)
            acc[j - j0] = d * fabs(x[i * k + j]);
        for (int64_t e = l->rowptr[i]; e < diag; ++e) {
            const double v = fabs(l->val[e]);
            const int64_t c = (int64_t)l->colidx[e] * k;
            for (int64_t j = j0; j < j1; ++j)
                acc[j - j0] += v * (fabs(x[c + j]) + w[c + j]);
        }
        for (int64_t j = j0; j < j1; ++j)
            w[i * k + j] = acc[j - j0] / d;
    }
}

/* The elementwise scale of X: w = M(L)^-1 |L| |X| (M(L^T)^-1 |L^T| |X| for the backward solve),
 * where M(L) is L's comparison matrix (|l_ii| on the diagonal, -|l_ij| off it). Substitution is
 * componentwise backward stable, (L + dL) X^ = B with |dL| <= gamma |L|, so |X - X^| <= gamma
 * |L^-1| |L| |X^|, and |L^-1| <= M(L)^-1 for a triangular L (Higham, Accuracy and Stability,
 * Thm 8.12): w bounds each element's error up to the factor gamma, which the gate's tolerance
 * covers. One more forward substitution, in M(L), whose terms are all nonnegative (no
 * cancellation). For a Cholesky factor of an M-matrix (the grid Laplacians) M(L)^-1 = |L^-1| and w
 * is Skeel's componentwise bound itself. */
static int sptrsv_reference_scale(const void *inputs, double *scale, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    const size_t elems = (size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1);
    double *x = malloc(elems * sizeof *x);
    double *w = malloc(elems * sizeof *w);
    if (!x || !w) {
        free(x);
        free(w);
        return rt_err_set(err, "sptrsv reference scale: out of memory");
    }
    sptrsv_reference_solve(in, x);
    const int64_t k = in->nrhs;
    const int nt = column_threads(k);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int64_t j0, j1;
        column_block(k, &j0, &j1);
        scale_columns(in, x, w, j0, j1);
    }
    sptrsv_canonical_rows(in, w, scale);
    free(x);
    free(w);
    return 0;
}

static double share(const rt_sptrsv_inputs *in)
{
    return in->n > 0 ? (double)(in->row1 - in->row0) / (double)in->n : 0.0;
}

static double sptrsv_flops(const void *inputs)
{
    const rt_sptrsv_inputs *in = inputs;
    return 2.0 * (double)in->f.csr.nnz * (double)in->nrhs * share(in);
}

static double sptrsv_nonzeros(const void *inputs)
{
    const rt_sptrsv_inputs *in = inputs;
    return (double)in->f.csr.nnz * share(in);
}

/* Every rank factors the whole matrix: L has at least the nonzeros of A's lower triangle and
 * diagonal (CHOLMOD's fill-in comes on top, unknown before the factorization, so the estimate is a
 * lower bound), held as CSR (12 bytes a nonzero), with B (n x nrhs); this rank's rows of X are the
 * output. A device kernel copies L, B and X. */
static int sptrsv_footprint(const rt_csr *a, const rt_params *problem, const rt_job *job,
                            rt_footprint *out, rt_err *err)
{
    int64_t nrhs = 1;
    if (rt_job_check(job, "sptrsv problem", err) != 0 ||
        rt_schema_int(sptrsv_problem_params, N_PROBLEM, "sptrsv problem", problem, "nrhs", &nrhs,
                      err) != 0)
        return -1;
    const int rank = job->rank, nranks = job->nranks;
    const int64_t n = a->rows;
    const int64_t l_bytes = ((a->nnz + n) / 2) * 12 + (n + 1) * 8;
    const int64_t rows = n * (rank + 1) / nranks - n * rank / nranks;
    out->input_bytes = l_bytes + n * nrhs * 8;
    out->output_elems = rows * nrhs;
    out->output_bytes = rows * nrhs * 8;
    out->operand_bytes = l_bytes + 2 * n * nrhs * 8;
    return 0;
}

static const rt_family_desc sptrsv_family_desc = {
    .name = "sptrsv",
    .summary = "sparse triangular solve L X = B with L the supernodal Cholesky factor (CHOLMOD)",
    .problem_params = sptrsv_problem_params,
    .n_problem_params = N_PROBLEM,
    .make_inputs = sptrsv_make_inputs,
    .free_inputs = sptrsv_free_inputs,
    .output_elems = sptrsv_output_elems,
    .tolerance = sptrsv_tolerance,
    .reference = sptrsv_reference,
    .reference_scale = sptrsv_reference_scale,
    .footprint = sptrsv_footprint,
    .flops = sptrsv_flops,
    .nonzeros = sptrsv_nonzeros,
    .wants_whole_matrix = 1,
};

const rt_family_desc *rt_sptrsv_family(void)
{
    return &sptrsv_family_desc;
}
