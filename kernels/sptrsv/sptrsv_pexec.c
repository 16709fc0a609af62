#include "sptrsv_pexec.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* inv = L_ss^-1 (nc x nc, column-major): column j solves L y = e_j by substitution. */
static void invert(const sptrsv_factor *f, int64_t s, double *inv)
{
    const int64_t nc = sptrsv_ncols(f, s), ld = f->ld[s];
    const double *l = f->val + f->valstart[s];
    for (int64_t j = 0; j < nc; ++j) {
        double *y = inv + j * nc;
        for (int64_t i = 0; i < j; ++i)
            y[i] = 0.0;
        y[j] = 1.0 / l[j * ld + j];
        for (int64_t i = j + 1; i < nc; ++i) {
            double acc = 0.0;
            for (int64_t q = j; q < i; ++q)
                acc += l[q * ld + i] * y[q];
            y[i] = -acc / l[i * ld + i];
        }
    }
}

int sptrsv_pexec_inverses(const sptrsv_factor *f, const sptrsv_pplan *p, int part, double **inv,
                          int64_t **off, int64_t *total, rt_err *err)
{
    const int64_t ns = f->nsuper;
    *inv = NULL;
    *off = malloc((size_t)(ns > 0 ? ns : 1) * sizeof **off);
    if (!*off)
        return rt_err_set(err, "sptrsv: out of memory for the inverse diagonal blocks");
    int64_t t = 0;
    for (int64_t s = 0; s < ns; ++s) {
        const int64_t nc = sptrsv_ncols(f, s);
        (*off)[s] = part < 0 || p->home[s] == part ? t : -1;
        if ((*off)[s] >= 0)
            t += nc * nc;
    }
    *total = t;
    *inv = malloc((size_t)(t > 0 ? t : 1) * sizeof **inv);
    if (!*inv) {
        free(*off);
        *off = NULL;
        return rt_err_set(
            err, "sptrsv: out of memory for the inverse diagonal blocks (%" PRId64 " values)", t);
    }
    const int64_t *o = *off;
    double *v = *inv;
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t s = 0; s < ns; ++s)
        if (o[s] >= 0)
            invert(f, s, v + o[s]);
    return 0;
}

void sptrsv_pexec_diag(const sptrsv_factor *f, const sptrsv_pplan *p, int64_t s, const double *inv,
                       const double *b, double *lsum, const double *recv, double *x)
{
    const int64_t nc = sptrsv_ncols(f, s), k = p->o.nrhs, c0 = f->first[s] * k;
    double r[64]; /* one row's right-hand sides (nrhs <= 64) */
    double *rs = malloc((size_t)(nc * k) * sizeof *rs);
    if (!rs) { /* NaN: the gate fails the point instead of a crash */
        for (int64_t q = 0; q < nc * k; ++q)
            x[c0 + q] = NAN;
        return;
    }
    for (int64_t q = 0; q < nc * k; ++q) {
        rs[q] = b[c0 + q] - lsum[c0 + q];
        lsum[c0 + q] = 0.0; /* the next execution starts from zero */
    }
    for (int64_t m = p->recv_ptr[s]; m < p->recv_ptr[s + 1]; ++m)
        for (int64_t q = 0; q < nc * k; ++q)
            rs[q] -= recv[p->recv_off[m] + q];
    for (int64_t i = 0; i < nc; ++i) {
        for (int64_t j = 0; j < k; ++j)
            r[j] = 0.0;
        if (!p->o.backward) {
            for (int64_t c = 0; c <= i; ++c) /* row i of inv (lower triangular) */
                for (int64_t j = 0; j < k; ++j)
                    r[j] += inv[c * nc + i] * rs[c * k + j];
        } else {
            for (int64_t c = i; c < nc; ++c) /* row i of inv^T: column i of inv */
                for (int64_t j = 0; j < k; ++j)
                    r[j] += inv[i * nc + c] * rs[c * k + j];
        }
        for (int64_t j = 0; j < k; ++j)
            x[c0 + i * k + j] = r[j];
    }
    free(rs);
}

static void add(double *dst, double v, int atomic)
{
    if (atomic) {
#pragma omp atomic
        *dst += v;
    } else {
        *dst += v;
    }
}

void sptrsv_pexec_chunk(const sptrsv_factor *f, const sptrsv_pplan *p, int64_t c, const double *x,
                        double *lsum, int atomic)
{
    const int64_t j = p->ch_super[c], k = p->o.nrhs, nc = sptrsv_ncols(f, j), ld = f->ld[j];
    const double *l = f->val + f->valstart[j];
    const int32_t *rows = f->rows + f->rowstart[j];
    const double *xj = x + f->first[j] * k;
    if (!p->o.backward) {
        /* lsum(row) += L(row, J) x_J */
        for (int32_t q = p->ch_p0[c]; q < p->ch_p1[c]; ++q)
            for (int64_t jj = 0; jj < k; ++jj) {
                double acc = 0.0;
                for (int64_t cc = 0; cc < nc; ++cc)
                    acc += l[cc * ld + q] * xj[cc * k + jj];
                add(&lsum[(int64_t)rows[q] * k + jj], acc, atomic);
            }
        return;
    }
    /* lsum(J) += L(rows, J)^T x(rows) */
    double *sj = lsum + f->first[j] * k;
    for (int64_t cc = 0; cc < nc; ++cc)
        for (int64_t jj = 0; jj < k; ++jj) {
            double acc = 0.0;
            for (int32_t q = p->ch_p0[c]; q < p->ch_p1[c]; ++q)
                acc += l[cc * ld + q] * x[(int64_t)rows[q] * k + jj];
            add(&sj[cc * k + jj], acc, atomic);
        }
}
