#include "gemm_tiled.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_cache.h"
#include "gemm_params.h"
#include "rt_clock.h"
#include "rt_comm.h"

#define GEMM_TAG_A    0x6E01
#define GEMM_TAG_B    0x6E02
#define GEMM_TAG_DIR  0x6E03 /* owner -> node peer: where its tiles of a chunk are (ipc) */
#define GEMM_TAG_DONE 0x6E04 /* node peer -> owner: its copies of a chunk are issued (ipc) */

/* A directory entry: slot s of GPU g of the owner (G <= 64: the `gpus` domain). */
#define DIR_ENTRY(g, s) ((int64_t)(s)*64 + (g))

/* Counters of one execution (this rank). Elements (EL_*) times the element size are bytes. */
enum {
    CNT_H2D_A,
    CNT_H2D_B,
    CNT_D2D_A,
    CNT_D2D_B,
    CNT_IPC_A,
    CNT_IPC_B,
    CNT_D2H_C,
    CNT_PRODUCTS,
    CNT_RECV_A,
    CNT_RECV_B,
    CNT_SENT,
    CNT_SENT_BYTES_T0,
    CNT_SENT_BYTES_T1,
    CNT_SENT_BYTES_T2,
    CNT_EL_H2D,
    CNT_EL_D2H,
    CNT_EL_D2D,
    CNT_EL_IPC,
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
    size_t a_bytes, b_bytes, c_bytes;
    int *c_writes; /* per local C tile, in the last execution */
    gemm_cache **cache;
    int ring;       /* host receive buffers: 2 l + 1 chunks */
    char **rbuf;    /* per ring slot: b d A tiles then c d B tiles */
    int *ring_used; /* per ring slot: its last chunk received tiles (its copies read the slot) */
    MPI_Request **rq, **sq;
    int *nrq, *nsq;
    int64_t max_rq, max_sq;
    int flight;                 /* chunks whose tiles are pinned at once: l + 1 */
    int64_t **aslot;            /* [flight * G][b d]: slot of A (ib, kk) */
    int64_t **bslot;            /* [flight * G][d cg]: slot of B (kk, m) */
    unsigned char *ahit, *bhit; /* [G][b d], [G][d cg]: the chunk being loaded hit the cache */
    int *evicts;                /* [G]: the chunk being loaded overwrites a slot in use */
    double cnt[CNT_N];
    double *gpu_loads;      /* per GPU, last execution */
    double *tail, *tail_el; /* per GPU: C tiles (elements) written back in its last block */
    double checksum;        /* of the rank's share of C samples at the last output */
    int *tier_of;           /* per world rank */
    double fill_s, pin_s;
    /* ipc: the node peers of this process's row (they pull its A tiles, it pulls theirs) and
     * column (B), their node ranks, and the directory and done messages of each chunk. */
    int ipc_live; /* the engines of the node are shared (on every rank alike) */
    int n_mates;
    int *mate_world, *mate_node, *mate_row; /* mate_row: 1 same process row, 0 same column */
    int *mate_of;                           /* per world rank: its mate index, or -1 */
    int tok_ring;
    MPI_Request *tq; /* [tok_ring][2 n_mates] */
    int *ntq;
    int64_t max_dir;
    int64_t *dir_a, *dir_b; /* [tok_ring][max_dir]: this process's A and B entries of a chunk */
    int64_t *rdir;          /* [n_mates][max_dir]: the mates' entries of the chunk being loaded */
    int *rdir_n;
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

/* #{k in [k0, k0 + n) : k mod m == r}. */
static int64_t count_in(int64_t k0, int64_t n, int64_t m, int64_t r)
{
    return gemm_count_mod(k0 + n, m, r) - gemm_count_mod(k0, m, r);
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

/* Completes the *n requests of a batch (a ring slot's) and empties it; nothing to do when it is
 * empty. On a failure the batch is left as it was. */
static int complete_batch(int *n, MPI_Request *rq, const char *what, rt_err *err)
{
    if (*n <= 0)
        return 0;
    const int rc = MPI_Waitall(*n, rq, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, what, err);
    *n = 0;
    return 0;
}

static int same_node(const gemm_tiled *s, int world)
{
    return s->tier_of[world] != RT_TIER_GLOBAL;
}

/* With ipc, whether the process of row u, column w (the owner of an A tile) is pulled from by the
 * processes of its row that compute in block column y: a node peer that computes there too (it
 * holds the tile for the chunk). gemm_plan.c's model decides the same way. */
static int pulls_a(const gemm_tiled *s, int w, int64_t y)
{
    return s->pl.ipc && same_node(s, s->u * s->pl.q + w) && gemm_plan_block_cols(&s->pl, w, y) > 0;
}

/* The same for the owner of a B tile, process row w of this column, in block row x. */
static int pulls_b(const gemm_tiled *s, int w, int64_t x)
{
    return s->pl.ipc && same_node(s, w * s->pl.q + s->v) && gemm_plan_block_rows(&s->pl, w, x) > 0;
}

/* The chunk's geometry, shared by the steps that post and load it. */
typedef struct chunk_at {
    int64_t s, y, x, z, br, bc, k0, kd;
    int64_t row0, slot0; /* the block row's first local row and first C slot row */
    int f, nact;         /* flight slot; GPUs that compute in the chunk (0 .. nact-1) */
} chunk_at;

static chunk_at chunk_of(const gemm_tiled *s, int64_t chunk)
{
    const gemm_plan *pl = &s->pl;
    chunk_at c;
    c.s = chunk;
    gemm_plan_chunk_at(pl, chunk, &c.y, &c.x, &c.z);
    c.br = gemm_plan_block_rows(pl, s->u, c.x);
    c.row0 = gemm_plan_block_row0(pl, c.x);
    c.slot0 = gemm_plan_block_slot0(pl, c.x);
    c.bc = gemm_plan_block_cols(pl, s->v, c.y);
    c.k0 = gemm_plan_chunk_k0(pl, c.z);
    c.kd = gemm_plan_chunk_depth(pl, c.z);
    c.f = (int)(chunk % s->flight);
    c.nact = (int)imin(pl->G, c.bc); /* GPU g has columns in the block iff g < bc */
    return c;
}

/* One tile of n elements to dest: counted by the tier it crosses and, unless buf is NULL (a dry
 * pass that only counts, for the model), posted as a request of ring slot r and told to the
 * communication layer's counters. */
static int send_tile(gemm_tiled *s, int r, int dest, const char *buf, int64_t n, int tag,
                     const char *what, double bytes[3], double msgs[3], rt_err *err)
{
    const int64_t len = (int64_t)((size_t)n * s->elem);
    const int tier = s->tier_of[dest];
    bytes[tier] += (double)len;
    msgs[tier] += 1.0;
    if (!buf)
        return 0;
    const int rc = MPI_Isend(buf, (int)n, s->type, dest, tag, s->mpi, &s->sq[r][s->nsq[r]++]);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, what, err);
    return rt_comm_count_to(s->comm, dest, len, err);
}

/* Posts the receive of one tile of n elements from src into buf, a request of ring slot r. */
static int recv_tile(gemm_tiled *s, int r, int src, char *buf, int64_t n, int tag, const char *what,
                     rt_err *err)
{
    const int rc = MPI_Irecv(buf, (int)n, s->type, src, tag, s->mpi, &s->rq[r][s->nrq[r]++]);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, what, err);
}

