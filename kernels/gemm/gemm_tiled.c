#include "gemm_tiled.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "gemm_cache.h"
#include "rt_comm.h"

#define GEMM_TAG_A 0x6E01
#define GEMM_TAG_B 0x6E02

/* Counters of one execution (this rank). */
enum {
    CNT_H2D_A,
    CNT_H2D_B,
    CNT_D2D_A,
    CNT_D2D_B,
    CNT_D2H_C,
    CNT_PRODUCTS,
    CNT_RECV_A,
    CNT_RECV_B,
    CNT_SENT,
    CNT_SENT_BYTES_T0,
    CNT_SENT_BYTES_T1,
    CNT_SENT_BYTES_T2,
    CNT_N
};

struct gemm_tiled {
    const gemm_inputs *in;
    gemm_plan pl;
    int64_t t;
    size_t elem, tile_bytes;
    rt_comm *comm;
    MPI_Comm mpi;
    MPI_Datatype type;
    int rank, u, v;
    int64_t fail_rank;
    const gemm_engine_ops *ops;
    void *eng;
    int64_t rows, cols, kq, kp; /* local tile rows and columns; own k of A and of B */
    char *a_store, *b_store, *c_store;
    int *c_writes; /* per local C tile, in the last execution */
    gemm_cache **cache;
    int ring;    /* host receive buffers: 2 l + 1 chunks */
    char **rbuf; /* per ring slot: b d A tiles then c d B tiles */
    MPI_Request **rq, **sq;
    int *nrq, *nsq;
    int64_t max_rq, max_sq;
    int flight;      /* chunks whose tiles are pinned at once: l + 1 */
    int64_t **aslot; /* [flight * G][b d]: slot of A (ib, kk) */
    int64_t **bslot; /* [flight * G][d cg]: slot of B (kk, m) */
    double cnt[CNT_N];
    double *gpu_loads; /* per GPU, last execution */
    double checksum;   /* of the rank's share of C samples at the last output */
    int *tier_of;      /* per world rank */
};

static int64_t imin(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* Elements in tile row i (or column) of a dimension of n elements. */
static int64_t tile_len(int64_t n, int64_t t, int64_t i)
{
    return imin(t, n - i * t);
}

int64_t gemm_tiled_slots(const gemm_plan *pl)
{
    return pl->b * pl->cg + pl->pool_a + pl->pool_b;
}

static char *a_local(gemm_tiled *s, int64_t il, int64_t k)
{
    return s->a_store + (size_t)(il * s->kq + k / s->pl.q) * s->tile_bytes;
}

static char *b_local(gemm_tiled *s, int64_t k, int64_t jl)
{
    return s->b_store + (size_t)((k / s->pl.p) * s->cols + jl) * s->tile_bytes;
}

static char *c_local(gemm_tiled *s, int64_t il, int64_t jl)
{
    return s->c_store + (size_t)(il * s->cols + jl) * s->tile_bytes;
}

static char *ring_a(gemm_tiled *s, int64_t chunk, int64_t ib, int64_t kk)
{
    return s->rbuf[chunk % s->ring] + (size_t)(ib * s->pl.d + kk) * s->tile_bytes;
}

static char *ring_b(gemm_tiled *s, int64_t chunk, int64_t kk, int64_t jb)
{
    return s->rbuf[chunk % s->ring] +
           (size_t)(s->pl.b * s->pl.d + kk * s->pl.c + jb) * s->tile_bytes;
}

static int mpi_fail(int rc, const char *what, rt_err *err)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return rt_err_set(err, "gemm: %s failed: %s", what, text);
}

