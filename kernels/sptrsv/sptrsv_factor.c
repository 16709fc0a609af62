#include "sptrsv_factor.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef RT_HAVE_CHOLMOD
#include <cholmod.h>
#endif

#include "rt_clock.h"
#include "sptrsv_factor_cache.h"

int sptrsv_ordering_parse(const char *s)
{
    if (!s)
        return -1;
    if (strcmp(s, "amd") == 0)
        return SPTRSV_ORDER_AMD;
    if (strcmp(s, "metis") == 0)
        return SPTRSV_ORDER_METIS;
    if (strcmp(s, "natural") == 0)
        return SPTRSV_ORDER_NATURAL;
    return -1;
}

void sptrsv_factor_free(sptrsv_factor *f)
{
    if (!f)
        return;
    free(f->first);
    free(f->rowstart);
    free(f->rows);
    free(f->valstart);
    free(f->ld);
    free(f->origin);
    free(f->val);
    free(f->perm);
    rt_csr_free(&f->csr);
    memset(f, 0, sizeof *f);
}

int sptrsv_factor_col_super(const sptrsv_factor *f, int64_t **out, rt_err *err)
{
    int64_t *cs = malloc((size_t)(f->n > 0 ? f->n : 1) * sizeof *cs);
    if (!cs)
        return rt_err_set(err, "sptrsv: out of memory for the column-to-supernode map");
    for (int64_t s = 0; s < f->nsuper; ++s)
        for (int64_t j = f->first[s]; j < f->first[s + 1]; ++j)
            cs[j] = s;
    *out = cs;
    return 0;
}

/* Fills f->csr from the supernodal blocks: entry (r, j) of column j = first[s] + c is at
 * val[valstart[s] + c * ld[s] + p] for the row r = rows[rowstart[s] + p], p >= c. */
static int build_csr(sptrsv_factor *f, rt_err *err)
{
    int64_t nnz = 0;
    for (int64_t s = 0; s < f->nsuper; ++s) {
        const int64_t nc = sptrsv_ncols(f, s), nr = sptrsv_nrows(f, s);
        nnz += nc * nr - nc * (nc - 1) / 2;
    }
    if (rt_csr_alloc(&f->csr, f->n, f->n, nnz, err) != 0)
        return rt_err_prefix(err, "sptrsv: the CSR copy of L");
    int64_t *rp = f->csr.rowptr;
    for (int64_t s = 0; s < f->nsuper; ++s) {
        const int64_t nc = sptrsv_ncols(f, s), nr = sptrsv_nrows(f, s);
        for (int64_t c = 0; c < nc; ++c)
            for (int64_t p = c; p < nr; ++p)
                rp[f->rows[f->rowstart[s] + p] + 1]++;
    }
    for (int64_t i = 0; i < f->n; ++i)
        rp[i + 1] += rp[i];
    int64_t *next = malloc((size_t)(f->n > 0 ? f->n : 1) * sizeof *next);
    if (!next) {
        rt_csr_free(&f->csr);
        return rt_err_set(err, "sptrsv: out of memory building the CSR copy of L");
    }
    memcpy(next, rp, (size_t)f->n * sizeof *next);
    /* Columns visited in ascending order, so every row's columns come out sorted. */
    for (int64_t s = 0; s < f->nsuper; ++s) {
        const int64_t nc = sptrsv_ncols(f, s), nr = sptrsv_nrows(f, s);
        const double *v = f->val + f->valstart[s];
        for (int64_t c = 0; c < nc; ++c)
            for (int64_t p = c; p < nr; ++p) {
                const int64_t r = f->rows[f->rowstart[s] + p];
                const int64_t o = next[r]++;
                f->csr.colidx[o] = (int32_t)(f->first[s] + c);
                f->csr.val[o] = v[c * f->ld[s] + p];
            }
    }
    free(next);
    for (int64_t i = 0; i < f->n; ++i) {
        const int64_t last = rp[i + 1] - 1;
        if (last < rp[i] || f->csr.colidx[last] != i || !(f->csr.val[last] != 0.0) ||
            !isfinite(f->csr.val[last])) {
            rt_csr_free(&f->csr);
            return rt_err_set(
                err, "sptrsv: L has no usable diagonal in row %" PRId64 " (the matrix is singular)",
                i);
        }
    }
    return 0;
}

