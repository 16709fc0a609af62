#include "spmm2d_family.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_world_place.h"
#include "rt_schema.h"
#include "spmm2d_layout.h"
#include "spmm_family.h"

#define SP2_N_MAX 65536

static const rt_param_schema spmm2d_problem[] = {
    {"N", RT_V_INT, "1..65536", "128", 0, "columns of the dense matrices B and C"},
    {"precision", RT_V_STR, "fp32|fp64", "fp32", 0, "precision of the tiles and the arithmetic"},
    {"seed", RT_V_INT, "", "1", 0, "seed of the values of B"},
};
#define SPMM2D_N_PROBLEM ((int)(sizeof spmm2d_problem / sizeof spmm2d_problem[0]))

static const rt_param_schema spgemm2d_problem[] = {
    {"precision", RT_V_STR, "fp32|fp64", "fp32", 0, "precision of the tiles and the arithmetic"},
    {"seed", RT_V_INT, "", "1", 0, "seed of the verification signature"},
};
#define SPGEMM2D_N_PROBLEM ((int)(sizeof spgemm2d_problem / sizeof spgemm2d_problem[0]))

/* A stateless hash of (seed, salt, a, b): element values that do not depend on the order in which
 * ranks or tiles generate them. */
static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t hash4(uint64_t seed, uint64_t salt, uint64_t a, uint64_t b)
{
    return mix(mix(mix(seed ^ mix(salt)) ^ a) ^ b);
}

double sp2_b_value(uint64_t seed, int64_t row, int64_t col)
{
    const uint64_t x = hash4(seed, 0xB0B0, (uint64_t)row, (uint64_t)col);
    /* 24 random bits are exact in float: the fp32 tile holds exactly this value. An exact zero
     * would hide an unwritten output, so it becomes 0.5. */
    double v = (double)(x >> 40) * 0x1.0p-23 - 1.0;
    if (v == 0.0)
        v = 0.5;
    return v;
}

double sp2_sig_value(uint64_t seed, int64_t col, int s)
{
    const uint64_t x = hash4(seed, 0x5165, (uint64_t)col, (uint64_t)s);
    return (double)(x >> 11) * 0x1.0p-52 - 1.0;
}

void sp2_inputs_destroy(sp2_inputs *in)
{
    free(in);
}

int sp2_inputs_create(int spgemm, const rt_csr *a, int64_t n, rt_precision prec, uint64_t seed,
                      int rank, int nranks, sp2_inputs **out, rt_err *err)
{
    const char *fam = spgemm ? "spgemm2d" : "spmm2d";
    *out = NULL;
    if (!a)
        return rt_err_set(err, "%s: no matrix given", fam);
    if (rt_csr_validate(a, err) != 0)
        return rt_err_prefix(err, "%s: the matrix is malformed", fam);
    if (spgemm && a->rows != a->cols)
        return rt_err_set(err, "%s: C = A * A needs a square matrix; this one is %lld x %lld", fam,
                          (long long)a->rows, (long long)a->cols);
    if (spgemm)
        n = a->cols;
    else if (n < 1 || n > SP2_N_MAX)
        return rt_err_set(err, "%s: N = %lld is outside 1..%d", fam, (long long)n, SP2_N_MAX);
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return rt_err_set(err, "%s: rank %d of %d ranks is not valid", fam, rank, nranks);
    if (a->rows < 1 || a->cols < 1)
        return rt_err_set(err, "%s: the matrix is empty (%lld x %lld)", fam, (long long)a->rows,
                          (long long)a->cols);
    sp2_inputs *in = calloc(1, sizeof *in);
    if (!in)
        return rt_err_set(err, "%s: out of memory", fam);
    in->spgemm = spgemm;
    in->a = a;
    in->n = n;
    in->prec = prec;
    in->seed = seed;
    in->rank = rank;
    in->nranks = nranks;
    in->r0 = sp2_split(a->rows, nranks, rank);
    in->r1 = sp2_split(a->rows, nranks, rank + 1);
    in->max_row_nnz = rt_spmm_max_row_nnz(a);
    const int64_t nnz = a->rowptr[in->r1] - a->rowptr[in->r0];
    in->nnz_share = (double)nnz;
    if (!spgemm) {
        in->flops_share = 2.0 * (double)nnz * (double)n;
    } else {
        double products = 0.0;
        for (int64_t e = a->rowptr[in->r0]; e < a->rowptr[in->r1]; ++e) {
            const int64_t c = a->colidx[e];
            products += (double)(a->rowptr[c + 1] - a->rowptr[c]);
        }
        in->flops_share = 2.0 * products;
    }
    *out = in;
    return 0;
}