/* Sends (dry: only counts, for the model) the rank's own tiles that chunk s needs elsewhere, but
 * not to the node peers that pull them from this process's GPU. */
static int send_chunk(gemm_tiled *s, const chunk_at *c, int dry, double bytes[3], double msgs[3],
                      rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    const int64_t y = c->y, x = c->x, br = c->br, bc = c->bc, k0 = c->k0, kd = c->kd;
    const int r = (int)(c->s % s->ring);
    const gemm_inputs *in = s->in;
    for (int64_t ib = 0; ib < br; ++ib) {
        const int64_t il = gemm_plan_block_row0(pl, x) + ib, i = s->u + (int64_t)pl->p * il;
        for (int64_t kk = 0; kk < kd; ++kk) {
            const int64_t k = k0 + kk;
            if (k % pl->q != s->v)
                continue;
            const int64_t n = tile_len(in->m, s->t, i) * tile_len(in->k, s->t, k);
            for (int w = 0; w < pl->q; ++w) {
                if (w == s->v || gemm_plan_block_cols(pl, w, y) == 0)
                    continue;
                const int dest = s->u * pl->q + w;
                if (pl->ipc && same_node(s, dest) && bc > 0)
                    continue; /* dest pulls it from here */
                if (send_tile(s, r, dest, dry ? NULL : a_local(s, il, k), n, GEMM_TAG_A,
                              "sending a tile of A", bytes, msgs, err) != 0)
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
                if (pl->ipc && same_node(s, dest) && br > 0)
                    continue;
                if (send_tile(s, r, dest, dry ? NULL : b_local(s, k, jl), n, GEMM_TAG_B,
                              "sending a tile of B", bytes, msgs, err) != 0)
                    return -1;
            }
        }
    }
    return 0;
}

/* Posts the receives of chunk s (the tiles it needs that other processes own and send), then its
 * sends. Messages between two ranks with one tag are matched in the order both walk the tiles. */
static int post_chunk(gemm_tiled *s, int64_t chunk, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    const chunk_at c = chunk_of(s, chunk);
    const int64_t y = c.y, x = c.x, br = c.br, bc = c.bc, k0 = c.k0, kd = c.kd;
    const int r = (int)(chunk % s->ring);
    const gemm_inputs *in = s->in;
    s->nrq[r] = s->nsq[r] = 0;
    if (br > 0 && bc > 0) {
        for (int64_t ib = 0; ib < br; ++ib) {
            const int64_t i = s->u + (int64_t)pl->p * (gemm_plan_block_row0(pl, x) + ib);
            for (int64_t kk = 0; kk < kd; ++kk) {
                const int64_t k = k0 + kk;
                if (k % pl->q == s->v || pulls_a(s, (int)(k % pl->q), y))
                    continue;
                const int64_t n = tile_len(in->m, s->t, i) * tile_len(in->k, s->t, k);
                const int src = s->u * pl->q + (int)(k % pl->q);
                if (recv_tile(s, r, src, ring_a(s, chunk, ib, kk), n, GEMM_TAG_A,
                              "receiving a tile of A", err) != 0)
                    return -1;
                s->cnt[CNT_RECV_A] += 1.0;
            }
        }
        for (int64_t kk = 0; kk < kd; ++kk) {
            const int64_t k = k0 + kk;
            if (k % pl->p == s->u || pulls_b(s, (int)(k % pl->p), x))
                continue;
            for (int64_t jb = 0; jb < bc; ++jb) {
                const int64_t j = s->v + (int64_t)pl->q * (y * pl->c + jb);
                const int64_t n = tile_len(in->k, s->t, k) * tile_len(in->n, s->t, j);
                const int src = (int)(k % pl->p) * pl->q + s->v;
                if (recv_tile(s, r, src, ring_b(s, chunk, kk, jb), n, GEMM_TAG_B,
                              "receiving a tile of B", err) != 0)
                    return -1;
                s->cnt[CNT_RECV_B] += 1.0;
            }
        }
    }
    s->ring_used[r] = s->nrq[r] > 0;
    double bytes[3] = {0, 0, 0}, msgs[3] = {0, 0, 0};
    if (send_chunk(s, &c, 0, bytes, msgs, err) != 0)
        return -1;
    for (int k = 0; k < 3; ++k) {
        s->cnt[CNT_SENT_BYTES_T0 + k] += bytes[k];
        s->cnt[CNT_SENT] += msgs[k];
    }
    return 0;
}

/* Takes the chunk's tiles in the caches of the GPUs that compute in it (bookkeeping only): their
 * slots, whether each hit, and whether a GPU overwrites a slot in use (it must wait first). */
static int take_chunk(gemm_tiled *s, const chunk_at *c, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    for (int g = 0; g < pl->G; ++g)
        s->evicts[g] = 0;
    for (int g = 0; g < c->nact; ++g) {
        const int64_t ng = gemm_plan_block_cols_gpu(pl, s->v, c->y, g);
        int64_t *as = s->aslot[c->f * pl->G + g], *bs = s->bslot[c->f * pl->G + g];
        unsigned char *ah = s->ahit + (size_t)g * (size_t)(pl->b * pl->d);
        unsigned char *bh = s->bhit + (size_t)g * (size_t)(pl->d * pl->cg);
        for (int64_t ib = 0; ib < c->br; ++ib) {
            const int64_t i = s->u + (int64_t)pl->p * (c->row0 + ib);
            for (int64_t kk = 0; kk < c->kd; ++kk) {
                int hit = 0, used = 0;
                if (gemm_cache_take(s->cache[g], GEMM_POOL_A, i * pl->kt + c->k0 + kk,
                                    &as[ib * pl->d + kk], &hit, &used, err) != 0)
                    return -1;
                ah[ib * pl->d + kk] = (unsigned char)hit;
                s->evicts[g] |= used;
            }
        }
        for (int64_t kk = 0; kk < c->kd; ++kk)
            for (int64_t m = 0; m < ng; ++m) {
                const int64_t j = s->v + (int64_t)pl->q * (c->y * pl->c + g + (int64_t)pl->G * m);
                int hit = 0, used = 0;
                if (gemm_cache_take(s->cache[g], GEMM_POOL_B, (c->k0 + kk) * pl->nt + j,
                                    &bs[kk * pl->cg + m], &hit, &used, err) != 0)
                    return -1;
                bh[kk * pl->cg + m] = (unsigned char)hit;
                s->evicts[g] |= used;
            }
    }
    return 0;
}