static int alloc_super(sptrsv_factor *f, int64_t nsuper, int64_t nrows_total, int64_t nval,
                       rt_err *err)
{
    f->nsuper = nsuper;
    f->nval = nval;
    f->first = calloc((size_t)nsuper + 1, sizeof *f->first);
    f->rowstart = calloc((size_t)nsuper + 1, sizeof *f->rowstart);
    f->rows = malloc((size_t)(nrows_total > 0 ? nrows_total : 1) * sizeof *f->rows);
    f->valstart = malloc((size_t)(nsuper > 0 ? nsuper : 1) * sizeof *f->valstart);
    f->ld = malloc((size_t)(nsuper > 0 ? nsuper : 1) * sizeof *f->ld);
    f->origin = malloc((size_t)(nsuper > 0 ? nsuper : 1) * sizeof *f->origin);
    f->val = malloc((size_t)(nval > 0 ? nval : 1) * sizeof *f->val);
    f->perm = malloc((size_t)(f->n > 0 ? f->n : 1) * sizeof *f->perm);
    if (!f->first || !f->rowstart || !f->rows || !f->valstart || !f->ld || !f->origin || !f->val ||
        !f->perm)
        return rt_err_set(
            err, "sptrsv: out of memory for the supernodal factor (%" PRId64 " values)", nval);
    return 0;
}

int sptrsv_factor_from_lower(const rt_csr *l, sptrsv_factor *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    if (l->rows != l->cols)
        return rt_err_set(err, "sptrsv: L is %" PRId64 " x %" PRId64 ", not square", l->rows,
                          l->cols);
    const int64_t n = l->rows;
    for (int64_t i = 0; i < n; ++i)
        if (l->rowptr[i + 1] == l->rowptr[i] || l->colidx[l->rowptr[i + 1] - 1] != i ||
            l->val[l->rowptr[i + 1] - 1] == 0.0)
            return rt_err_set(err, "sptrsv: row %" PRId64 " of L lacks a nonzero diagonal", i);
    out->n = n;
    if (alloc_super(out, n, l->nnz, l->nnz, err) != 0) {
        sptrsv_factor_free(out);
        return -1;
    }
    /* Column counts, then each column's rows ascending (rows visited in order). */
    for (int64_t e = 0; e < l->nnz; ++e)
        out->rowstart[l->colidx[e] + 1]++;
    for (int64_t j = 0; j < n; ++j) {
        out->rowstart[j + 1] += out->rowstart[j];
        out->first[j] = j;
        out->valstart[j] = out->rowstart[j];
        out->ld[j] = out->rowstart[j + 1] - out->rowstart[j];
        out->origin[j] = j;
        out->perm[j] = j;
    }
    out->first[n] = n;
    int64_t *next = malloc((size_t)(n > 0 ? n : 1) * sizeof *next);
    if (!next) {
        sptrsv_factor_free(out);
        return rt_err_set(err, "sptrsv: out of memory");
    }
    memcpy(next, out->rowstart, (size_t)n * sizeof *next);
    /* The diagonal must come first in a column: row j is the smallest row of column j because L is
     * lower triangular, and rows are visited in ascending order. */
    for (int64_t i = 0; i < n; ++i)
        for (int64_t e = l->rowptr[i]; e < l->rowptr[i + 1]; ++e) {
            const int64_t o = next[l->colidx[e]]++;
            out->rows[o] = (int32_t)i;
            out->val[o] = l->val[e];
        }
    free(next);
    out->cholmod_nsuper = n;
    if (build_csr(out, err) != 0) {
        sptrsv_factor_free(out);
        return -1;
    }
    return 0;
}

/* Both triangles must be stored and equal: a triangular solve of a Cholesky factor only means
 * something for a symmetric matrix, and CHOLMOD would silently read one triangle. */
static int check_symmetric(const rt_csr *a, rt_err *err)
{
    if (a->rows != a->cols)
        return rt_err_set(err,
                          "the matrix is %" PRId64 " x %" PRId64
                          ", not square (a Cholesky factor needs an SPD matrix)",
                          a->rows, a->cols);
    for (int64_t i = 0; i < a->rows; ++i)
        for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; ++e) {
            const int64_t j = a->colidx[e];
            /* Binary search of (j, i) in row j. */
            int64_t lo = a->rowptr[j], hi = a->rowptr[j + 1] - 1, hit = -1;
            while (lo <= hi) {
                const int64_t mid = lo + (hi - lo) / 2;
                if (a->colidx[mid] == i) {
                    hit = mid;
                    break;
                }
                if (a->colidx[mid] < i)
                    lo = mid + 1;
                else
                    hi = mid - 1;
            }
            if (hit < 0)
                return rt_err_set(err,
                                  "the matrix is not symmetric: A(%" PRId64 ",%" PRId64
                                  ") = %g but A(%" PRId64 ",%" PRId64 ") is absent (sptrsv "
                                  "needs an SPD matrix with both triangles stored)",
                                  i + 1, j + 1, a->val[e], j + 1, i + 1);
            if (a->val[hit] != a->val[e])
                return rt_err_set(err,
                                  "the matrix is not symmetric: A(%" PRId64 ",%" PRId64
                                  ") = %g but A(%" PRId64 ",%" PRId64 ") = %g (sptrsv needs an "
                                  "SPD matrix with both triangles stored)",
                                  i + 1, j + 1, a->val[e], j + 1, i + 1, a->val[hit]);
        }
    return 0;
}

