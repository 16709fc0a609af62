/* rt_matrix: CSR, warp-sliced ELL and dense containers (see rt_matrix.h for the contracts). */
#include "rt_matrix.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt_row_sort.h"

/* ------------------------------------------------------------------------------------------ */
/* Names */

int rt_precision_parse(const char *s)
{
    if (!s)
        return -1;
    if (strcmp(s, "fp32") == 0)
        return RT_FP32;
    if (strcmp(s, "fp64") == 0)
        return RT_FP64;
    return -1;
}

int rt_layout_parse(const char *s)
{
    if (!s)
        return -1;
    if (strcmp(s, "row") == 0)
        return RT_ROW_MAJOR;
    if (strcmp(s, "col") == 0)
        return RT_COL_MAJOR;
    return -1;
}

const char *rt_precision_name(rt_precision p)
{
    return p == RT_FP64 ? "fp64" : p == RT_FP32 ? "fp32" : "unknown";
}

const char *rt_layout_name(rt_layout l)
{
    return l == RT_COL_MAJOR ? "col" : l == RT_ROW_MAJOR ? "row" : "unknown";
}

size_t rt_precision_bytes(rt_precision p)
{
    return p == RT_FP64 ? sizeof(double) : sizeof(float);
}

/* ------------------------------------------------------------------------------------------ */
/* Checked allocation: every size is computed in 64 bits with an overflow test first, so a
 * malicious or mistaken shape becomes a message, not a wrapped-around small allocation. */

static int mul_size(int64_t count, size_t elem, size_t *bytes)
{
    if (count < 0)
        return -1;
    if (elem != 0 && (uint64_t)count > (uint64_t)SIZE_MAX / elem)
        return -1;
    *bytes = (size_t)count * elem;
    return 0;
}

/* malloc/calloc of count elements; count 0 still returns a unique pointer so that a NULL always
 * means failure. */