/* Sends (dry: only counts, for the model) the rank's own tiles that chunk s needs elsewhere. */
static int send_chunk(gemm_tiled *s, int64_t chunk, int dry, double bytes[3], double msgs[3],
                      rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    int64_t y, x, z;
    gemm_plan_chunk_at(pl, chunk, &y, &x, &z);
    const int64_t br = gemm_plan_block_rows(pl, s->u, x), bc = gemm_plan_block_cols(pl, s->v, y);
    const int64_t k0 = gemm_plan_chunk_k0(pl, z), kd = gemm_plan_chunk_depth(pl, z);
    const int r = (int)(chunk % s->ring);
    const gemm_inputs *in = s->in;
    for (int64_t ib = 0; ib < br; ++ib) {
        const int64_t il = x * pl->b + ib, i = s->u + (int64_t)pl->p * il;
        for (int64_t kk = 0; kk < kd; ++kk) {
            const int64_t k = k0 + kk;
            if (k % pl->q != s->v)
                continue;
            const int64_t n = tile_len(in->m, s->t, i) * tile_len(in->k, s->t, k);
            for (int w = 0; w < pl->q; ++w) {
                if (w == s->v || gemm_plan_block_cols(pl, w, y) == 0)
                    continue;
                const int dest = s->u * pl->q + w;
                const int tier = s->tier_of[dest];
                bytes[tier] += (double)((size_t)n * s->elem);
                msgs[tier] += 1.0;
                if (dry)
                    continue;
                const int rc = MPI_Isend(a_local(s, il, k), (int)n, s->type, dest, GEMM_TAG_A,
                                         s->mpi, &s->sq[r][s->nsq[r]++]);
                if (rc != MPI_SUCCESS)
                    return mpi_fail(rc, "sending a tile of A", err);
                if (rt_comm_count_to(s->comm, dest, (int64_t)((size_t)n * s->elem), err) != 0)
                    return -1;
            }
        }
    }
    for (int64_t kk = 0; kk < kd; ++kk) {
        const int64_t k = k0 + kk;
        if (k % pl->p != s->u)
            continue;
        for (int64_t jb = 0; jb < bc; ++jb) {
            const int64_t jl = y * pl->c + jb, j = s->v + (int64_t)pl->q * jl;
            const int64_t n = tile_len(in->k, s->t, k) * tile_len(in->n, s->t, j);
            for (int w = 0; w < pl->p; ++w) {
                if (w == s->u || gemm_plan_block_rows(pl, w, x) == 0)
                    continue;
                const int dest = w * pl->q + s->v;
                const int tier = s->tier_of[dest];
                bytes[tier] += (double)((size_t)n * s->elem);
                msgs[tier] += 1.0;
                if (dry)
                    continue;
                const int rc = MPI_Isend(b_local(s, k, jl), (int)n, s->type, dest, GEMM_TAG_B,
                                         s->mpi, &s->sq[r][s->nsq[r]++]);
                if (rc != MPI_SUCCESS)
                    return mpi_fail(rc, "sending a tile of B", err);
                if (rt_comm_count_to(s->comm, dest, (int64_t)((size_t)n * s->elem), err) != 0)
                    return -1;
            }
        }
    }
    return 0;
}

/* Posts the receives of chunk s (the tiles it needs that other processes own), then its sends.
 * Messages between two ranks with one tag are matched in the order both walk the tiles. */
static int post_chunk(gemm_tiled *s, int64_t chunk, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    int64_t y, x, z;
    gemm_plan_chunk_at(pl, chunk, &y, &x, &z);
    const int64_t br = gemm_plan_block_rows(pl, s->u, x), bc = gemm_plan_block_cols(pl, s->v, y);
    const int64_t k0 = gemm_plan_chunk_k0(pl, z), kd = gemm_plan_chunk_depth(pl, z);
    const int r = (int)(chunk % s->ring);
    const gemm_inputs *in = s->in;
    s->nrq[r] = s->nsq[r] = 0;
    if (br > 0 && bc > 0) {
        for (int64_t ib = 0; ib < br; ++ib) {
            const int64_t i = s->u + (int64_t)pl->p * (x * pl->b + ib);
            for (int64_t kk = 0; kk < kd; ++kk) {
                const int64_t k = k0 + kk;
                if (k % pl->q == s->v)
                    continue;
                const int64_t n = tile_len(in->m, s->t, i) * tile_len(in->k, s->t, k);
                const int src = s->u * pl->q + (int)(k % pl->q);
                const int rc = MPI_Irecv(ring_a(s, chunk, ib, kk), (int)n, s->type, src, GEMM_TAG_A,
                                         s->mpi, &s->rq[r][s->nrq[r]++]);
                if (rc != MPI_SUCCESS)
                    return mpi_fail(rc, "receiving a tile of A", err);
                s->cnt[CNT_RECV_A] += 1.0;
            }
        }
        for (int64_t kk = 0; kk < kd; ++kk) {
            const int64_t k = k0 + kk;
            if (k % pl->p == s->u)
                continue;
            for (int64_t jb = 0; jb < bc; ++jb) {
                const int64_t j = s->v + (int64_t)pl->q * (y * pl->c + jb);
                const int64_t n = tile_len(in->k, s->t, k) * tile_len(in->n, s->t, j);
                const int src = (int)(k % pl->p) * pl->q + s->v;
                const int rc = MPI_Irecv(ring_b(s, chunk, kk, jb), (int)n, s->type, src, GEMM_TAG_B,
                                         s->mpi, &s->rq[r][s->nrq[r]++]);
                if (rc != MPI_SUCCESS)
                    return mpi_fail(rc, "receiving a tile of B", err);
                s->cnt[CNT_RECV_B] += 1.0;
            }
        }
    }
    double bytes[3] = {0, 0, 0}, msgs[3] = {0, 0, 0};
    if (send_chunk(s, chunk, 0, bytes, msgs, err) != 0)
        return -1;
    for (int k = 0; k < 3; ++k) {
        s->cnt[CNT_SENT_BYTES_T0 + k] += bytes[k];
        s->cnt[CNT_SENT] += msgs[k];
    }
    return 0;
}