#ifdef RT_HAVE_CHOLMOD
static int cholmod_fail(cholmod_common *c, const char *what, rt_err *err)
{
    const int status = c->status;
    if (status == CHOLMOD_NOT_INSTALLED)
        return rt_err_set(err,
                          "CHOLMOD %s: the requested ordering is not installed in this "
                          "CHOLMOD (METIS missing?)",
                          what);
    if (status == CHOLMOD_OUT_OF_MEMORY)
        return rt_err_set(err, "CHOLMOD %s: out of memory", what);
    if (status == CHOLMOD_TOO_LARGE)
        return rt_err_set(err, "CHOLMOD %s: the factor is too large for 32-bit indices", what);
    return rt_err_set(err, "CHOLMOD %s failed (status %d)", what, status);
}

/* CHOLMOD's supernodal factorisation of a, copied out of CHOLMOD's structures into r. */
static int factorise(const rt_csr *a, sptrsv_ordering ordering, sptrsv_raw_factor *r, rt_err *err)
{
    memset(r, 0, sizeof *r);
    if (a->nnz > INT32_MAX || a->rows > INT32_MAX)
        return rt_err_set(err, "the matrix has more than %d nonzeros", INT32_MAX);
    cholmod_common c;
    cholmod_start(&c);
    c.print = 0; /* errors come back through c.status and our messages, not on stdout */
    c.supernodal = CHOLMOD_SUPERNODAL;
    c.nmethods = 1;
    c.method[0].ordering = ordering == SPTRSV_ORDER_METIS ? CHOLMOD_METIS
                           : ordering == SPTRSV_ORDER_AMD ? CHOLMOD_AMD
                                                          : CHOLMOD_NATURAL;
    c.postorder = 1;
    int rc = -1;
    cholmod_factor *L = NULL;
    cholmod_sparse *A = cholmod_allocate_sparse((size_t)a->rows, (size_t)a->cols, (size_t)a->nnz, 1,
                                                1, -1, CHOLMOD_REAL, &c);
    if (!A) {
        cholmod_fail(&c, "allocating the matrix", err);
        goto done;
    }
    /* CSR of a symmetric matrix is its CSC; stype -1 reads the lower triangle. */
    int *ap = A->p, *ai = A->i;
    double *ax = A->x;
    for (int64_t i = 0; i <= a->rows; ++i)
        ap[i] = (int)a->rowptr[i];
    for (int64_t e = 0; e < a->nnz; ++e) {
        ai[e] = a->colidx[e];
        ax[e] = a->val[e];
    }
    double t0 = rt_clock_now();
    L = cholmod_analyze(A, &c);
    r->analyse_s = rt_clock_now() - t0;
    if (!L || c.status < CHOLMOD_OK) {
        cholmod_fail(&c, "analysis", err);
        goto done;
    }
    t0 = rt_clock_now();
    cholmod_factorize(A, L, &c);
    r->factor_s = rt_clock_now() - t0;
    if (c.status == CHOLMOD_NOT_POSDEF || L->minor < L->n) {
        rt_err_set(err,
                   "the matrix is not positive definite (the Cholesky factorisation broke down at "
                   "pivot %zu of %zu): sptrsv needs an SPD matrix",
                   (size_t)L->minor + 1, (size_t)L->n);
        goto done;
    }
    if (c.status < CHOLMOD_OK) {
        cholmod_fail(&c, "factorisation", err);
        goto done;
    }
    if (!L->is_super || L->xtype != CHOLMOD_REAL) {
        rt_err_set(err, "CHOLMOD returned a simplicial or non-real factor");
        goto done;
    }
    const int *super = L->super, *pi = L->pi, *px = L->px, *ls = L->s, *perm = L->Perm;
    r->n = a->rows;
    r->nsuper = (int64_t)L->nsuper;
    r->nrows = pi[L->nsuper];
    r->nval = (int64_t)L->xsize;
    if (sptrsv_raw_alloc(r, err) != 0)
        goto done;
    for (int64_t s = 0; s <= r->nsuper; ++s) {
        r->super[s] = super[s];
        r->pi[s] = pi[s];
        r->px[s] = px[s];
    }
    for (int64_t q = 0; q < r->nrows; ++q)
        r->srows[q] = ls[q];
    memcpy(r->x, L->x, L->xsize * sizeof(double));
    for (int64_t i = 0; i < r->n; ++i)
        r->perm[i] = perm[i];
    rc = 0;
done:
    if (L)
        cholmod_free_factor(&L, &c);
    if (A)
        cholmod_free_sparse(&A, &c);
    cholmod_finish(&c);
    return rc;
}

