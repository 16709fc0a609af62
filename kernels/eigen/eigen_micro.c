#include "eigen_micro.h"

#include <stdlib.h>
#include <string.h>

#include "eigen_solver_impl.h"

int eg_micro_is(eg_solver_kind k)
{
    return k == EG_SPMM || k == EG_XTY;
}

int64_t eg_micro_output_elems(eg_solver_kind k, int64_t n, int64_t block)
{
    return k == EG_SPMM ? n * block : block * block;
}

double eg_micro_value(uint64_t seed, int which, int64_t row, int64_t col)
{
    return eg_start_value(seed + (uint64_t)which, row, col);
}

void eg_micro_fill(uint64_t seed, int which, int64_t r0, int64_t r1, int64_t block, double *out)
{
    for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = 0; c < block; ++c)
            out[(r - r0) * block + c] = eg_micro_value(seed, which, r, c);
}

static void spmm(const rt_csr *a, int64_t b, uint64_t seed, double *y)
{
    for (int64_t r = 0; r < a->rows; ++r) {
        double *yr = y + r * b;
        memset(yr, 0, (size_t)b * sizeof *yr);
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
            for (int64_t c = 0; c < b; ++c)
                yr[c] += a->val[e] * eg_micro_value(seed, 0, a->colidx[e], c);
    }
}

static int xty(int64_t n, int64_t b, uint64_t seed, double *g, rt_err *err)
{
    double *x = malloc((size_t)b * sizeof *x), *y = malloc((size_t)b * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return rt_err_set(err, "eigen xty reference: out of memory");
    }
    memset(g, 0, (size_t)(b * b) * sizeof *g);
    for (int64_t r = 0; r < n; ++r) {
        eg_micro_fill(seed, 0, r, r + 1, b, x);
        eg_micro_fill(seed, 1, r, r + 1, b, y);
        for (int64_t i = 0; i < b; ++i)
            for (int64_t j = 0; j < b; ++j)
                g[i * b + j] += x[i] * y[j];
    }
    free(x);
    free(y);
    return 0;
}

int eg_micro_reference(const rt_csr *a, eg_solver_kind k, int64_t block, uint64_t seed, double *out,
                       rt_err *err)
{
    if (k == EG_SPMM) {
        spmm(a, block, seed, out);
        return 0;
    }
    return xty(a->rows, block, seed, out, err);
}

double eg_micro_flops(const rt_csr *a, eg_solver_kind k, int64_t block)
{
    const double b = (double)block;
    return k == EG_SPMM ? 2.0 * (double)a->nnz * b : 2.0 * (double)a->rows * b * b;
}
