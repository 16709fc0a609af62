#include "sp2_local.h"

#include <stdlib.h>
#include <string.h>

/* C += A B for one value type T (fp32 and fp64 run the same loop). */
#define SP2_SPMM_ACC(T, SUFFIX)                                                                    \
    static void spmm_acc_##SUFFIX(const sp2_tile *a, const sp2_tile *b, T *cv, int64_t ldc)        \
    {                                                                                              \
        const int64_t n = b->cols;                                                                 \
        const T *av = a->val, *bv = b->val;                                                        \
        for (int64_t r = 0; r < a->rows; ++r) {                                                    \
            T *restrict crow = cv + r * ldc;                                                       \
            for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {                            \
                const T v = av[e];                                                                 \
                const T *restrict brow = bv + (int64_t)a->colidx[e] * n;                           \
                for (int64_t j = 0; j < n; ++j)                                                    \
                    crow[j] += v * brow[j];                                                        \
            }                                                                                      \
        }                                                                                          \
    }
SP2_SPMM_ACC(float, fp32)
SP2_SPMM_ACC(double, fp64)

double sp2_spmm_acc(const sp2_tile *a, const sp2_tile *b, void *c, int64_t ldc)
{
    if (a->prec == RT_FP32)
        spmm_acc_fp32(a, b, c, ldc);
    else
        spmm_acc_fp64(a, b, c, ldc);
    return 2.0 * (double)a->nnz * (double)b->cols;
}

void sp2_csrbuf_free(sp2_csrbuf *m)
{
    free(m->rowptr);
    free(m->colidx);
    free(m->val);
    memset(m, 0, sizeof *m);
}

static int grow_entries(sp2_csrbuf *m, int64_t need, rt_err *err)
{
    if (need <= m->cap_nnz)
        return 0;
    int64_t cap = m->cap_nnz > 0 ? m->cap_nnz : 256;
    while (cap < need)
        cap *= 2;
    const size_t eb = rt_precision_bytes(m->prec);
    int32_t *ci = realloc(m->colidx, (size_t)cap * sizeof *ci);
    if (!ci)
        return rt_err_set(err, "out of memory for %lld sparse entries", (long long)cap);
    m->colidx = ci;
    void *v = realloc(m->val, (size_t)cap * eb);
    if (!v)
        return rt_err_set(err, "out of memory for %lld sparse values", (long long)cap);
    m->val = v;
    m->cap_nnz = cap;
    return 0;
}

int sp2_csrbuf_reset(sp2_csrbuf *m, rt_precision prec, int64_t rows, int64_t cols, int64_t nnz,
                     rt_err *err)
{
    if (m->prec != prec && m->cap_nnz > 0) {
        /* Values change width: drop them. */
        free(m->val);
        free(m->colidx);
        m->val = NULL;
        m->colidx = NULL;
        m->cap_nnz = 0;
    }
    m->prec = prec;
    if (rows + 1 > m->cap_rows) {
        int64_t *rp = realloc(m->rowptr, (size_t)(rows + 1) * sizeof *rp);
        if (!rp)
            return rt_err_set(err, "out of memory for %lld row pointers", (long long)rows + 1);
        m->rowptr = rp;
        m->cap_rows = rows + 1;
    }
    if (grow_entries(m, nnz > 0 ? nnz : 1, err) != 0)
        return -1;
    m->rows = rows;
    m->cols = cols;
    m->nnz = 0;
    m->rowptr[0] = 0;
    return 0;
}

void sp2_csrbuf_view(const sp2_csrbuf *m, sp2_tile *out)
{
    *out = (sp2_tile){.kind = SP2_SPARSE,
                      .prec = m->prec,
                      .rows = m->rows,
                      .cols = m->cols,
                      .nnz = m->nnz,
                      .rowptr = m->rowptr,
                      .colidx = m->colidx,
                      .val = m->val};
}

int sp2_spa_init(sp2_spa *w, rt_precision prec, int64_t cols, rt_err *err)
{
    memset(w, 0, sizeof *w);
    w->prec = prec;
    w->cols = cols;
    const size_t n = (size_t)(cols > 0 ? cols : 1);
    w->acc = calloc(n, rt_precision_bytes(prec));
    w->mark = malloc(n * sizeof *w->mark);
    w->touched = malloc(n * sizeof *w->touched);
    if (!w->acc || !w->mark || !w->touched) {
        sp2_spa_free(w);
        return rt_err_set(err, "out of memory for a %lld-column accumulator", (long long)cols);
    }
    for (int64_t j = 0; j < cols; ++j)
        w->mark[j] = -1;
    return 0;
}

void sp2_spa_free(sp2_spa *w)
{
    free(w->acc);
    free(w->mark);
    free(w->touched);
    memset(w, 0, sizeof *w);
}

