#include "eigen_tiles.h"

#include <stdlib.h>
#include <string.h>

#include "eigen_packed.h"

int64_t eg_tile_rows(const eg_tiling *t, int64_t i)
{
    const int64_t r0 = i * t->tile;
    return (r0 + t->tile > t->n ? t->n : r0 + t->tile) - r0;
}

void eg_tiling_free(eg_tiling *t)
{
    for (int64_t b = 0; b < t->n_blocks; ++b)
        free(t->blocks[b].host);
    free(t->blocks);
    free(t->blk_ptr);
    memset(t, 0, sizeof *t);
}

int eg_tiling_build(eg_tiling *t, const rt_csr *a, int64_t tile, eg_mem *m, rt_err *err)
{
    memset(t, 0, sizeof *t);
    if (a->rows != a->cols)
        return rt_err_set(err, "eigen: the matrix must be square (%lld x %lld)", (long long)a->rows,
                          (long long)a->cols);
    if (tile < 1)
        return rt_err_set(err, "eigen: tile = %lld must be positive", (long long)tile);
    t->n = a->rows;
    t->tile = tile > a->rows ? a->rows : tile;
    t->ntiles = (t->n + t->tile - 1) / t->tile;
    t->blk_ptr = calloc((size_t)t->ntiles + 1, sizeof *t->blk_ptr);
    int64_t *cnt = calloc((size_t)t->ntiles, sizeof *cnt); /* nnz per column tile, reused */
    if (!t->blk_ptr || !cnt) {
        free(cnt);
        eg_tiling_free(t);
        return rt_err_set(err, "eigen: out of memory tiling %lld rows", (long long)t->n);
    }
    /* First pass: how many nonzero blocks. */
    int64_t nb = 0;
    for (int64_t i = 0; i < t->ntiles; ++i) {
        const int64_t r0 = i * t->tile, r1 = r0 + eg_tile_rows(t, i);
        for (int64_t e = a->rowptr[r0]; e < a->rowptr[r1]; ++e)
            if (cnt[a->colidx[e] / t->tile]++ == 0)
                ++nb;
        for (int64_t e = a->rowptr[r0]; e < a->rowptr[r1]; ++e)
            cnt[a->colidx[e] / t->tile] = 0;
    }
    t->blocks = calloc((size_t)(nb ? nb : 1), sizeof *t->blocks);
    if (!t->blocks) {
        free(cnt);
        eg_tiling_free(t);
        return rt_err_set(err, "eigen: out of memory for %lld blocks", (long long)nb);
    }
    for (int64_t i = 0; i < t->ntiles; ++i) {
        const int64_t r0 = i * t->tile, rows = eg_tile_rows(t, i), r1 = r0 + rows;
        for (int64_t e = a->rowptr[r0]; e < a->rowptr[r1]; ++e)
            cnt[a->colidx[e] / t->tile]++;
        t->blk_ptr[i] = t->n_blocks;
        for (int64_t j = 0; j < t->ntiles; ++j) {
            if (cnt[j] == 0)
                continue;
            eg_ablock *b = &t->blocks[t->n_blocks++];
            b->j = j;
            b->rows = rows;
            b->cols = eg_tile_rows(t, j);
            b->nnz = cnt[j];
            const size_t bytes = eg_packed_bytes(rows, b->nnz);
            b->host = calloc(1, bytes);
            if (!b->host) {
                free(cnt);
                eg_tiling_free(t);
                return rt_err_set(err, "eigen: out of memory for a block of %zu bytes", bytes);
            }
            const eg_packed_view v = eg_packed_at(b->host, rows, b->nnz);
            int32_t o = 0;
            for (int64_t r = r0; r < r1; ++r) {
                v.rowptr[r - r0] = o;
                for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
                    if (a->colidx[e] / t->tile == j) {
                        v.colidx[o] = (int32_t)(a->colidx[e] - j * t->tile);
                        v.val[o] = a->val[e];
                        ++o;
                    }
            }
            v.rowptr[rows] = o;
            b->obj = eg_mem_add(m, b->host, bytes, "A block", i * t->ntiles + j, err);
            if (b->obj < 0) {
                free(cnt);
                eg_tiling_free(t);
                return -1;
            }
            t->a_bytes += (double)bytes;
            cnt[j] = 0;
        }
    }
    t->blk_ptr[t->ntiles] = t->n_blocks;
    free(cnt);
    return 0;
}