static void *alloc_array(int64_t count, size_t elem, int zeroed, const char *what, rt_err *err)
{
    size_t bytes;
    if (mul_size(count, elem, &bytes) != 0) {
        rt_err_set(
            err, "cannot allocate %s: %" PRId64 " elements of %zu bytes overflow the address space",
            what, count, elem);
        return NULL;
    }
    const size_t ask = bytes ? bytes : 1;
    void *p = zeroed ? calloc(ask, 1) : malloc(ask);
    if (!p)
        rt_err_set(err, "out of memory: cannot allocate %zu bytes for %s (%" PRId64 " elements)",
                   ask, what, count);
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* CSR */

/* The shape every CSR keeps, checked the same way where one is allocated, built from COO entries
 * or handed in: no negative size, and columns that fit the 32-bit column indices (they halve index
 * traffic in every kernel). kind names the format in the message and items what nnz counts. */
static int check_shape(const char *kind, const char *items, int64_t rows, int64_t cols, int64_t nnz,
                       rt_err *err)
{
    if (rows < 0 || cols < 0 || nnz < 0)
        return rt_err_set(err,
                          "invalid %s shape %" PRId64 " x %" PRId64 " with %" PRId64
                          " %s: sizes must not be negative",
                          kind, rows, cols, nnz, items);
    if (cols > INT32_MAX)
        return rt_err_set(err,
                          "%s with %" PRId64 " columns exceeds the 32-bit column index limit %d",
                          kind, cols, INT32_MAX);
    return 0;
}

int rt_csr_alloc(rt_csr *m, int64_t rows, int64_t cols, int64_t nnz, rt_err *err)
{
    memset(m, 0, sizeof *m);
    if (check_shape("CSR", "nonzeros", rows, cols, nnz, err) != 0)
        return -1;
    if (rows == INT64_MAX)
        return rt_err_set(err, "CSR with %" PRId64 " rows is too large", rows);
    m->rowptr = alloc_array(rows + 1, sizeof *m->rowptr, 1, "CSR row offsets", err);
    if (!m->rowptr)
        return -1;
    m->colidx = alloc_array(nnz, sizeof *m->colidx, 0, "CSR column indices", err);
    m->val = m->colidx ? alloc_array(nnz, sizeof *m->val, 0, "CSR values", err) : NULL;
    if (!m->colidx || !m->val) {
        rt_csr_free(m);
        return -1;
    }
    m->rows = rows;
    m->cols = cols;
    m->nnz = nnz;
    return 0;
}

void rt_csr_free(rt_csr *m)
{
    if (!m)
        return;
    free(m->rowptr);
    free(m->colidx);
    free(m->val);
    memset(m, 0, sizeof *m);
}

int rt_csr_validate(const rt_csr *m, rt_err *err)
{
    if (!m)
        return rt_err_set(err, "CSR matrix is NULL");
    if (check_shape("CSR", "nonzeros", m->rows, m->cols, m->nnz, err) != 0)
        return -1;
    if (!m->rowptr)
        return rt_err_set(err, "CSR row offsets are missing (rowptr is NULL)");
    if ((!m->colidx || !m->val) && m->nnz > 0)
        return rt_err_set(err, "CSR has %" PRId64 " nonzeros but no %s array", m->nnz,
                          m->colidx ? "value" : "column index");
    if (m->rowptr[0] != 0)
        return rt_err_set(err, "CSR rowptr[0] is %" PRId64 ", must be 0", m->rowptr[0]);
    for (int64_t r = 0; r < m->rows; ++r) {
        const int64_t b = m->rowptr[r], e = m->rowptr[r + 1];
        if (e < b)
            return rt_err_set(
                err, "CSR rowptr decreases at row %" PRId64 " (%" PRId64 " then %" PRId64 ")", r, b,
                e);
        if (e > m->nnz)
            return rt_err_set(err, "CSR rowptr[%" PRId64 "] = %" PRId64 " exceeds nnz %" PRId64,
                              r + 1, e, m->nnz);
        for (int64_t k = b; k < e; ++k) {
            const int32_t c = m->colidx[k];
            if (c < 0 || c >= m->cols)
                return rt_err_set(err,
                                  "CSR row %" PRId64 " has column index %" PRId32
                                  " outside [0, %" PRId64 ")",
                                  r, c, m->cols);
            if (k > b && c == m->colidx[k - 1])
                return rt_err_set(
                    err, "CSR row %" PRId64 " has column %" PRId32 " twice (duplicate entry)", r,
                    c);
            if (k > b && c < m->colidx[k - 1])
                return rt_err_set(
                    err, "CSR row %" PRId64 " is not sorted: column %" PRId32 " follows %" PRId32,
                    r, c, m->colidx[k - 1]);
        }
    }
    if (m->rowptr[m->rows] != m->nnz)
        return rt_err_set(err, "CSR rowptr[rows] = %" PRId64 " but nnz = %" PRId64,
                          m->rowptr[m->rows], m->nnz);
    return 0;
}

static int64_t longest_row(const int64_t *ptr, int64_t rows)
{
    int64_t longest = 0;
    for (int64_t r = 0; r < rows; ++r)
        longest = ptr[r + 1] - ptr[r] > longest ? ptr[r + 1] - ptr[r] : longest;
    return longest;
}

/* Given per-row buckets of (col, val) already placed at bucket_ptr[r].., sorts each row, sums
 * duplicates and writes the result into a freshly allocated out. */
static int csr_from_buckets(rt_csr *out, int64_t rows, int64_t cols, const int64_t *bucket_ptr,
                            rt_col_val *entries, rt_err *err)
{
    rt_col_val *scratch =
        alloc_array(longest_row(bucket_ptr, rows), sizeof *scratch, 0, "row sort buffer", err);
    if (!scratch)
        return -1;
    int64_t unique = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t b = bucket_ptr[r], n = bucket_ptr[r + 1] - b;
        rt_row_sort(entries + b, n, scratch);
        for (int64_t k = 0; k < n; ++k)
            if (k == 0 || entries[b + k].col != entries[b + k - 1].col)
                ++unique;
    }
    free(scratch);
    if (rt_csr_alloc(out, rows, cols, unique, err) != 0)
        return -1;
    int64_t o = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t b = bucket_ptr[r], e = bucket_ptr[r + 1];
        for (int64_t k = b; k < e; ++k) {
            if (k > b && entries[k].col == entries[k - 1].col) {
                out->val[o - 1] += entries[k].val;
            } else {
                out->colidx[o] = entries[k].col;
                out->val[o] = entries[k].val;
                ++o;
            }
        }
        out->rowptr[r + 1] = o;
    }
    return 0;
}