/* Takes the tiles of chunk s in every GPU's cache and copies the missing ones in. */
static int load_chunk(gemm_tiled *s, int64_t chunk, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    const gemm_inputs *in = s->in;
    int64_t y, x, z;
    gemm_plan_chunk_at(pl, chunk, &y, &x, &z);
    const int r = (int)(chunk % s->ring);
    if (s->nrq[r] > 0) {
        const int rc = MPI_Waitall(s->nrq[r], s->rq[r], MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "waiting for the tiles of a chunk", err);
        s->nrq[r] = 0;
    }
    if (s->ops->loads_begin(s->eng, chunk - pl->l - 1, err) != 0)
        return -1;
    const int64_t br = gemm_plan_block_rows(pl, s->u, x);
    const int64_t k0 = gemm_plan_chunk_k0(pl, z), kd = gemm_plan_chunk_depth(pl, z);
    const int f = (int)(chunk % s->flight);
    for (int g = 0; g < pl->G && br > 0; ++g) {
        const int64_t ng = gemm_plan_block_cols_gpu(pl, s->v, y, g);
        if (ng == 0)
            continue;
        int64_t *as = s->aslot[f * pl->G + g], *bs = s->bslot[f * pl->G + g];
        for (int64_t ib = 0; ib < br; ++ib) {
            const int64_t il = x * pl->b + ib, i = s->u + (int64_t)pl->p * il;
            for (int64_t kk = 0; kk < kd; ++kk) {
                const int64_t k = k0 + kk;
                const size_t bytes =
                    (size_t)(tile_len(in->m, s->t, i) * tile_len(in->k, s->t, k)) * s->elem;
                int hit = 0;
                int64_t slot;
                if (gemm_cache_take(s->cache[g], GEMM_POOL_A, i * pl->kt + k, &slot, &hit, err) !=
                    0)
                    return -1;
                as[ib * pl->d + kk] = slot;
                if (hit)
                    continue;
                int peer = -1;
                int64_t pslot = -1;
                for (int h = 0; h < g && peer < 0; ++h)
                    if ((pslot =
                             gemm_cache_pinned_slot(s->cache[h], GEMM_POOL_A, i * pl->kt + k)) >= 0)
                        peer = h;
                int rc;
                if (peer >= 0) {
                    rc = s->ops->load_peer(s->eng, g, slot, peer, pslot, bytes, err);
                    s->cnt[CNT_D2D_A] += 1.0;
                } else {
                    const void *src =
                        k % pl->q == s->v ? a_local(s, il, k) : ring_a(s, chunk, ib, kk);
                    rc = s->ops->load_host(s->eng, g, slot, src, bytes, err);
                    s->cnt[CNT_H2D_A] += 1.0;
                }
                if (rc != 0)
                    return -1;
                s->gpu_loads[g] += 1.0;
            }
        }
        for (int64_t kk = 0; kk < kd; ++kk) {
            const int64_t k = k0 + kk;
            for (int64_t m = 0; m < ng; ++m) {
                const int64_t jb = g + (int64_t)pl->G * m, jl = y * pl->c + jb;
                const int64_t j = s->v + (int64_t)pl->q * jl;
                const size_t bytes =
                    (size_t)(tile_len(in->k, s->t, k) * tile_len(in->n, s->t, j)) * s->elem;
                int hit = 0;
                int64_t slot;
                if (gemm_cache_take(s->cache[g], GEMM_POOL_B, k * pl->nt + j, &slot, &hit, err) !=
                    0)
                    return -1;
                bs[kk * pl->cg + m] = slot;
                if (hit)
                    continue;
                const void *src = k % pl->p == s->u ? b_local(s, k, jl) : ring_b(s, chunk, kk, jb);
                if (s->ops->load_host(s->eng, g, slot, src, bytes, err) != 0)
                    return -1;
                s->cnt[CNT_H2D_B] += 1.0;
                s->gpu_loads[g] += 1.0;
            }
        }
    }
    return s->ops->loads_end(s->eng, chunk, err);
}

