/* The stencil generator (harness/inputs/rt_gen_stencil.c) and the closed-form spectra the eigen
 * gate uses (rt_stencil_spectrum.c): shapes, symmetry, recognition, and the closed form against a
 * dense LAPACK eigensolve of small grids. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_generators.h"
#include "rt_stencil_spectrum.h"
#include "rt_test.h"

static int build(int points, int64_t nx, int64_t ny, int64_t nz, rt_csr *a, rt_err *err)
{
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "points", rt_value_int(points), err);
    rt_params_set(&args, "nx", rt_value_int(nx), err);
    rt_params_set(&args, "ny", rt_value_int(ny), err);
    rt_params_set(&args, "nz", rt_value_int(nz), err);
    return rt_matrix_build("stencil", &args, NULL, NULL, a, err);
}

static double entry(const rt_csr *a, int64_t r, int64_t c)
{
    for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
        if (a->colidx[e] == c)
            return a->val[e];
    return 0.0;
}

static void check_one(int points, int64_t nx, int64_t ny, int64_t nz, int64_t want_nnz)
{
    rt_err err;
    rt_csr a;
    RT_CHECK_MSG(build(points, nx, ny, nz, &a, &err) == 0, "%s", err.msg);
    const int64_t n = nx * ny * nz;
    RT_CHECK(a.rows == n && a.cols == n);
    RT_CHECK_MSG(a.nnz == want_nnz, "%d points: %lld nonzeros, want %lld", points, (long long)a.nnz,
                 (long long)want_nnz);
    double *dense = calloc((size_t)(n * n), sizeof *dense);
    for (int64_t r = 0; r < n; ++r) {
        RT_CHECK(entry(&a, r, r) == (double)(points - 1));
        for (int64_t e = a.rowptr[r]; e < a.rowptr[r + 1]; ++e) {
            RT_CHECK(entry(&a, a.colidx[e], r) == a.val[e]); /* symmetric */
            dense[r * n + a.colidx[e]] = a.val[e];
        }
    }
    rt_stencil_shape s;
    RT_CHECK(rt_stencil_match(&a, &s) == 1);
    RT_CHECK_MSG(s.points == points && s.nx == nx && s.ny == ny && s.nz == nz,
                 "matched %d %lld %lld %lld", s.points, (long long)s.nx, (long long)s.ny,
                 (long long)s.nz);
    double *w = calloc((size_t)n, sizeof *w);
    RT_CHECK(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', (lapack_int)n, dense, (lapack_int)n, w) ==
             0);
    double closed[6];
    const int rc = rt_stencil_smallest(&s, 6, closed, &err);
    if (points == 125) {
        RT_CHECK(rc == 1);    /* no closed form */
        RT_CHECK(w[0] > 0.0); /* but positive definite */
    } else {
        RT_CHECK(rc == 0);
        for (int j = 0; j < 6 && rc == 0; ++j)
            RT_CHECK_MSG(fabs(closed[j] - w[j]) < 1e-11, "%d points, pair %d: %.15g vs %.15g",
                         points, j, closed[j], w[j]);
    }
    /* one changed value: no longer the stencil */
    a.val[a.rowptr[1]] += 0.5;
    RT_CHECK(rt_stencil_match(&a, &s) == 0);
    free(w);
    free(dense);
    rt_csr_free(&a);
}

int main(void)
{
    /* nnz = sum over rows of the neighbours inside the box (counted by hand per axis) */
    check_one(5, 5, 4, 1, 5 * 20 - 2 * 4 - 2 * 5);
    check_one(7, 3, 4, 2, 7 * 24 - 2 * 8 - 2 * 6 - 2 * 12);
    check_one(27, 3, 4, 2, (3 + 2 * 2) * (4 + 2 * 3) * (2 + 2 * 1)); /* per axis n + 2(n - 1) */
    check_one(125, 5, 4, 3, (5 + 2 * 4 + 2 * 3) * (4 + 2 * 3 + 2 * 2) * (3 + 2 * 2 + 2 * 1));
    rt_err err;
    rt_csr a;
    RT_CHECK(build(5, 4, 4, 2, &a, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "nz must be 1"), "%s", err.msg);
    RT_CHECK(build(9, 4, 4, 2, &a, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "points"), "%s", err.msg);
    return RT_TEST_RESULT();
}
