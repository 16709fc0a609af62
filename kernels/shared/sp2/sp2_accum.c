#include "sp2_accum.h"

#include <string.h>

static int64_t align8(int64_t x)
{
    return (x + 7) & ~(int64_t)7;
}

int64_t sp2_sparse_msg_bytes(int64_t nrows, int64_t nnz, size_t eb)
{
    return SP2_HDR_SPARSE + 8 * (nrows + 1) + align8(4 * nnz) + align8((int64_t)eb * nnz);
}

/* The owner's side of a queue message: accumulate it into the C tile. Messages are checked
 * against the tile they name, so a corrupted slot is reported instead of writing out of bounds. */
int sp2_on_message(void *ctx, const void *msg, size_t bytes, rt_err *err)
{
    sp2_state *s = ctx;
    const unsigned char *m = msg;
    const size_t hdr = s->spgemm ? SP2_HDR_SPARSE : SP2_HDR_DENSE;
    if (bytes < hdr)
        return rt_err_set(err, "queue message of %zu bytes is shorter than its header", bytes);
    int64_t h[4] = {0, 0, 0, 0};
    memcpy(h, m, hdr);
    const int64_t ci = h[0], row0 = h[1], nrows = h[2];
    if (ci < 0 || ci >= (int64_t)s->L.MT * s->L.NT || s->c_slot[ci] < 0)
        return rt_err_set(err, "queue message for C tile %lld, which rank %d does not own",
                          (long long)ci, s->L.me);
    const int slot = s->c_slot[ci];
    const int i = (int)(ci / s->L.NT), j = (int)(ci % s->L.NT);
    const int64_t rows = sp2_c_rows(s, i), cols = sp2_c_cols(s, j);
    if (row0 < 0 || nrows < 0 || row0 + nrows > rows)
        return rt_err_set(err, "queue message for rows %lld..%lld of a %lld-row C tile",
                          (long long)row0, (long long)(row0 + nrows), (long long)rows);
    if (!s->spgemm) {
        if (bytes != hdr + (size_t)(nrows * cols) * s->eb)
            return rt_err_set(err, "queue message of %zu bytes for %lld x %lld values", bytes,
                              (long long)nrows, (long long)cols);
        const int64_t n = nrows * cols;
        if (s->prec == RT_FP32) {
            float *c = (float *)sp2_c_tile_ptr(s, slot) + row0 * cols;
            const float *p = (const float *)(m + hdr);
            for (int64_t q = 0; q < n; ++q)
                c[q] += p[q];
        } else {
            double *c = (double *)sp2_c_tile_ptr(s, slot) + row0 * cols;
            const double *p = (const double *)(m + hdr);
            for (int64_t q = 0; q < n; ++q)
                c[q] += p[q];
        }
        return 0;
    }
    const int64_t nnz = h[3];
    if (nnz < 0 || bytes != (size_t)sp2_sparse_msg_bytes(nrows, nnz, s->eb))
        return rt_err_set(err,
                          "queue message of %zu bytes does not hold %lld rows and %lld "
                          "nonzeros",
                          bytes, (long long)nrows, (long long)nnz);
    const int64_t *rowptr = (const int64_t *)(m + hdr);
    const int32_t *colidx = (const int32_t *)(m + hdr + 8 * (nrows + 1));
    const void *val = m + hdr + 8 * (nrows + 1) + align8(4 * nnz);
    if (rowptr[0] != 0 || rowptr[nrows] != nnz)
        return rt_err_set(err, "queue message with inconsistent row pointers");
    return sp2_spacc_add_csr(&s->c_acc[slot], row0, nrows, rowptr, colidx, val, err);
}

/* Sends a dense partial C tile (rows x cols, row-major) to its owner in row chunks that fit the
 * queue's slots. */
int sp2_push_dense(sp2_state *s, int owner, int ci, const void *part, int64_t rows, int64_t cols,
                   rt_err *err)
{
    const int64_t row_bytes = cols * (int64_t)s->eb;
    const int64_t per = ((int64_t)sp2_queue_capacity(s->queue) - SP2_HDR_DENSE) / row_bytes;
    if (per < 1)
        return rt_err_set(err, "a row of %lld values does not fit a queue slot", (long long)cols);
    for (int64_t r0 = 0; r0 < rows; r0 += per) {
        const int64_t nr = rows - r0 < per ? rows - r0 : per;
        unsigned char *buf = sp2_queue_buffer(s->queue);
        const int64_t h[3] = {ci, r0, nr};
        memcpy(buf, h, SP2_HDR_DENSE);
        memcpy(buf + SP2_HDR_DENSE, (const unsigned char *)part + r0 * row_bytes,
               (size_t)(nr * row_bytes));
        if (sp2_queue_push(s->queue, owner, (size_t)(SP2_HDR_DENSE + nr * row_bytes), err) != 0)
            return -1;
    }
    return 0;
}

/* Sends a sparse partial C tile (CSR) to its owner in chunks of whole rows. */
int sp2_push_sparse(sp2_state *s, int owner, int ci, const sp2_csrbuf *p, rt_err *err)
{
    if (p->nnz == 0)
        return 0; /* nothing to add: no message */
    const int64_t cap = (int64_t)sp2_queue_capacity(s->queue);
    int64_t r0 = 0;
    while (r0 < p->rows) {
        int64_t nr = 0, nnz = 0;
        while (r0 + nr < p->rows) {
            const int64_t len = p->rowptr[r0 + nr + 1] - p->rowptr[r0 + nr];
            if (sp2_sparse_msg_bytes(nr + 1, nnz + len, s->eb) > cap)
                break;
            nnz += len;
            ++nr;
        }
        if (nr == 0)
            return rt_err_set(err, "a row of a partial C tile does not fit a queue slot");
        unsigned char *buf = sp2_queue_buffer(s->queue);
        const int64_t h[4] = {ci, r0, nr, nnz};
        memcpy(buf, h, SP2_HDR_SPARSE);
        int64_t *rp = (int64_t *)(buf + SP2_HDR_SPARSE);
        const int64_t base = p->rowptr[r0];
        for (int64_t q = 0; q <= nr; ++q)
            rp[q] = p->rowptr[r0 + q] - base;
        memcpy(buf + SP2_HDR_SPARSE + 8 * (nr + 1), p->colidx + base, (size_t)(4 * nnz));
        memcpy(buf + SP2_HDR_SPARSE + 8 * (nr + 1) + align8(4 * nnz),
               (const unsigned char *)p->val + (size_t)base * s->eb, (size_t)nnz * s->eb);
        if (sp2_queue_push(s->queue, owner, (size_t)sp2_sparse_msg_bytes(nr, nnz, s->eb), err) != 0)
            return -1;
        r0 += nr;
    }
    return 0;
}
