#include "eigen_rr.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Directions of GB below this fraction of its largest eigenvalue are dropped: keeping them would
 * amplify rounding by more than 1e5 in W = V L^(-1/2). */
#define EG_RR_DROP 1e-10

int eg_rr_solve(const double *ga, const double *gb, int64_t m, int64_t b, double *theta, double *c,
                rt_err *err)
{
    const size_t mm = (size_t)(m * m);
    double *v = malloc(mm * sizeof *v), *lam = malloc((size_t)m * sizeof *lam);
    double *w = malloc(mm * sizeof *w), *t = malloc(mm * sizeof *t), *h = malloc(mm * sizeof *h);
    double *mu = malloc((size_t)m * sizeof *mu);
    int rc = -1;
    if (!v || !lam || !w || !t || !h || !mu) {
        rt_err_set(err, "LOBPCG Rayleigh-Ritz: out of memory (m = %lld)", (long long)m);
        goto out;
    }
    memcpy(v, gb, mm * sizeof *v);
    lapack_int info =
        LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int)m, v, (lapack_int)m, lam);
    if (info != 0) {
        rt_err_set(err, "LOBPCG Rayleigh-Ritz: LAPACKE_dsyevd of the Gram matrix failed (info %d)",
                   (int)info);
        goto out;
    }
    /* W (m x k): the kept eigenvectors of GB scaled by lam^(-1/2), largest first. */
    int64_t k = 0;
    const double floor_ = EG_RR_DROP * (lam[m - 1] > 0.0 ? lam[m - 1] : 0.0);
    for (int64_t j = m - 1; j >= 0; --j) {
        if (!(lam[j] > floor_))
            break;
        const double s = 1.0 / sqrt(lam[j]);
        for (int64_t r = 0; r < m; ++r)
            w[r * m + k] = v[r * m + j] * s;
        ++k;
    }
    if (k < b) {
        rc = 1;
        goto out;
    }
    /* H = W' GA W (k x k), symmetrised; with BLAS, not loops: this runs on the host once per
     * iteration, between device phases, so its time is the iteration's critical path. */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)k, (int)m, 1.0, ga, (int)m,
                w, (int)m, 0.0, t, (int)k);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)k, (int)k, (int)m, 1.0, w, (int)m, t,
                (int)k, 0.0, h, (int)k);
    for (int64_t i = 0; i < k; ++i)
        for (int64_t j = i + 1; j < k; ++j)
            h[i * k + j] = h[j * k + i] = 0.5 * (h[i * k + j] + h[j * k + i]);
    info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int)k, h, (lapack_int)k, mu);
    if (info != 0) {
        rt_err_set(err,
                   "LOBPCG Rayleigh-Ritz: LAPACKE_dsyevd of the projected matrix failed "
                   "(info %d)",
                   (int)info);
        goto out;
    }
    for (int64_t j = 0; j < b; ++j)
        theta[j] = mu[j];
    /* C = W H(:, 0..b) (m x b): the b smallest pairs */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)b, (int)k, 1.0, w, (int)m,
                h, (int)k, 0.0, c, (int)b);
    rc = 0;
out:
    free(v);
    free(lam);
    free(w);
    free(t);
    free(h);
    free(mu);
    return rc;
}