static int cmp_i32(const void *x, const void *y)
{
    const int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

static void sort_cols(int32_t *v, int64_t n)
{
    if (n < 32) {
        for (int64_t i = 1; i < n; ++i) {
            const int32_t x = v[i];
            int64_t j = i;
            while (j > 0 && v[j - 1] > x) {
                v[j] = v[j - 1];
                --j;
            }
            v[j] = x;
        }
    } else {
        qsort(v, (size_t)n, sizeof *v, cmp_i32);
    }
}

/* The two steps of a row of the Gustavson product, once per value type T (fp32 and fp64 run the
 * same code): scatter adds av times row k of B into the accumulator, appending columns touched
 * for the first time in row r to the touched list (nt of them so far, the new count returned);
 * gather moves the `ntouched` touched columns to out's values from position o, clearing them. */
#define SP2_SPA_STEPS(T, SUFFIX)                                                                   \
    static int64_t spa_scatter_##SUFFIX(sp2_spa *w, const sp2_tile *b, int64_t k, T av, int64_t r, \
                                        int64_t nt)                                                \
    {                                                                                              \
        const T *bv = b->val;                                                                      \
        T *acc = w->acc;                                                                           \
        for (int64_t f = b->rowptr[k]; f < b->rowptr[k + 1]; ++f) {                                \
            const int32_t c = b->colidx[f];                                                        \
            if (w->mark[c] != r) {                                                                 \
                w->mark[c] = r;                                                                    \
                w->touched[nt++] = c;                                                              \
            }                                                                                      \
            acc[c] += av * bv[f];                                                                  \
        }                                                                                          \
        return nt;                                                                                 \
    }                                                                                              \
    static void spa_gather_##SUFFIX(sp2_spa *w, int64_t ntouched, sp2_csrbuf *out, int64_t o)      \
    {                                                                                              \
        T *acc = w->acc, *ov = out->val;                                                           \
        for (int64_t q = 0; q < ntouched; ++q, ++o) {                                              \
            const int32_t c = w->touched[q];                                                       \
            out->colidx[o] = c;                                                                    \
            ov[o] = acc[c];                                                                        \
            acc[c] = (T)0;                                                                         \
        }                                                                                          \
    }
SP2_SPA_STEPS(float, fp32)
SP2_SPA_STEPS(double, fp64)

/* Emits the accumulator's touched columns as row `row` of out (sorted), clearing them. */
static int spa_emit(sp2_spa *w, int64_t ntouched, sp2_csrbuf *out, int64_t row, rt_err *err)
{
    if (grow_entries(out, out->nnz + ntouched, err) != 0)
        return -1;
    sort_cols(w->touched, ntouched);
    if (w->prec == RT_FP32)
        spa_gather_fp32(w, ntouched, out, out->nnz);
    else
        spa_gather_fp64(w, ntouched, out, out->nnz);
    out->nnz += ntouched;
    out->rowptr[row + 1] = out->nnz;
    return 0;
}

int sp2_spgemm_tile(const sp2_tile *a, const sp2_tile *b, sp2_spa *w, sp2_csrbuf *out,
                    double *flops, rt_err *err)
{
    if (a->cols != b->rows || w->cols < b->cols || a->prec != b->prec || w->prec != a->prec)
        return rt_err_set(err,
                          "local SpGEMM: shapes or precisions do not match (%lld x %lld times "
                          "%lld x %lld, accumulator of %lld columns)",
                          (long long)a->rows, (long long)a->cols, (long long)b->rows,
                          (long long)b->cols, (long long)w->cols);
    if (sp2_csrbuf_reset(out, a->prec, a->rows, b->cols, a->nnz + b->nnz, err) != 0)
        return -1;
    double products = 0.0;
    for (int64_t r = 0; r < a->rows; ++r) {
        int64_t nt = 0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {
            const int64_t k = a->colidx[e];
            products += (double)(b->rowptr[k + 1] - b->rowptr[k]);
            nt = a->prec == RT_FP32 ? spa_scatter_fp32(w, b, k, ((const float *)a->val)[e], r, nt)
                                    : spa_scatter_fp64(w, b, k, ((const double *)a->val)[e], r, nt);
        }
        if (spa_emit(w, nt, out, r, err) != 0)
            return -1;
    }
    /* Markers hold row numbers of this product: reset them for the next one. */
    for (int64_t j = 0; j < b->cols; ++j)
        w->mark[j] = -1;
    *flops = 2.0 * products;
    return 0;
}

int sp2_spacc_init(sp2_spacc *s, rt_precision prec, int64_t rows, int64_t cols, rt_err *err)
{
    memset(s, 0, sizeof *s);
    s->prec = prec;
    s->rows = rows;
    s->cols = cols;
    (void)err;
    return 0;
}

