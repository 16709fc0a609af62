#include "sp2_dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static int64_t align8(int64_t x)
{
    return (x + 7) & ~(int64_t)7;
}

int64_t sp2_sparse_block_bytes(int64_t rows, int64_t nnz, rt_precision prec)
{
    const int64_t idx = 8 * (rows + 1) + align8(4 * nnz);
    return idx + align8(nnz * (int64_t)rt_precision_bytes(prec));
}

int64_t sp2_dense_block_bytes(int64_t rows, int64_t cols, rt_precision prec)
{
    return align8(rows * cols * (int64_t)rt_precision_bytes(prec));
}

int sp2_agree(rt_comm *comm, int local_ok, rt_err *err)
{
    int all_ok = 0, first = -1;
    char msg[RT_ERR_MSG_MAX];
    if (rt_comm_all_ok_msg(comm, local_ok, local_ok ? NULL : err->msg, &all_ok, &first, msg,
                           sizeof msg) != 0)
        return rt_err_set(err, "agreeing on success failed: %s", rt_comm_last_error(comm));
    if (all_ok)
        return 0;
    /* The failing rank's own message may already start with its rank: keep it readable. */
    char prefix[32];
    snprintf(prefix, sizeof prefix, "rank %d: ", first);
    if (strncmp(msg, prefix, strlen(prefix)) == 0)
        return rt_err_set(err, "%s", msg);
    return rt_err_set(err, "rank %d: %s", first, msg);
}