/* Multiplies chunk s into the C block, writes the block back after its last chunk, unpins. */
static int compute_chunk(gemm_tiled *s, int64_t chunk, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    const gemm_inputs *in = s->in;
    int64_t y, x, z;
    gemm_plan_chunk_at(pl, chunk, &y, &x, &z);
    const int64_t br = gemm_plan_block_rows(pl, s->u, x);
    const int64_t k0 = gemm_plan_chunk_k0(pl, z), kd = gemm_plan_chunk_depth(pl, z);
    const int f = (int)(chunk % s->flight);
    if (s->ops->compute_begin(s->eng, chunk, err) != 0)
        return -1;
    for (int g = 0; g < pl->G && br > 0; ++g) {
        const int64_t ng = gemm_plan_block_cols_gpu(pl, s->v, y, g);
        const int64_t *as = s->aslot[f * pl->G + g], *bs = s->bslot[f * pl->G + g];
        for (int64_t ib = 0; ib < br; ++ib) {
            const int64_t i = s->u + (int64_t)pl->p * (x * pl->b + ib);
            for (int64_t m = 0; m < ng; ++m) {
                const int64_t j = s->v + (int64_t)pl->q * (y * pl->c + g + (int64_t)pl->G * m);
                for (int64_t kk = 0; kk < kd; ++kk) {
                    const int64_t k = k0 + kk;
                    if (s->ops->gemm(s->eng, g, ib * pl->cg + m, as[ib * pl->d + kk],
                                     bs[kk * pl->cg + m], tile_len(in->m, s->t, i),
                                     tile_len(in->n, s->t, j), tile_len(in->k, s->t, k),
                                     z > 0 || kk > 0, err) != 0)
                        return -1;
                    s->cnt[CNT_PRODUCTS] += 1.0;
                }
            }
        }
    }
    if (s->ops->compute_end(s->eng, chunk, err) != 0)
        return -1;
    for (int g = 0; g < pl->G && br > 0; ++g) {
        const int64_t ng = gemm_plan_block_cols_gpu(pl, s->v, y, g);
        int64_t *as = s->aslot[f * pl->G + g], *bs = s->bslot[f * pl->G + g];
        for (int64_t ib = 0; ib < br; ++ib) {
            const int64_t il = x * pl->b + ib, i = s->u + (int64_t)pl->p * il;
            for (int64_t m = 0; m < ng; ++m) {
                const int64_t jl = y * pl->c + g + (int64_t)pl->G * m;
                const int64_t j = s->v + (int64_t)pl->q * jl;
                if (z == pl->Z - 1) {
                    const size_t bytes =
                        (size_t)(tile_len(in->m, s->t, i) * tile_len(in->n, s->t, j)) * s->elem;
                    if (s->ops->store_c(s->eng, g, ib * pl->cg + m, c_local(s, il, jl), bytes,
                                        err) != 0)
                        return -1;
                    s->c_writes[il * s->cols + jl]++;
                    s->cnt[CNT_D2H_C] += 1.0;
                }
            }
            for (int64_t kk = 0; kk < kd && ng > 0; ++kk)
                if (gemm_cache_release(s->cache[g], GEMM_POOL_A, as[ib * pl->d + kk], err) != 0)
                    return -1;
        }
        for (int64_t kk = 0; kk < kd && ng > 0; ++kk)
            for (int64_t m = 0; m < ng; ++m)
                if (gemm_cache_release(s->cache[g], GEMM_POOL_B, bs[kk * pl->cg + m], err) != 0)
                    return -1;
    }
    const int r = (int)(chunk % s->ring);
    if (s->nsq[r] > 0) {
        const int rc = MPI_Waitall(s->nsq[r], s->sq[r], MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "waiting for the sends of a chunk", err);
        s->nsq[r] = 0;
    }
    return 0;
}

int gemm_tiled_run(gemm_tiled *s, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    /* The failure test hook, agreed before any message so that no rank waits for a failed one. */
    char mine[256] = "";
    const int ok = s->fail_rank != s->rank;
    if (!ok)
        snprintf(mine, sizeof mine, "injected failure on rank %d (test hook fail_rank)", s->rank);
    int all_ok = 1, first = -1;
    char msg[512] = "";
    if (rt_comm_all_ok_msg(s->comm, ok, mine, &all_ok, &first, msg, sizeof msg) != 0)
        return rt_err_set(err, "gemm: failure agreement: %s", rt_comm_last_error(s->comm));
    if (!all_ok)
        return rt_err_set(err, "gemm: rank %d failed: %s", first, msg);

    memset(s->cnt, 0, sizeof s->cnt);
    for (int g = 0; g < pl->G; ++g) {
        gemm_cache_reset(s->cache[g]);
        s->gpu_loads[g] = 0.0;
    }
    memset(s->c_writes, 0, (size_t)(s->rows * s->cols) * sizeof *s->c_writes);
    const int64_t S = gemm_plan_chunks(pl), L = pl->l;
    int64_t posted = 0, loaded = 0;
    for (int64_t c = 0; c < S; ++c) {
        while (posted < S && posted <= c + 2 * L) {
            if (posted >= s->ring && s->ops->loads_done(s->eng, posted - s->ring, err) != 0)
                return -1;
            if (post_chunk(s, posted++, err) != 0)
                return -1;
        }
        while (loaded < S && loaded <= c + L)
            if (load_chunk(s, loaded++, err) != 0)
                return -1;
        if (compute_chunk(s, c, err) != 0)
            return -1;
    }
    return s->ops->finish(s->eng, err);
}

