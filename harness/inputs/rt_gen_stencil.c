/* stencil: the constant-coefficient stencil matrices of the eigensolver papers, on an nx x ny
 * (x nz) grid with Dirichlet boundaries (neighbours outside the box are dropped, the diagonal is
 * kept): points 5 and 7 are the 2D and 3D Laplacians (diagonal 4 and 6), 27 and 125 the 3D
 * stencils over every neighbour within distance 1 and 2 in each coordinate. Off-diagonal entries
 * are -1 and the diagonal is points - 1, so every matrix is symmetric positive definite and the
 * 5-, 7- and 27-point ones have closed-form spectra (rt_stencil_spectrum.h). */
#include "rt_gen_stencil.h"

#include <inttypes.h>
#include <stdlib.h>

#include "rt_memcheck.h"

static const rt_param_schema stencil_args[] = {
    {"points", RT_V_INT, "5|7|27|125", "7", 0,
     "5: 2D Laplacian; 7: 3D Laplacian; 27, 125: 3D stencils of half-width 1, 2"},
    {"nx", RT_V_INT, "1..100000", "16", 0, "grid points along x (fastest-varying row index)"},
    {"ny", RT_V_INT, "1..100000", "16", 0, "grid points along y"},
    {"nz", RT_V_INT, "1..100000", "16", 0, "grid points along z (must be 1 for points: 5)"},
    {"seed", RT_V_INT, "", "1", 0, "unused (the matrix is deterministic); kept for orderings"},
};

int rt_stencil_points_valid(int points)
{
    return points == 5 || points == 7 || points == 27 || points == 125;
}

int rt_stencil_row(const rt_stencil_shape *s, int64_t r, int32_t *cols, double *vals)
{
    const int half = s->points == 125 ? 2 : 1;
    const int64_t x = r % s->nx, y = (r / s->nx) % s->ny, z = r / (s->nx * s->ny);
    const int zhalf = s->points == 5 ? 0 : half;
    int n = 0;
    /* (dz, dy, dx) in lexicographic order gives ascending columns. */
    for (int dz = -zhalf; dz <= zhalf; ++dz)
        for (int dy = -half; dy <= half; ++dy)
            for (int dx = -half; dx <= half; ++dx) {
                const int manhattan = abs(dx) + abs(dy) + abs(dz);
                if ((s->points == 5 || s->points == 7) && manhattan > 1)
                    continue;
                if (x + dx < 0 || x + dx >= s->nx || y + dy < 0 || y + dy >= s->ny || z + dz < 0 ||
                    z + dz >= s->nz)
                    continue;
                cols[n] = (int32_t)(r + ((int64_t)dz * s->ny + dy) * s->nx + dx);
                vals[n] = manhattan == 0 ? (double)(s->points - 1) : -1.0;
                ++n;
            }
    return n;
}

static int stencil_generate(const rt_params *args, rt_csr *out, rt_err *err)
{
    rt_stencil_shape s = {(int)rt_params_int(args, "points", 7), rt_params_int(args, "nx", 1),
                          rt_params_int(args, "ny", 1), rt_params_int(args, "nz", 1)};
    if (!rt_stencil_points_valid(s.points))
        return rt_err_set(err, "points = %d is not one of 5, 7, 27, 125", s.points);
    if (s.points == 5 && s.nz != 1)
        return rt_err_set(err, "points: 5 is the 2D Laplacian; nz must be 1 (it is %" PRId64 ")",
                          s.nz);
    const double rows_d = (double)s.nx * (double)s.ny * (double)s.nz;
    if (rows_d > (double)INT32_MAX)
        return rt_err_set(err, "nx * ny * nz = %.0f rows exceeds the 32-bit column index limit %d",
                          rows_d, INT32_MAX);
    const int64_t rows = s.nx * s.ny * s.nz;
    int32_t cols[RT_STENCIL_MAX_POINTS];
    double vals[RT_STENCIL_MAX_POINTS];
    int64_t nnz = 0;
    for (int64_t r = 0; r < rows; ++r)
        nnz += rt_stencil_row(&s, r, cols, vals);
    if (rt_memcheck_fits((double)nnz * 12.0 + (double)rows * 8.0, "the stencil matrix", err) != 0)
        return -1;
    if (rt_csr_alloc(out, rows, rows, nnz, err) != 0)
        return -1;
    int64_t o = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const int n = rt_stencil_row(&s, r, out->colidx + o, out->val + o);
        o += n;
        out->rowptr[r + 1] = o;
    }
    return 0;
}

const rt_generator_desc rt_gen_stencil_desc = {
    .name = "stencil",
    .summary = "2D/3D Laplacian or 3D 27-/125-point stencil on a box grid, Dirichlet, SPD",
    .args = stencil_args,
    .n_args = (int)(sizeof stencil_args / sizeof stencil_args[0]),
    .generate = stencil_generate,
    .derive = NULL,
};
