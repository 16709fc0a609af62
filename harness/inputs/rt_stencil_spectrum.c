#include "rt_stencil_spectrum.h"

#include <math.h>
#include <stdlib.h>

static int rows_match(const rt_csr *a, const rt_stencil_shape *s)
{
    int32_t cols[RT_STENCIL_MAX_POINTS];
    double vals[RT_STENCIL_MAX_POINTS];
    for (int64_t r = 0; r < a->rows; ++r) {
        const int n = rt_stencil_row(s, r, cols, vals);
        const int64_t e0 = a->rowptr[r];
        if (a->rowptr[r + 1] - e0 != n)
            return 0;
        for (int k = 0; k < n; ++k)
            if (a->colidx[e0 + k] != cols[k] || a->val[e0 + k] != vals[k])
                return 0;
    }
    return 1;
}

int rt_stencil_match(const rt_csr *a, rt_stencil_shape *shape)
{
    const int64_t n = a->rows;
    if (n < 1 || a->cols != n || a->rowptr[1] < 1)
        return 0;
    /* The diagonal of row 0 names the stencil: points - 1. */
    double diag = 0.0;
    for (int64_t e = a->rowptr[0]; e < a->rowptr[1]; ++e)
        if (a->colidx[e] == 0)
            diag = a->val[e];
    const int points = (int)diag + 1;
    if ((double)(points - 1) != diag || !rt_stencil_points_valid(points))
        return 0;
    for (int64_t nx = 1; nx <= n; ++nx) {
        if (n % nx)
            continue;
        for (int64_t ny = 1; ny <= n / nx; ++ny) {
            if ((n / nx) % ny)
                continue;
            const rt_stencil_shape s = {points, nx, ny, n / nx / ny};
            if (points == 5 && s.nz != 1)
                continue;
            if (rows_match(a, &s)) {
                *shape = s;
                return 1;
            }
        }
    }
    return 0;
}

/* Keeps the k smallest values seen in best[0..*have), ascending. */
static void keep_smallest(double v, double *best, int64_t k, int64_t *have)
{
    if (*have == k && v >= best[k - 1])
        return;
    int64_t i = *have < k ? (*have)++ : k - 1;
    while (i > 0 && best[i - 1] > v) {
        best[i] = best[i - 1];
        --i;
    }
    best[i] = v;
}

int rt_stencil_smallest(const rt_stencil_shape *s, int64_t k, double *out, rt_err *err)
{
    if (s->points == 125)
        return 1;
    const int64_t n = s->nx * s->ny * s->nz;
    if (k < 1 || k > n)
        return rt_err_set(err, "stencil spectrum: %lld eigenvalues asked of a %lld-row matrix",
                          (long long)k, (long long)n);
    const int64_t dims[3] = {s->nx, s->ny, s->nz};
    double *axis[3] = {NULL, NULL, NULL};
    for (int d = 0; d < 3; ++d) {
        axis[d] = malloc((size_t)dims[d] * sizeof(double));
        if (!axis[d]) {
            for (int e = 0; e < d; ++e)
                free(axis[e]);
            return rt_err_set(err, "stencil spectrum: out of memory");
        }
        for (int64_t i = 0; i < dims[d]; ++i) {
            const double c = cos((double)(i + 1) * 3.14159265358979323846 / (double)(dims[d] + 1));
            axis[d][i] = s->points == 27 ? 1.0 + 2.0 * c : 2.0 - 2.0 * c;
        }
    }
    int64_t have = 0;
    for (int64_t z = 0; z < s->nz; ++z)
        for (int64_t y = 0; y < s->ny; ++y)
            for (int64_t x = 0; x < s->nx; ++x) {
                double v;
                if (s->points == 27)
                    v = 27.0 - axis[0][x] * axis[1][y] * axis[2][z];
                else if (s->points == 5)
                    v = axis[0][x] + axis[1][y];
                else
                    v = axis[0][x] + axis[1][y] + axis[2][z];
                keep_smallest(v, out, k, &have);
            }
    for (int d = 0; d < 3; ++d)
        free(axis[d]);
    return 0;
}