static void *xcalloc(size_t n, size_t size, int *bad)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        *bad = 1;
    return p;
}

int gemm_tiled_create(const gemm_inputs *in, const gemm_plan *pl, int64_t t, void *comm, int rank,
                      int64_t fail_rank, const gemm_engine_ops *ops, void *eng, gemm_tiled **out,
                      rt_err *err)
{
    *out = NULL;
    if (!comm)
        return rt_err_set(err, "gemm: the tiled kernel needs the harness's MPI layer");
    gemm_tiled *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "gemm: out of memory");
    *out = s;
    s->in = in;
    s->pl = *pl;
    s->t = t;
    s->elem = rt_precision_bytes(in->prec);
    s->tile_bytes = (size_t)(t * t) * s->elem;
    s->comm = comm;
    s->mpi = rt_comm_mpi(comm, RT_COMM_WORLD);
    s->type = in->prec == RT_FP64 ? MPI_DOUBLE : MPI_FLOAT;
    s->rank = rank;
    s->u = rank / pl->q;
    s->v = rank % pl->q;
    s->fail_rank = fail_rank;
    s->ops = ops;
    s->eng = eng;
    s->rows = gemm_plan_rows(pl, s->u);
    s->cols = gemm_plan_cols(pl, s->v);
    s->kq = gemm_count_mod(pl->kt, pl->q, s->v);
    s->kp = gemm_count_mod(pl->kt, pl->p, s->u);
    int bad = 0;
    const int P = pl->p * pl->q;
    s->tier_of = xcalloc((size_t)P, sizeof *s->tier_of, &bad);
    for (int r = 0; r < P && !bad; ++r)
        s->tier_of[r] = r == rank ? 0 : rt_comm_tier_of(comm, r);
    s->a_store = ops->host_alloc(eng, (size_t)(s->rows * s->kq) * s->tile_bytes + 1);
    s->b_store = ops->host_alloc(eng, (size_t)(s->kp * s->cols) * s->tile_bytes + 1);
    s->c_store = ops->host_alloc(eng, (size_t)(s->rows * s->cols) * s->tile_bytes + 1);
    s->c_writes = xcalloc((size_t)(s->rows * s->cols), sizeof *s->c_writes, &bad);
    s->cache = xcalloc((size_t)pl->G, sizeof *s->cache, &bad);
    s->gpu_loads = xcalloc((size_t)pl->G, sizeof *s->gpu_loads, &bad);
    s->ring = 2 * pl->l + 1;
    s->flight = pl->l + 1;
    s->rbuf = xcalloc((size_t)s->ring, sizeof *s->rbuf, &bad);
    s->rq = xcalloc((size_t)s->ring, sizeof *s->rq, &bad);
    s->sq = xcalloc((size_t)s->ring, sizeof *s->sq, &bad);
    s->nrq = xcalloc((size_t)s->ring, sizeof *s->nrq, &bad);
    s->nsq = xcalloc((size_t)s->ring, sizeof *s->nsq, &bad);
    s->aslot = xcalloc((size_t)(s->flight * pl->G), sizeof *s->aslot, &bad);
    s->bslot = xcalloc((size_t)(s->flight * pl->G), sizeof *s->bslot, &bad);
    if (bad || !s->a_store || !s->b_store || !s->c_store)
        return rt_err_set(err, "gemm: out of memory for the tiles of rank %d", rank);
    s->max_rq = pl->b * pl->d + pl->c * pl->d;
    s->max_sq = pl->b * pl->d * (pl->q - 1) + pl->c * pl->d * (pl->p - 1);
    const size_t ring_bytes = (size_t)(pl->b * pl->d + pl->c * pl->d) * s->tile_bytes;
    for (int r = 0; r < s->ring; ++r) {
        s->rbuf[r] = ops->host_alloc(eng, ring_bytes);
        s->rq[r] = xcalloc((size_t)s->max_rq, sizeof(MPI_Request), &bad);
        s->sq[r] = xcalloc((size_t)s->max_sq, sizeof(MPI_Request), &bad);
        if (!s->rbuf[r])
            bad = 1;
    }
    for (int f = 0; f < s->flight * pl->G; ++f) {
        s->aslot[f] = xcalloc((size_t)(pl->b * pl->d), sizeof(int64_t), &bad);
        s->bslot[f] = xcalloc((size_t)(pl->d * pl->cg), sizeof(int64_t), &bad);
    }
    if (bad)
        return rt_err_set(err, "gemm: out of memory for the receive ring of rank %d", rank);
    const int64_t base_a = pl->b * pl->cg;
    for (int g = 0; g < pl->G; ++g)
        if (gemm_cache_create(pl->pool_a, base_a, pl->pool_b, base_a + pl->pool_a, &s->cache[g],
                              err) != 0)
            return -1;
            /* Inputs: the rank's own tiles; C poisoned, so a tile never written fails verification.
             */