void sp2_spacc_free(sp2_spacc *s)
{
    free(s->r);
    free(s->c);
    free(s->v);
    memset(s, 0, sizeof *s);
}

void sp2_spacc_clear(sp2_spacc *s)
{
    s->n = 0;
}

int sp2_spacc_add_csr(sp2_spacc *s, int64_t row0, int64_t nrows, const int64_t *rowptr,
                      const int32_t *colidx, const void *val, rt_err *err)
{
    if (row0 < 0 || nrows < 0 || row0 + nrows > s->rows)
        return rt_err_set(err, "sparse accumulator: rows %lld..%lld are outside the tile's %lld",
                          (long long)row0, (long long)(row0 + nrows), (long long)s->rows);
    const int64_t base = rowptr[0], add = rowptr[nrows] - base;
    if (add < 0)
        return rt_err_set(err, "sparse accumulator: malformed partial (row pointers decrease)");
    if (s->n + add > s->cap) {
        int64_t cap = s->cap > 0 ? s->cap : 1024;
        while (cap < s->n + add)
            cap *= 2;
        int32_t *r = realloc(s->r, (size_t)cap * sizeof *r);
        if (r)
            s->r = r;
        int32_t *c = r ? realloc(s->c, (size_t)cap * sizeof *c) : NULL;
        if (c)
            s->c = c;
        void *v = c ? realloc(s->v, (size_t)cap * rt_precision_bytes(s->prec)) : NULL;
        if (!v)
            return rt_err_set(err, "sparse accumulator: out of memory for %lld entries",
                              (long long)cap);
        s->v = v;
        s->cap = cap;
    }
    const size_t eb = rt_precision_bytes(s->prec);
    for (int64_t q = 0; q < nrows; ++q)
        for (int64_t e = rowptr[q]; e < rowptr[q + 1]; ++e) {
            const int32_t col = colidx[e - base];
            if (col < 0 || col >= s->cols)
                return rt_err_set(err, "sparse accumulator: column %d is outside the tile's %lld",
                                  (int)col, (long long)s->cols);
            s->r[s->n] = (int32_t)(row0 + q);
            s->c[s->n] = col;
            memcpy((unsigned char *)s->v + (size_t)s->n * eb,
                   (const unsigned char *)val + (size_t)(e - base) * eb, eb);
            s->n++;
        }
    return 0;
}

int sp2_spacc_finalize(const sp2_spacc *s, sp2_spa *w, sp2_csrbuf *out, rt_err *err)
{
    if (w->cols < s->cols || w->prec != s->prec)
        return rt_err_set(err, "sparse accumulator: the dense accumulator does not fit the tile");
    /* Bucket the entries by row (counting sort), then sum each row with the dense accumulator. */
    int64_t *start = calloc((size_t)s->rows + 1, sizeof *start);
    const size_t n = (size_t)(s->n > 0 ? s->n : 1);
    int32_t *bc = malloc(n * sizeof *bc);
    int64_t *bi = malloc(n * sizeof *bi);
    if (!start || !bc || !bi) {
        free(start);
        free(bc);
        free(bi);
        return rt_err_set(err, "sparse accumulator: out of memory finalising %lld entries",
                          (long long)s->n);
    }
    for (int64_t e = 0; e < s->n; ++e)
        start[s->r[e] + 1]++;
    for (int64_t r = 0; r < s->rows; ++r)
        start[r + 1] += start[r];
    for (int64_t e = 0; e < s->n; ++e) {
        const int64_t at = start[s->r[e]]++;
        bc[at] = s->c[e];
        bi[at] = e;
    }
    /* start[r] now points at the end of row r: shift back. */
    for (int64_t r = s->rows; r > 0; --r)
        start[r] = start[r - 1];
    start[0] = 0;
    int rc = sp2_csrbuf_reset(out, s->prec, s->rows, s->cols, s->n, err);
    for (int64_t r = 0; rc == 0 && r < s->rows; ++r) {
        int64_t nt = 0;
        for (int64_t q = start[r]; q < start[r + 1]; ++q) {
            const int32_t c = bc[q];
            if (w->mark[c] != r) {
                w->mark[c] = r;
                w->touched[nt++] = c;
            }
            if (s->prec == RT_FP32)
                ((float *)w->acc)[c] += ((const float *)s->v)[bi[q]];
            else
                ((double *)w->acc)[c] += ((const double *)s->v)[bi[q]];
        }
        rc = spa_emit(w, nt, out, r, err);
    }
    for (int64_t j = 0; j < s->cols; ++j)
        w->mark[j] = -1;
    free(start);
    free(bc);
    free(bi);
    return rc;
}