/* Entry `at` of the directory a node peer (world rank `owner`) sent for this chunk. */
static int dir_entry(gemm_tiled *s, int owner, int64_t at, int *g, int64_t *slot, rt_err *err)
{
    const int mi = s->mate_of[owner];
    if (mi < 0 || at < 0 || at >= s->rdir_n[mi])
        return rt_err_set(err,
                          "gemm: no directory entry %lld from rank %d (%d entries): the "
                          "processes disagree on who pulls which tile",
                          (long long)at, owner, mi < 0 ? -1 : s->rdir_n[mi]);
    const int64_t e = s->rdir[(size_t)mi * (size_t)s->max_dir + (size_t)at];
    *g = (int)(e % 64);
    *slot = e / 64;
    return 0;
}

/* One tile into slot `slot` of GPU g from outside the process's GPUs: pulled from the GPU of its
 * owner (world rank owner >= 0: entry `at` of the owner's directory), else from host memory
 * (src: the rank's own store or the receive ring). Counted under ipc_cnt or h2d_cnt. */
static int load_external(gemm_tiled *s, int g, int64_t slot, int owner, int64_t at, const void *src,
                         int64_t el, int ipc_cnt, int h2d_cnt, rt_err *err)
{
    const size_t bytes = (size_t)el * s->elem;
    int rc;
    if (owner >= 0) {
        int sg = 0;
        int64_t sslot = 0;
        if (dir_entry(s, owner, at, &sg, &sslot, err) != 0)
            return -1;
        rc = s->ops->load_remote(s->eng, g, slot, s->mate_node[s->mate_of[owner]], sg, sslot, bytes,
                                 err);
        s->cnt[ipc_cnt] += 1.0;
        s->cnt[CNT_EL_IPC] += (double)el;
    } else {
        rc = s->ops->load_host(s->eng, g, slot, src, bytes, err);
        s->cnt[h2d_cnt] += 1.0;
        s->cnt[CNT_EL_H2D] += (double)el;
    }
    if (rc != 0)
        return -1;
    s->gpu_loads[g] += 1.0;
    return 0;
}

/* A tile (ib, kk) of the chunk into every GPU that computes in it and missed it: from a GPU that
 * holds it, else into one of them (round robin by tile) from its source, then device to device. */
static int issue_a(gemm_tiled *s, const chunk_at *c, int64_t ib, int64_t kk, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    const gemm_inputs *in = s->in;
    const int64_t il = c->row0 + ib, i = s->u + (int64_t)pl->p * il, k = c->k0 + kk;
    const int64_t at = ib * pl->d + kk, abd = pl->b * pl->d;
    int have = -1, missing = 0;
    for (int g = 0; g < c->nact; ++g) {
        if (s->ahit[(size_t)g * (size_t)abd + (size_t)at])
            have = have < 0 ? g : have;
        else
            missing = 1;
    }
    if (!missing)
        return 0;
    const int64_t el = tile_len(in->m, s->t, i) * tile_len(in->k, s->t, k);
    if (have < 0) {
        have = (int)((i * pl->kt + k) % c->nact);
        const int w = (int)(k % pl->q);
        const int pull = w != s->v && pulls_a(s, w, c->y);
        const int64_t nk = count_in(c->k0, c->kd, pl->q, w);
        if (load_external(s, have, s->aslot[c->f * pl->G + have][at], pull ? s->u * pl->q + w : -1,
                          ib * nk + count_in(c->k0, kk, pl->q, w),
                          w == s->v ? a_local(s, il, k) : ring_a(s, c->s, ib, kk), el, CNT_IPC_A,
                          CNT_H2D_A, err) != 0)
            return -1;
    }
    const int64_t src_slot = s->aslot[c->f * pl->G + have][at];
    for (int g = 0; g < c->nact; ++g) {
        if (g == have || s->ahit[(size_t)g * (size_t)abd + (size_t)at])
            continue;
        if (s->ops->load_peer(s->eng, g, s->aslot[c->f * pl->G + g][at], have, src_slot,
                              (size_t)el * s->elem, err) != 0)
            return -1;
        s->cnt[CNT_D2D_A] += 1.0;
        s->cnt[CNT_EL_D2D] += (double)el;
        s->gpu_loads[g] += 1.0;
    }
    return 0;
}

/* B tile (kk, m) of GPU g when it missed: from host memory, or from a node peer's GPU. */
static int issue_b(gemm_tiled *s, const chunk_at *c, int g, int64_t kk, int64_t m, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    const gemm_inputs *in = s->in;
    const int64_t at = kk * pl->cg + m;
    if (s->bhit[(size_t)g * (size_t)(pl->d * pl->cg) + (size_t)at])
        return 0;
    const int64_t jb = g + (int64_t)pl->G * m, jl = c->y * pl->c + jb;
    const int64_t j = s->v + (int64_t)pl->q * jl, k = c->k0 + kk;
    const int w = (int)(k % pl->p);
    const int pull = w != s->u && pulls_b(s, w, c->x);
    return load_external(s, g, s->bslot[c->f * pl->G + g][at], pull ? w * pl->q + s->v : -1,
                         count_in(c->k0, kk, pl->p, w) * c->bc + jb,
                         w == s->u ? b_local(s, k, jl) : ring_b(s, c->s, kk, jb),
                         tile_len(in->k, s->t, k) * tile_len(in->n, s->t, j), CNT_IPC_B, CNT_H2D_B,
                         err);
}

/* The copies of one phase (own: tiles this process owns; else the others), A and B interleaved
 * along k so the first products' tiles arrive first: for each kk, A (0, kk), then B (kk, 0) of
 * each GPU, A (1, kk), B (kk, 1), ... */
static int issue_phase(gemm_tiled *s, const chunk_at *c, int own, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    const int64_t span = c->br > pl->cg ? c->br : pl->cg;
    for (int64_t kk = 0; kk < c->kd; ++kk) {
        const int64_t k = c->k0 + kk;
        const int own_a = k % pl->q == s->v, own_b = k % pl->p == s->u;
        for (int64_t e = 0; e < span; ++e) {
            if (e < c->br && own_a == own && issue_a(s, c, e, kk, err) != 0)
                return -1;
            for (int g = 0; g < c->nact && own_b == own; ++g)
                if (e < gemm_plan_block_cols_gpu(pl, s->v, c->y, g) &&
                    issue_b(s, c, g, kk, e, err) != 0)
                    return -1;
        }
    }
    return 0;
}

/* The token slot of a chunk: its directory buffers and message requests, free again once the
 * messages of the chunk tok_ring before have completed. */