#pragma omp parallel for schedule(dynamic)
    for (int64_t il = 0; il < s->rows; ++il) {
        const int64_t i = s->u + (int64_t)pl->p * il;
        for (int64_t kl = 0; kl < s->kq; ++kl) {
            const int64_t k = s->v + (int64_t)pl->q * kl;
            gemm_fill_tile(in, 'A', i * t, k * t, tile_len(in->m, t, i), tile_len(in->k, t, k),
                           a_local(s, il, k));
        }
    }
#pragma omp parallel for schedule(dynamic)
    for (int64_t kl = 0; kl < s->kp; ++kl) {
        const int64_t k = s->u + (int64_t)pl->p * kl;
        for (int64_t jl = 0; jl < s->cols; ++jl) {
            const int64_t j = s->v + (int64_t)pl->q * jl;
            gemm_fill_tile(in, 'B', k * t, j * t, tile_len(in->k, t, k), tile_len(in->n, t, j),
                           b_local(s, k, jl));
        }
    }
    const size_t c_elems = (size_t)(s->rows * s->cols) * (size_t)(t * t);
    for (size_t e = 0; e < c_elems; ++e) {
        if (in->prec == RT_FP64)
            ((double *)s->c_store)[e] = NAN;
        else
            ((float *)s->c_store)[e] = NAN;
    }
    return 0;
}

void gemm_tiled_free(gemm_tiled *s)
{
    if (!s)
        return;
    const gemm_plan *pl = &s->pl;
    if (s->ops) {
        s->ops->host_free(s->eng, s->a_store);
        s->ops->host_free(s->eng, s->b_store);
        s->ops->host_free(s->eng, s->c_store);
        for (int r = 0; s->rbuf && r < s->ring; ++r)
            s->ops->host_free(s->eng, s->rbuf[r]);
    }
    for (int r = 0; r < s->ring; ++r) {
        if (s->rq)
            free(s->rq[r]);
        if (s->sq)
            free(s->sq[r]);
    }
    for (int f = 0; f < s->flight * pl->G; ++f) {
        if (s->aslot)
            free(s->aslot[f]);
        if (s->bslot)
            free(s->bslot[f]);
    }
    for (int g = 0; s->cache && g < pl->G; ++g)
        gemm_cache_free(s->cache[g]);
    free(s->rbuf);
    free(s->rq);
    free(s->sq);
    free(s->nrq);
    free(s->nsq);
    free(s->aslot);
    free(s->bslot);
    free(s->cache);
    free(s->gpu_loads);
    free(s->c_writes);
    free(s->tier_of);
    free(s);
}

int gemm_samples_gather(const gemm_inputs *in, int64_t t, int p, int q, int rank, const void *c,
                        int64_t cols_local, void *comm, double *out, rt_err *err)
{
    const int u = rank / q, v = rank % q;
    double *all = calloc((size_t)in->n_samples, sizeof *all);
    if (!all)
        return rt_err_set(err, "gemm: out of memory for %lld samples", (long long)in->n_samples);
    const size_t tile_elems = (size_t)(t * t);
    for (int64_t smp = 0; smp < in->n_samples; ++smp) {
        int64_t row, col;
        gemm_sample_at(in, smp, &row, &col);
        const int64_t i = row / t, j = col / t;
        if (i % p != u || j % q != v)
            continue;
        const size_t tile = (size_t)((i / p) * cols_local + j / q);
        const size_t e = tile * tile_elems + (size_t)((col % t) * tile_len(in->m, t, i) + row % t);
        all[smp] = in->prec == RT_FP64 ? ((const double *)c)[e] : (double)((const float *)c)[e];
    }
    const int rc = MPI_Allreduce(MPI_IN_PLACE, all, (int)in->n_samples, MPI_DOUBLE, MPI_SUM,
                                 rt_comm_mpi(comm, RT_COMM_WORLD));
    if (rc == MPI_SUCCESS)
        memcpy(out, all + in->sample0, (size_t)(in->sample1 - in->sample0) * sizeof *out);
    free(all);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, "gathering the samples of C", err);
}

int gemm_tiled_output(gemm_tiled *s, double *out, rt_err *err)
{
    return gemm_samples_gather(s->in, s->t, s->pl.p, s->pl.q, s->rank, s->c_store, s->cols, s->comm,
                               out, err);
}

