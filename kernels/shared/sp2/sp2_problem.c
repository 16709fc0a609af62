#include "sp2_problem.h"

#include <stdlib.h>

#include "rt_schema.h"
#include "sp2_layout.h"

#define SP2_N_MAX 65536

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
    for (int64_t r = 0; r < a->rows; ++r)
        if (a->rowptr[r + 1] - a->rowptr[r] > in->max_row_nnz)
            in->max_row_nnz = a->rowptr[r + 1] - a->rowptr[r];
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

int sp2_read_precision(const rt_param_schema *schema, int n, const char *owner, const rt_params *p,
                       rt_precision *prec, rt_err *err)
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

void sp2_free_inputs(void *inputs)
{
    sp2_inputs_destroy(inputs);
}

int64_t sp2_output_elems(const void *inputs)
{
    const sp2_inputs *in = inputs;
    return (in->r1 - in->r0) * (in->spgemm ? SP2_SIG_COLS : in->n);
}

double sp2_flops(const void *inputs)
{
    return ((const sp2_inputs *)inputs)->flops_share;
}

double sp2_nonzeros(const void *inputs)
{
    return ((const sp2_inputs *)inputs)->nnz_share;
}

/* This rank's tiles (its 1/P of A's nonzeros with 32-bit indices, of B and of C), held on the host
 * by a CPU kernel and copied by a device kernel; the values are hashed, so the family itself builds
 * nothing. Tiles fetched from other ranks are the kernel's workspace, not counted: the estimate is
 * a lower bound. spgemm2d's C has no size known before the product: its output is the signature
 * (SP2_SIG_COLS columns) and its C tile is counted as large as its A tile. */
int sp2_footprint(int spgemm, const rt_param_schema *schema, int n_schema, const rt_csr *a,
                  const rt_params *problem, const rt_job *job, rt_footprint *out, rt_err *err)
{
    const char *owner = spgemm ? "spgemm2d problem" : "spmm2d problem";
    int64_t n = 0;
    rt_precision prec = RT_FP32;
    if (rt_job_check(job, owner, err) != 0 ||
        (!spgemm && rt_schema_int(schema, n_schema, owner, problem, "N", &n, err) != 0) ||
        sp2_read_precision(schema, n_schema, owner, problem, &prec, err) != 0)
        return -1;
    const int rank = job->rank, nranks = job->nranks;
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