/* First entry of row r (of a) whose column is >= col. */
static int64_t lower_col(const rt_csr *a, int64_t r, int64_t col)
{
    int64_t lo = a->rowptr[r], hi = a->rowptr[r + 1];
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (a->colidx[mid] < col)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int sp2_tile_nnz(const rt_csr *a, int tr, const int64_t *row_bounds, int tc,
                 const int64_t *col_bounds, int64_t *counts, rt_err *err)
{
    if (!a || !counts)
        return rt_err_set(err, "tile counts: no matrix or output");
    memset(counts, 0, (size_t)tr * (size_t)tc * sizeof *counts);
    for (int ti = 0; ti < tr; ++ti)
        for (int64_t r = row_bounds[ti]; r < row_bounds[ti + 1]; ++r) {
            /* Columns are sorted: walk the row once, advancing the tile column. */
            int tj = 0;
            for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {
                while (tj + 1 < tc && a->colidx[e] >= col_bounds[tj + 1])
                    ++tj;
                counts[(int64_t)ti * tc + tj]++;
            }
        }
    return 0;
}

/* The parts of the module both builders share: bounds, ownership, directory slots. */
static int dmat_begin(sp2_dmat *d, const sp2_layout *L, sp2_kind kind, sp2_owner_kind own,
                      int64_t rows, int64_t cols, int tr, int tc, rt_precision prec,
                      const char *name, rt_err *err)
{
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->prec = prec;
    d->own = own;
    d->tr = tr;
    d->tc = tc;
    d->rows = rows;
    d->cols = cols;
    snprintf(d->name, sizeof d->name, "%s", name);
    d->row_bounds = malloc((size_t)(tr + 1) * sizeof *d->row_bounds);
    d->col_bounds = malloc((size_t)(tc + 1) * sizeof *d->col_bounds);
    d->dir = calloc((size_t)tr * (size_t)tc, sizeof *d->dir);
    if (!d->row_bounds || !d->col_bounds || !d->dir)
        return rt_err_set(err, "%s: out of memory for a %d x %d tile directory", name, tr, tc);
    for (int t = 0; t <= tr; ++t)
        d->row_bounds[t] = sp2_split(rows, tr, t);
    for (int t = 0; t <= tc; ++t)
        d->col_bounds[t] = sp2_split(cols, tc, t);
    for (int ti = 0; ti < tr; ++ti)
        for (int tj = 0; tj < tc; ++tj) {
            sp2_tile_info *e = &d->dir[(int64_t)ti * tc + tj];
            e->owner = sp2_owner(L, own, ti, tj);
            e->rows = d->row_bounds[ti + 1] - d->row_bounds[ti];
            e->cols = d->col_bounds[tj + 1] - d->col_bounds[tj];
        }
    return 0;
}

static void dmat_release_local(sp2_dmat *d)
{
    free(d->row_bounds);
    free(d->col_bounds);
    free(d->dir);
    d->row_bounds = d->col_bounds = NULL;
    d->dir = NULL;
}

void sp2_dmat_free(sp2_dmat *d)
{
    if (!d)
        return;
    rt_rma_win_free(d->win);
    d->win = NULL;
    d->local = NULL;
    dmat_release_local(d);
}

/* Exchanges (tile, offset, nnz, bytes) of every owned tile so every rank has the directory. */
static int exchange_directory(sp2_dmat *d, rt_comm *comm, const int64_t *mine, int n_mine,
                              rt_err *err)
{
    const int P = rt_comm_world_size(comm);
    MPI_Comm world = rt_comm_mpi(comm, RT_COMM_WORLD);
    int *counts = malloc((size_t)P * sizeof *counts), *displs = malloc((size_t)P * sizeof *displs);
    int ok = counts && displs;
    if (sp2_agree(comm, ok, err) != 0) {
        free(counts);
        free(displs);
        return rt_err_prefix(err, "%s directory", d->name);
    }
    int n4 = 4 * n_mine;
    int rc = MPI_Allgather(&n4, 1, MPI_INT, counts, 1, MPI_INT, world);
    int64_t total = 0;
    for (int r = 0; rc == MPI_SUCCESS && r < P; ++r) {
        displs[r] = (int)total;
        total += counts[r];
    }
    int64_t *all = NULL;
    ok = rc == MPI_SUCCESS && total < (int64_t)1 << 30;
    if (ok) {
        all = malloc((size_t)(total > 0 ? total : 1) * sizeof *all);
        ok = all != NULL;
    }
    if (!ok)
        rt_err_set(err, "%s: cannot gather a directory of %lld entries", d->name, (long long)total);
    if (sp2_agree(comm, ok, err) != 0) {
        free(counts);
        free(displs);
        free(all);
        return -1;
    }
    rc = MPI_Allgatherv(mine, n4, MPI_INT64_T, all, counts, displs, MPI_INT64_T, world);
    ok = rc == MPI_SUCCESS;
    if (!ok)
        rt_err_set(err, "%s: MPI_Allgatherv of the directory failed", d->name);
    const int64_t ntiles = (int64_t)d->tr * d->tc;
    for (int64_t q = 0; ok && q + 3 < total; q += 4) {
        const int64_t t = all[q];
        if (t < 0 || t >= ntiles) {
            ok = rt_err_set(err, "%s: directory entry for tile %lld is out of range", d->name,
                            (long long)t) == 0;
            break;
        }
        d->dir[t].offset = all[q + 1];
        d->dir[t].nnz = all[q + 2];
        d->dir[t].bytes = all[q + 3];
    }
    free(counts);
    free(displs);
    free(all);
    if (sp2_agree(comm, ok, err) != 0)
        return -1;
    for (int64_t t = 0; t < ntiles; ++t)
        if (d->dir[t].bytes > d->max_bytes)
            d->max_bytes = d->dir[t].bytes;
    return 0;
}

/* Common tail of both builders: window, copy of the packed blocks, directory. */
static int dmat_publish(sp2_dmat *d, rt_comm *comm, unsigned char *packed, int64_t local_bytes,
                        const int64_t *mine, int n_mine, rt_err *err)
{
    char wname[64];
    snprintf(wname, sizeof wname, "%s tiles", d->name);
    if (rt_rma_win_create(comm, RT_COMM_WORLD, (size_t)local_bytes, wname, &d->win, err) != 0) {
        dmat_release_local(d);
        return -1;
    }
    d->local = rt_rma_local(d->win);
    if (local_bytes > 0)
        memcpy(d->local, packed, (size_t)local_bytes);
    /* The blocks must be public before anyone's first get: sync, then the directory exchange's
     * collectives order every later get after it. */
    const int ok = rt_rma_sync(d->win, err) == 0;
    if (sp2_agree(comm, ok, err) != 0) {
        sp2_dmat_free(d);
        return -1;
    }
    if (exchange_directory(d, comm, mine, n_mine, err) != 0) {
        sp2_dmat_free(d);
        return -1;
    }
    return 0;
}

static void pack_sparse_tile(const rt_csr *a, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                             rt_precision prec, int64_t nnz, unsigned char *block)
{
    const int64_t rows = r1 - r0;
    int64_t *rowptr = (int64_t *)block;
    int32_t *colidx = (int32_t *)(block + 8 * (rows + 1));
    unsigned char *val = block + 8 * (rows + 1) + align8(4 * nnz);
    int64_t o = 0;
    rowptr[0] = 0;
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t e0 = lower_col(a, r, c0), e1 = lower_col(a, r, c1);
        for (int64_t e = e0; e < e1; ++e, ++o) {
            colidx[o] = (int32_t)(a->colidx[e] - c0);
            if (prec == RT_FP32)
                ((float *)val)[o] = (float)a->val[e];
            else
                ((double *)val)[o] = a->val[e];
        }
        rowptr[r - r0 + 1] = o;
    }
}