int gemm_tiled_traffic(const gemm_inputs *in, const gemm_plan *pl, int64_t t, void *comm, int rank,
                       rt_traffic *tr, rt_err *err)
{
    (void)err;
    memset(tr, 0, sizeof *tr);
    gemm_tiled s;
    memset(&s, 0, sizeof s);
    s.in = in;
    s.pl = *pl;
    s.t = t;
    s.elem = rt_precision_bytes(in->prec);
    s.u = rank / pl->q;
    s.v = rank % pl->q;
    s.ring = 1;
    const int P = pl->p * pl->q;
    int tiers[4096];
    s.tier_of = tiers;
    if (P > (int)(sizeof tiers / sizeof tiers[0]))
        return rt_err_set(err, "gemm: traffic model limited to 4096 ranks");
    for (int r = 0; r < P; ++r)
        tiers[r] = (r == rank || !comm) ? 0 : rt_comm_tier_of(comm, r);
    double bytes[3] = {0, 0, 0}, msgs[3] = {0, 0, 0};
    for (int64_t c = 0; c < gemm_plan_chunks(pl); ++c)
        if (send_chunk(&s, c, 1, bytes, msgs, err) != 0)
            return -1;
    for (int k = 0; k < 3; ++k) {
        tr->net_bytes[k] = bytes[k];
        tr->net_messages[k] = msgs[k];
    }
    /* Flops of the rank's own C tiles. */
    double rows = 0, cols = 0;
    for (int64_t i = s.u; i < pl->mt; i += pl->p)
        rows += (double)tile_len(in->m, t, i);
    for (int64_t j = s.v; j < pl->nt; j += pl->q)
        cols += (double)tile_len(in->n, t, j);
    tr->flops = 2.0 * rows * cols * (double)in->k;
    return 0;
}