static int token_slot(gemm_tiled *s, int64_t chunk, rt_err *err)
{
    const int ts = (int)(chunk % s->tok_ring);
    if (complete_batch(&s->ntq[ts], s->tq + (size_t)ts * (size_t)(2 * s->n_mates),
                       "completing the ipc messages of a chunk", err) != 0)
        return -1;
    return ts;
}

/* After phase 1: tells every node peer of the row where this process's A tiles of the chunk are
 * (GPU 0 holds each of them: it computes in every block the process computes in), and every node
 * peer of the column where its B tiles are. Empty when it computes nothing in the chunk. */
static int send_directory(gemm_tiled *s, const chunk_at *c, int ts, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    int64_t *da = s->dir_a + (size_t)ts * (size_t)s->max_dir;
    int64_t *db = s->dir_b + (size_t)ts * (size_t)s->max_dir;
    int na = 0, nb = 0;
    if (c->br > 0 && c->bc > 0) {
        for (int64_t ib = 0; ib < c->br; ++ib)
            for (int64_t kk = 0; kk < c->kd; ++kk)
                if ((c->k0 + kk) % pl->q == s->v)
                    da[na++] = DIR_ENTRY(0, s->aslot[c->f * pl->G][ib * pl->d + kk]);
        for (int64_t kk = 0; kk < c->kd; ++kk) {
            if ((c->k0 + kk) % pl->p != s->u)
                continue;
            for (int64_t jb = 0; jb < c->bc; ++jb) {
                const int g = (int)(jb % pl->G);
                db[nb++] = DIR_ENTRY(g, s->bslot[c->f * pl->G + g][kk * pl->cg + jb / pl->G]);
            }
        }
    }
    MPI_Request *rq = s->tq + (size_t)ts * (size_t)(2 * s->n_mates);
    for (int mi = 0; mi < s->n_mates; ++mi) {
        const int rc = MPI_Isend(s->mate_row[mi] ? da : db, s->mate_row[mi] ? na : nb, MPI_INT64_T,
                                 s->mate_world[mi], GEMM_TAG_DIR, s->mpi, &rq[s->ntq[ts]++]);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "sending an ipc directory", err);
    }
    return 0;
}

/* Receives every node peer's directory of the chunk and checks its length against the plan. */
static int recv_directories(gemm_tiled *s, const chunk_at *c, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    for (int mi = 0; mi < s->n_mates; ++mi) {
        MPI_Status st;
        int rc = MPI_Recv(s->rdir + (size_t)mi * (size_t)s->max_dir, (int)s->max_dir, MPI_INT64_T,
                          s->mate_world[mi], GEMM_TAG_DIR, s->mpi, &st);
        int n = 0;
        if (rc == MPI_SUCCESS)
            rc = MPI_Get_count(&st, MPI_INT64_T, &n);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "receiving an ipc directory", err);
        s->rdir_n[mi] = n;
        /* What the owner holds: its A tiles of the chunk (a row peer) or its B tiles (a column
         * peer), when it computes in the chunk. */
        const int ow = s->mate_world[mi] / pl->q, ov = s->mate_world[mi] % pl->q;
        int64_t want = 0;
        if (s->mate_row[mi] && c->br > 0 && gemm_plan_block_cols(pl, ov, c->y) > 0)
            want = c->br * count_in(c->k0, c->kd, pl->q, ov);
        if (!s->mate_row[mi] && c->bc > 0 && gemm_plan_block_rows(pl, ow, c->x) > 0)
            want = count_in(c->k0, c->kd, pl->p, ow) * c->bc;
        if (n != want)
            return rt_err_set(err,
                              "gemm: chunk %lld: rank %d sent %d directory entries, the plan says "
                              "%lld",
                              (long long)c->s, s->mate_world[mi], n, (long long)want);
    }
    return 0;
}

static int send_done(gemm_tiled *s, int ts, rt_err *err)
{
    MPI_Request *rq = s->tq + (size_t)ts * (size_t)(2 * s->n_mates);
    for (int mi = 0; mi < s->n_mates; ++mi) {
        const int rc = MPI_Isend(NULL, 0, MPI_BYTE, s->mate_world[mi], GEMM_TAG_DONE, s->mpi,
                                 &rq[s->ntq[ts]++]);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "sending an ipc done message", err);
    }
    return 0;
}

static int recv_done(gemm_tiled *s, int mi, rt_err *err)
{
    const int rc =
        MPI_Recv(NULL, 0, MPI_BYTE, s->mate_world[mi], GEMM_TAG_DONE, s->mpi, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, "receiving an ipc done message", err);
}

/* Loads chunk s: takes its tiles in the GPUs' caches, waits for the last readers of the slots it
 * overwrites, copies in the tiles this process owns (phase 1), publishes where they are to the
 * node peers, then copies in the others' (phase 2). Every process exchanges its directory and
 * done messages with every node peer for every chunk, computing in it or not. */
static int load_chunk(gemm_tiled *s, int64_t chunk, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    const chunk_at c = chunk_of(s, chunk);
    const int r = (int)(chunk % s->ring);
    if (complete_batch(&s->nrq[r], s->rq[r], "waiting for the tiles of a chunk", err) != 0)
        return -1;
    const int active = c.br > 0 && c.bc > 0;
    if (active && take_chunk(s, &c, err) != 0)
        return -1;
    int evicts = 0;
    for (int g = 0; g < pl->G; ++g)
        evicts |= s->evicts[g];
    /* A slot in use was pinned until a chunk <= s - l - 1 was computed; its readers are that
     * chunk's products, the copies taken from it by this process's other GPUs, and the node
     * peers that pulled from it (done messages: one per peer and chunk, always received). */
    const int64_t after = chunk - pl->l - 1;
    for (int g = 0; g < pl->G; ++g)
        if (s->evicts[g] && s->ops->loads_begin(s->eng, g, after, err) != 0)
            return -1;
    for (int mi = 0; mi < s->n_mates && after >= 0; ++mi) {
        if (recv_done(s, mi, err) != 0)
            return -1;
        if (evicts && s->ops->wait_peer(s->eng, s->mate_node[mi], after, GEMM_MARK_LOADS, err) != 0)
            return -1;
    }
    if (active && issue_phase(s, &c, 1, err) != 0)
        return -1;
    int ts = 0;
    if (s->n_mates > 0) {
        if ((ts = token_slot(s, chunk, err)) < 0 ||
            s->ops->mark(s->eng, chunk, GEMM_MARK_OWN, err) != 0 ||
            send_directory(s, &c, ts, err) != 0 || recv_directories(s, &c, err) != 0)
            return -1;
        for (int mi = 0; mi < s->n_mates && active; ++mi)
            if (s->rdir_n[mi] > 0 &&
                s->ops->wait_peer(s->eng, s->mate_node[mi], chunk, GEMM_MARK_OWN, err) != 0)
                return -1;
    }
    if (active && issue_phase(s, &c, 0, err) != 0)
        return -1;
    if (s->ops->mark(s->eng, chunk, GEMM_MARK_LOADS, err) != 0)
        return -1;
    return s->n_mates > 0 ? send_done(s, ts, err) : 0;
}