static int read_precision(const rt_param_schema *schema, int n, const char *owner,
                          const rt_params *p, rt_precision *prec, rt_err *err)
{
    char name[16];
    if (rt_schema_str(schema, n, owner, p, "precision", name, sizeof name, err) != 0)
        return -1;
    const int v = rt_precision_parse(name);
    if (v < 0)
        return rt_err_set(err, "%s: unknown precision '%s'", owner, name);
    *prec = (rt_precision)v;
    return 0;
}

static int spmm2d_make_inputs(const rt_csr *a, const rt_params *problem, void **inputs, rt_err *err)
{
    const char *owner = "spmm2d problem";
    int64_t n = 0, seed = 0;
    rt_precision prec = RT_FP32;
    if (rt_schema_int(spmm2d_problem, SPMM2D_N_PROBLEM, owner, problem, "N", &n, err) != 0 ||
        rt_schema_int(spmm2d_problem, SPMM2D_N_PROBLEM, owner, problem, "seed", &seed, err) != 0 ||
        read_precision(spmm2d_problem, SPMM2D_N_PROBLEM, owner, problem, &prec, err) != 0)
        return -1;
    int rank, nranks;
    rt_world_place(&rank, &nranks);
    sp2_inputs *in = NULL;
    if (sp2_inputs_create(0, a, n, prec, (uint64_t)seed, rank, nranks, &in, err) != 0)
        return -1;
    *inputs = in;
    return 0;
}

static int spgemm2d_make_inputs(const rt_csr *a, const rt_params *problem, void **inputs,
                                rt_err *err)
{
    const char *owner = "spgemm2d problem";
    int64_t seed = 0;
    rt_precision prec = RT_FP32;
    if (rt_schema_int(spgemm2d_problem, SPGEMM2D_N_PROBLEM, owner, problem, "seed", &seed, err) !=
            0 ||
        read_precision(spgemm2d_problem, SPGEMM2D_N_PROBLEM, owner, problem, &prec, err) != 0)
        return -1;
    int rank, nranks;
    rt_world_place(&rank, &nranks);
    sp2_inputs *in = NULL;
    if (sp2_inputs_create(1, a, 0, prec, (uint64_t)seed, rank, nranks, &in, err) != 0)
        return -1;
    *inputs = in;
    return 0;
}

static void sp2_free_inputs(void *inputs)
{
    sp2_inputs_destroy(inputs);
}

static int64_t sp2_output_elems(const void *inputs)
{
    const sp2_inputs *in = inputs;
    return (in->r1 - in->r0) * (in->spgemm ? SP2_SIG_COLS : in->n);
}

/* As spmm's (spmm_family.c explains the bound): reductions of at most max_row_nnz terms. For
 * SpGEMM, fp32 rounds both factors of each product (A appears twice), so the bound doubles. */
