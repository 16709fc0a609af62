#include "spmm2d_kernels.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "rt_clock.h"
#include "rt_comm.h"
#include "rt_comm_rma.h"
#include "rt_schema.h"
#include "spmm2d_dist.h"
#include "spmm2d_engine.h"
#include "spmm2d_family.h"
#include "spmm2d_layout.h"
#include "spmm2d_local.h"
#include "spmm2d_queue.h"
#include "spmm2d_workgrid.h"

/* ---------------------------------------------------------------------------------------------
 * Parameters */

#define P_PR                                                                                       \
    {                                                                                              \
        "pr", RT_V_INT, "0..65536", "0", 0,                                                        \
            "process grid rows (pc = ranks / pr); 0 = the most square grid"                        \
    }
#define P_REFINE                                                                                   \
    {                                                                                              \
        "refine", RT_V_INT, "1..64", "1", 0,                                                       \
            "tile grid refinement: tile rows = pr * refine, tile columns = pc * refine"            \
    }
#define P_PREFETCH                                                                                 \
    {                                                                                              \
        "prefetch", RT_V_INT, "0..1", "1", 0,                                                      \
            "1: fetch the next tiles with non-blocking gets during the multiply"                   \
    }
#define P_SLOTS                                                                                    \
    {                                                                                              \
        "queue_slots", RT_V_INT, "1..65536", "64", 0,                                              \
            "slots of each rank's remote accumulation queue"                                       \
    }
#define P_SEED                                                                                     \
    {                                                                                              \
        "steal_seed", RT_V_INT, "0..2147483647", "1", 0,                                           \
            "seed of the order in which idle ranks try other tiles"                                \
    }

const rt_param_schema rt_spmm2d_sc_params[RT_SPMM2D_SC_NPARAMS] = {P_PR, P_REFINE, P_PREFETCH};
const rt_param_schema rt_spmm2d_sa_params[RT_SPMM2D_SA_NPARAMS] = {P_PR, P_REFINE, P_PREFETCH,
                                                                   P_SLOTS};
const rt_param_schema rt_spmm2d_summa_params[RT_SPMM2D_SUMMA_NPARAMS] = {P_PR, P_REFINE};
const rt_param_schema rt_spmm2d_ws_params[RT_SPMM2D_WS_NPARAMS] = {P_PR, P_REFINE, P_PREFETCH,
                                                                   P_SLOTS, P_SEED};
#define sc_params    rt_spmm2d_sc_params
#define sa_params    rt_spmm2d_sa_params
#define summa_params rt_spmm2d_summa_params
#define ws_params    rt_spmm2d_ws_params

#define NPARAMS(a) ((int)(sizeof a / sizeof a[0]))

typedef enum sp2_alg {
    ALG_SC = 0,      /* stationary C */
    ALG_SA = 1,      /* stationary A */
    ALG_SB = 2,      /* stationary B */
    ALG_SUMMA = 3,   /* bulk-synchronous SUMMA */
    ALG_SUMMA_A = 4, /* reduce-based stationary-A SUMMA */
    ALG_WS_RANDOM = 5,
    ALG_WS_LOCALITY = 6
} sp2_alg;

/* What a kernel is: its algorithm and family, found from the descriptor's name. */
typedef struct sp2_kind_info {
    const char *name;
    sp2_alg alg;
    int spgemm;
} sp2_kind_info;

static const sp2_kind_info kinds[] = {
    {"spmm2d.cpu.stationary_c", ALG_SC, 0},
    {"spmm2d.cpu.stationary_a", ALG_SA, 0},
    {"spmm2d.cpu.stationary_b", ALG_SB, 0},
    {"spmm2d.cpu.summa", ALG_SUMMA, 0},
    {"spmm2d.cpu.summa_a", ALG_SUMMA_A, 0},
    {"spmm2d.cpu.ws_random", ALG_WS_RANDOM, 0},
    {"spmm2d.cpu.ws_locality", ALG_WS_LOCALITY, 0},
    {"spgemm2d.cpu.stationary_c", ALG_SC, 1},
    {"spgemm2d.cpu.stationary_a", ALG_SA, 1},
    {"spgemm2d.cpu.summa", ALG_SUMMA, 1},
    /* The GPU kernels (kernels/spmm2d/cuda/) run the same algorithms with the GPU engine. */
    {"spmm2d.cuda.stationary_c", ALG_SC, 0},
    {"spmm2d.cuda.stationary_a", ALG_SA, 0},
    {"spmm2d.cuda.stationary_b", ALG_SB, 0},
    {"spmm2d.cuda.summa", ALG_SUMMA, 0},
    {"spmm2d.cuda.summa_a", ALG_SUMMA_A, 0},
    {"spmm2d.cuda.ws_random", ALG_WS_RANDOM, 0},
    {"spmm2d.cuda.ws_locality", ALG_WS_LOCALITY, 0},
    {"spgemm2d.cuda.stationary_c", ALG_SC, 1},
    {"spgemm2d.cuda.stationary_a", ALG_SA, 1},
    {"spgemm2d.cuda.summa", ALG_SUMMA, 1},
};

static const sp2_kind_info *kind_of(const rt_kernel_desc *d)
{
    for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; ++q)
        if (strcmp(kinds[q].name, d->name) == 0)
            return &kinds[q];
    return NULL;
}

static int uses_queue(sp2_alg a)
{
    return a == ALG_SA || a == ALG_SB || a == ALG_WS_RANDOM || a == ALG_WS_LOCALITY;
}

static int is_rdma(sp2_alg a)
{
    return a != ALG_SUMMA && a != ALG_SUMMA_A;
}

static int is_ws(sp2_alg a)
{
    return a == ALG_WS_RANDOM || a == ALG_WS_LOCALITY;
}

/* The point's parameters, with defaults for the ones a schema lacks. */
typedef struct sp2_opts {
    int pr, refine, prefetch;
    int64_t slots;
    uint64_t steal_seed;
} sp2_opts;