int gemm_tiled_metrics(gemm_tiled *s, rt_metrics *m, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    /* Sums over ranks: measured counters, then the plan's model of the same. */
    enum { M_H2D_A = CNT_N, M_H2D_B, M_D2D_A, M_D2H_C, M_RECV, M_LOADS, M_SUM, M_N };
    double sum[M_N];
    memcpy(sum, s->cnt, sizeof s->cnt);
    gemm_proc_counts pc;
    gemm_model_process(pl, s->u, s->v, s->tier_of, &pc);
    sum[M_H2D_A] = pc.h2d_a;
    sum[M_H2D_B] = pc.h2d_b;
    sum[M_D2D_A] = pc.d2d_a;
    sum[M_D2H_C] = pc.d2h_c;
    sum[M_RECV] = pc.recv_a + pc.recv_b;
    sum[M_LOADS] = pc.h2d_a + pc.h2d_b + pc.d2d_a + pc.d2d_b + pc.d2h_c;
    sum[M_SUM] = s->checksum;
    /* Maxima: tiles loaded by one GPU (measured), writes of one C tile; minima via negation. */
    double mx[3] = {0.0, 0.0, 0.0};
    for (int g = 0; g < pl->G; ++g)
        if (s->gpu_loads[g] > mx[0])
            mx[0] = s->gpu_loads[g];
    double wmin = s->rows * s->cols > 0 ? INFINITY : -1.0, wmax = 0.0;
    for (int64_t e = 0; e < s->rows * s->cols; ++e) {
        wmin = fmin(wmin, s->c_writes[e]);
        wmax = fmax(wmax, s->c_writes[e]);
    }
    mx[1] = wmax;
    mx[2] = s->rows * s->cols > 0 ? -wmin : -INFINITY;
    const MPI_Comm w = s->mpi;
    int rc = MPI_Allreduce(MPI_IN_PLACE, sum, M_N, MPI_DOUBLE, MPI_SUM, w);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(MPI_IN_PLACE, mx, 3, MPI_DOUBLE, MPI_MAX, w);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "summing the counters", err);
    const double P = (double)pl->p * pl->q, GP = P * pl->G;
    rt_metrics_add(m, "grid_p", "count", pl->p, 1);
    rt_metrics_add(m, "grid_q", "count", pl->q, 1);
    rt_metrics_add(m, "gpus_per_process", "count", pl->G, 1);
    rt_metrics_add(m, "tiles_m", "count", (double)pl->mt, 1);
    rt_metrics_add(m, "tiles_n", "count", (double)pl->nt, 1);
    rt_metrics_add(m, "tiles_k", "count", (double)pl->kt, 1);
    rt_metrics_add(m, "block_b", "count", (double)pl->b, 1);
    rt_metrics_add(m, "block_c", "count", (double)pl->c, 1);
    rt_metrics_add(m, "chunk_d", "count", (double)pl->d, 1);
    rt_metrics_add(m, "lookahead", "count", pl->l, 1);
    rt_metrics_add(m, "blocks_x", "count", (double)pl->X, 1);
    rt_metrics_add(m, "blocks_y", "count", (double)pl->Y, 1);
    rt_metrics_add(m, "chunks_z", "count", (double)pl->Z, 1);
    rt_metrics_add(m, "mem_case", "case", pl->mem_case - 'a' + 1, 1);
    rt_metrics_add(m, "budget_tiles", "count", (double)pl->budget_tiles, 1);
    rt_metrics_add(m, "pool_a_tiles", "count", (double)pl->pool_a, 1);
    rt_metrics_add(m, "pool_b_tiles", "count", (double)pl->pool_b, 1);
    /* Eq. (1) assumes A is reloaded for every block column in cases (b) and (c); when the pool
     * left beside B holds all A tiles of a process row, LRU keeps them and A is loaded once (the
     * exact count then equals case (a)'s form and Eq. (1) overcounts). */
    const int64_t a_row = (pl->mt + pl->p - 1) / pl->p * pl->kt;
    rt_metrics_add(m, "a_pool_holds_row", "flag", pl->pool_a >= a_row ? 1.0 : 0.0, 1);
    rt_metrics_add(m, "tiles_h2d_a", "count", sum[CNT_H2D_A], 1);
    rt_metrics_add(m, "tiles_h2d_b", "count", sum[CNT_H2D_B], 1);
    rt_metrics_add(m, "tiles_d2d_a", "count", sum[CNT_D2D_A], 1);
    rt_metrics_add(m, "tiles_d2h_c", "count", sum[CNT_D2H_C], 1);
    rt_metrics_add(m, "model_tiles_h2d_a", "count", sum[M_H2D_A], 1);
    rt_metrics_add(m, "model_tiles_h2d_b", "count", sum[M_H2D_B], 1);
    rt_metrics_add(m, "model_tiles_d2d_a", "count", sum[M_D2D_A], 1);
    rt_metrics_add(m, "model_tiles_d2h_c", "count", sum[M_D2H_C], 1);
    const double loads =
        sum[CNT_H2D_A] + sum[CNT_H2D_B] + sum[CNT_D2D_A] + sum[CNT_D2D_B] + sum[CNT_D2H_C];
    const double eq1 = gemm_eq1(pl);
    rt_metrics_add(m, "tiles_gpu_avg", "count", loads / GP, 1);
    rt_metrics_add(m, "tiles_gpu_max", "count", mx[0] + 0.0, 1);
    rt_metrics_add(m, "model_tiles_gpu_avg", "count", sum[M_LOADS] / GP, 1);
    rt_metrics_add(m, "model_eq1_tiles_gpu", "count", eq1, 1);
    rt_metrics_add(m, "ratio_tiles_gpu_eq1", "ratio", eq1 > 0 ? loads / GP / eq1 : NAN, 1);
    rt_metrics_add(m, "ratio_h2d_eq1", "ratio",
                   eq1 > 0 ? (sum[CNT_H2D_A] + sum[CNT_H2D_B] + sum[CNT_D2H_C]) / GP / eq1 : NAN,
                   1);
    /* Issue 19's share: of the tiles copied into GPUs, those that came from a peer GPU. */
    const double into = sum[CNT_H2D_A] + sum[CNT_H2D_B] + sum[CNT_D2D_A] + sum[CNT_D2D_B];
    const double into_model = sum[M_H2D_A] + sum[M_H2D_B] + sum[M_D2D_A];
    rt_metrics_add(m, "share_d2d_loads", "ratio",
                   into > 0 ? (sum[CNT_D2D_A] + sum[CNT_D2D_B]) / into : 0.0, 1);
    rt_metrics_add(m, "model_share_d2d_loads", "ratio",
                   into_model > 0 ? sum[M_D2D_A] / into_model : 0.0, 1);
    const double recv = sum[CNT_RECV_A] + sum[CNT_RECV_B], eqr = gemm_eq_recv(pl) * P;
    rt_metrics_add(m, "mpi_tiles_recv", "count", recv, 1);
    rt_metrics_add(m, "mpi_tiles_sent", "count", sum[CNT_SENT], 1);
    rt_metrics_add(m, "model_mpi_tiles_recv", "count", sum[M_RECV], 1);
    rt_metrics_add(m, "model_eq_tiles_recv", "count", eqr, 1);
    rt_metrics_add(m, "ratio_recv_eq", "ratio", eqr > 0 ? recv / eqr : NAN, 1);
    static const char *const tiers[] = {"socket", "node", "global"};
    for (int k = 0; k < 3; ++k) {
        char name[64];
        snprintf(name, sizeof name, "net_bytes_%s_sum", tiers[k]);
        rt_metrics_add(m, name, "bytes", sum[CNT_SENT_BYTES_T0 + k], 1);
    }
    rt_metrics_add(m, "tile_products", "count", sum[CNT_PRODUCTS], 1);
    rt_metrics_add(m, "c_sample_checksum", "value", sum[M_SUM], 1);
    rt_metrics_add(m, "c_tile_writes_max", "count", mx[1], 1);
    rt_metrics_add(m, "c_tile_writes_min", "count", -mx[2], 1);
    return 0;
}