/* This rank's tiles of d, listed 4 numbers each in mine (tr * tc * 4 of room): the tile, its offset
 * in the packed buffer, its entries (counts[t], or every element of a dense tile when counts is
 * NULL) and its bytes; the packed buffer is allocated for all of them. */
static int list_mine(sp2_dmat *d, int me, const int64_t *counts, int64_t *mine, int *n_mine,
                     int64_t *local_bytes, unsigned char **packed, rt_err *err)
{
    for (int64_t t = 0; t < (int64_t)d->tr * d->tc; ++t) {
        if (d->dir[t].owner != me)
            continue;
        const int64_t rows = d->dir[t].rows;
        const int64_t entries = counts ? counts[t] : rows * d->dir[t].cols;
        const int64_t bytes = counts ? sp2_sparse_block_bytes(rows, entries, d->prec)
                                     : sp2_dense_block_bytes(rows, d->dir[t].cols, d->prec);
        int64_t *m = mine + 4 * *n_mine;
        m[0] = t;
        m[1] = *local_bytes;
        m[2] = entries;
        m[3] = bytes;
        d->local_nnz += entries;
        *local_bytes += bytes;
        ++*n_mine;
    }
    *packed = malloc((size_t)(*local_bytes > 0 ? *local_bytes : 1));
    if (!*packed)
        return rt_err_set(err, "%s: out of memory packing %lld bytes of tiles", d->name,
                          (long long)*local_bytes);
    return 0;
}

/* The end of a build: every rank agrees its tiles are packed (ok), then publishes them. */
static int build_end(sp2_dmat *d, rt_comm *comm, int ok, unsigned char *packed, int64_t local_bytes,
                     int64_t *mine, int n_mine, const char *name, rt_err *err)
{
    int rc = sp2_agree(comm, ok, err);
    if (rc != 0)
        dmat_release_local(d);
    else
        rc = dmat_publish(d, comm, packed, local_bytes, mine, n_mine, err);
    free(mine);
    free(packed);
    return rc == 0 ? 0 : rt_err_prefix(err, "building %s", name);
}

int sp2_dmat_sparse(sp2_dmat *d, rt_comm *comm, const sp2_layout *L, sp2_owner_kind own,
                    const rt_csr *a, int tr, int tc, rt_precision prec, const char *name,
                    rt_err *err)
{
    const int me = rt_comm_world_rank(comm);
    int ok = dmat_begin(d, L, SP2_SPARSE, own, a->rows, a->cols, tr, tc, prec, name, err) == 0;
    int64_t *counts = NULL, *mine = NULL;
    unsigned char *packed = NULL;
    int64_t local_bytes = 0;
    int n_mine = 0;
    if (ok) {
        counts = malloc((size_t)tr * (size_t)tc * sizeof *counts);
        mine = malloc((size_t)tr * (size_t)tc * 4 * sizeof *mine);
        ok = counts && mine;
        if (!ok)
            rt_err_set(err, "%s: out of memory for tile counts", name);
    }
    if (ok)
        ok = sp2_tile_nnz(a, tr, d->row_bounds, tc, d->col_bounds, counts, err) == 0;
    if (ok)
        ok = list_mine(d, me, counts, mine, &n_mine, &local_bytes, &packed, err) == 0;
    for (int q = 0; ok && q < n_mine; ++q) {
        const int64_t t = mine[4 * q];
        const int ti = (int)(t / tc), tj = (int)(t % tc);
        pack_sparse_tile(a, d->row_bounds[ti], d->row_bounds[ti + 1], d->col_bounds[tj],
                         d->col_bounds[tj + 1], prec, mine[4 * q + 2], packed + mine[4 * q + 1]);
    }
    free(counts);
    return build_end(d, comm, ok, packed, local_bytes, mine, n_mine, name, err);
}