/* Multiplies chunk s into the C block, writes the block back after its last chunk, unpins. */
static int compute_chunk(gemm_tiled *s, int64_t chunk, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    const gemm_inputs *in = s->in;
    const chunk_at c = chunk_of(s, chunk);
    for (int g = 0; g < c.nact && c.br > 0; ++g) {
        const int64_t ng = gemm_plan_block_cols_gpu(pl, s->v, c.y, g);
        const int64_t *as = s->aslot[c.f * pl->G + g], *bs = s->bslot[c.f * pl->G + g];
        /* A GPU's first chunk of a block starts its tail afresh: what is counted after the
         * run's last such chunk is the C written back after the GPU's last block. */
        if (c.z == 0 && ng > 0)
            s->tail[g] = s->tail_el[g] = 0.0;
        for (int64_t ib = 0; ib < c.br; ++ib) {
            const int64_t i = s->u + (int64_t)pl->p * (c.row0 + ib);
            /* Sub-blocks of the last block row keep their C in their rows' slots of the full
             * block: a sub-block's write-back never holds up the next one's first products. */
            const int64_t cs = (c.slot0 + ib) * pl->cg;
            for (int64_t m = 0; m < ng; ++m) {
                const int64_t j = s->v + (int64_t)pl->q * (c.y * pl->c + g + (int64_t)pl->G * m);
                for (int64_t kk = 0; kk < c.kd; ++kk) {
                    const int64_t k = c.k0 + kk;
                    if (s->ops->gemm(s->eng, g, cs + m, as[ib * pl->d + kk], bs[kk * pl->cg + m],
                                     tile_len(in->m, s->t, i), tile_len(in->n, s->t, j),
                                     tile_len(in->k, s->t, k), c.z > 0 || kk > 0, err) != 0)
                        return -1;
                    s->cnt[CNT_PRODUCTS] += 1.0;
                }
                if (c.z == pl->Z - 1) {
                    const int64_t il = c.row0 + ib, jl = c.y * pl->c + g + (int64_t)pl->G * m;
                    const int64_t el = tile_len(in->m, s->t, i) * tile_len(in->n, s->t, j);
                    if (s->ops->store_c(s->eng, g, cs + m, c_local(s, il, jl), (size_t)el * s->elem,
                                        err) != 0)
                        return -1;
                    s->c_writes[il * s->cols + jl]++;
                    s->cnt[CNT_D2H_C] += 1.0;
                    s->cnt[CNT_EL_D2H] += (double)el;
                    s->tail[g] += 1.0;
                    s->tail_el[g] += (double)el;
                }
            }
        }
    }
    if (s->ops->compute_end(s->eng, chunk, err) != 0)
        return -1;
    for (int g = 0; g < c.nact && c.br > 0; ++g) {
        const int64_t ng = gemm_plan_block_cols_gpu(pl, s->v, c.y, g);
        const int64_t *as = s->aslot[c.f * pl->G + g], *bs = s->bslot[c.f * pl->G + g];
        for (int64_t ib = 0; ib < c.br; ++ib)
            for (int64_t kk = 0; kk < c.kd; ++kk)
                if (gemm_cache_release(s->cache[g], GEMM_POOL_A, as[ib * pl->d + kk], err) != 0)
                    return -1;
        for (int64_t kk = 0; kk < c.kd; ++kk)
            for (int64_t m = 0; m < ng; ++m)
                if (gemm_cache_release(s->cache[g], GEMM_POOL_B, bs[kk * pl->cg + m], err) != 0)
                    return -1;
    }
    const int r = (int)(chunk % s->ring);
    return complete_batch(&s->nsq[r], s->sq[r], "waiting for the sends of a chunk", err);
}

/* The end of an execution with ipc: the done messages of the last l + 1 chunks (no load waited for
 * them), every message completed, every copy finished, then a barrier, so no process overwrites
 * its slots in the next execution while a peer still reads them. */
static int finish_run(gemm_tiled *s, int64_t S, rt_err *err)
{
    const int64_t first = S - s->pl.l - 1 > 0 ? S - s->pl.l - 1 : 0;
    for (int64_t e = first; e < S; ++e)
        for (int mi = 0; mi < s->n_mates; ++mi)
            if (recv_done(s, mi, err) != 0)
                return -1;
    for (int64_t ts = 0; ts < s->tok_ring && s->n_mates > 0; ++ts)
        if (token_slot(s, ts, err) < 0)
            return -1;
    if (s->ops->finish(s->eng, err) != 0)
        return -1;
    if (s->ipc_live) {
        const int rc = MPI_Barrier(s->mpi);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "the barrier after an ipc execution", err);
    }
    return 0;
}