static double sp2_tolerance(const void *inputs)
{
    const sp2_inputs *in = inputs;
    const double t = rt_spmm_tolerance_for(in->prec, in->max_row_nnz);
    return (in->spgemm && in->prec == RT_FP32) ? 2.0 * t : t;
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

static double sp2_flops(const void *inputs)
{
    return ((const sp2_inputs *)inputs)->flops_share;
}

static double sp2_nonzeros(const void *inputs)
{
    return ((const sp2_inputs *)inputs)->nnz_share;
}

/* This rank's tiles (its 1/P of A's nonzeros with 32-bit indices, of B and of C), held on the host
 * by a CPU kernel and copied by a device kernel; the values are hashed, so the family itself builds
 * nothing. Tiles fetched from other ranks are the kernel's workspace, not counted: the estimate is
 * a lower bound. spgemm2d's C has no size known before the product: its output is the signature
 * (SP2_SIG_COLS columns) and its C tile is counted as large as its A tile. */
static int sp2_footprint(int spgemm, const rt_csr *a, const rt_params *problem, rt_footprint *out,
                         rt_err *err)
{
    const rt_param_schema *schema = spgemm ? spgemm2d_problem : spmm2d_problem;
    const int n_schema = spgemm ? SPGEMM2D_N_PROBLEM : SPMM2D_N_PROBLEM;
    const char *owner = spgemm ? "spgemm2d problem" : "spmm2d problem";
    int64_t n = 0;
    rt_precision prec = RT_FP32;
    if ((!spgemm && rt_schema_int(schema, n_schema, owner, problem, "N", &n, err) != 0) ||
        read_precision(schema, n_schema, owner, problem, &prec, err) != 0)
        return -1;
    int rank, nranks;
    rt_world_place(&rank, &nranks);
    const int64_t esize = (int64_t)rt_precision_bytes(prec);
    const int64_t rows = sp2_split(a->rows, nranks, rank + 1) - sp2_split(a->rows, nranks, rank);
    const int64_t a_tile = (a->nnz / nranks) * (4 + esize) + (rows + 1) * 4;
    const int64_t b_tile = spgemm ? a_tile : (a->cols / nranks + 1) * n * esize;
    const int64_t c_tile = spgemm ? a_tile : rows * n * esize;
    out->input_bytes = a_tile + b_tile;
    out->output_elems = rows * (spgemm ? SP2_SIG_COLS : n);
    out->output_bytes = c_tile;
    out->operand_bytes = a_tile + b_tile;
    return 0;
}

static int spmm2d_footprint(const rt_csr *a, const rt_params *problem, rt_footprint *out,
                            rt_err *err)
{
    return sp2_footprint(0, a, problem, out, err);
}

static int spgemm2d_footprint(const rt_csr *a, const rt_params *problem, rt_footprint *out,
                              rt_err *err)
{
    return sp2_footprint(1, a, problem, out, err);
}

static const rt_family_desc spmm2d_desc = {
    .name = "spmm2d",
    .summary = "2D distributed SpMM C = A * B (A sparse, B dense k x N) over a process grid",
    .problem_params = spmm2d_problem,
    .n_problem_params = SPMM2D_N_PROBLEM,
    .make_inputs = spmm2d_make_inputs,
    .free_inputs = sp2_free_inputs,
    .output_elems = sp2_output_elems,
    .tolerance = sp2_tolerance,
    .reference = spmm2d_reference,
    .reference_scale = spmm2d_reference_scale,
    .footprint = spmm2d_footprint,
    .flops = sp2_flops,
    .nonzeros = sp2_nonzeros,
    .wants_whole_matrix = 1,
};

static const rt_family_desc spgemm2d_desc = {
    .name = "spgemm2d",
    .summary = "2D distributed SpGEMM C = A * A over a process grid (verified by signature)",
    .problem_params = spgemm2d_problem,
    .n_problem_params = SPGEMM2D_N_PROBLEM,
    .make_inputs = spgemm2d_make_inputs,
    .free_inputs = sp2_free_inputs,
    .output_elems = sp2_output_elems,
    .tolerance = sp2_tolerance,
    .reference = spgemm2d_reference,
    .reference_scale = spgemm2d_reference_scale,
    .footprint = spgemm2d_footprint,
    .flops = sp2_flops,
    .nonzeros = sp2_nonzeros,
    .wants_whole_matrix = 1,
};

const rt_family_desc *rt_spmm2d_family(void)
{
    return &spmm2d_desc;
}

const rt_family_desc *rt_spgemm2d_family(void)
{
    return &spgemm2d_desc;
}