int rt_csr_from_coo(rt_csr *out, int64_t rows, int64_t cols, int64_t nnz, const int64_t *ri,
                    const int64_t *ci, const double *v, rt_err *err)
{
    memset(out, 0, sizeof *out);
    if (check_shape("COO", "entries", rows, cols, nnz, err) != 0)
        return -1;
    if (nnz > 0 && (!ri || !ci || !v))
        return rt_err_set(err, "COO with %" PRId64 " entries is missing its %s array", nnz,
                          !ri   ? "row index"
                          : !ci ? "column index"
                                : "value");
    for (int64_t k = 0; k < nnz; ++k) {
        if (ri[k] < 0 || ri[k] >= rows)
            return rt_err_set(
                err, "COO entry %" PRId64 " has row index %" PRId64 " outside [0, %" PRId64 ")", k,
                ri[k], rows);
        if (ci[k] < 0 || ci[k] >= cols)
            return rt_err_set(
                err, "COO entry %" PRId64 " has column index %" PRId64 " outside [0, %" PRId64 ")",
                k, ci[k], cols);
    }
    int64_t *bucket_ptr = alloc_array(rows + 1, sizeof *bucket_ptr, 1, "COO row counts", err);
    if (!bucket_ptr)
        return -1;
    rt_col_val *entries = alloc_array(nnz, sizeof *entries, 0, "COO sort buffer", err);
    int64_t *fill = entries ? alloc_array(rows, sizeof *fill, 0, "COO row cursors", err) : NULL;
    if (!entries || !fill) {
        free(bucket_ptr);
        free(entries);
        return -1;
    }
    /* Counting sort by row: O(nnz + rows); columns are then sorted within each (short) row. */
    for (int64_t k = 0; k < nnz; ++k)
        bucket_ptr[ri[k] + 1]++;
    for (int64_t r = 0; r < rows; ++r)
        bucket_ptr[r + 1] += bucket_ptr[r];
    memcpy(fill, bucket_ptr, (size_t)rows * sizeof *fill);
    for (int64_t k = 0; k < nnz; ++k) {
        const int64_t at = fill[ri[k]]++;
        entries[at].col = (int32_t)ci[k];
        entries[at].val = v[k];
    }
    free(fill);
    const int rc = csr_from_buckets(out, rows, cols, bucket_ptr, entries, err);
    free(bucket_ptr);
    free(entries);
    return rc;
}

int rt_csr_copy(rt_csr *dst, const rt_csr *src, rt_err *err)
{
    if (rt_csr_alloc(dst, src->rows, src->cols, src->nnz, err) != 0)
        return -1;
    memcpy(dst->rowptr, src->rowptr, (size_t)(src->rows + 1) * sizeof *dst->rowptr);
    if (src->nnz > 0) {
        memcpy(dst->colidx, src->colidx, (size_t)src->nnz * sizeof *dst->colidx);
        memcpy(dst->val, src->val, (size_t)src->nnz * sizeof *dst->val);
    }
    return 0;
}

int rt_csr_row_block(rt_csr *dst, const rt_csr *src, int64_t r0, int64_t r1, rt_err *err)
{
    memset(dst, 0, sizeof *dst);
    if (r0 < 0 || r1 < r0 || r1 > src->rows)
        return rt_err_set(err,
                          "row block [%" PRId64 ", %" PRId64 ") is not inside [0, %" PRId64 ")", r0,
                          r1, src->rows);
    const int64_t base = src->rowptr[r0];
    const int64_t nnz = src->rowptr[r1] - base;
    if (rt_csr_alloc(dst, r1 - r0, src->cols, nnz, err) != 0)
        return -1;
    for (int64_t r = r0; r <= r1; ++r)
        dst->rowptr[r - r0] = src->rowptr[r] - base;
    if (nnz > 0) {
        memcpy(dst->colidx, src->colidx + base, (size_t)nnz * sizeof *dst->colidx);
        memcpy(dst->val, src->val + base, (size_t)nnz * sizeof *dst->val);
    }
    return 0;
}