int gemm_tiled_run(gemm_tiled *s, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    /* The failure test hook, agreed before any message so that no rank waits for a failed one. */
    int first = -1;
    char msg[512] = "";
    const int failed =
        gemm_fail_hook_agree(s->comm, s->fail_rank, s->rank, &first, msg, sizeof msg);
    if (failed < 0)
        return rt_err_set(err, "gemm: failure agreement: %s", rt_comm_last_error(s->comm));
    if (failed)
        return rt_err_set(err, "gemm: rank %d failed: %s", first, msg);

    memset(s->cnt, 0, sizeof s->cnt);
    for (int g = 0; g < pl->G; ++g) {
        gemm_cache_reset(s->cache[g]);
        s->gpu_loads[g] = s->tail[g] = s->tail_el[g] = 0.0;
    }
    memset(s->c_writes, 0, (size_t)(s->rows * s->cols) * sizeof *s->c_writes);
    const int64_t S = gemm_plan_chunks(pl), L = pl->l;
    int64_t posted = 0, loaded = 0;
    for (int64_t c = 0; c < S; ++c) {
        while (posted < S && posted <= c + 2 * L) {
            /* The receive buffer of chunk posted - ring is reused once its copies have read it. */
            if (posted >= s->ring && s->ring_used[posted % s->ring] &&
                s->ops->loads_done(s->eng, posted - s->ring, err) != 0)
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
    return finish_run(s, S, err);
}

static void *xcalloc(size_t n, size_t size, int *bad)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        *bad = 1;
    return p;
}

/* Fills the rank's own tiles of A and B (every tile a task: parallel even when the process has
 * few tile rows) and poisons C with NaN, so a tile never written fails verification; the pages
 * are touched by the threads that fill them. */
static void fill_stores(gemm_tiled *s)
{
    const gemm_plan *pl = &s->pl;
    const gemm_inputs *in = s->in;
    const int64_t t = s->t, na = s->rows * s->kq, nb = s->kp * s->cols, nc = s->rows * s->cols;
#pragma omp parallel for schedule(dynamic)
    for (int64_t e = 0; e < na; ++e) {
        const int64_t il = e / s->kq, kl = e % s->kq;
        const int64_t i = s->u + (int64_t)pl->p * il, k = s->v + (int64_t)pl->q * kl;
        gemm_fill_tile(in, 'A', i * t, k * t, tile_len(in->m, t, i), tile_len(in->k, t, k),
                       a_local(s, il, k));
    }
#pragma omp parallel for schedule(dynamic)
    for (int64_t e = 0; e < nb; ++e) {
        const int64_t kl = e / s->cols, jl = e % s->cols;
        const int64_t k = s->u + (int64_t)pl->p * kl, j = s->v + (int64_t)pl->q * jl;
        gemm_fill_tile(in, 'B', k * t, j * t, tile_len(in->k, t, k), tile_len(in->n, t, j),
                       b_local(s, k, jl));
    }
    const size_t tile_elems = (size_t)(t * t);
#pragma omp parallel for schedule(static)
    for (int64_t e = 0; e < nc; ++e) {
        char *c = s->c_store + (size_t)e * s->tile_bytes;
        for (size_t x = 0; x < tile_elems; ++x) {
            if (in->prec == RT_FP64)
                ((double *)c)[x] = NAN;
            else
                ((float *)c)[x] = NAN;
        }
    }
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
    s->mate_of = xcalloc((size_t)P, sizeof *s->mate_of, &bad);
    for (int r = 0; r < P && !bad; ++r) {
        s->tier_of[r] = r == rank ? 0 : rt_comm_tier_of(comm, r);
        s->mate_of[r] = -1;
    }
    s->a_bytes = (size_t)(s->rows * s->kq) * s->tile_bytes + 1;
    s->b_bytes = (size_t)(s->kp * s->cols) * s->tile_bytes + 1;
    s->c_bytes = (size_t)(s->rows * s->cols) * s->tile_bytes + 1;
    s->a_store = ops->host_alloc(eng, s->a_bytes);
    s->b_store = ops->host_alloc(eng, s->b_bytes);
    s->c_store = ops->host_alloc(eng, s->c_bytes);
    s->c_writes = xcalloc((size_t)(s->rows * s->cols), sizeof *s->c_writes, &bad);
    s->cache = xcalloc((size_t)pl->G, sizeof *s->cache, &bad);
    s->gpu_loads = xcalloc((size_t)pl->G, sizeof *s->gpu_loads, &bad);
    s->tail = xcalloc((size_t)pl->G, sizeof *s->tail, &bad);
    s->tail_el = xcalloc((size_t)pl->G, sizeof *s->tail_el, &bad);
    s->evicts = xcalloc((size_t)pl->G, sizeof *s->evicts, &bad);
    s->ahit = xcalloc((size_t)(pl->G * pl->b * pl->d), 1, &bad);
    s->bhit = xcalloc((size_t)(pl->G * pl->d * pl->cg), 1, &bad);
    s->ring = 2 * pl->l + 1;
    s->flight = pl->l + 1;
    s->rbuf = xcalloc((size_t)s->ring, sizeof *s->rbuf, &bad);
    s->ring_used = xcalloc((size_t)s->ring, sizeof *s->ring_used, &bad);
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
        /* One process receives nothing: no ring (it would be (b + c) d tiles per chunk). */
        s->rbuf[r] = P > 1 ? ops->host_alloc(eng, ring_bytes) : NULL;
        s->rq[r] = xcalloc((size_t)s->max_rq, sizeof(MPI_Request), &bad);
        s->sq[r] = xcalloc((size_t)s->max_sq, sizeof(MPI_Request), &bad);
        if (P > 1 && (!s->rbuf[r] || ops->host_pin(eng, s->rbuf[r], ring_bytes, err) != 0))
            bad = 1;
    }
    for (int f = 0; f < s->flight * pl->G; ++f) {
        s->aslot[f] = xcalloc((size_t)(pl->b * pl->d), sizeof(int64_t), &bad);
        s->bslot[f] = xcalloc((size_t)(pl->d * pl->cg), sizeof(int64_t), &bad);
    }
    if (bad)
        return err->msg[0]
                   ? -1
                   : rt_err_set(err, "gemm: out of memory for the receive ring of rank %d", rank);
    const int64_t base_a = pl->b * pl->cg;
    for (int g = 0; g < pl->G; ++g)
        if (gemm_cache_create(pl->pool_a, base_a, pl->pool_b, base_a + pl->pool_a, &s->cache[g],
                              err) != 0)
            return -1;
    const double t0 = rt_clock_now();
    fill_stores(s);
    const double t1 = rt_clock_now();
    if (ops->host_pin(eng, s->a_store, s->a_bytes, err) != 0 ||
        ops->host_pin(eng, s->b_store, s->b_bytes, err) != 0 ||
        ops->host_pin(eng, s->c_store, s->c_bytes, err) != 0)
        return -1;
    s->fill_s = t1 - t0;
    s->pin_s = rt_clock_now() - t1;
    return 0;
}

/* The node peers this process exchanges tiles with GPU to GPU: the processes of its row and of
 * its column on its node (ipc), with their node ranks. */
static int find_mates(gemm_tiled *s, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    const int P = pl->p * pl->q, most = pl->p + pl->q;
    s->mate_world = calloc((size_t)most, sizeof *s->mate_world);
    s->mate_node = calloc((size_t)most, sizeof *s->mate_node);
    s->mate_row = calloc((size_t)most, sizeof *s->mate_row);
    if (!s->mate_world || !s->mate_node || !s->mate_row)
        return rt_err_set(err, "gemm: out of memory for the ipc peers");
    MPI_Group world, node;
    int rc = MPI_Comm_group(s->mpi, &world);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_group(rt_comm_mpi(s->comm, RT_COMM_NODE), &node);
    for (int r = 0; r < P && rc == MPI_SUCCESS; ++r) {
        const int row = r / pl->q == s->u, col = r % pl->q == s->v;
        if (r == s->rank || !(row || col) || !same_node(s, r))
            continue;
        int nr = MPI_UNDEFINED;
        rc = MPI_Group_translate_ranks(world, 1, &r, node, &nr);
        if (rc == MPI_SUCCESS && nr == MPI_UNDEFINED)
            return rt_err_set(err, "gemm: rank %d is on this node but not in its communicator", r);
        s->mate_of[r] = s->n_mates;
        s->mate_world[s->n_mates] = r;
        s->mate_node[s->n_mates] = nr;
        s->mate_row[s->n_mates++] = row;
    }
    if (rc == MPI_SUCCESS) {
        MPI_Group_free(&world);
        MPI_Group_free(&node);
    }
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "finding the ipc peers", err);
    s->tok_ring = 2 * pl->l + 2;
    s->max_dir = pl->b * pl->d + pl->d * pl->c;
    s->tq = calloc((size_t)(s->tok_ring * 2 * (s->n_mates > 0 ? s->n_mates : 1)), sizeof *s->tq);
    s->ntq = calloc((size_t)s->tok_ring, sizeof *s->ntq);
    s->dir_a = calloc((size_t)(s->tok_ring * s->max_dir), sizeof *s->dir_a);
    s->dir_b = calloc((size_t)(s->tok_ring * s->max_dir), sizeof *s->dir_b);
    s->rdir = calloc((size_t)((s->n_mates > 0 ? s->n_mates : 1) * s->max_dir), sizeof *s->rdir);
    s->rdir_n = calloc((size_t)(s->n_mates > 0 ? s->n_mates : 1), sizeof *s->rdir_n);
    if (!s->tq || !s->ntq || !s->dir_a || !s->dir_b || !s->rdir || !s->rdir_n)
        return rt_err_set(err, "gemm: out of memory for the ipc messages");
    return 0;
}