int sp2_dmat_dense(sp2_dmat *d, rt_comm *comm, const sp2_layout *L, sp2_owner_kind own,
                   int64_t rows, int64_t cols, int tr, int tc, rt_precision prec, sp2_value_fn fn,
                   const void *ctx, const char *name, rt_err *err)
{
    const int me = rt_comm_world_rank(comm);
    int ok = dmat_begin(d, L, SP2_DENSE, own, rows, cols, tr, tc, prec, name, err) == 0;
    int64_t *mine = NULL;
    unsigned char *packed = NULL;
    int64_t local_bytes = 0;
    int n_mine = 0;
    if (ok) {
        mine = malloc((size_t)tr * (size_t)tc * 4 * sizeof *mine);
        ok = mine != NULL;
        if (!ok)
            rt_err_set(err, "%s: out of memory for the tile list", name);
    }
    if (ok)
        ok = list_mine(d, me, NULL, mine, &n_mine, &local_bytes, &packed, err) == 0;
    for (int q = 0; ok && q < n_mine; ++q) {
        const int64_t t = mine[4 * q];
        const int ti = (int)(t / tc), tj = (int)(t % tc);
        const int64_t r0 = d->row_bounds[ti], c0 = d->col_bounds[tj];
        const int64_t nr = d->dir[t].rows, nc = d->dir[t].cols;
        unsigned char *block = packed + mine[4 * q + 1];
        for (int64_t r = 0; r < nr; ++r)
            for (int64_t c = 0; c < nc; ++c) {
                const double v = fn(ctx, r0 + r, c0 + c);
                if (prec == RT_FP32)
                    ((float *)block)[r * nc + c] = (float)v;
                else
                    ((double *)block)[r * nc + c] = v;
            }
    }
    return build_end(d, comm, ok, packed, local_bytes, mine, n_mine, name, err);
}

const sp2_tile_info *sp2_dmat_info(const sp2_dmat *d, int ti, int tj)
{
    return &d->dir[(int64_t)ti * d->tc + tj];
}

const void *sp2_dmat_local_block(const sp2_dmat *d, int ti, int tj)
{
    const sp2_tile_info *e = sp2_dmat_info(d, ti, tj);
    if (e->owner != rt_rma_rank(d->win))
        return NULL;
    return d->local + e->offset;
}

void sp2_dmat_view(const sp2_dmat *d, int ti, int tj, const void *block, sp2_tile *out)
{
    const sp2_tile_info *e = sp2_dmat_info(d, ti, tj);
    const unsigned char *b = block;
    out->kind = d->kind;
    out->prec = d->prec;
    out->rows = e->rows;
    out->cols = e->cols;
    out->nnz = e->nnz;
    if (d->kind == SP2_SPARSE) {
        out->rowptr = (const int64_t *)b;
        out->colidx = (const int32_t *)(b + 8 * (e->rows + 1));
        out->val = b + 8 * (e->rows + 1) + align8(4 * e->nnz);
    } else {
        out->rowptr = NULL;
        out->colidx = NULL;
        out->val = b;
    }
}

int sp2_dmat_fetch(sp2_dmat *d, int ti, int tj, void *staging, sp2_fetch *f, rt_err *err)
{
    const sp2_tile_info *e = sp2_dmat_info(d, ti, tj);
    unsigned char *s = staging;
    f->n = 0;
    if (d->kind == SP2_DENSE) {
        if (rt_rma_rget(d->win, s, (size_t)e->bytes, e->owner, (size_t)e->offset, &f->req[0],
                        err) != 0)
            return -1;
        f->n = 1;
        return 0;
    }
    /* Three arrays, three gets: row pointers, column indices, values. */
    const int64_t rp = 8 * (e->rows + 1), ci = align8(4 * e->nnz);
    const int64_t vb = (int64_t)rt_precision_bytes(d->prec) * e->nnz;
    const int64_t off[3] = {0, rp, rp + ci}, len[3] = {rp, 4 * e->nnz, vb};
    for (int q = 0; q < 3; ++q) {
        if (len[q] == 0)
            continue;
        if (rt_rma_rget(d->win, s + off[q], (size_t)len[q], e->owner, (size_t)(e->offset + off[q]),
                        &f->req[f->n], err) != 0) {
            rt_err ignored;
            sp2_fetch_wait(f, &ignored);
            return -1;
        }
        f->n++;
    }
    return 0;
}

int sp2_fetch_wait(sp2_fetch *f, rt_err *err)
{
    int rc = 0;
    for (int q = 0; q < f->n; ++q)
        if (rt_rma_wait(&f->req[q], err) != 0)
            rc = -1;
    f->n = 0;
    return rc;
}