static int read_opts(const rt_kernel_desc *self, const rt_params *p, sp2_opts *o, rt_err *err)
{
    int64_t v = 0;
    memset(o, 0, sizeof *o);
    o->prefetch = 1;
    o->slots = 64;
    o->steal_seed = 1;
    if (rt_schema_int(self->params, self->n_params, self->name, p, "pr", &v, err) != 0)
        return -1;
    o->pr = (int)v;
    if (rt_schema_int(self->params, self->n_params, self->name, p, "refine", &v, err) != 0)
        return -1;
    o->refine = (int)v;
    for (int q = 0; q < self->n_params; ++q) {
        const char *n = self->params[q].name;
        if (strcmp(n, "prefetch") == 0 || strcmp(n, "queue_slots") == 0 ||
            strcmp(n, "steal_seed") == 0) {
            if (rt_schema_int(self->params, self->n_params, self->name, p, n, &v, err) != 0)
                return -1;
            if (n[0] == 'p')
                o->prefetch = (int)v;
            else if (n[0] == 'q')
                o->slots = v;
            else
                o->steal_seed = (uint64_t)v;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * State */

typedef struct sp2_item {
    int i, j, k;
    int stolen;
} sp2_item;

/* One buffer set of the fetch pipeline: the tiles of one product, local or being fetched. */
typedef struct sp2_slot {
    sp2_item it;
    int live;
    sp2_fetch fa, fb;
    const void *ablk, *bblk;
} sp2_slot;

/* Per-execution time breakdown of this rank (the paper's Table 2 columns). */
typedef struct sp2_times {
    double compute, comm, accum, imbalance, total;
    double staging; /* host<->device copies of tiles and partials (GPU engine) */
} sp2_times;

typedef struct sp2_state {
    const rt_kernel_desc *desc;
    const sp2_engine *eng; /* where the local multiplies run */
    void *es;              /* the engine's state */
    sp2_alg alg;
    int spgemm;
    const sp2_inputs *in;
    rt_comm *comm;
    sp2_layout L;
    sp2_opts opt;
    rt_precision prec;
    size_t eb; /* bytes per value */

    sp2_dmat A, B;
    int have_a, have_b;
    int64_t *a_nnz;    /* nonzeros of every A tile (MT x KT), from the directory */
    int *col_nonempty; /* per k: some A(i, k) has nonzeros */

    /* C: the tiles this rank owns. */
    int n_c;
    int *c_tiles;   /* tile ids i * NT + j, increasing */
    int *c_slot;    /* MT * NT -> index in c_tiles or -1 */
    int64_t *c_off; /* SpMM: element offset of each owned tile in c_data */
    void *c_data;
    int64_t c_elems;
    sp2_spacc *c_acc;  /* SpGEMM: partial products per owned tile */
    sp2_csrbuf *c_csr; /* SpGEMM: the finished tiles of the last execution */
    sp2_spa spa;
    sp2_csrbuf part;                /* SpGEMM partial product */
    void *part_dense;               /* SpMM partial product (largest C tile) */
    int64_t *c_rows_of, *c_cols_of; /* per owned C tile (for the engine) */
    sp2_operand *ops_a, *ops_b;     /* stationary-A SUMMA: the products of one partial C tile */
    int64_t max_c_rows, max_c_cols;

    /* RDMA variants */
    unsigned char *stage_a[2], *stage_b[2];
    size_t stage_a_bytes, stage_b_bytes, bc_a_bytes, bc_b_bytes, part_bytes;
    sp2_slot slots[2];
    sp2_queue *queue;
    sp2_workgrid *wg;
    sp2_item *items;
    int64_t n_items;
    int *cand; /* work stealing (random): candidate A tiles, own ones first */
    int64_t n_cand, n_own_cand;
    int *task_seen; /* work stealing: executions per task in this run */
    int *task_all;
    int64_t n_task_ids;

    /* SUMMA */
    MPI_Comm row_comm, col_comm;
    unsigned char *bc_a, *bc_b;
    const void **blk_a, **blk_b;

    /* Bookkeeping of the executions since setup. */
    sp2_times run, sum;
    int64_t runs;
    double run_flops;
    double *stage_flops; /* KT, last execution */
    int64_t tasks_total, tasks_exec, tasks_stolen;
    int64_t run_bytes[RT_TIER_COUNT];
    sp2_queue_stats qstats;
} sp2_state;

/* Iterator state of the item sources. */
typedef struct sp2_source {
    int64_t pos;  /* static list / candidates */
    int phase;    /* locality stealing: 0 own C, 1 own A, 2 own B, 3 done */
    int64_t a, b; /* nested positions */
} sp2_source;

static int64_t task_id(const sp2_layout *L, int i, int j, int k)
{
    return ((int64_t)i * L->KT + k) * L->NT + j;
}

static int64_t align8(int64_t x)
{
    return (x + 7) & ~(int64_t)7;
}

static MPI_Datatype mpi_value_type(rt_precision p)
{
    return p == RT_FP32 ? MPI_FLOAT : MPI_DOUBLE;
}

/* ---------------------------------------------------------------------------------------------
 * C tiles and their accumulation */

/* C shares A's tile rows and B's tile columns. */
static int64_t c_rows(const sp2_state *s, int i)
{
    return s->A.row_bounds[i + 1] - s->A.row_bounds[i];
}

static int64_t c_cols(const sp2_state *s, int j)
{
    return s->B.col_bounds[j + 1] - s->B.col_bounds[j];
}

static void *c_tile_ptr(const sp2_state *s, int slot)
{
    return (unsigned char *)s->c_data + (size_t)s->c_off[slot] * s->eb;
}

static void c_zero(sp2_state *s)
{
    if (s->spgemm) {
        for (int q = 0; q < s->n_c; ++q)
            sp2_spacc_clear(&s->c_acc[q]);
    } else if (s->c_elems > 0) {
        memset(s->c_data, 0, (size_t)s->c_elems * s->eb);
    }
}

/* Header of a queue message: C tile, first row, rows (and for SpGEMM, nonzeros). */
enum { HDR_DENSE = 3 * 8, HDR_SPARSE = 4 * 8 };

static int64_t sparse_msg_bytes(int64_t nrows, int64_t nnz, size_t eb)
{
    return HDR_SPARSE + 8 * (nrows + 1) + align8(4 * nnz) + align8((int64_t)eb * nnz);
}

/* The owner's side of a queue message: accumulate it into the C tile. Messages are checked
 * against the tile they name, so a corrupted slot is reported instead of writing out of bounds. */
static int on_message(void *ctx, const void *msg, size_t bytes, rt_err *err)
{
    sp2_state *s = ctx;
    const unsigned char *m = msg;
    const size_t hdr = s->spgemm ? HDR_SPARSE : HDR_DENSE;
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
    const int64_t rows = c_rows(s, i), cols = c_cols(s, j);
    if (row0 < 0 || nrows < 0 || row0 + nrows > rows)
        return rt_err_set(err, "queue message for rows %lld..%lld of a %lld-row C tile",
                          (long long)row0, (long long)(row0 + nrows), (long long)rows);
    if (!s->spgemm) {
        if (bytes != hdr + (size_t)(nrows * cols) * s->eb)
            return rt_err_set(err, "queue message of %zu bytes for %lld x %lld values", bytes,
                              (long long)nrows, (long long)cols);
        const int64_t n = nrows * cols;
        if (s->prec == RT_FP32) {
            float *c = (float *)c_tile_ptr(s, slot) + row0 * cols;
            const float *p = (const float *)(m + hdr);
            for (int64_t q = 0; q < n; ++q)
                c[q] += p[q];
        } else {
            double *c = (double *)c_tile_ptr(s, slot) + row0 * cols;
            const double *p = (const double *)(m + hdr);
            for (int64_t q = 0; q < n; ++q)
                c[q] += p[q];
        }
        return 0;
    }
    const int64_t nnz = h[3];
    if (nnz < 0 || bytes != (size_t)sparse_msg_bytes(nrows, nnz, s->eb))
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
static int push_dense(sp2_state *s, int owner, int ci, const void *part, int64_t rows, int64_t cols,
                      rt_err *err)
{
    const int64_t row_bytes = cols * (int64_t)s->eb;
    const int64_t per = ((int64_t)sp2_queue_capacity(s->queue) - HDR_DENSE) / row_bytes;
    if (per < 1)
        return rt_err_set(err, "a row of %lld values does not fit a queue slot", (long long)cols);
    for (int64_t r0 = 0; r0 < rows; r0 += per) {
        const int64_t nr = rows - r0 < per ? rows - r0 : per;
        unsigned char *buf = sp2_queue_buffer(s->queue);
        const int64_t h[3] = {ci, r0, nr};
        memcpy(buf, h, HDR_DENSE);
        memcpy(buf + HDR_DENSE, (const unsigned char *)part + r0 * row_bytes,
               (size_t)(nr * row_bytes));
        if (sp2_queue_push(s->queue, owner, (size_t)(HDR_DENSE + nr * row_bytes), err) != 0)
            return -1;
    }
    return 0;
}

/* Sends a sparse partial C tile (CSR) to its owner in chunks of whole rows. */
static int push_sparse(sp2_state *s, int owner, int ci, const sp2_csrbuf *p, rt_err *err)
{
    if (p->nnz == 0)
        return 0; /* nothing to add: no message */
    const int64_t cap = (int64_t)sp2_queue_capacity(s->queue);
    int64_t r0 = 0;
    while (r0 < p->rows) {
        int64_t nr = 0, nnz = 0;
        while (r0 + nr < p->rows) {
            const int64_t len = p->rowptr[r0 + nr + 1] - p->rowptr[r0 + nr];
            if (sparse_msg_bytes(nr + 1, nnz + len, s->eb) > cap)
                break;
            nnz += len;
            ++nr;
        }
        if (nr == 0)
            return rt_err_set(err, "a row of a partial C tile does not fit a queue slot");
        unsigned char *buf = sp2_queue_buffer(s->queue);
        const int64_t h[4] = {ci, r0, nr, nnz};
        memcpy(buf, h, HDR_SPARSE);
        int64_t *rp = (int64_t *)(buf + HDR_SPARSE);
        const int64_t base = p->rowptr[r0];
        for (int64_t q = 0; q <= nr; ++q)
            rp[q] = p->rowptr[r0 + q] - base;
        memcpy(buf + HDR_SPARSE + 8 * (nr + 1), p->colidx + base, (size_t)(4 * nnz));
        memcpy(buf + HDR_SPARSE + 8 * (nr + 1) + align8(4 * nnz),
               (const unsigned char *)p->val + (size_t)base * s->eb, (size_t)nnz * s->eb);
        if (sp2_queue_push(s->queue, owner, (size_t)sparse_msg_bytes(nr, nnz, s->eb), err) != 0)
            return -1;
        r0 += nr;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * One product C(i,j) += A(i,k) * B(k,j), with the tiles already here. */

static double now(void)
{
    return rt_clock_now();
}

/* Queue work done inside a call is accumulation; the rest of the call's time is communication. */
static double handler_time(const sp2_state *s)
{
    if (!s->queue)
        return 0.0;
    sp2_queue_stats st;
    sp2_queue_stats_read(s->queue, &st);
    return st.handler_s;
}

static void add_etimes(sp2_state *s, const sp2_etimes *t)
{
    s->run.compute += t->compute;
    s->run.staging += t->staging;
}

static int multiply(sp2_state *s, const sp2_item *it, const void *ablk, const void *bblk,
                    rt_err *err)
{
    sp2_operand a, b;
    sp2_operand_make(&a, &s->A, it->i, it->k, ablk);
    sp2_operand_make(&b, &s->B, it->k, it->j, bblk);
    const int ci = it->i * s->L.NT + it->j;
    const int owner = sp2_owner(&s->L, SP2_OWN_C, it->i, it->j);
    double flops = 0.0;
    sp2_etimes et = {0.0, 0.0};
    if (!s->spgemm) {
        if (owner == s->L.me) {
            const int slot = s->c_slot[ci];
            const int rc =
                s->eng->spmm_acc(s->es, &a, &b, slot, c_tile_ptr(s, slot), &flops, &et, err);
            add_etimes(s, &et);
            if (rc != 0)
                return -1;
        } else {
            const int rc = s->eng->spmm_partial(s->es, 1, &a, &b, a.t.rows, b.t.cols, s->part_dense,
                                                &flops, &et, err);
            add_etimes(s, &et);
            if (rc != 0)
                return -1;
            const double t1 = now(), h0 = handler_time(s);
            if (push_dense(s, owner, ci, s->part_dense, a.t.rows, b.t.cols, err) != 0)
                return -1;
            const double h = handler_time(s) - h0;
            s->run.comm += now() - t1 - h;
            s->run.accum += h;
        }
    } else {
        const int rc = s->eng->spgemm(s->es, &a, &b, &s->part, &flops, &et, err);
        add_etimes(s, &et);
        if (rc != 0)
            return -1;
        const double t1 = now();
        if (owner == s->L.me) {
            if (sp2_spacc_add_csr(&s->c_acc[s->c_slot[ci]], 0, s->part.rows, s->part.rowptr,
                                  s->part.colidx, s->part.val, err) != 0)
                return -1;
            s->run.accum += now() - t1;
        } else {
            const double h0 = handler_time(s);
            if (push_sparse(s, owner, ci, &s->part, err) != 0)
                return -1;
            const double h = handler_time(s) - h0;
            s->run.comm += now() - t1 - h;
            s->run.accum += h;
        }
    }
    s->run_flops += flops;
    s->stage_flops[it->k] += flops;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Where the work comes from: a static list (stationary A, B, C) or claims on a work grid. */

/* Fills *it with the next product this rank executes; *have = 0 when there is none left. */
static int next_item(sp2_state *s, sp2_source *src, sp2_item *it, int *have, rt_err *err)
{
    const sp2_layout *L = &s->L;
    *have = 0;
    if (!is_ws(s->alg)) {
        if (src->pos < s->n_items) {
            *it = s->items[src->pos++];
            *have = 1;
        }
        return 0;
    }
    if (s->alg == ALG_WS_RANDOM) {
        /* 2D grid: the counter of A(i,k) hands out its column tiles in turn. */
        while (src->pos < s->n_cand) {
            const int t = s->cand[src->pos];
            const int i = t / L->KT, k = t % L->KT;
            int64_t got = 0;
            if (sp2_workgrid_claim(s->wg, t, &got, err) != 0)
                return -1;
            if (got < L->NT) {
                it->i = i;
                it->k = k;
                it->j = (int)((i + k + got) % L->NT); /* offset i + k, as stationary A */
                it->stolen = src->pos >= s->n_own_cand;
                *have = 1;
                return 0;
            }
            src->pos++;
        }
        return 0;
    }
    /* 3D grid: one counter per product; the first claimer (value 0) executes it. */
    for (;;) {
        int i = 0, j = 0, k = 0, stolen = 0, any = 0;
        if (src->phase == 0) { /* my C tiles */
            if (src->a >= s->n_c) {
                src->phase = 1;
                src->a = src->b = 0;
                continue;
            }
            const int ci = s->c_tiles[src->a];
            i = ci / L->NT;
            j = ci % L->NT;
            if (src->b >= L->KT) {
                src->a++;
                src->b = 0;
                continue;
            }
            k = (int)((i + j + src->b) % L->KT);
            src->b++;
            any = 1;
        } else if (src->phase == 1) { /* products that use my A tiles */
            if (src->a >= (int64_t)L->MT * L->KT) {
                src->phase = 2;
                src->a = src->b = 0;
                continue;
            }
            i = (int)(src->a / L->KT);
            k = (int)(src->a % L->KT);
            if (sp2_owner(L, SP2_OWN_A, i, k) != L->me || src->b >= L->NT) {
                src->a++;
                src->b = 0;
                continue;
            }
            j = (int)((i + k + src->b) % L->NT);
            src->b++;
            stolen = 1;
            any = sp2_owner(L, SP2_OWN_C, i, j) != L->me; /* my own C products were phase 0 */
        } else if (src->phase == 2) {                     /* products that use my B tiles */
            if (src->a >= (int64_t)L->KT * L->NT) {
                src->phase = 3;
                continue;
            }
            k = (int)(src->a / L->NT);
            j = (int)(src->a % L->NT);
            if (sp2_owner(L, SP2_OWN_B, k, j) != L->me || src->b >= L->MT) {
                src->a++;
                src->b = 0;
                continue;
            }
            i = (int)((k + j + src->b) % L->MT);
            src->b++;
            stolen = 1;
            any = sp2_owner(L, SP2_OWN_C, i, j) != L->me && sp2_owner(L, SP2_OWN_A, i, k) != L->me;
        } else {
            return 0;
        }
        if (!any || s->a_nnz[(int64_t)i * L->KT + k] == 0)
            continue;
        int64_t got = 0;
        if (sp2_workgrid_claim(s->wg, ((int64_t)i * L->NT + j) * L->KT + k, &got, err) != 0)
            return -1;
        if (got != 0)
            continue;
        it->i = i;
        it->j = j;
        it->k = k;
        it->stolen = stolen;
        *have = 1;
        return 0;
    }
}

/* Starts fetching the tiles of `it` into buffer set q (local tiles are used in place). */
static int issue(sp2_state *s, int q, const sp2_item *it, rt_err *err)
{
    sp2_slot *sl = &s->slots[q];
    sl->it = *it;
    sl->live = 1;
    sl->fa.n = sl->fb.n = 0;
    sl->ablk = sp2_dmat_local_block(&s->A, it->i, it->k);
    if (!sl->ablk) {
        if (sp2_dmat_fetch(&s->A, it->i, it->k, s->stage_a[q], &sl->fa, err) != 0)
            return -1;
        sl->ablk = s->stage_a[q];
    }
    sl->bblk = sp2_dmat_local_block(&s->B, it->k, it->j);
    if (!sl->bblk) {
        if (sp2_dmat_fetch(&s->B, it->k, it->j, s->stage_b[q], &sl->fb, err) != 0)
            return -1;
        sl->bblk = s->stage_b[q];
    }
    return 0;
}

static void abandon(sp2_state *s)
{
    rt_err ignored;
    for (int q = 0; q < 2; ++q) {
        sp2_fetch_wait(&s->slots[q].fa, &ignored);
        sp2_fetch_wait(&s->slots[q].fb, &ignored);
        s->slots[q].live = 0;
    }
}

static int complete(sp2_state *s, int q, rt_err *err)
{
    sp2_slot *sl = &s->slots[q];
    const double t0 = now();
    const int rc = sp2_fetch_wait(&sl->fa, err) == 0 && sp2_fetch_wait(&sl->fb, err) == 0;
    s->run.comm += now() - t0;
    sl->live = 0;
    if (!rc)
        return -1;
    if (multiply(s, &sl->it, sl->ablk, sl->bblk, err) != 0)
        return -1;
    if (is_ws(s->alg)) {
        s->task_seen[task_id(&s->L, sl->it.i, sl->it.j, sl->it.k)]++;
        s->tasks_exec++;
        s->tasks_stolen += sl->it.stolen;
    }
    return 0;
}

static int poll_queue(sp2_state *s, rt_err *err)
{
    if (!s->queue)
        return 0;
    const double t0 = now(), h0 = handler_time(s);
    const int rc = sp2_queue_poll(s->queue, NULL, err);
    const double h = handler_time(s) - h0;
    s->run.comm += now() - t0 - h;
    s->run.accum += h;
    return rc;
}

/* The item loop of the RDMA variants, with prefetch of the next item's tiles when enabled. */
static int rdma_loop(sp2_state *s, rt_err *err)
{
    sp2_source src;
    memset(&src, 0, sizeof src);
    sp2_item it, nit;
    int have = 0, have_next = 0, cur = 0;
    double t0 = now();
    if (next_item(s, &src, &it, &have, err) != 0 || (have && issue(s, cur, &it, err) != 0))
        goto fail;
    s->run.comm += now() - t0;
    while (have) {
        if (s->opt.prefetch) {
            t0 = now();
            if (next_item(s, &src, &nit, &have_next, err) != 0 ||
                (have_next && issue(s, 1 - cur, &nit, err) != 0))
                goto fail;
            s->run.comm += now() - t0;
        }
        if (complete(s, cur, err) != 0 || poll_queue(s, err) != 0)
            goto fail;
        if (s->opt.prefetch) {
            have = have_next;
            cur = 1 - cur;
        } else {
            t0 = now();
            if (next_item(s, &src, &it, &have, err) != 0 || (have && issue(s, cur, &it, err) != 0))
                goto fail;
            s->run.comm += now() - t0;
        }
    }
    return 0;
fail:
    abandon(s);
    return -1;
}

/* ---------------------------------------------------------------------------------------------
 * SUMMA */

static int bcast_block(sp2_state *s, void *buf, int64_t bytes, MPI_Comm comm, int root,
                       int root_world, rt_err *err)
{
    const int64_t piece = (int64_t)1 << 30;
    for (int64_t off = 0; off < bytes; off += piece) {
        const int64_t n = bytes - off < piece ? bytes - off : piece;
        const int rc = MPI_Bcast((unsigned char *)buf + off, (int)n, MPI_BYTE, root, comm);
        if (rc != MPI_SUCCESS)
            return rt_err_set(err, "MPI_Bcast of a %lld-byte tile failed (code %d)",
                              (long long)bytes, rc);
    }
    /* Counted by the receiver, like a get: the bytes that came to this rank. */
    if (root_world != s->L.me)
        return rt_comm_count_to(s->comm, root_world, bytes, err);
    return 0;
}

static int summa_loop(sp2_state *s, rt_err *err)
{
    const sp2_layout *L = &s->L;
    const int R = L->refine;
    for (int k = 0; k < L->KT; ++k) {
        const int rc_root = k % L->pc, rr_root = k % L->pr;
        double t0 = now();
        for (int t = 0; t < R; ++t) {
            const int i = L->myr + t * L->pr;
            const sp2_tile_info *e = sp2_dmat_info(&s->A, i, k);
            s->blk_a[t] = NULL;
            if (e->nnz == 0)
                continue;
            void *buf = (L->myc == rc_root) ? (void *)(s->A.local + e->offset)
                                            : (void *)(s->bc_a + (int64_t)t * s->A.max_bytes);
            if (bcast_block(s, buf, e->bytes, s->row_comm, rc_root, L->myr * L->pc + rc_root,
                            err) != 0)
                return -1;
            s->blk_a[t] = buf;
        }
        for (int t = 0; t < R; ++t) {
            const int j = L->myc + t * L->pc;
            const sp2_tile_info *e = sp2_dmat_info(&s->B, k, j);
            s->blk_b[t] = NULL;
            if (!s->col_nonempty[k])
                continue;
            void *buf = (L->myr == rr_root) ? (void *)(s->B.local + e->offset)
                                            : (void *)(s->bc_b + (int64_t)t * s->B.max_bytes);
            if (bcast_block(s, buf, e->bytes, s->col_comm, rr_root, rr_root * L->pc + L->myc,
                            err) != 0)
                return -1;
            s->blk_b[t] = buf;
        }
        s->run.comm += now() - t0;
        for (int ta = 0; ta < R; ++ta)
            for (int tb = 0; tb < R; ++tb) {
                if (!s->blk_a[ta] || !s->blk_b[tb])
                    continue;
                const sp2_item it = {L->myr + ta * L->pr, L->myc + tb * L->pc, k, 0};
                if (multiply(s, &it, s->blk_a[ta], s->blk_b[tb], err) != 0)
                    return -1;
            }
    }
    return 0;
}

/* Stationary-A SUMMA: B^T-distributed B broadcast down process columns, partial C reduced along
 * process rows to the owner of each C tile. SpMM only (dense partials). */
static int summa_a_loop(sp2_state *s, rt_err *err)
{
    const sp2_layout *L = &s->L;
    const int nk = L->KT / L->pc;
    const MPI_Datatype dt = mpi_value_type(s->prec);
    for (int j = 0; j < L->NT; ++j) {
        const int rr_root = j % L->pr, rc_root = j % L->pc;
        double t0 = now();
        for (int t = 0; t < nk; ++t) {
            const int k = L->myc + t * L->pc;
            const sp2_tile_info *e = sp2_dmat_info(&s->B, k, j);
            s->blk_b[t] = NULL;
            if (!s->col_nonempty[k])
                continue;
            void *buf = (L->myr == rr_root) ? (void *)(s->B.local + e->offset)
                                            : (void *)(s->bc_b + (int64_t)t * s->B.max_bytes);
            if (bcast_block(s, buf, e->bytes, s->col_comm, rr_root, rr_root * L->pc + L->myc,
                            err) != 0)
                return -1;
            s->blk_b[t] = buf;
        }
        s->run.comm += now() - t0;
        for (int ti = 0; ti < L->refine; ++ti) {
            const int i = L->myr + ti * L->pr;
            const int64_t rows = c_rows(s, i), cols = c_cols(s, j);
            int n = 0;
            for (int t = 0; t < nk; ++t) {
                const int k = L->myc + t * L->pc;
                const sp2_tile_info *e = sp2_dmat_info(&s->A, i, k);
                if (!s->blk_b[t] || e->nnz == 0)
                    continue;
                sp2_operand_make(&s->ops_a[n], &s->A, i, k, s->A.local + e->offset);
                sp2_operand_make(&s->ops_b[n], &s->B, k, j, s->blk_b[t]);
                s->stage_flops[k] += 2.0 * (double)e->nnz * (double)cols;
                ++n;
            }
            double f = 0.0;
            sp2_etimes et = {0.0, 0.0};
            const int erc = s->eng->spmm_partial(s->es, n, s->ops_a, s->ops_b, rows, cols,
                                                 s->part_dense, &f, &et, err);
            add_etimes(s, &et);
            if (erc != 0)
                return -1;
            s->run_flops += f;
            const double t1 = now();
            const int ci = i * L->NT + j;
            const int root = L->myc == rc_root;
            void *recv = root ? c_tile_ptr(s, s->c_slot[ci]) : NULL;
            const int rc = MPI_Reduce(s->part_dense, recv, (int)(rows * cols), dt, MPI_SUM, rc_root,
                                      s->row_comm);
            if (rc != MPI_SUCCESS)
                return rt_err_set(err, "MPI_Reduce of C tile (%d, %d) failed (code %d)", i, j, rc);
            if (root)
                for (int c = 0; c < L->pc; ++c)
                    if (c != L->myc && rt_comm_count_to(s->comm, L->myr * L->pc + c,
                                                        rows * cols * (int64_t)s->eb, err) != 0)
                        return -1;
            s->run.accum += now() - t1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * One execution */

static int finalize_c(sp2_state *s, rt_err *err)
{
    if (!s->spgemm)
        return 0;
    const double t0 = now();
    for (int q = 0; q < s->n_c; ++q)
        if (sp2_spacc_finalize(&s->c_acc[q], &s->spa, &s->c_csr[q], err) != 0)
            return -1;
    s->run.accum += now() - t0;
    return 0;
}

/* Work stealing: every task ran exactly once, counted over all ranks (outside the timed part). */
static int check_tasks(sp2_state *s, rt_err *err)
{
    const int64_t n = s->n_task_ids;
    if (n > INT_MAX)
        return rt_err_set(err, "%lld tasks are too many to check", (long long)n);
    const int rc = MPI_Allreduce(s->task_seen, s->task_all, (int)n, MPI_INT, MPI_SUM,
                                 rt_comm_mpi(s->comm, RT_COMM_WORLD));
    if (rc != MPI_SUCCESS)
        return rt_err_set(err, "MPI_Allreduce of the task counts failed (code %d)", rc);
    int64_t executed = 0;
    for (int64_t t = 0; t < n; ++t) {
        const int64_t j = t % s->L.NT, ik = t / s->L.NT;
        const int want = s->a_nnz[ik] > 0 ? 1 : 0;
        executed += s->task_all[t];
        if (s->task_all[t] != want)
            return rt_err_set(err,
                              "work stealing: task C(%lld,%lld) += A(%lld,%lld) B(%lld,%lld) "
                              "ran %d times (want %d)",
                              (long long)(ik / s->L.KT), (long long)j, (long long)(ik / s->L.KT),
                              (long long)(ik % s->L.KT), (long long)(ik % s->L.KT), (long long)j,
                              s->task_all[t], want);
    }
    if (executed != s->tasks_total)
        return rt_err_set(err, "work stealing: %lld tasks executed, %lld in the grid",
                          (long long)executed, (long long)s->tasks_total);
    return 0;
}

static int sp2_run(void *state, double *seconds, rt_err *err)
{
    sp2_state *s = state;
    const sp2_layout *L = &s->L;
    memset(&s->run, 0, sizeof s->run);
    s->run_flops = 0.0;
    s->tasks_exec = s->tasks_stolen = 0;
    for (int k = 0; k < L->KT; ++k)
        s->stage_flops[k] = 0.0;
    if (s->task_seen)
        memset(s->task_seen, 0, (size_t)s->n_task_ids * sizeof *s->task_seen);
    int64_t bytes0[RT_TIER_COUNT], bytes1[RT_TIER_COUNT];
    rt_comm_counters_read(s->comm, bytes0, NULL);

    const double start = now();
    int ok = 1;
    rt_err local;
    rt_err_clear(&local);
    c_zero(s);
    if (s->eng->begin_run(s->es, &local) != 0)
        ok = 0;
    if (ok && s->queue && sp2_queue_reset(s->queue, &local) != 0)
        ok = 0;
    if (ok && s->wg && sp2_workgrid_reset(s->wg, &local) != 0)
        ok = 0;
    /* Nobody may push or claim before every rank has cleared its queue and grid. */
    if (is_rdma(s->alg) && rt_comm_barrier(s->comm, &local) != 0)
        ok = 0;
    s->run.comm += now() - start;

    if (ok) {
        if (is_rdma(s->alg))
            ok = rdma_loop(s, &local) == 0;
        else if (s->alg == ALG_SUMMA)
            ok = summa_loop(s, &local) == 0;
        else
            ok = summa_a_loop(s, &local) == 0;
    }
    /* A rank that failed still announces and drains, so no other rank waits for it forever. */
    if (s->queue) {
        rt_err qerr;
        if (sp2_queue_finish(s->queue, ok ? &local : &qerr) != 0)
            ok = 0;
        double idle = 0.0;
        const double t0 = now(), h0 = handler_time(s);
        if (sp2_queue_drain_all(s->queue, &idle, ok ? &local : &qerr) != 0)
            ok = 0;
        const double h = handler_time(s) - h0;
        s->run.accum += h;
        s->run.imbalance += idle;
        s->run.comm += (now() - t0) - h - idle;
        sp2_queue_stats_read(s->queue, &s->qstats);
    }
    if (ok && finalize_c(s, &local) != 0)
        ok = 0;
    const double tb = now();
    rt_err berr;
    if (rt_comm_barrier(s->comm, &berr) != 0 && ok) {
        local = berr;
        ok = 0;
    }
    const double end = now();
    s->run.imbalance += end - tb;
    s->run.total = end - start;
    *seconds = end - start;
    rt_comm_counters_read(s->comm, bytes1, NULL);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        s->run_bytes[t] = bytes1[t] - bytes0[t];

    if (ok && is_ws(s->alg) && check_tasks(s, &local) != 0)
        ok = 0;
    s->sum.compute += s->run.compute;
    s->sum.comm += s->run.comm;
    s->sum.accum += s->run.accum;
    s->sum.imbalance += s->run.imbalance;
    s->sum.total += s->run.total;
    s->sum.staging += s->run.staging;
    s->runs++;
    if (!ok)
        *err = local;
    if (sp2_agree(s->comm, ok, err) != 0)
        return rt_err_prefix(err, "%s", s->desc->name);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Output: the canonical rows of C (see spmm2d_family.h) */

static int output_dense(sp2_state *s, double *out, rt_err *err)
{
    const sp2_layout *L = &s->L;
    const int P = L->P, me = L->me;
    const int64_t m = L->m, n = L->n;
    const int64_t r0 = sp2_split(m, P, me), r1 = sp2_split(m, P, me + 1);
    int64_t *scount = calloc((size_t)P, sizeof *scount),
            *rcount = calloc((size_t)P, sizeof *rcount);
    int *sc = malloc((size_t)P * sizeof *sc), *sd = malloc((size_t)P * sizeof *sd);
    int *rc = malloc((size_t)P * sizeof *rc), *rd = malloc((size_t)P * sizeof *rd);
    int64_t *cursor = malloc((size_t)P * sizeof *cursor);
    double *sbuf = NULL, *rbuf = NULL;
    int ok = scount && rcount && sc && sd && rc && rd && cursor;
    if (!ok)
        rt_err_set(err, "out of memory redistributing C");
    /* What goes where: my tiles' rows to their canonical owners, in tile then row order. */
    for (int q = 0; ok && q < s->n_c; ++q) {
        const int ci = s->c_tiles[q], i = ci / L->NT, j = ci % L->NT;
        for (int64_t r = s->A.row_bounds[i]; r < s->A.row_bounds[i + 1]; ++r)
            scount[sp2_part_of(m, P, r)] += c_cols(s, j);
    }
    for (int src = 0; ok && src < P; ++src)
        for (int i = 0; i < L->MT; ++i) {
            const int64_t lo = s->A.row_bounds[i] > r0 ? s->A.row_bounds[i] : r0;
            const int64_t hi = s->A.row_bounds[i + 1] < r1 ? s->A.row_bounds[i + 1] : r1;
            if (lo >= hi)
                continue;
            for (int j = 0; j < L->NT; ++j)
                if (sp2_owner(L, SP2_OWN_C, i, j) == src)
                    rcount[src] += (hi - lo) * c_cols(s, j);
        }
    int64_t stot = 0, rtot = 0;
    for (int p = 0; ok && p < P; ++p) {
        if (stot > INT_MAX || rtot > INT_MAX || scount[p] > INT_MAX || rcount[p] > INT_MAX) {
            ok = rt_err_set(err, "C is too large to redistribute with 32-bit counts") == 0;
            break;
        }
        sd[p] = (int)stot;
        rd[p] = (int)rtot;
        sc[p] = (int)scount[p];
        rc[p] = (int)rcount[p];
        stot += scount[p];
        rtot += rcount[p];
    }
    if (ok && (stot > INT_MAX || rtot > INT_MAX))
        ok = rt_err_set(err, "C is too large to redistribute with 32-bit counts") == 0;
    if (ok) {
        sbuf = malloc((size_t)(stot > 0 ? stot : 1) * sizeof *sbuf);
        rbuf = malloc((size_t)(rtot > 0 ? rtot : 1) * sizeof *rbuf);
        ok = sbuf && rbuf;
        if (!ok)
            rt_err_set(err, "out of memory redistributing C");
    }
    if (ok) {
        for (int p = 0; p < P; ++p)
            cursor[p] = sd[p];
        for (int q = 0; q < s->n_c; ++q) {
            const int ci = s->c_tiles[q], i = ci / L->NT, j = ci % L->NT;
            const int64_t cols = c_cols(s, j);
            for (int64_t r = 0; r < c_rows(s, i); ++r) {
                const int dest = sp2_part_of(m, P, s->A.row_bounds[i] + r);
                double *d = sbuf + cursor[dest];
                for (int64_t c = 0; c < cols; ++c)
                    d[c] = s->prec == RT_FP32
                               ? (double)((const float *)c_tile_ptr(s, q))[r * cols + c]
                               : ((const double *)c_tile_ptr(s, q))[r * cols + c];
                cursor[dest] += cols;
            }
        }
    }
    /* Every rank enters the exchange, with empty buffers when it failed above. */
    if (sp2_agree(s->comm, ok, err) != 0) {
        ok = 0;
    } else {
        const int mrc = MPI_Alltoallv(sbuf, sc, sd, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE,
                                      rt_comm_mpi(s->comm, RT_COMM_WORLD));
        if (mrc != MPI_SUCCESS)
            ok = rt_err_set(err, "MPI_Alltoallv of C failed (code %d)", mrc) == 0;
    }
    if (ok) {
        for (int src = 0; src < P; ++src) {
            int64_t at = rd[src];
            for (int i = 0; i < L->MT; ++i) {
                const int64_t lo = s->A.row_bounds[i] > r0 ? s->A.row_bounds[i] : r0;
                const int64_t hi = s->A.row_bounds[i + 1] < r1 ? s->A.row_bounds[i + 1] : r1;
                if (lo >= hi)
                    continue;
                for (int j = 0; j < L->NT; ++j) {
                    if (sp2_owner(L, SP2_OWN_C, i, j) != src)
                        continue;
                    const int64_t c0 = s->B.col_bounds[j], cols = c_cols(s, j);
                    for (int64_t r = lo; r < hi; ++r) {
                        memcpy(out + (r - r0) * n + c0, rbuf + at, (size_t)cols * sizeof *out);
                        at += cols;
                    }
                }
            }
        }
    }
    free(scount);
    free(rcount);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(cursor);
    free(sbuf);
    free(rbuf);
    return ok ? 0 : -1;
}

static int output_signature(sp2_state *s, double *out, rt_err *err)
{
    const sp2_layout *L = &s->L;
    const int P = L->P, S = SP2_SIG_COLS;
    const int64_t m = L->m;
    double *sig = calloc((size_t)m * S, sizeof *sig);
    int *counts = malloc((size_t)P * sizeof *counts);
    int ok = sig && counts && m * S <= INT_MAX;
    if (!ok)
        rt_err_set(err, "cannot build the %lld x %d signature of C", (long long)m, S);
    for (int p = 0; ok && p < P; ++p)
        counts[p] = (int)((sp2_split(m, P, p + 1) - sp2_split(m, P, p)) * S);
    for (int q = 0; ok && q < s->n_c; ++q) {
        const int ci = s->c_tiles[q], i = ci / L->NT, j = ci % L->NT;
        const sp2_csrbuf *c = &s->c_csr[q];
        const int64_t rb = s->A.row_bounds[i], cb = s->B.col_bounds[j];
        for (int64_t r = 0; r < c->rows; ++r)
            for (int64_t e = c->rowptr[r]; e < c->rowptr[r + 1]; ++e) {
                const double v = s->prec == RT_FP32 ? (double)((const float *)c->val)[e]
                                                    : ((const double *)c->val)[e];
                const int64_t gc = cb + c->colidx[e];
                for (int t = 0; t < S; ++t)
                    sig[(rb + r) * S + t] += v * sp2_sig_value(s->in->seed, gc, t);
            }
    }
    if (sp2_agree(s->comm, ok, err) != 0) {
        ok = 0;
    } else {
        const int rc = MPI_Reduce_scatter(sig, out, counts, MPI_DOUBLE, MPI_SUM,
                                          rt_comm_mpi(s->comm, RT_COMM_WORLD));
        if (rc != MPI_SUCCESS)
            ok = rt_err_set(err, "MPI_Reduce_scatter of the signatures failed (code %d)", rc) == 0;
    }
    free(sig);
    free(counts);
    return ok ? 0 : -1;
}

static int sp2_output(void *state, double *out, rt_err *err)
{
    sp2_state *s = state;
    /* C tiles the engine holds on a device join the host C (which holds what arrived through the
     * queues or reductions); agreed on, so no rank enters the exchange below alone. */
    if (!s->spgemm && s->eng->merge_c) {
        const int ok = s->eng->merge_c(s->es, s->c_data, err) == 0;
        if (sp2_agree(s->comm, ok, err) != 0)
            return rt_err_prefix(err, "%s output", s->desc->name);
    }
    const int rc = s->spgemm ? output_signature(s, out, err) : output_dense(s, out, err);
    return rc == 0 ? 0 : rt_err_prefix(err, "%s output", s->desc->name);
}

/* ---------------------------------------------------------------------------------------------
 * Metrics: the breakdown per rank, reduced to max and average over ranks */

static int sp2_metrics(void *state, rt_metrics *m, rt_err *err)
{
    sp2_state *s = state;
    const sp2_layout *L = &s->L;
    MPI_Comm world = rt_comm_mpi(s->comm, RT_COMM_WORLD);
    const double runs = s->runs > 0 ? (double)s->runs : 1.0;
    enum {
        T_COMPUTE,
        T_COMM,
        T_ACCUM,
        T_IMB,
        T_RUN,
        FLOPS,
        ANNZ,
        PUSHED,
        FULL,
        EXEC,
        STOLEN,
        B_SOCKET,
        B_NODE,
        B_GLOBAL,
        CNNZ,
        T_STAGE,
        NV
    };
    double v[NV], mx[NV], sm[NV];
    memset(v, 0, sizeof v);
    v[T_COMPUTE] = s->sum.compute / runs;
    v[T_COMM] = s->sum.comm / runs;
    v[T_ACCUM] = s->sum.accum / runs;
    v[T_IMB] = s->sum.imbalance / runs;
    v[T_RUN] = s->sum.total / runs;
    v[T_STAGE] = s->sum.staging / runs;
    v[FLOPS] = s->run_flops;
    v[ANNZ] = (double)s->A.local_nnz;
    v[PUSHED] = (double)s->qstats.pushed;
    v[FULL] = (double)s->qstats.full_waits;
    v[EXEC] = (double)s->tasks_exec;
    v[STOLEN] = (double)s->tasks_stolen;
    v[B_SOCKET] = (double)s->run_bytes[RT_TIER_SOCKET];
    v[B_NODE] = (double)s->run_bytes[RT_TIER_NODE];
    v[B_GLOBAL] = (double)s->run_bytes[RT_TIER_GLOBAL];
    for (int q = 0; s->spgemm && q < s->n_c; ++q)
        v[CNNZ] += (double)s->c_csr[q].nnz;
    double *stage_mx = malloc((size_t)L->KT * 2 * sizeof *stage_mx);
    int rc = stage_mx ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(v, mx, NV, MPI_DOUBLE, MPI_MAX, world);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(v, sm, NV, MPI_DOUBLE, MPI_SUM, world);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(s->stage_flops, stage_mx, L->KT, MPI_DOUBLE, MPI_MAX, world);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(s->stage_flops, stage_mx + L->KT, L->KT, MPI_DOUBLE, MPI_SUM, world);
    if (rc != MPI_SUCCESS) {
        free(stage_mx);
        return rt_err_set(err, "%s metrics: reduction over ranks failed (code %d)", s->desc->name,
                          rc);
    }
    const double P = (double)L->P;
    static const char *const tname[] = {"compute_s", "comm_s", "accum_s", "imbalance_s", "run_s"};
    for (int q = T_COMPUTE; q <= T_RUN; ++q) {
        char name[64];
        snprintf(name, sizeof name, "%s_max", tname[q]);
        rt_metrics_add(m, name, "s", mx[q], 0);
        snprintf(name, sizeof name, "%s_avg", tname[q]);
        rt_metrics_add(m, name, "s", sm[q] / P, 0);
    }
    /* Load imbalance of the work (max / avg over ranks), end to end and as a bulk-synchronous
     * algorithm stepping through k would see it: the sum over stages of each stage's maximum
     * against the sum of its averages (the paper's Fig. 1). Work stealing changes it per run. */
    const int det = !is_ws(s->alg);
    if (sm[FLOPS] > 0) {
        rt_metrics_add(m, "flops_rank_max", "flop", mx[FLOPS], det);
        rt_metrics_add(m, "flops_rank_avg", "flop", sm[FLOPS] / P, det);
        rt_metrics_add(m, "flops_imbalance", "ratio", mx[FLOPS] / (sm[FLOPS] / P), det);
        double smax = 0.0, ssum = 0.0;
        for (int k = 0; k < L->KT; ++k) {
            smax += stage_mx[k];
            ssum += stage_mx[L->KT + k];
        }
        if (ssum > 0)
            rt_metrics_add(m, "flops_stage_imbalance", "ratio", smax / (ssum / P), det);
    }
    free(stage_mx);
    if (sm[ANNZ] > 0)
        rt_metrics_add(m, "a_nnz_imbalance", "ratio", mx[ANNZ] / (sm[ANNZ] / P), 1);
    rt_metrics_add(m, "grid_pr", "count", L->pr, 1);
    rt_metrics_add(m, "grid_pc", "count", L->pc, 1);
    rt_metrics_add(m, "tiles_m", "count", L->MT, 1);
    rt_metrics_add(m, "tiles_k", "count", L->KT, 1);
    rt_metrics_add(m, "tiles_n", "count", L->NT, 1);
    if (s->queue) {
        rt_metrics_add(m, "queue_messages", "count", sm[PUSHED], 0);
        rt_metrics_add(m, "queue_full_waits", "count", sm[FULL], 0);
    }
    if (is_ws(s->alg)) {
        rt_metrics_add(m, "tasks_total", "count", (double)s->tasks_total, 1);
        rt_metrics_add(m, "tasks_executed", "count", sm[EXEC], 1);
        rt_metrics_add(m, "tasks_stolen", "count", sm[STOLEN], 0);
    }
    /* Measured traffic of the last execution: the busiest rank's (the inter-node roofline's
     * operand) and the whole job's, per tier. */
    static const char *const tiers[] = {"socket", "node", "global"};
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        char name[64];
        snprintf(name, sizeof name, "net_bytes_%s_max", tiers[t]);
        rt_metrics_add(m, name, "bytes", mx[B_SOCKET + t], 0);
        snprintf(name, sizeof name, "net_bytes_%s_sum", tiers[t]);
        rt_metrics_add(m, name, "bytes", sm[B_SOCKET + t], 0);
    }
    if (s->spgemm)
        rt_metrics_add(m, "c_nnz", "count", sm[CNNZ], 1);
    if (s->eng->stages) {
        rt_metrics_add(m, "staging_s_max", "s", mx[T_STAGE], 0);
        rt_metrics_add(m, "staging_s_avg", "s", sm[T_STAGE] / P, 0);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Traffic model: what this rank must move and compute in one execution, by the static assignment
 * of its algorithm (work stealing is modelled by the assignment it starts from). */

typedef struct sp2_model {
    const sp2_layout *L;
    const sp2_inputs *in;
    size_t eb;
    int64_t *annz;               /* MT x KT */
    int64_t *bnnz;               /* KT x NT (SpGEMM) */
    int64_t *arow, *acol, *bcol; /* tile bounds */
    rt_comm *comm;
    rt_traffic *t;
    char *used_a, *used_b;
} sp2_model;

/* Bytes a get of the tile moves (exactly what sp2_dmat_fetch asks for). */
static int64_t model_get_bytes_a(const sp2_model *md, int i, int k)
{
    const int64_t rows = md->arow[i + 1] - md->arow[i], nnz = md->annz[(int64_t)i * md->L->KT + k];
    return 8 * (rows + 1) + (4 + (int64_t)md->eb) * nnz;
}

static int64_t model_get_bytes_b(const sp2_model *md, int k, int j)
{
    const int64_t rows = md->acol[k + 1] - md->acol[k], cols = md->bcol[j + 1] - md->bcol[j];
    if (md->in->spgemm) {
        const int64_t nnz = md->bnnz[(int64_t)k * md->L->NT + j];
        return 8 * (rows + 1) + (4 + (int64_t)md->eb) * nnz;
    }
    return sp2_dense_block_bytes(rows, cols, md->in->prec);
}

static int64_t model_block_bytes_a(const sp2_model *md, int i, int k)
{
    return sp2_sparse_block_bytes(md->arow[i + 1] - md->arow[i],
                                  md->annz[(int64_t)i * md->L->KT + k], md->in->prec);
}

static int64_t model_block_bytes_b(const sp2_model *md, int k, int j)
{
    if (md->in->spgemm)
        return sp2_sparse_block_bytes(md->acol[k + 1] - md->acol[k],
                                      md->bnnz[(int64_t)k * md->L->NT + j], md->in->prec);
    return sp2_dense_block_bytes(md->acol[k + 1] - md->acol[k], md->bcol[j + 1] - md->bcol[j],
                                 md->in->prec);
}

static void model_net(sp2_model *md, int from, int64_t bytes, int messages)
{
    if (from == md->L->me || bytes <= 0)
        return;
    const int tier = rt_comm_tier_of(md->comm, from);
    if (tier < 0)
        return;
    md->t->net_bytes[tier] += (double)bytes;
    md->t->net_messages[tier] += messages;
}

/* One product executed here: its flops, its operands' DRAM traffic, the remote operands' gets. */
static void model_product(sp2_model *md, int i, int j, int k, int get_a, int get_b, int push_c)
{
    const sp2_layout *L = md->L;
    const int64_t annz = md->annz[(int64_t)i * L->KT + k];
    const int64_t cols = md->bcol[j + 1] - md->bcol[j];
    if (!md->in->spgemm)
        md->t->flops += 2.0 * (double)annz * (double)cols;
    md->used_a[(int64_t)i * L->KT + k] = 1;
    md->used_b[(int64_t)k * L->NT + j] = 1;
    const int sparse_msgs = 3;
    if (get_a)
        model_net(md, sp2_owner(L, SP2_OWN_A, i, k), model_get_bytes_a(md, i, k), sparse_msgs);
    if (get_b)
        model_net(md, sp2_owner(L, SP2_OWN_B, k, j), model_get_bytes_b(md, k, j),
                  md->in->spgemm ? sparse_msgs : 1);
    if (push_c && !md->in->spgemm) {
        /* Dense partial C sent to its owner (SpGEMM partials depend on the product's structure
         * and are left out: the model stays a lower bound). */
        const int64_t rows = md->arow[i + 1] - md->arow[i];
        model_net(md, sp2_owner(L, SP2_OWN_C, i, j), rows * cols * (int64_t)md->eb, 1);
    }
}

static int sp2_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const sp2_kind_info *kd = kind_of(self);
    const sp2_inputs *in = inputs;
    if (!kd || !in || !env->comm)
        return rt_err_set(err, "%s: traffic model needs its inputs and the MPI layer", self->name);
    sp2_opts o;
    if (read_opts(self, p, &o, err) != 0)
        return -1;
    sp2_layout L;
    char why[256];
    if (sp2_layout_init(&L, env->nranks, env->rank, o.pr, o.refine, in->a->rows, in->a->cols, in->n,
                        why, sizeof why) != 0)
        return rt_err_set(err, "%s: %s", self->name, why);
    memset(t, 0, sizeof *t);
    sp2_model md;
    memset(&md, 0, sizeof md);
    md.L = &L;
    md.in = in;
    md.eb = rt_precision_bytes(in->prec);
    md.comm = env->comm;
    md.t = t;
    md.annz = malloc((size_t)L.MT * L.KT * sizeof *md.annz);
    md.bnnz = in->spgemm ? malloc((size_t)L.KT * L.NT * sizeof *md.bnnz) : NULL;
    md.arow = malloc((size_t)(L.MT + 1) * sizeof *md.arow);
    md.acol = malloc((size_t)(L.KT + 1) * sizeof *md.acol);
    md.bcol = malloc((size_t)(L.NT + 1) * sizeof *md.bcol);
    md.used_a = calloc((size_t)L.MT * L.KT, 1);
    md.used_b = calloc((size_t)L.KT * L.NT, 1);
    int rc = -1;
    if (!md.annz || (in->spgemm && !md.bnnz) || !md.arow || !md.acol || !md.bcol || !md.used_a ||
        !md.used_b) {
        rt_err_set(err, "%s: out of memory for the traffic model", self->name);
        goto done;
    }
    for (int q = 0; q <= L.MT; ++q)
        md.arow[q] = sp2_split(L.m, L.MT, q);
    for (int q = 0; q <= L.KT; ++q)
        md.acol[q] = sp2_split(L.k, L.KT, q);
    for (int q = 0; q <= L.NT; ++q)
        md.bcol[q] = sp2_split(L.n, L.NT, q);
    if (sp2_tile_nnz(in->a, L.MT, md.arow, L.KT, md.acol, md.annz, err) != 0 ||
        (in->spgemm && sp2_tile_nnz(in->a, L.KT, md.acol, L.NT, md.bcol, md.bnnz, err) != 0))
        goto done;
    const int me = L.me;
    switch (kd->alg) {
    case ALG_SC:
    case ALG_WS_LOCALITY:
        for (int i = 0; i < L.MT; ++i)
            for (int j = 0; j < L.NT; ++j) {
                if (sp2_owner(&L, SP2_OWN_C, i, j) != me)
                    continue;
                for (int k = 0; k < L.KT; ++k)
                    if (md.annz[(int64_t)i * L.KT + k] > 0)
                        model_product(&md, i, j, k, 1, 1, 0);
            }
        break;
    case ALG_SA:
    case ALG_WS_RANDOM:
        for (int i = 0; i < L.MT; ++i)
            for (int k = 0; k < L.KT; ++k) {
                if (sp2_owner(&L, SP2_OWN_A, i, k) != me || md.annz[(int64_t)i * L.KT + k] == 0)
                    continue;
                for (int j = 0; j < L.NT; ++j)
                    model_product(&md, i, j, k, 0, 1, 1);
            }
        break;
    case ALG_SB:
        for (int k = 0; k < L.KT; ++k)
            for (int j = 0; j < L.NT; ++j) {
                if (sp2_owner(&L, SP2_OWN_B, k, j) != me)
                    continue;
                for (int i = 0; i < L.MT; ++i)
                    if (md.annz[(int64_t)i * L.KT + k] > 0)
                        model_product(&md, i, j, k, 1, 0, 1);
            }
        break;
    case ALG_SUMMA:
        for (int k = 0; k < L.KT; ++k) {
            int col_nonempty = 0;
            for (int i = 0; i < L.MT; ++i)
                col_nonempty |= md.annz[(int64_t)i * L.KT + k] > 0;
            for (int ta = 0; ta < L.refine; ++ta) {
                const int i = L.myr + ta * L.pr;
                if (md.annz[(int64_t)i * L.KT + k] > 0)
                    model_net(&md, L.myr * L.pc + k % L.pc, model_block_bytes_a(&md, i, k), 1);
            }
            for (int tb = 0; tb < L.refine; ++tb) {
                const int j = L.myc + tb * L.pc;
                if (col_nonempty)
                    model_net(&md, (k % L.pr) * L.pc + L.myc, model_block_bytes_b(&md, k, j), 1);
            }
            for (int ta = 0; ta < L.refine; ++ta)
                for (int tb = 0; tb < L.refine; ++tb) {
                    const int i = L.myr + ta * L.pr, j = L.myc + tb * L.pc;
                    if (md.annz[(int64_t)i * L.KT + k] > 0 && col_nonempty)
                        model_product(&md, i, j, k, 0, 0, 0);
                }
        }
        break;
    case ALG_SUMMA_A:
        for (int j = 0; j < L.NT; ++j) {
            for (int k = L.myc; k < L.KT; k += L.pc) {
                int col_nonempty = 0;
                for (int i = 0; i < L.MT; ++i)
                    col_nonempty |= md.annz[(int64_t)i * L.KT + k] > 0;
                if (!col_nonempty)
                    continue;
                model_net(&md, (j % L.pr) * L.pc + L.myc, model_block_bytes_b(&md, k, j), 1);
                for (int i = L.myr; i < L.MT; i += L.pr)
                    if (md.annz[(int64_t)i * L.KT + k] > 0)
                        model_product(&md, i, j, k, 0, 0, 0);
            }
            if (j % L.pc == L.myc)
                for (int i = L.myr; i < L.MT; i += L.pr)
                    for (int c = 0; c < L.pc; ++c)
                        if (c != L.myc)
                            model_net(&md, L.myr * L.pc + c,
                                      (md.arow[i + 1] - md.arow[i]) *
                                          (md.bcol[j + 1] - md.bcol[j]) * (int64_t)md.eb,
                                      1);
        }
        break;
    }
    /* Compulsory DRAM traffic: every operand tile used read once, every owned C tile written. */
    for (int i = 0; i < L.MT; ++i)
        for (int k = 0; k < L.KT; ++k)
            if (md.used_a[(int64_t)i * L.KT + k])
                t->bytes[RT_LEVEL_DRAM] += (double)model_block_bytes_a(&md, i, k);
    for (int k = 0; k < L.KT; ++k)
        for (int j = 0; j < L.NT; ++j)
            if (md.used_b[(int64_t)k * L.NT + j])
                t->bytes[RT_LEVEL_DRAM] += (double)model_block_bytes_b(&md, k, j);
    if (!in->spgemm)
        for (int i = 0; i < L.MT; ++i)
            for (int j = 0; j < L.NT; ++j)
                if (sp2_owner(&L, SP2_OWN_C, i, j) == me)
                    t->bytes[RT_LEVEL_DRAM] +=
                        (double)((md.arow[i + 1] - md.arow[i]) * (md.bcol[j + 1] - md.bcol[j]) *
                                 (int64_t)md.eb);
    rc = 0;
done:
    free(md.annz);
    free(md.bnnz);
    free(md.arow);
    free(md.acol);
    free(md.bcol);
    free(md.used_a);
    free(md.used_b);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Life cycle */

static void free_local(sp2_state *s)
{
    free(s->a_nnz);
    free(s->col_nonempty);
    free(s->c_tiles);
    free(s->c_slot);
    free(s->c_off);
    free(s->c_data);
    for (int q = 0; s->c_acc && q < s->n_c; ++q)
        sp2_spacc_free(&s->c_acc[q]);
    for (int q = 0; s->c_csr && q < s->n_c; ++q)
        sp2_csrbuf_free(&s->c_csr[q]);
    free(s->c_acc);
    free(s->c_csr);
    sp2_spa_free(&s->spa);
    sp2_csrbuf_free(&s->part);
    free(s->part_dense);
    free(s->c_rows_of);
    free(s->c_cols_of);
    free(s->ops_a);
    free(s->ops_b);
    for (int q = 0; q < 2; ++q) {
        free(s->stage_a[q]);
        free(s->stage_b[q]);
    }
    free(s->items);
    free(s->cand);
    free(s->task_seen);
    free(s->task_all);
    free(s->bc_a);
    free(s->bc_b);
    free(s->blk_a);
    free(s->blk_b);
    free(s->stage_flops);
}

/* Frees everything; the collective objects in the same order on every rank. */
static void sp2_teardown(void *state)
{
    sp2_state *s = state;
    if (!s)
        return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) {
        if (s->row_comm != MPI_COMM_NULL)
            MPI_Comm_free(&s->row_comm);
        if (s->col_comm != MPI_COMM_NULL)
            MPI_Comm_free(&s->col_comm);
    }
    if (s->eng && s->es)
        s->eng->teardown(s->es); /* device state and pinned host buffers, before they are freed */
    sp2_workgrid_free(s->wg);
    sp2_queue_free(s->queue);
    if (s->have_b)
        sp2_dmat_free(&s->B);
    if (s->have_a)
        sp2_dmat_free(&s->A);
    free_local(s);
    free(s);
}

static double b_value_fn(const void *ctx, int64_t row, int64_t col)
{
    const sp2_inputs *in = ctx;
    return sp2_b_value(in->seed, row, col);
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Local structures (no communication); failures are agreed on by the caller. */
static int build_local(sp2_state *s, rt_err *err)
{
    const sp2_layout *L = &s->L;
    const int64_t ntiles_a = (int64_t)L->MT * L->KT, ntiles_c = (int64_t)L->MT * L->NT;
    s->a_nnz = malloc((size_t)ntiles_a * sizeof *s->a_nnz);
    s->col_nonempty = calloc((size_t)L->KT, sizeof *s->col_nonempty);
    s->c_slot = malloc((size_t)ntiles_c * sizeof *s->c_slot);
    s->c_tiles = malloc((size_t)ntiles_c * sizeof *s->c_tiles);
    s->stage_flops = calloc((size_t)L->KT, sizeof *s->stage_flops);
    if (!s->a_nnz || !s->col_nonempty || !s->c_slot || !s->c_tiles || !s->stage_flops)
        return rt_err_set(err, "out of memory for the tile maps");
    for (int i = 0; i < L->MT; ++i)
        for (int k = 0; k < L->KT; ++k) {
            const int64_t nnz = sp2_dmat_info(&s->A, i, k)->nnz;
            s->a_nnz[(int64_t)i * L->KT + k] = nnz;
            if (nnz > 0)
                s->col_nonempty[k] = 1;
        }
    s->n_c = 0;
    for (int64_t t = 0; t < ntiles_c; ++t) {
        const int i = (int)(t / L->NT), j = (int)(t % L->NT);
        s->c_slot[t] = -1;
        if (sp2_owner(L, SP2_OWN_C, i, j) == L->me) {
            s->c_slot[t] = s->n_c;
            s->c_tiles[s->n_c++] = (int)t;
        }
        const int64_t r = c_rows(s, i), c = c_cols(s, j);
        if (r > s->max_c_rows)
            s->max_c_rows = r;
        if (c > s->max_c_cols)
            s->max_c_cols = c;
    }
    const size_t nc = (size_t)(s->n_c > 0 ? s->n_c : 1);
    if (!s->spgemm) {
        s->c_off = malloc(nc * sizeof *s->c_off);
        if (!s->c_off)
            return rt_err_set(err, "out of memory for the C tile map");
        s->c_elems = 0;
        for (int q = 0; q < s->n_c; ++q) {
            s->c_off[q] = s->c_elems;
            s->c_elems += c_rows(s, s->c_tiles[q] / L->NT) * c_cols(s, s->c_tiles[q] % L->NT);
        }
        s->c_data = calloc((size_t)(s->c_elems > 0 ? s->c_elems : 1), s->eb);
        s->part_bytes = (size_t)(s->max_c_rows * s->max_c_cols) * s->eb;
        s->part_dense = malloc(s->part_bytes);
        if (!s->c_data || !s->part_dense)
            return rt_err_set(err, "out of memory for C (%lld values)", (long long)s->c_elems);
    } else {
        s->c_acc = calloc(nc, sizeof *s->c_acc);
        s->c_csr = calloc(nc, sizeof *s->c_csr);
        if (!s->c_acc || !s->c_csr)
            return rt_err_set(err, "out of memory for the C accumulators");
        for (int q = 0; q < s->n_c; ++q)
            sp2_spacc_init(&s->c_acc[q], s->prec, c_rows(s, s->c_tiles[q] / L->NT),
                           c_cols(s, s->c_tiles[q] % L->NT), err);
        if (sp2_spa_init(&s->spa, s->prec, s->max_c_cols, err) != 0)
            return -1;
    }
    s->c_rows_of = malloc(nc * sizeof *s->c_rows_of);
    s->c_cols_of = malloc(nc * sizeof *s->c_cols_of);
    if (!s->c_rows_of || !s->c_cols_of)
        return rt_err_set(err, "out of memory for the C tile shapes");
    for (int q = 0; q < s->n_c; ++q) {
        s->c_rows_of[q] = c_rows(s, s->c_tiles[q] / L->NT);
        s->c_cols_of[q] = c_cols(s, s->c_tiles[q] % L->NT);
    }
    if (is_rdma(s->alg)) {
        s->stage_a_bytes = (size_t)(s->A.max_bytes > 0 ? s->A.max_bytes : 8);
        s->stage_b_bytes = (size_t)(s->B.max_bytes > 0 ? s->B.max_bytes : 8);
        for (int q = 0; q < 2; ++q) {
            s->stage_a[q] = malloc(s->stage_a_bytes);
            s->stage_b[q] = malloc(s->stage_b_bytes);
            if (!s->stage_a[q] || !s->stage_b[q])
                return rt_err_set(err, "out of memory for the staging buffers");
        }
    } else {
        const int nb = s->alg == ALG_SUMMA_A ? L->KT / L->pc : L->refine;
        s->bc_a_bytes = (size_t)(L->refine * (s->A.max_bytes > 0 ? s->A.max_bytes : 8));
        s->bc_b_bytes = (size_t)(nb * (s->B.max_bytes > 0 ? s->B.max_bytes : 8));
        s->bc_a = malloc(s->bc_a_bytes);
        s->bc_b = malloc(s->bc_b_bytes);
        s->blk_a = calloc((size_t)L->refine, sizeof *s->blk_a);
        s->blk_b = calloc((size_t)nb, sizeof *s->blk_b);
        s->ops_a = calloc((size_t)nb, sizeof *s->ops_a);
        s->ops_b = calloc((size_t)nb, sizeof *s->ops_b);
        if (!s->bc_a || !s->bc_b || !s->blk_a || !s->blk_b || !s->ops_a || !s->ops_b)
            return rt_err_set(err, "out of memory for the broadcast buffers");
    }

    /* The static work lists, with the paper's iteration offsets. */
    if (s->alg == ALG_SC || s->alg == ALG_SA || s->alg == ALG_SB) {
        int64_t n = 0;
        for (int pass = 0; pass < 2; ++pass) {
            n = 0;
            if (s->alg == ALG_SC) { /* k from i + j */
                for (int q = 0; q < s->n_c; ++q) {
                    const int i = s->c_tiles[q] / L->NT, j = s->c_tiles[q] % L->NT;
                    for (int kk = 0; kk < L->KT; ++kk) {
                        const int k = (i + j + kk) % L->KT;
                        if (s->a_nnz[(int64_t)i * L->KT + k] == 0)
                            continue;
                        if (pass)
                            s->items[n] = (sp2_item){i, j, k, 0};
                        ++n;
                    }
                }
            } else if (s->alg == ALG_SA) { /* j from i + k */
                for (int i = 0; i < L->MT; ++i)
                    for (int k = 0; k < L->KT; ++k) {
                        if (sp2_owner(L, SP2_OWN_A, i, k) != L->me ||
                            s->a_nnz[(int64_t)i * L->KT + k] == 0)
                            continue;
                        for (int jj = 0; jj < L->NT; ++jj) {
                            if (pass)
                                s->items[n] = (sp2_item){i, (i + k + jj) % L->NT, k, 0};
                            ++n;
                        }
                    }
            } else { /* i from k + j */
                for (int k = 0; k < L->KT; ++k)
                    for (int j = 0; j < L->NT; ++j) {
                        if (sp2_owner(L, SP2_OWN_B, k, j) != L->me)
                            continue;
                        for (int ii = 0; ii < L->MT; ++ii) {
                            const int i = (k + j + ii) % L->MT;
                            if (s->a_nnz[(int64_t)i * L->KT + k] == 0)
                                continue;
                            if (pass)
                                s->items[n] = (sp2_item){i, j, k, 0};
                            ++n;
                        }
                    }
            }
            if (!pass) {
                s->items = malloc((size_t)(n > 0 ? n : 1) * sizeof *s->items);
                if (!s->items)
                    return rt_err_set(err, "out of memory for %lld work items", (long long)n);
            }
        }
        s->n_items = n;
    }
    if (is_ws(s->alg)) {
        s->n_task_ids = (int64_t)L->MT * L->KT * L->NT;
        s->task_seen = calloc((size_t)s->n_task_ids, sizeof *s->task_seen);
        s->task_all = calloc((size_t)s->n_task_ids, sizeof *s->task_all);
        if (!s->task_seen || !s->task_all)
            return rt_err_set(err, "out of memory for %lld task counters",
                              (long long)s->n_task_ids);
        int64_t nonempty = 0;
        for (int64_t t = 0; t < ntiles_a; ++t)
            nonempty += s->a_nnz[t] > 0;
        s->tasks_total = nonempty * L->NT;
    }
    if (s->alg == ALG_WS_RANDOM) {
        /* My non-empty A tiles first (in order), then every other one in a seeded random order. */
        s->cand = malloc((size_t)ntiles_a * sizeof *s->cand);
        if (!s->cand)
            return rt_err_set(err, "out of memory for the stealing order");
        int64_t n = 0;
        for (int64_t t = 0; t < ntiles_a; ++t)
            if (s->a_nnz[t] > 0 &&
                sp2_owner(L, SP2_OWN_A, (int)(t / L->KT), (int)(t % L->KT)) == L->me)
                s->cand[n++] = (int)t;
        s->n_own_cand = n;
        for (int64_t t = 0; t < ntiles_a; ++t)
            if (s->a_nnz[t] > 0 &&
                sp2_owner(L, SP2_OWN_A, (int)(t / L->KT), (int)(t % L->KT)) != L->me)
                s->cand[n++] = (int)t;
        s->n_cand = n;
        uint64_t x = s->opt.steal_seed * 0x100000001B3ULL + (uint64_t)L->me;
        for (int64_t q = n - 1; q > s->n_own_cand; --q) {
            const int64_t span = q - s->n_own_cand + 1;
            const int64_t r = s->n_own_cand + (int64_t)(splitmix(&x) % (uint64_t)span);
            const int tmp = s->cand[q];
            s->cand[q] = s->cand[r];
            s->cand[r] = tmp;
        }
    }
    return 0;
}

static int sp2_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const sp2_kind_info *kd = kind_of(self);
    const sp2_inputs *in = inputs;
    if (!kd)
        return rt_err_set(err, "%s: not a 2D kernel of this build", self->name);
    if (!in || in->spgemm != kd->spgemm)
        return rt_err_set(err, "%s: inputs of the wrong family", self->name);
    if (!env || !env->comm)
        return rt_err_set(err, "%s: needs the MPI layer (env->comm)", self->name);
    if (env->nranks != in->nranks || env->rank != in->rank)
        return rt_err_set(err, "%s: inputs were built for rank %d of %d, this is rank %d of %d",
                          self->name, in->rank, in->nranks, env->rank, env->nranks);
    sp2_opts o;
    if (read_opts(self, p, &o, err) != 0)
        return -1;
    sp2_layout L;
    if (sp2_layout_init(&L, env->nranks, env->rank, o.pr, o.refine, in->a->rows, in->a->cols, in->n,
                        why, whylen) != 0)
        return RT_INFEASIBLE;
    if (is_ws(kd->alg) && (int64_t)L.MT * L.KT * L.NT > ((int64_t)1 << 24)) {
        snprintf(why, whylen, "a %d x %d x %d work grid is too large to check task by task", L.MT,
                 L.KT, L.NT);
        return RT_INFEASIBLE;
    }
    const int64_t max_tile = (L.m / L.MT + 1) * (L.n / L.NT + 1);
    if (kd->alg == ALG_SUMMA_A && max_tile > INT_MAX) {
        snprintf(why, whylen, "C tiles of %lld values exceed one MPI_Reduce", (long long)max_tile);
        return RT_INFEASIBLE;
    }
    return 0;
}

/* The engine's setup, agreed on: an error on any rank fails every rank; otherwise a rank whose
 * engine cannot hold the point (device memory) makes it infeasible everywhere. Returns 0, -1 or
 * RT_INFEASIBLE. */
static int setup_engine(sp2_state *s, void *backend, rt_err *err)
{
    sp2_engine_setup info;
    memset(&info, 0, sizeof info);
    info.kernel = s->desc->name;
    info.prec = s->prec;
    info.spgemm = s->spgemm;
    info.A = &s->A;
    info.B = &s->B;
    info.n_c = s->n_c;
    info.c_rows = s->c_rows_of;
    info.c_cols = s->c_cols_of;
    info.c_off = s->c_off;
    info.c_elems = s->c_elems;
    info.max_c_rows = s->max_c_rows;
    info.max_c_cols = s->max_c_cols;
    void *const bufs[] = {s->stage_a[0], s->stage_a[1], s->stage_b[0], s->stage_b[1],
                          s->bc_a,       s->bc_b,       s->part_dense};
    const size_t bytes[] = {s->stage_a_bytes, s->stage_a_bytes, s->stage_b_bytes, s->stage_b_bytes,
                            s->bc_a_bytes,    s->bc_b_bytes,    s->part_bytes};
    for (size_t q = 0; q < sizeof bufs / sizeof bufs[0]; ++q)
        if (bufs[q] && bytes[q] > 0) {
            info.bufs[info.n_bufs] = bufs[q];
            info.buf_bytes[info.n_bufs++] = bytes[q];
        }
    const int rc = s->eng->setup(backend, &info, &s->es, err);
    if (sp2_agree(s->comm, rc != -1, err) != 0)
        return -1;
    int all_ok = 0, first = -1;
    char msg[RT_ERR_MSG_MAX];
    if (rt_comm_all_ok_msg(s->comm, rc == 0, rc == 0 ? NULL : err->msg, &all_ok, &first, msg,
                           sizeof msg) != 0)
        return rt_err_set(err, "agreeing on the %s engine's setup: %s", s->eng->name,
                          rt_comm_last_error(s->comm));
    if (!all_ok) {
        rt_err_set(err, "rank %d: %s", first, msg);
        return RT_INFEASIBLE;
    }
    return 0;
}

static int sp2_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    return sp2_setup_with_engine(self, inputs, p, env, sp2_cpu_engine(), NULL, state, err);
}

int sp2_setup_with_engine(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, const sp2_engine *eng, void *backend,
                          void **state, rt_err *err)
{
    *state = NULL;
    if (!eng)
        return rt_err_set(err, "%s: no engine for the local multiplies", self->name);
    if (!env || !env->comm)
        return rt_err_set(err, "%s: needs the MPI layer (env->comm)", self->name);
    rt_comm *comm = env->comm;
    /* Feasibility is decided here, agreed on by every rank, and not in a separate check hook: the
     * runner skips setup on a rank whose check failed, and a rank missing from the collective
     * steps below would leave the others waiting. Errors first, then infeasibility. */
    char why[512] = "";
    const int c = sp2_check(self, inputs, p, env, why, sizeof why, err);
    if (sp2_agree(comm, c != -1, err) != 0)
        return rt_err_prefix(err, "%s setup", self->name);
    {
        int all_ok = 0, first = -1;
        char msg[RT_ERR_MSG_MAX];
        if (rt_comm_all_ok_msg(comm, c == 0, why, &all_ok, &first, msg, sizeof msg) != 0)
            return rt_err_set(err, "%s setup: %s", self->name, rt_comm_last_error(comm));
        if (!all_ok) {
            /* The runner names the rank; the reason is the same on every rank in practice. */
            rt_err_set(err, "%s", msg);
            return RT_INFEASIBLE;
        }
    }
    const sp2_kind_info *kd = kind_of(self);
    const sp2_inputs *in = inputs;
    sp2_state *s = calloc(1, sizeof *s);
    if (sp2_agree(comm, s != NULL, err) != 0) {
        free(s);
        return rt_err_prefix(err, "%s setup", self->name);
    }
    s->desc = self;
    s->eng = eng;
    s->alg = kd->alg;
    s->spgemm = kd->spgemm;
    s->in = in;
    s->comm = comm;
    s->prec = in->prec;
    s->eb = rt_precision_bytes(in->prec);
    s->row_comm = s->col_comm = MPI_COMM_NULL;
    if (read_opts(self, p, &s->opt, err) != 0 ||
        sp2_layout_init(&s->L, env->nranks, env->rank, s->opt.pr, s->opt.refine, in->a->rows,
                        in->a->cols, in->n, why, sizeof why) != 0) {
        free(s);
        return rt_err_set(err, "%s: parameters changed between check and setup", self->name);
    }
    const sp2_layout *L = &s->L;

    /* Collective steps, each agreed on inside; on failure every rank tears down the same set. */
    if (sp2_dmat_sparse(&s->A, comm, L, SP2_OWN_A, in->a, L->MT, L->KT, s->prec, "A", err) != 0)
        goto fail;
    s->have_a = 1;
    if (s->spgemm) {
        if (sp2_dmat_sparse(&s->B, comm, L, SP2_OWN_B, in->a, L->KT, L->NT, s->prec, "B", err) != 0)
            goto fail;
    } else {
        const sp2_owner_kind own = s->alg == ALG_SUMMA_A ? SP2_OWN_BT : SP2_OWN_B;
        if (sp2_dmat_dense(&s->B, comm, L, own, L->k, L->n, L->KT, L->NT, s->prec, b_value_fn, in,
                           "B", err) != 0)
            goto fail;
    }
    s->have_b = 1;
    if (sp2_agree(comm, build_local(s, err) == 0, err) != 0)
        goto fail;
    if (uses_queue(s->alg)) {
        size_t payload = 256 * 1024;
        const size_t row = s->spgemm ? (size_t)sparse_msg_bytes(1, s->max_c_cols, s->eb)
                                     : HDR_DENSE + (size_t)s->max_c_cols * s->eb;
        if (row > payload)
            payload = row;
        if (sp2_queue_create(comm, payload, s->opt.slots, on_message, s, &s->queue, err) != 0)
            goto fail;
    }
    if (is_ws(s->alg)) {
        const int64_t n =
            s->alg == ALG_WS_RANDOM ? (int64_t)L->MT * L->KT : (int64_t)L->MT * L->NT * L->KT;
        int *owner = malloc((size_t)n * sizeof *owner);
        if (owner) {
            for (int64_t e = 0; e < n; ++e) {
                if (s->alg == ALG_WS_RANDOM)
                    owner[e] = sp2_owner(L, SP2_OWN_A, (int)(e / L->KT), (int)(e % L->KT));
                else
                    owner[e] = sp2_owner(L, SP2_OWN_C, (int)(e / L->KT / L->NT),
                                         (int)((e / L->KT) % L->NT));
            }
        } else {
            rt_err_set(err, "out of memory for the work grid map");
        }
        if (sp2_agree(comm, owner != NULL, err) != 0) {
            free(owner);
            goto fail;
        }
        const int rc = sp2_workgrid_create(comm, n, owner, &s->wg, err);
        free(owner);
        if (rc != 0)
            goto fail;
    }
    if (!is_rdma(s->alg)) {
        MPI_Comm world = rt_comm_mpi(comm, RT_COMM_WORLD);
        const int r1 = MPI_Comm_split(world, L->myr, L->myc, &s->row_comm);
        const int r2 = MPI_Comm_split(world, L->myc, L->myr, &s->col_comm);
        if (r1 != MPI_SUCCESS || r2 != MPI_SUCCESS)
            rt_err_set(err, "MPI_Comm_split of the process grid failed");
        if (sp2_agree(comm, r1 == MPI_SUCCESS && r2 == MPI_SUCCESS, err) != 0)
            goto fail;
        MPI_Comm_set_errhandler(s->row_comm, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(s->col_comm, MPI_ERRORS_RETURN);
    }
    {
        const int erc = setup_engine(s, backend, err);
        if (erc == RT_INFEASIBLE) {
            sp2_teardown(s);
            return RT_INFEASIBLE;
        }
        if (erc != 0)
            goto fail;
    }
    *state = s;
    return 0;
fail:
    rt_err_prefix(err, "%s setup", self->name);
    sp2_teardown(s);
    return -1;
}

/* ---------------------------------------------------------------------------------------------
 * Descriptors */

#define SP2_KERNEL(ident, kname, fam, sum, schema)                                                 \
    static const rt_kernel_desc ident = {                                                          \
        .name = kname,                                                                             \
        .family = fam,                                                                             \
        .backend = "cpu",                                                                          \
        .summary = sum,                                                                            \
        .params = schema,                                                                          \
        .n_params = NPARAMS(schema),                                                               \
        .unavailable = NULL,                                                                       \
        .check = NULL, /* feasibility is agreed on inside setup */                                 \
        .setup = sp2_setup,                                                                        \
        .run = sp2_run,                                                                            \
        .output = sp2_output,                                                                      \
        .metrics = sp2_metrics,                                                                    \
        .flush = NULL,                                                                             \
        .teardown = sp2_teardown,                                                                  \
        .traffic = sp2_traffic,                                                                    \
        .backend_ctx = NULL,                                                                       \
    }

SP2_KERNEL(k_spmm_sc, "spmm2d.cpu.stationary_c", "spmm2d",
           "2D SpMM, stationary C: one-sided gets of A and B tiles, offset i+j, prefetch",
           sc_params);
SP2_KERNEL(k_spmm_sa, "spmm2d.cpu.stationary_a", "spmm2d",
           "2D SpMM, stationary A: gets of B, partial C to remote accumulation queues, offset i+k",
           sa_params);
SP2_KERNEL(k_spmm_sb, "spmm2d.cpu.stationary_b", "spmm2d",
           "2D SpMM, stationary B: gets of A, partial C to remote accumulation queues, offset k+j",
           sa_params);
SP2_KERNEL(k_spmm_summa, "spmm2d.cpu.summa", "spmm2d",
           "2D SpMM, bulk-synchronous SUMMA: row and column broadcasts", summa_params);
SP2_KERNEL(k_spmm_summa_a, "spmm2d.cpu.summa_a", "spmm2d",
           "2D SpMM, stationary-A SUMMA: column broadcasts of B, row reductions of C",
           summa_params);
SP2_KERNEL(k_spmm_wsr, "spmm2d.cpu.ws_random", "spmm2d",
           "2D SpMM, stationary A with random work stealing (2D fetch-and-add work grid)",
           ws_params);
SP2_KERNEL(k_spmm_wsl, "spmm2d.cpu.ws_locality", "spmm2d",
           "2D SpMM, stationary C with locality-aware work stealing (3D work grid)", ws_params);
SP2_KERNEL(k_spgemm_sc, "spgemm2d.cpu.stationary_c", "spgemm2d",
           "2D SpGEMM, stationary C: gets of A and B tiles, local Gustavson, offset i+j",
           sc_params);
SP2_KERNEL(k_spgemm_sa, "spgemm2d.cpu.stationary_a", "spgemm2d",
           "2D SpGEMM, stationary A: gets of B, sparse partial C to remote queues", sa_params);
SP2_KERNEL(k_spgemm_summa, "spgemm2d.cpu.summa", "spgemm2d",
           "2D SpGEMM, bulk-synchronous SUMMA: row and column broadcasts", summa_params);

static int sp2_flush(void *state, rt_err *err)
{
    sp2_state *s = state;
    if (!s->eng->flush)
        return 0;
    return s->eng->flush(s->es, err) == 0 ? 0 : rt_err_prefix(err, "%s flush", s->desc->name);
}

void sp2_fill_hooks(rt_kernel_desc *d)
{
    d->check = NULL; /* feasibility is agreed on inside setup */
    d->run = sp2_run;
    d->output = sp2_output;
    d->metrics = sp2_metrics;
    d->flush = sp2_flush; /* device caches; the CPU kernels leave it NULL (the runner flushes) */
    d->teardown = sp2_teardown;
    d->traffic = sp2_traffic;
}

const rt_kernel_desc *const *rt_spmm2d_kernels(void)
{
    static const rt_kernel_desc *const all[] = {
        &k_spmm_sc,      &k_spmm_sa,      &k_spmm_sb,  &k_spmm_summa,
        &k_spmm_summa_a, &k_spmm_wsr,     &k_spmm_wsl, &k_spgemm_sc,
        &k_spgemm_sa,    &k_spgemm_summa, NULL,
    };
    return all;
}