/* Returns 0 when p[0..n) is a permutation of 0..n-1; otherwise names the first offender. */
static int check_permutation(const int64_t *p, int64_t n, const char *what, rt_err *err)
{
    unsigned char *seen = alloc_array(n, 1, 1, "permutation check", err);
    if (!seen)
        return -1;
    for (int64_t i = 0; i < n; ++i) {
        if (p[i] < 0 || p[i] >= n) {
            free(seen);
            return rt_err_set(err, "%s[%" PRId64 "] = %" PRId64 " is outside [0, %" PRId64 ")",
                              what, i, p[i], n);
        }
        if (seen[p[i]]) {
            free(seen);
            return rt_err_set(
                err, "%s is not a permutation: %" PRId64 " appears twice (again at %" PRId64 ")",
                what, p[i], i);
        }
        seen[p[i]] = 1;
    }
    free(seen);
    return 0;
}

int rt_csr_permute(rt_csr *dst, const rt_csr *src, const int64_t *perm_rows,
                   const int64_t *inv_cols, rt_err *err)
{
    memset(dst, 0, sizeof *dst);
    if (perm_rows && check_permutation(perm_rows, src->rows, "perm_rows", err) != 0)
        return -1;
    if (inv_cols && check_permutation(inv_cols, src->cols, "inv_cols", err) != 0)
        return -1;
    if (rt_csr_alloc(dst, src->rows, src->cols, src->nnz, err) != 0)
        return -1;
    /* The rows' places first, then the rows over the OpenMP threads (each its own buffers):
     * a row's entries and their order do not depend on the thread that writes them, so the
     * result is the same, bit for bit, for every thread count. */
    for (int64_t i = 0; i < src->rows; ++i) {
        const int64_t r = perm_rows ? perm_rows[i] : i;
        dst->rowptr[i + 1] = dst->rowptr[i] + (src->rowptr[r + 1] - src->rowptr[r]);
    }
    /* Each thread's buffers grow to the longest row it sorts, not the matrix's longest: with a
     * few very long rows (a power-law graph) buffers of that size on every thread could exceed
     * the matrix itself; grown on demand they hold at most the threads' longest rows together. */
    int failed = 0;
    int64_t wanted = 0;
#pragma omp parallel reduction(| : failed) reduction(max : wanted)
    {
        rt_col_val *row = NULL, *scratch = NULL;
        int64_t cap = 0;
#pragma omp for schedule(dynamic, 1024)
        for (int64_t i = 0; i < src->rows; ++i) {
            const int64_t r = perm_rows ? perm_rows[i] : i;
            const int64_t b = src->rowptr[r], n = src->rowptr[r + 1] - b, o = dst->rowptr[i];
            if (failed)
                continue;
            if (!inv_cols) {
                if (n > 0) {
                    memcpy(dst->colidx + o, src->colidx + b, (size_t)n * sizeof *dst->colidx);
                    memcpy(dst->val + o, src->val + b, (size_t)n * sizeof *dst->val);
                }
                continue;
            }
            if (n > cap) {
                free(row);
                free(scratch);
                row = malloc((size_t)n * sizeof *row);
                scratch = row ? malloc((size_t)n * sizeof *scratch) : NULL;
                cap = scratch ? n : 0;
                if (!scratch) {
                    failed = 1;
                    wanted = n;
                    continue;
                }
            }
            /* Relabelled columns lose their order, so each row is re-sorted. */
            for (int64_t k = 0; k < n; ++k) {
                row[k].col = (int32_t)inv_cols[src->colidx[b + k]];
                row[k].val = src->val[b + k];
            }
            rt_row_sort(row, n, scratch);
            for (int64_t k = 0; k < n; ++k) {
                dst->colidx[o + k] = row[k].col;
                dst->val[o + k] = row[k].val;
            }
        }
        free(row);
        free(scratch);
    }
    if (failed) {
        rt_csr_free(dst);
        return rt_err_set(err,
                          "out of memory: cannot allocate the buffers to sort a permuted row of "
                          "%" PRId64 " entries",
                          wanted);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Warp-sliced ELL */

void rt_ell_free(rt_ell *e)
{
    if (!e)
        return;
    free(e->slice_ptr);
    free(e->slice_width);
    free(e->colidx);
    free(e->val);
    memset(e, 0, sizeof *e);
}

int rt_ell_from_csr(rt_ell *out, const rt_csr *a, int32_t slice_height, rt_err *err)
{
    memset(out, 0, sizeof *out);
    if (slice_height < 1 || slice_height > 65536)
        return rt_err_set(err, "ELL slice_height = %" PRId32 " must be in 1..65536 (32 = one warp)",
                          slice_height);
    const int64_t h = slice_height;
    const int64_t nslices = (a->rows + h - 1) / h;
    out->slice_ptr = alloc_array(nslices + 1, sizeof *out->slice_ptr, 1, "ELL slice offsets", err);
    out->slice_width =
        out->slice_ptr ? alloc_array(nslices, sizeof *out->slice_width, 1, "ELL slice widths", err)
                       : NULL;
    if (!out->slice_width) {
        rt_ell_free(out);
        return -1;
    }
    int64_t stored = 0;
    for (int64_t s = 0; s < nslices; ++s) {
        const int64_t r_end = (s + 1) * h < a->rows ? (s + 1) * h : a->rows;
        int64_t width = 0;
        for (int64_t r = s * h; r < r_end; ++r) {
            const int64_t n = a->rowptr[r + 1] - a->rowptr[r];
            width = n > width ? n : width;
        }
        if (width > INT32_MAX || width * h > INT64_MAX - stored) {
            rt_ell_free(out);
            return rt_err_set(err, "ELL slice %" PRId64 " is too large (width %" PRId64 ")", s,
                              width);
        }
        out->slice_width[s] = (int32_t)width;
        out->slice_ptr[s] = stored;
        stored += width * h;
    }
    out->slice_ptr[nslices] = stored;
    out->colidx = alloc_array(stored, sizeof *out->colidx, 0, "ELL column indices", err);
    out->val = out->colidx ? alloc_array(stored, sizeof *out->val, 0, "ELL values", err) : NULL;
    if (!out->val) {
        rt_ell_free(out);
        return -1;
    }
    for (int64_t k = 0; k < stored; ++k) {
        out->colidx[k] = -1;
        out->val[k] = 0.0;
    }
    for (int64_t r = 0; r < a->rows; ++r) {
        const int64_t s = r / h, lane = r % h;
        const int64_t b = a->rowptr[r], n = a->rowptr[r + 1] - b;
        for (int64_t j = 0; j < n; ++j) {
            const int64_t at = out->slice_ptr[s] + j * h + lane;
            out->colidx[at] = a->colidx[b + j];
            out->val[at] = a->val[b + j];
        }
    }
    out->rows = a->rows;
    out->cols = a->cols;
    out->nnz = a->nnz;
    out->stored = stored;
    out->slice_height = slice_height;
    out->nslices = nslices;
    return 0;
}

int rt_ell_to_csr(rt_csr *out, const rt_ell *e, rt_err *err)
{
    memset(out, 0, sizeof *out);
    const int64_t h = e->slice_height;
    if (h < 1)
        return rt_err_set(err, "ELL slice_height = %" PRId64 " must be positive", h);
    if (e->rows < 0 || e->nslices != (e->rows + h - 1) / h)
        return rt_err_set(
            err, "ELL has %" PRId64 " slices for %" PRId64 " rows of slice height %" PRId64,
            e->nslices, e->rows, h);
    /* Padding is recognised by colidx -1 (not by value 0), so explicit zeros survive the trip. */
    int64_t nnz = 0;
    for (int64_t s = 0; s < e->nslices; ++s) {
        if (e->slice_ptr[s + 1] - e->slice_ptr[s] != (int64_t)e->slice_width[s] * h ||
            e->slice_ptr[s + 1] > e->stored)
            return rt_err_set(err, "ELL slice %" PRId64 " offsets disagree with its width %" PRId32,
                              s, e->slice_width[s]);
        for (int64_t lane = 0; lane < h; ++lane) {
            const int64_t r = s * h + lane;
            int ended = 0;
            for (int64_t j = 0; j < e->slice_width[s]; ++j) {
                const int32_t c = e->colidx[e->slice_ptr[s] + j * h + lane];
                if (c == -1) {
                    ended = 1;
                    continue;
                }
                if (ended || r >= e->rows)
                    return rt_err_set(err, "ELL row %" PRId64 " has an entry after its padding", r);
                if (c < 0 || c >= e->cols)
                    return rt_err_set(err,
                                      "ELL row %" PRId64 " has column index %" PRId32
                                      " outside [0, %" PRId64 ")",
                                      r, c, e->cols);
                ++nnz;
            }
        }
    }
    if (rt_csr_alloc(out, e->rows, e->cols, nnz, err) != 0)
        return -1;
    int64_t o = 0;
    for (int64_t r = 0; r < e->rows; ++r) {
        const int64_t s = r / h, lane = r % h;
        for (int64_t j = 0; j < e->slice_width[s]; ++j) {
            const int64_t at = e->slice_ptr[s] + j * h + lane;
            if (e->colidx[at] == -1)
                break;
            out->colidx[o] = e->colidx[at];
            out->val[o] = e->val[at];
            ++o;
        }
        out->rowptr[r + 1] = o;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Dense */

int rt_dense_alloc(rt_dense *d, int64_t rows, int64_t cols, rt_layout layout, rt_precision prec,
                   rt_err *err)
{
    memset(d, 0, sizeof *d);
    if (rows < 0 || cols < 0)
        return rt_err_set(
            err, "invalid dense shape %" PRId64 " x %" PRId64 ": sizes must not be negative", rows,
            cols);
    if (layout != RT_ROW_MAJOR && layout != RT_COL_MAJOR)
        return rt_err_set(err, "invalid dense layout %d (expected row or col)", (int)layout);
    if (prec != RT_FP32 && prec != RT_FP64)
        return rt_err_set(err, "invalid dense precision %d (expected fp32 or fp64)", (int)prec);
    if (cols > 0 && rows > INT64_MAX / cols)
        return rt_err_set(err, "dense %" PRId64 " x %" PRId64 " has too many elements", rows, cols);
    d->data = alloc_array(rows * cols, rt_precision_bytes(prec), 1, "dense matrix", err);
    if (!d->data)
        return -1;
    d->rows = rows;
    d->cols = cols;
    d->ld = layout == RT_ROW_MAJOR ? cols : rows;
    d->layout = layout;
    d->prec = prec;
    return 0;
}

void rt_dense_free(rt_dense *d)
{
    if (!d)
        return;
    free(d->data);
    memset(d, 0, sizeof *d);
}

static uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int64_t dense_offset(const rt_dense *d, int64_t i, int64_t j)
{
    return d->layout == RT_ROW_MAJOR ? i * d->ld + j : j * d->ld + i;
}

void rt_dense_fill_random(rt_dense *d, uint64_t seed)
{
    if (!d || !d->data || d->rows <= 0 || d->cols <= 0)
        return;
    uint64_t state = seed;
    int any_nonzero = 0;
    /* Values depend on (i, j) order in row-major sense regardless of layout, so the same seed
     * gives the same matrix whichever layout a kernel asks for. */
    for (int64_t i = 0; i < d->rows; ++i) {
        for (int64_t j = 0; j < d->cols; ++j) {
            const uint64_t x = splitmix64_next(&state);
            const int64_t at = dense_offset(d, i, j);
            if (d->prec == RT_FP32) {
                /* 24 random bits are exact in float, so rounding can never reach 1.0f. */
                const float f = (float)(x >> 40) * 0x1.0p-23f - 1.0f;
                ((float *)d->data)[at] = f;
                any_nonzero |= f != 0.0f;
            } else {
                const double v = (double)(x >> 11) * 0x1.0p-52 - 1.0;
                ((double *)d->data)[at] = v;
                any_nonzero |= v != 0.0;
            }
        }
    }
    if (!any_nonzero)
        rt_dense_set(d, 0, 0, 0.5);
}

double rt_dense_get(const rt_dense *d, int64_t i, int64_t j)
{
    const int64_t at = dense_offset(d, i, j);
    return d->prec == RT_FP32 ? (double)((const float *)d->data)[at]
                              : ((const double *)d->data)[at];
}

void rt_dense_set(rt_dense *d, int64_t i, int64_t j, double v)
{
    const int64_t at = dense_offset(d, i, j);
    if (d->prec == RT_FP32)
        ((float *)d->data)[at] = (float)v;
    else
        ((double *)d->data)[at] = v;
}
