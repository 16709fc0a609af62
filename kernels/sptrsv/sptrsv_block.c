#include "sptrsv_block.h"

#include <string.h>

void sptrsv_block_solve_diag(const sptrsv_factor *f, int64_t s, int64_t nrhs, double *x)
{
    const int64_t nc = sptrsv_ncols(f, s), ld = f->ld[s];
    const double *v = f->val + f->valstart[s];
    for (int64_t c = 0; c < nc; ++c) {
        double *xc = x + c * nrhs;
        const double d = v[c * ld + c];
        for (int64_t j = 0; j < nrhs; ++j)
            xc[j] /= d;
        for (int64_t p = c + 1; p < nc; ++p) {
            const double l = v[c * ld + p];
            double *xp = x + p * nrhs;
            for (int64_t j = 0; j < nrhs; ++j)
                xp[j] -= l * xc[j];
        }
    }
}

void sptrsv_block_update(const sptrsv_factor *f, int64_t s, int64_t rbeg, int64_t rend,
                         int64_t nrhs, const double *xs, double *lsum)
{
    const int64_t nc = sptrsv_ncols(f, s), ld = f->ld[s], base = f->rowstart[s];
    const double *v = f->val + f->valstart[s];
    for (int64_t p = rbeg; p < rend; ++p) {
        double *out = lsum + (int64_t)f->rows[p] * nrhs;
        const int64_t pos = p - base;
        for (int64_t c = 0; c < nc; ++c) {
            const double l = v[c * ld + pos];
            const double *xc = xs + c * nrhs;
            for (int64_t j = 0; j < nrhs; ++j)
                out[j] += l * xc[j];
        }
    }
}

void sptrsv_block_solve_all(const sptrsv_factor *f, const sptrsv_dag *d, int64_t nrhs,
                            const double *b, double *x, double *lsum)
{
    memset(lsum, 0, (size_t)(f->n * nrhs) * sizeof *lsum);
    for (int64_t s = 0; s < f->nsuper; ++s) {
        const int64_t r0 = f->first[s] * nrhs, r1 = f->first[s + 1] * nrhs;
        for (int64_t i = r0; i < r1; ++i)
            x[i] = b[i] - lsum[i];
        sptrsv_block_solve_diag(f, s, nrhs, x + r0);
        for (int64_t e = d->succ_ptr[s]; e < d->succ_ptr[s + 1]; ++e)
            sptrsv_block_update(f, s, d->succ_rbeg[e], d->succ_rend[e], nrhs, x + r0, lsum);
    }
}

double sptrsv_block_bytes(const sptrsv_factor *f, int64_t s, int64_t nrhs)
{
    const double nc = (double)sptrsv_ncols(f, s), nr = (double)sptrsv_nrows(f, s);
    const double entries = nc * nr - nc * (nc - 1.0) / 2.0;
    return 8.0 * entries + 4.0 * nr + 8.0 * (double)nrhs * (3.0 * nc + 2.0 * (nr - nc));
}