int gemm_tiled_connect(gemm_tiled *s, void *comm, int rc, const char *what, rt_err *err)
{
    if (!comm)
        return rc != 0
                   ? rc
                   : rt_err_set(err, "%s: the tiled kernel needs the harness's MPI layer", what);
    rc = rt_comm_agree_outcome(comm, rc, what, "setup", err);
    if (rc != 0 || !s->pl.ipc || s->pl.p * s->pl.q == 1)
        return rc;
    rc = s->ops->share(s->eng, rt_comm_mpi(comm, RT_COMM_NODE), err);
    s->ipc_live = 1; /* every rank entered the collective share: teardown synchronizes */
    if (rc == 0)
        rc = find_mates(s, err);
    return rt_comm_agree_outcome(comm, rc, what, "ipc setup", err);
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
    free(s->ring_used);
    free(s->rq);
    free(s->sq);
    free(s->nrq);
    free(s->nsq);
    free(s->aslot);
    free(s->bslot);
    free(s->ahit);
    free(s->bhit);
    free(s->evicts);
    free(s->cache);
    free(s->gpu_loads);
    free(s->tail);
    free(s->tail_el);
    free(s->c_writes);
    free(s->tier_of);
    free(s->mate_of);
    free(s->mate_world);
    free(s->mate_node);
    free(s->mate_row);
    free(s->tq);
    free(s->ntq);
    free(s->dir_a);
    free(s->dir_b);
    free(s->rdir);
    free(s->rdir_n);
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
    if (gemm_samples_gather(s->in, s->t, s->pl.p, s->pl.q, s->rank, s->c_store, s->cols, s->comm,
                            out, err) != 0)
        return -1;
    /* The metric c_sample_checksum: every schedule of one tile size adds each C tile's products
     * in the same order of k, so lookahead, budget, G and transport must leave it unchanged. */
    s->checksum = 0.0;
    for (int64_t i = 0; i < s->in->sample1 - s->in->sample0; ++i)
        s->checksum += out[i];
    return 0;
}

int gemm_tiled_traffic(const gemm_inputs *in, const gemm_plan *pl, int64_t t, void *comm, int rank,
                       int links, rt_traffic *tr, rt_err *err)
{
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
    s.flight = 1; /* chunk_of's flight slot; nothing is in flight in the model */
    const int P = pl->p * pl->q;
    int tiers[4096];
    s.tier_of = tiers;
    if (P > (int)(sizeof tiers / sizeof tiers[0]))
        return rt_err_set(err, "gemm: traffic model limited to 4096 ranks");
    for (int r = 0; r < P; ++r)
        tiers[r] = (r == rank || !comm) ? 0 : rt_comm_tier_of(comm, r);
    double bytes[3] = {0, 0, 0}, msgs[3] = {0, 0, 0};
    for (int64_t c = 0; c < gemm_plan_chunks(pl); ++c) {
        const chunk_at at = chunk_of(&s, c);
        if (send_chunk(&s, &at, 1, bytes, msgs, err) != 0)
            return -1;
    }
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
    /* The links of the rank's GPUs, by the exact model. */
    gemm_proc_counts pc;
    gemm_model_process(pl, s.u, s.v, tiers, &pc);
    const double e = (double)s.elem;
    tr->h2d_bytes = pc.el_h2d * e;
    tr->d2h_bytes = pc.el_d2h * e;
    if (links)
        tr->peer_bytes = (pc.el_d2d + pc.el_ipc) * e;
    tr->overlap = 1; /* loads, messages and products of different chunks run at once */
    return 0;
}