int eg_bvec_init(eg_bvec *v, const eg_tiling *t, int64_t width, const char *what, eg_mem *m,
                 rt_err *err)
{
    memset(v, 0, sizeof *v);
    v->n = t->n;
    v->width = width;
    v->ntiles = t->ntiles;
    v->what = what;
    v->host = calloc((size_t)(t->n * width > 0 ? t->n * width : 1), sizeof *v->host);
    v->obj = malloc((size_t)t->ntiles * sizeof *v->obj);
    if (!v->host || !v->obj) {
        eg_bvec_free(v);
        return rt_err_set(err, "eigen: out of memory for the %lld x %lld block vector %s",
                          (long long)t->n, (long long)width, what);
    }
    for (int64_t i = 0; i < t->ntiles; ++i) {
        v->obj[i] = eg_mem_add(m, v->host + i * t->tile * width,
                               (size_t)(eg_tile_rows(t, i) * width) * sizeof(double), what, i, err);
        if (v->obj[i] < 0) {
            eg_bvec_free(v);
            return -1;
        }
    }
    return 0;
}

void eg_bvec_free(eg_bvec *v)
{
    free(v->host);
    free(v->obj);
    memset(v, 0, sizeof *v);
}

int eg_small_init(eg_small *s, int64_t rows, int64_t cols, const char *what, int64_t tag, eg_mem *m,
                  rt_err *err)
{
    s->rows = rows;
    s->cols = cols;
    s->host = calloc((size_t)(rows * cols > 0 ? rows * cols : 1), sizeof *s->host);
    if (!s->host)
        return rt_err_set(err, "eigen: out of memory for a %lld x %lld %s", (long long)rows,
                          (long long)cols, what);
    s->obj = eg_mem_add(m, s->host, (size_t)(rows * cols) * sizeof(double), what, tag, err);
    return s->obj < 0 ? -1 : 0;
}

void eg_small_free(eg_small *s)
{
    free(s->host);
    s->host = NULL;
}

int eg_buffers_init(const eg_buffers *b, const eg_tiling *t, eg_mem *m, const char *who,
                    rt_err *err)
{
    for (int i = 0; i < b->nv; ++i)
        if (eg_bvec_init(b->v[i].v, t, b->v[i].width, b->v[i].what, m, err) != 0)
            return -1;
    for (int i = 0; i < b->nd; ++i) {
        const eg_doubles *d = &b->d[i];
        *d->p = calloc((size_t)(d->n > 0 ? d->n : 1), sizeof **d->p);
        if (!*d->p)
            return rt_err_set(err, "%s: out of memory for %lld doubles", who, (long long)d->n);
    }
    const eg_smalls *s = b->s;
    for (int i = 0; i < b->ns; ++i)
        if (s[i].per_tile) {
            *s[i].per_tile =
                calloc((size_t)(t->ntiles > 0 ? t->ntiles : 1), sizeof **s[i].per_tile);
            if (!*s[i].per_tile)
                return rt_err_set(err, "%s: out of memory for %lld tiles' %s", who,
                                  (long long)t->ntiles, s[i].what);
        }
    for (int64_t k = 0; k < t->ntiles; ++k)
        for (int i = 0; i < b->ns; ++i)
            if (s[i].per_tile &&
                eg_small_init(&(*s[i].per_tile)[k], s[i].rows, s[i].cols, s[i].what, k, m, err))
                return -1;
    for (int i = 0; i < b->ns; ++i)
        if (s[i].one && eg_small_init(s[i].one, s[i].rows, s[i].cols, s[i].what, 0, m, err) != 0)
            return -1;
    return 0;
}

void eg_buffers_free(const eg_buffers *b, int64_t ntiles)
{
    for (int i = 0; i < b->nv; ++i)
        eg_bvec_free(b->v[i].v);
    for (int i = 0; i < b->ns; ++i) {
        const eg_smalls *s = &b->s[i];
        if (s->one)
            eg_small_free(s->one);
        if (!s->per_tile || !*s->per_tile)
            continue;
        for (int64_t k = 0; k < ntiles; ++k)
            eg_small_free(&(*s->per_tile)[k]);
        free(*s->per_tile);
        *s->per_tile = NULL;
    }
    for (int i = 0; i < b->nd; ++i) {
        free(*b->d[i].p);
        *b->d[i].p = NULL;
    }
}