/* The factor of a: from the cache when it holds it, else from CHOLMOD (then into the cache).
 * Ranks take turns on the key's lock, so only the first one factorises. */
static int factorise_cached(const rt_csr *a, sptrsv_ordering ordering, const char *dir,
                            sptrsv_raw_factor *r, int *cached, rt_err *err)
{
    *cached = 0;
    if (!dir || !dir[0])
        return factorise(a, ordering, r, err);
    const uint64_t key = sptrsv_factor_cache_key(a, (int)ordering);
    int fd = -1;
    if (sptrsv_factor_cache_lock(dir, key, &fd, err) != 0)
        return rt_err_prefix(err, "sptrsv");
    char why[1300] = "";
    int rc = sptrsv_factor_cache_read(dir, key, r, why, sizeof why, err);
    if (rc == 1) {
        *cached = 1;
        rc = 0;
    } else if (rc == 0) {
        rc = factorise(a, ordering, r, err);
        rt_err werr;
        if (rc == 0 && sptrsv_factor_cache_write(dir, key, r, &werr) != 0)
            fprintf(stderr, "sptrsv: %s (the factor is used, not kept)\n", werr.msg);
    }
    sptrsv_factor_cache_unlock(fd);
    return rc;
}
#endif

/* f from CHOLMOD's factor r, every supernode split into pieces of at most cap columns (0: none);
 * r's values move into f. */
static int split_raw(sptrsv_raw_factor *r, int64_t cap, sptrsv_factor *f, rt_err *err)
{
    const int64_t ns = r->nsuper;
    int64_t nsplit = 0, nrows_total = 0;
    for (int64_t s = 0; s < ns; ++s) {
        const int64_t nc = r->super[s + 1] - r->super[s], nr = r->pi[s + 1] - r->pi[s];
        const int64_t pieces = cap > 0 ? (nc + cap - 1) / cap : 1;
        nsplit += pieces;
        for (int64_t k = 0; k < pieces; ++k)
            nrows_total += nr - k * (cap > 0 ? cap : 0);
    }
    f->n = r->n;
    if (alloc_super(f, nsplit, nrows_total, 0, err) != 0)
        return -1;
    free(f->val);
    f->val = r->x; /* moved, not copied: the values are the bulk of the factor */
    f->nval = r->nval;
    r->x = NULL;
    for (int64_t i = 0; i < f->n; ++i)
        f->perm[i] = r->perm[i];
    int64_t t = 0, ro = 0;
    for (int64_t s = 0; s < ns; ++s) {
        const int64_t k1 = r->super[s], k2 = r->super[s + 1], nr = r->pi[s + 1] - r->pi[s];
        const int64_t step = cap > 0 ? cap : k2 - k1;
        for (int64_t c0 = k1; c0 < k2; c0 += step, ++t) {
            const int64_t off = c0 - k1;
            f->first[t] = c0;
            f->origin[t] = s;
            f->rowstart[t] = ro;
            for (int64_t p = off; p < nr; ++p)
                f->rows[ro++] = r->srows[r->pi[s] + p];
            f->valstart[t] = r->px[s] + off * nr + off;
            f->ld[t] = nr;
        }
    }
    f->first[nsplit] = f->n;
    f->rowstart[nsplit] = ro;
    f->cholmod_nsuper = ns;
    f->analyse_s = r->analyse_s;
    f->factor_s = r->factor_s;
    return build_csr(f, err);
}

int sptrsv_factor_create_cached(const rt_csr *a, sptrsv_ordering ordering, int64_t max_supernode,
                                const char *cache_dir, sptrsv_factor *out, int *cached, rt_err *err)
{
    memset(out, 0, sizeof *out);
    *cached = 0;
    if (check_symmetric(a, err) != 0)
        return rt_err_prefix(err, "sptrsv");
#ifdef RT_HAVE_CHOLMOD
    sptrsv_raw_factor r;
    memset(&r, 0, sizeof r);
    if (factorise_cached(a, ordering, cache_dir, &r, cached, err) != 0 ||
        split_raw(&r, max_supernode, out, err) != 0) {
        sptrsv_raw_free(&r);
        sptrsv_factor_free(out);
        return rt_err_prefix(err, "sptrsv");
    }
    sptrsv_raw_free(&r);
    return 0;
#else
    (void)ordering;
    (void)max_supernode;
    (void)cache_dir;
    return rt_err_set(err, "sptrsv: rooftune was built without CHOLMOD (install "
                           "libsuitesparse-dev and reconfigure)");
#endif
}

int sptrsv_factor_create(const rt_csr *a, sptrsv_ordering ordering, int64_t max_supernode,
                         sptrsv_factor *out, rt_err *err)
{
    int cached = 0;
    return sptrsv_factor_create_cached(a, ordering, max_supernode, NULL, out, &cached, err);
}