int gemm_tiled_metrics(gemm_tiled *s, rt_metrics *m, rt_err *err)
{
    const gemm_plan *pl = &s->pl;
    /* Sums over ranks: measured counters, then the plan's model of the same. */
    enum {
        M_H2D_A = CNT_N,
        M_H2D_B,
        M_D2D_A,
        M_IPC_A,
        M_IPC_B,
        M_D2H_C,
        M_RECV,
        M_LOADS,
        M_EL_H2D,
        M_EL_D2H,
        M_EL_D2D,
        M_EL_IPC,
        M_SUM,
        M_TAIL,    /* measured: C tiles written back in each GPU's last block */
        M_EL_TAIL, /* and their elements */
        M_MTAIL,   /* the model's */
        M_MEL_TAIL,
        M_N
    };
    double sum[M_N];
    memcpy(sum, s->cnt, sizeof s->cnt);
    gemm_proc_counts pc;
    gemm_model_process(pl, s->u, s->v, s->tier_of, &pc);
    sum[M_H2D_A] = pc.h2d_a;
    sum[M_H2D_B] = pc.h2d_b;
    sum[M_D2D_A] = pc.d2d_a;
    sum[M_IPC_A] = pc.ipc_a;
    sum[M_IPC_B] = pc.ipc_b;
    sum[M_D2H_C] = pc.d2h_c;
    sum[M_RECV] = pc.recv_a + pc.recv_b;
    sum[M_LOADS] = pc.h2d_a + pc.h2d_b + pc.d2d_a + pc.d2d_b + pc.ipc_a + pc.ipc_b + pc.d2h_c;
    sum[M_EL_H2D] = pc.el_h2d;
    sum[M_EL_D2H] = pc.el_d2h;
    sum[M_EL_D2D] = pc.el_d2d;
    sum[M_EL_IPC] = pc.el_ipc;
    sum[M_SUM] = s->checksum;
    sum[M_TAIL] = sum[M_EL_TAIL] = 0.0;
    for (int g = 0; g < pl->G; ++g) {
        sum[M_TAIL] += s->tail[g];
        sum[M_EL_TAIL] += s->tail_el[g];
    }
    sum[M_MTAIL] = pc.d2h_tail;
    sum[M_MEL_TAIL] = pc.el_tail;
    /* Maxima: tiles loaded by one GPU (measured), writes of one C tile, setup times; minima via
     * negation. */
    double mx[5] = {0.0, 0.0, 0.0, s->fill_s, s->pin_s};
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
        rc = MPI_Allreduce(MPI_IN_PLACE, mx, 5, MPI_DOUBLE, MPI_MAX, w);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "summing the counters", err);
    const double P = (double)pl->p * pl->q, GP = P * pl->G, el = (double)s->elem;
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
    rt_metrics_add(m, "transport_ipc", "flag", pl->ipc && P > 1 ? 1.0 : 0.0, 1);
    rt_metrics_add(m, "tail_split", "count", (double)pl->xs, 1);
    rt_metrics_add(m, "tail_block_rows", "count", (double)pl->bs, 1);
    /* Eq. (1) assumes A is reloaded for every block column in cases (b) and (c); when the pool
     * left beside B holds all A tiles of a process row, LRU keeps them and A is loaded once (the
     * exact count then equals case (a)'s form and Eq. (1) overcounts). */
    const int64_t a_row = (pl->mt + pl->p - 1) / pl->p * pl->kt;
    rt_metrics_add(m, "a_pool_holds_row", "flag", pl->pool_a >= a_row ? 1.0 : 0.0, 1);
    rt_metrics_add(m, "tiles_h2d_a", "count", sum[CNT_H2D_A], 1);
    rt_metrics_add(m, "tiles_h2d_b", "count", sum[CNT_H2D_B], 1);
    rt_metrics_add(m, "tiles_d2d_a", "count", sum[CNT_D2D_A], 1);
    rt_metrics_add(m, "tiles_ipc_a", "count", sum[CNT_IPC_A], 1);
    rt_metrics_add(m, "tiles_ipc_b", "count", sum[CNT_IPC_B], 1);
    rt_metrics_add(m, "tiles_d2h_c", "count", sum[CNT_D2H_C], 1);
    rt_metrics_add(m, "model_tiles_h2d_a", "count", sum[M_H2D_A], 1);
    rt_metrics_add(m, "model_tiles_h2d_b", "count", sum[M_H2D_B], 1);
    rt_metrics_add(m, "model_tiles_d2d_a", "count", sum[M_D2D_A], 1);
    rt_metrics_add(m, "model_tiles_ipc_a", "count", sum[M_IPC_A], 1);
    rt_metrics_add(m, "model_tiles_ipc_b", "count", sum[M_IPC_B], 1);
    rt_metrics_add(m, "model_tiles_d2h_c", "count", sum[M_D2H_C], 1);
    /* Bytes over each path, all ranks: host to device, device to host, between the GPUs of a
     * process, pulled from node peers' GPUs; and the exact model of each (ragged tiles too). */
    rt_metrics_add(m, "bytes_h2d", "bytes", sum[CNT_EL_H2D] * el, 1);
    rt_metrics_add(m, "bytes_d2h", "bytes", sum[CNT_EL_D2H] * el, 1);
    rt_metrics_add(m, "bytes_d2d", "bytes", sum[CNT_EL_D2D] * el, 1);
    rt_metrics_add(m, "bytes_ipc", "bytes", sum[CNT_EL_IPC] * el, 1);
    rt_metrics_add(m, "model_bytes_h2d", "bytes", sum[M_EL_H2D] * el, 1);
    rt_metrics_add(m, "model_bytes_d2h", "bytes", sum[M_EL_D2H] * el, 1);
    rt_metrics_add(m, "model_bytes_d2d", "bytes", sum[M_EL_D2D] * el, 1);
    rt_metrics_add(m, "model_bytes_ipc", "bytes", sum[M_EL_IPC] * el, 1);
    /* The tail (all GPUs): C written back after each GPU's last block, which nothing of the
     * GPU's overlaps but that block's last chunk. */
    rt_metrics_add(m, "tiles_d2h_tail", "count", sum[M_TAIL], 1);
    rt_metrics_add(m, "model_tiles_d2h_tail", "count", sum[M_MTAIL], 1);
    rt_metrics_add(m, "bytes_d2h_tail", "bytes", sum[M_EL_TAIL] * el, 1);
    rt_metrics_add(m, "model_bytes_d2h_tail", "bytes", sum[M_MEL_TAIL] * el, 1);
    const double loads = sum[CNT_H2D_A] + sum[CNT_H2D_B] + sum[CNT_D2D_A] + sum[CNT_D2D_B] +
                         sum[CNT_IPC_A] + sum[CNT_IPC_B] + sum[CNT_D2H_C];
    const double eq1 = gemm_eq1(pl);
    rt_metrics_add(m, "tiles_gpu_avg", "count", loads / GP, 1);
    rt_metrics_add(m, "tiles_gpu_max", "count", mx[0] + 0.0, 1);
    rt_metrics_add(m, "model_tiles_gpu_avg", "count", sum[M_LOADS] / GP, 1);
    rt_metrics_add(m, "model_eq1_tiles_gpu", "count", eq1, 1);
    rt_metrics_add(m, "ratio_tiles_gpu_eq1", "ratio", eq1 > 0 ? loads / GP / eq1 : NAN, 1);
    rt_metrics_add(m, "ratio_h2d_eq1", "ratio",
                   eq1 > 0 ? (sum[CNT_H2D_A] + sum[CNT_H2D_B] + sum[CNT_D2H_C]) / GP / eq1 : NAN,
                   1);
    /* Issue 19's share: of the tiles copied into GPUs, those that came from another GPU (of the
     * process, or of a node peer with ipc). */
    const double d2d = sum[CNT_D2D_A] + sum[CNT_D2D_B] + sum[CNT_IPC_A] + sum[CNT_IPC_B];
    const double into = sum[CNT_H2D_A] + sum[CNT_H2D_B] + d2d;
    const double d2d_model = sum[M_D2D_A] + sum[M_IPC_A] + sum[M_IPC_B];
    const double into_model = sum[M_H2D_A] + sum[M_H2D_B] + d2d_model;
    rt_metrics_add(m, "share_d2d_loads", "ratio", into > 0 ? d2d / into : 0.0, 1);
    rt_metrics_add(m, "model_share_d2d_loads", "ratio",
                   into_model > 0 ? d2d_model / into_model : 0.0, 1);
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
    /* Setup of the slowest rank: filling A, B and C (parallel), and pinning them for the GPU. */
    rt_metrics_add(m, "setup_fill_s", "s", mx[3], 0);
    rt_metrics_add(m, "setup_pin_s", "s", mx[4], 0);
    return 0;
}
