/* laplacian: the graph Laplacian of an nx x ny x nz grid with Dirichlet boundaries, for the
 * symmetric positive definite inputs of the triangular solves: the 2D 5-point stencil (nz = 1),
 * the 3D 7-point and the 3D 27-point stencils. Every off-diagonal entry is -1 and the diagonal is
 * the stencil's neighbour count (4, 6 or 26) whatever the grid point, so rows at the boundary are
 * strictly diagonally dominant: the matrix is irreducibly diagonally dominant with a positive
 * diagonal, hence SPD. Rows are numbered x fastest, then y, then z. No randomness (no seed). */
#include "rt_gen_laplacian.h"

#include <inttypes.h>

#include "rt_memcheck.h"

static const rt_param_schema laplacian_args[] = {
    {"stencil", RT_V_INT, "5|7|27", "5", 0,
     "5: 2D 5-point; 7: 3D 7-point; 27: 3D 27-point (every neighbour of the 3x3x3 cube)"},
    {"nx", RT_V_INT, "1..100000000", "32", 0, "grid points along x"},
    {"ny", RT_V_INT, "0..100000000", "0", 0, "grid points along y (0: nx)"},
    {"nz", RT_V_INT, "0..100000000", "0", 0,
     "grid points along z (0: 1 for the 5-point stencil, nx for the 3D ones)"},
};

static int laplacian_derive(rt_params *args, rt_err *err)
{
    const int64_t stencil = rt_params_int(args, "stencil", 5);
    const int64_t nx = rt_params_int(args, "nx", 1);
    if (rt_params_int(args, "ny", 0) == 0 && rt_params_set(args, "ny", rt_value_int(nx), err) != 0)
        return -1;
    if (rt_params_int(args, "nz", 0) == 0 &&
        rt_params_set(args, "nz", rt_value_int(stencil == 5 ? 1 : nx), err) != 0)
        return -1;
    if (stencil == 5 && rt_params_int(args, "nz", 1) != 1)
        return rt_err_set(err, "the 5-point stencil is 2D: nz = %" PRId64 " must be 1",
                          rt_params_int(args, "nz", 1));
    return 0;
}

static int laplacian_generate(const rt_params *args, rt_csr *out, rt_err *err)
{
    const int64_t stencil = rt_params_int(args, "stencil", 5);
    const int64_t nx = rt_params_int(args, "nx", 1), ny = rt_params_int(args, "ny", 1),
                  nz = rt_params_int(args, "nz", 1);
    if (nx < 1 || ny < 1 || nz < 1)
        return rt_err_set(err, "grid %" PRId64 " x %" PRId64 " x %" PRId64 " must be positive", nx,
                          ny, nz);
    const double rows_d = (double)nx * (double)ny * (double)nz;
    if (rows_d > (double)INT32_MAX)
        return rt_err_set(err,
                          "grid %" PRId64 " x %" PRId64 " x %" PRId64 " has more than %d points",
                          nx, ny, nz, INT32_MAX);
    const int64_t rows = nx * ny * nz;
    /* Neighbour offsets: the 5- and 7-point stencils step along one axis; the 27-point one takes
     * the whole cube. */
    const int reach_z = stencil == 5 ? 0 : 1;
    const int full_cube = stencil == 27;
    int64_t nnz = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            if (rt_memcheck_fits((double)nnz * 12.0 + (double)rows * 8.0, "the Laplacian", err) !=
                    0 ||
                rt_csr_alloc(out, rows, rows, nnz, err) != 0)
                return -1;
        }
        int64_t o = 0, r = 0;
        for (int64_t z = 0; z < nz; ++z)
            for (int64_t y = 0; y < ny; ++y)
                for (int64_t x = 0; x < nx; ++x, ++r) {
                    /* dz, dy, dx ascending gives ascending column indices. */
                    for (int dz = -reach_z; dz <= reach_z; ++dz)
                        for (int dy = -1; dy <= 1; ++dy)
                            for (int dx = -1; dx <= 1; ++dx) {
                                const int moved = (dx != 0) + (dy != 0) + (dz != 0);
                                if (!full_cube && moved > 1)
                                    continue;
                                const int64_t xx = x + dx, yy = y + dy, zz = z + dz;
                                if (xx < 0 || xx >= nx || yy < 0 || yy >= ny || zz < 0 || zz >= nz)
                                    continue;
                                if (pass == 1) {
                                    out->colidx[o] = (int32_t)((zz * ny + yy) * nx + xx);
                                    out->val[o] = moved == 0 ? (double)(stencil - 1) : -1.0;
                                }
                                ++o;
                            }
                    if (pass == 1)
                        out->rowptr[r + 1] = o;
                }
        nnz = o;
    }
    return 0;
}

const rt_generator_desc rt_gen_laplacian_desc = {
    .name = "laplacian",
    .summary = "SPD grid Laplacian: 2D 5-point, 3D 7-point or 3D 27-point stencil",
    .args = laplacian_args,
    .n_args = (int)(sizeof laplacian_args / sizeof laplacian_args[0]),
    .generate = laplacian_generate,
    .derive = laplacian_derive,
};
