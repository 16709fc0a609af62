#include "dspmm_cpu_sender.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dspmm_family.h"
#include "dspmm_part.h"
#include "rt_clock.h"
#include "rt_comm.h"
#include "rt_kernels.h"
#include "spmm_cpu_common.h"

static const rt_param_schema sender_params[] = {
    {"p_batch", RT_V_INT, "1..65536", "1", 0,
     "batch groups: the columns of B and C are split among them (must divide the ranks)"},
    {"comm", RT_V_STR, "direct|node|socket+node", "direct", 0,
     "reduction of partial rows: direct all-to-all, or through node (and socket) proxies"},
    {"minibatch", RT_V_INT, "0..65536", "0", 0,
     "columns per pipeline stage (0: no pipelining); the last hop overlaps the next stage"},
    {"threads", RT_V_INT, "0..1024", "0", 0, "OpenMP threads per rank, 0 = every available core"},
    {"fail_rank", RT_V_INT, "-1..1048576", "-1", 0,
     "TEST HOOK: this world rank reports a failure (-1: none)"},
    {"fail_at", RT_V_STR, "setup|run", "run", 0, "TEST HOOK: where fail_rank fails"},
};
#define N_SENDER_PARAMS ((int)(sizeof sender_params / sizeof sender_params[0]))
#define KNAME           "dspmm.cpu.sender"

/* Tags of the plan's messages: one per hop and chunk parity, so the in-flight last hop of chunk i
 * never matches a message of chunk i + 1. */
#define DSPMM_TAG_BASE 0x4D00

typedef struct sender_state {
    const rt_dspmm_inputs *in;
    rt_comm *comm;
    MPI_Comm mpi;
    int rank, nranks;
    dspmm_topo topo;
    dspmm_grid grid;
    dspmm_plan plan;
    dspmm_role role;
    int batch, data;
    int64_t kb, k0; /* my group's columns [k0, k0 + kb) */
    int64_t minibatch, chunks, chunk_max;
    rt_precision prec;
    size_t esize;
    int team;
    int fail_run;
    /* Local multiply: my level-0 rows x my block of A's columns (local column indices). */
    int64_t *lrowptr;
    int32_t *lcol;
    void *lval;
    int64_t lnnz;
    int64_t bcols;                 /* rows of my B block */
    void *bblk;                    /* bcols x kb */
    void *lev[DSPMM_MAX_HOPS][2];  /* level buffers; [.][1] only for the last hop's source */
    void *rbuf[DSPMM_MAX_HOPS][2]; /* receive areas; [.][1] only for the last hop */
    void *c;                       /* my C rows x kb */
    MPI_Request *req[2];           /* the last hop's requests, per chunk parity */
    MPI_Request *req_local;        /* an intermediate hop's requests */
    MPI_Status *sts;               /* statuses of one hop's requests (allocated once, in setup) */
    int max_req;
    /* What the last execution sent, tallied by this kernel as it sent it. */
    int64_t tally_bytes[RT_TIER_COUNT], tally_msgs[RT_TIER_COUNT];
    int64_t *pair_bytes; /* nranks: bytes to each world rank */
    /* Phase times summed over executions. */
    double t_kernel, t_reduce, t_hop[DSPMM_MAX_HOPS];
    int64_t n_exec;
} sender_state;

int rt_dspmm_sender_params(const rt_params *p, int *p_batch, dspmm_comm_kind *comm,
                           int64_t *minibatch, rt_err *err)
{
    int64_t pb = 1;
    char name[32];
    if (rt_kernels_param_int(sender_params, N_SENDER_PARAMS, KNAME, p, "p_batch", &pb, err) != 0 ||
        rt_kernels_param_int(sender_params, N_SENDER_PARAMS, KNAME, p, "minibatch", minibatch,
                             err) != 0 ||
        rt_kernels_param_str(sender_params, N_SENDER_PARAMS, KNAME, p, "comm", name, sizeof name,
                             err) != 0)
        return -1;
    const int c = dspmm_comm_parse(name);
    if (c < 0)
        return rt_err_set(err, "%s: unknown comm '%s'", KNAME, name);
    *p_batch = (int)pb;
    *comm = (dspmm_comm_kind)c;
    return 0;
}

static int sender_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_dspmm_inputs *in = inputs;
    int p_batch = 1;
    dspmm_comm_kind comm;
    int64_t minibatch = 0, threads = 0;
    if (rt_dspmm_sender_params(p, &p_batch, &comm, &minibatch, err) != 0 ||
        rt_kernels_param_int(sender_params, N_SENDER_PARAMS, KNAME, p, "threads", &threads, err) !=
            0)
        return -1;
    if (!env || !env->comm)
        return rt_err_set(err, "%s: no communication layer (the kernel needs the MPI layer)",
                          KNAME);
    if (env->nranks % p_batch != 0) {
        snprintf(why, whylen, "p_batch = %d does not divide the %d ranks of the job", p_batch,
                 env->nranks);
        return RT_INFEASIBLE;
    }
    if (in && (int64_t)p_batch > in->spmm->k) {
        snprintf(why, whylen, "p_batch = %d exceeds K = %" PRId64, p_batch, in->spmm->k);
        return RT_INFEASIBLE;
    }
    int team = 1;
    return rt_spmm_cpu_resolve_threads(threads, env, &team, why, whylen);
}

static void sender_teardown(void *state)
{
    sender_state *s = state;
    if (!s)
        return;
    dspmm_role_free(&s->role);
    dspmm_plan_free(&s->plan);
    dspmm_grid_free(&s->grid);
    dspmm_topo_free(&s->topo);
    free(s->lrowptr);
    free(s->lcol);
    free(s->lval);
    free(s->bblk);
    for (int k = 0; k < DSPMM_MAX_HOPS; ++k)
        for (int par = 0; par < 2; ++par) {
            free(s->lev[k][par]);
            free(s->rbuf[k][par]);
        }
    free(s->c);
    free(s->req[0]);
    free(s->req[1]);
    free(s->req_local);
    free(s->sts);
    free(s->pair_bytes);
    free(s);
}

static void *alloc_elems(int64_t n, size_t esize)
{
    return malloc((size_t)(n > 0 ? n : 1) * esize);
}

/* The local multiply's operands: my level-0 rows restricted to my block of columns, and my rows of
 * B for my group's columns, copied once so the timed multiply reads only what the rank owns. */
static int build_local(sender_state *s, rt_err *err)
{
    const rt_csr *a = s->in->spmm->a;
    const int64_t cs = s->grid.col_start[s->data], ce = s->grid.col_start[s->data + 1];
    const int64_t n0 = s->role.level_rows[0];
    s->lrowptr = malloc((size_t)(n0 + 1) * sizeof *s->lrowptr);
    if (!s->lrowptr)
        return rt_err_set(err, "%s: out of memory for the local matrix", KNAME);
    s->lrowptr[0] = 0;
    /* Columns are sorted within a row, so a row's part in [cs, ce) is one contiguous range. */
    for (int64_t r = 0; r < n0; ++r) {
        const int64_t i = s->role.level0_rows[r];
        int64_t lo = a->rowptr[i], hi = a->rowptr[i + 1];
        while (lo < hi && a->colidx[lo] < cs)
            ++lo;
        int64_t e = lo;
        while (e < hi && a->colidx[e] < ce)
            ++e;
        s->lrowptr[r + 1] = s->lrowptr[r] + (e - lo);
    }
    s->lnnz = s->lrowptr[n0];
    s->lcol = malloc((size_t)(s->lnnz > 0 ? s->lnnz : 1) * sizeof *s->lcol);
    s->lval = alloc_elems(s->lnnz, s->esize);
    s->bcols = ce - cs;
    s->bblk = alloc_elems(s->bcols * s->kb, s->esize);
    if (!s->lcol || !s->lval || !s->bblk)
        return rt_err_set(err,
                          "%s: out of memory for the local matrix (%" PRId64 " nonzeros) or B "
                          "block (%" PRId64 " x %" PRId64 ")",
                          KNAME, s->lnnz, s->bcols, s->kb);
    for (int64_t r = 0; r < n0; ++r) {
        const int64_t i = s->role.level0_rows[r];
        int64_t lo = a->rowptr[i];
        while (lo < a->rowptr[i + 1] && a->colidx[lo] < cs)
            ++lo;
        for (int64_t e = s->lrowptr[r]; e < s->lrowptr[r + 1]; ++e, ++lo) {
            s->lcol[e] = (int32_t)(a->colidx[lo] - cs);
            if (s->prec == RT_FP32)
                ((float *)s->lval)[e] = (float)a->val[lo];
            else
                ((double *)s->lval)[e] = a->val[lo];
        }
    }
    const rt_dense *b = &s->in->spmm->b;
    for (int64_t j = 0; j < s->bcols; ++j)
        for (int64_t t = 0; t < s->kb; ++t) {
            const int64_t from = (cs + j) * b->ld + s->k0 + t, to = j * s->kb + t;
            if (s->prec == RT_FP32)
                ((float *)s->bblk)[to] = ((const float *)b->data)[from];
            else
                ((double *)s->bblk)[to] = ((const double *)b->data)[from];
        }
    return 0;
}

static int sender_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_dspmm_inputs *in = inputs;
    *state = NULL;
    if (!in || !env || !env->comm)
        return rt_err_set(err, "%s: no inputs or no communication layer", self->name);
    int p_batch = 1;
    dspmm_comm_kind kind;
    int64_t minibatch = 0, threads = 0, fail_rank = -1;
    char fail_at[16];
    if (rt_dspmm_sender_params(p, &p_batch, &kind, &minibatch, err) != 0 ||
        rt_kernels_param_int(sender_params, N_SENDER_PARAMS, KNAME, p, "threads", &threads, err) !=
            0 ||
        rt_kernels_param_int(sender_params, N_SENDER_PARAMS, KNAME, p, "fail_rank", &fail_rank,
                             err) != 0 ||
        rt_kernels_param_str(sender_params, N_SENDER_PARAMS, KNAME, p, "fail_at", fail_at,
                             sizeof fail_at, err) != 0)
        return -1;
    /* Setup communicates with nobody, so a rank that fails here cannot leave a partner waiting:
     * the runner's agreement after setup records the failure with this rank named. */
    if (fail_rank == env->rank && strcmp(fail_at, "setup") == 0)
        return rt_err_set(err, "%s: injected failure on rank %d in setup (test hook fail_rank)",
                          self->name, env->rank);
    if (in->rank != env->rank || in->nranks != env->nranks)
        return rt_err_set(err,
                          "%s: the inputs were made for rank %d of %d, the kernel runs as rank "
                          "%d of %d",
                          self->name, in->rank, in->nranks, env->rank, env->nranks);

    sender_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    s->in = in;
    s->comm = env->comm;
    s->mpi = rt_comm_mpi(s->comm, RT_COMM_WORLD);
    s->rank = env->rank;
    s->nranks = env->nranks;
    s->prec = in->spmm->prec;
    s->esize = rt_precision_bytes(s->prec);
    s->fail_run = fail_rank == env->rank;
    char why[256] = "";
    int rc = rt_spmm_cpu_resolve_threads(threads, env, &s->team, why, sizeof why);
    if (rc == 0 && dspmm_topo_from_comm(s->comm, &s->topo, err) != 0)
        rc = -1;
    if (rc == 0)
        rc = dspmm_grid_build(in->spmm->a, in->spmm->k, p_batch, &s->topo, &s->grid, why,
                              sizeof why, err);
    if (rc != 0) {
        if (rc == RT_INFEASIBLE)
            rt_err_set(err, "%s", why);
        sender_teardown(s);
        return rc;
    }
    s->batch = dspmm_grid_batch_of(&s->grid, s->rank);
    s->data = dspmm_grid_data_of(&s->grid, s->rank);
    s->k0 = s->grid.k_start[s->batch];
    s->kb = s->grid.k_start[s->batch + 1] - s->k0;
    s->minibatch = minibatch;
    s->chunks = dspmm_chunks(s->kb, minibatch);
    s->chunk_max = s->chunks == 1 ? s->kb : minibatch;
    if (dspmm_plan_build(in->spmm->a, &s->grid, s->batch, &s->topo, kind, &s->plan, err) != 0 ||
        dspmm_role_build(&s->plan, s->data, &s->role, err) != 0 || build_local(s, err) != 0) {
        sender_teardown(s);
        return rt_err_prefix(err, "%s", self->name);
    }
    /* MPI counts are ints: a message of more than INT_MAX bytes needs a smaller minibatch. */
    const int last = s->plan.hops - 1;
    for (int k = 0; k <= last; ++k) {
        const dspmm_hop_role *h = &s->role.hop[k];
        for (int i = 0; i < h->n_send + h->n_recv; ++i) {
            const dspmm_xfer *x = i < h->n_send ? &h->send[i] : &h->recv[i - h->n_send];
            if ((double)x->rows * (double)s->chunk_max * (double)s->esize > (double)INT_MAX) {
                rt_err_set(err,
                           "a message of %" PRId64 " rows x %" PRId64 " columns exceeds the "
                           "2 GiB an MPI count can address: use a smaller minibatch",
                           x->rows, s->chunk_max);
                sender_teardown(s);
                return RT_INFEASIBLE;
            }
        }
        if (h->n_send + h->n_recv > s->max_req)
            s->max_req = h->n_send + h->n_recv;
    }
    int ok = 1;
    for (int k = 0; k <= last; ++k) {
        const int parities = k == last ? 2 : 1;
        for (int par = 0; par < parities; ++par) {
            s->lev[k][par] = alloc_elems(s->role.level_rows[k] * s->chunk_max, s->esize);
            s->rbuf[k][par] = alloc_elems(s->role.hop[k].recv_rows * s->chunk_max, s->esize);
            ok = ok && s->lev[k][par] && s->rbuf[k][par];
        }
    }
    s->c = alloc_elems(s->role.c_rows * s->kb, s->esize);
    s->req[0] = malloc((size_t)(s->max_req > 0 ? s->max_req : 1) * sizeof(MPI_Request));
    s->req[1] = malloc((size_t)(s->max_req > 0 ? s->max_req : 1) * sizeof(MPI_Request));
    s->req_local = malloc((size_t)(s->max_req > 0 ? s->max_req : 1) * sizeof(MPI_Request));
    s->sts = malloc((size_t)(s->max_req > 0 ? s->max_req : 1) * sizeof(MPI_Status));
    s->pair_bytes = calloc((size_t)s->nranks, sizeof *s->pair_bytes);
    if (!ok || !s->c || !s->req[0] || !s->req[1] || !s->req_local || !s->sts || !s->pair_bytes) {
        sender_teardown(s);
        return rt_err_set(err, "%s: out of memory for the partial-row buffers", self->name);
    }
    *state = s;
    return 0;
}

/* ---- One execution ------------------------------------------------------------------------ */

/* dst[map[r]] += src[r] for rows of w values; dst rows have ld ldd and start at column c0. Rows of
 * one map are distinct, so the rows can be reduced in parallel. */
static void reduce_rows(const sender_state *s, void *dst, int64_t ldd, int64_t c0, const void *src,
                        const int64_t *src_rows, const int64_t *map, int64_t n, int64_t w)
{
    if (s->prec == RT_FP32) {
        float *d = dst;
        const float *x = src;
#pragma omp parallel for schedule(static) num_threads(s->team) if (n * w > 4096)
        for (int64_t r = 0; r < n; ++r) {
            float *dr = d + map[r] * ldd + c0;
            const float *xr = x + (src_rows ? src_rows[r] : r) * w;
            for (int64_t j = 0; j < w; ++j)
                dr[j] += xr[j];
        }
    } else {
        double *d = dst;
        const double *x = src;
#pragma omp parallel for schedule(static) num_threads(s->team) if (n * w > 4096)
        for (int64_t r = 0; r < n; ++r) {
            double *dr = d + map[r] * ldd + c0;
            const double *xr = x + (src_rows ? src_rows[r] : r) * w;
            for (int64_t j = 0; j < w; ++j)
                dr[j] += xr[j];
        }
    }
}

/* Level-0 partial rows for columns [c0, c0 + w) of my group: out (rows x w) = A_local * B_block. */
static void local_multiply(const sender_state *s, void *out, int64_t c0, int64_t w)
{
    const int64_t n0 = s->role.level_rows[0], kb = s->kb;
    if (s->prec == RT_FP32) {
        float *o = out;
        const float *v = s->lval, *b = s->bblk;
#pragma omp parallel for schedule(dynamic, 64) num_threads(s->team)
        for (int64_t r = 0; r < n0; ++r) {
            float *orow = o + r * w;
            for (int64_t j = 0; j < w; ++j)
                orow[j] = 0.0f;
            for (int64_t e = s->lrowptr[r]; e < s->lrowptr[r + 1]; ++e) {
                const float a = v[e];
                const float *brow = b + (int64_t)s->lcol[e] * kb + c0;
                for (int64_t j = 0; j < w; ++j)
                    orow[j] += a * brow[j];
            }
        }
    } else {
        double *o = out;
        const double *v = s->lval, *b = s->bblk;
#pragma omp parallel for schedule(dynamic, 64) num_threads(s->team)
        for (int64_t r = 0; r < n0; ++r) {
            double *orow = o + r * w;
            for (int64_t j = 0; j < w; ++j)
                orow[j] = 0.0;
            for (int64_t e = s->lrowptr[r]; e < s->lrowptr[r + 1]; ++e) {
                const double a = v[e];
                const double *brow = b + (int64_t)s->lcol[e] * kb + c0;
                for (int64_t j = 0; j < w; ++j)
                    orow[j] += a * brow[j];
            }
        }
    }
}

/* Execution context: the first local failure is kept, and the protocol goes on regardless, so
 * every partner still gets (and sends) every message it expects. */
typedef struct exec_ctx {
    int ok;
    rt_err err;
} exec_ctx;

static void exec_fail(exec_ctx *x, const char *what, int rc)
{
    if (!x->ok)
        return;
    x->ok = 0;
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, text, &len);
    rt_err_set(&x->err, "%s: %s%s%s", KNAME, what, text[0] ? ": " : "", text);
}

/* Posts hop k for one chunk of width w: receives into rbuf, sends from src (my level-k buffer).
 * Fills req (recvs first) and returns how many were posted. */
static int post_hop(sender_state *s, int k, int parity, const void *src, void *rbuf, int64_t w,
                    MPI_Request *req, exec_ctx *x)
{
    const dspmm_hop_role *h = &s->role.hop[k];
    const int tag = DSPMM_TAG_BASE + 2 * k + parity;
    const size_t row_bytes = (size_t)w * s->esize;
    int n = 0;
    int64_t off = 0;
    for (int i = 0; i < h->n_recv; ++i) {
        const dspmm_xfer *r = &h->recv[i];
        const int rc =
            MPI_Irecv((char *)rbuf + (size_t)off * row_bytes, (int)((size_t)r->rows * row_bytes),
                      MPI_BYTE, r->peer, tag, s->mpi, &req[n]);
        if (rc != MPI_SUCCESS) {
            req[n] = MPI_REQUEST_NULL;
            exec_fail(x, "posting a receive", rc);
        }
        ++n;
        off += r->rows;
    }
    for (int i = 0; i < h->n_send; ++i) {
        const dspmm_xfer *d = &h->send[i];
        const int64_t bytes = d->rows * (int64_t)row_bytes;
        const int rc = MPI_Isend((const char *)src + (size_t)d->row_off * row_bytes, (int)bytes,
                                 MPI_BYTE, d->peer, tag, s->mpi, &req[n]);
        if (rc != MPI_SUCCESS) {
            req[n] = MPI_REQUEST_NULL;
            exec_fail(x, "posting a send", rc);
        } else {
            rt_err cerr;
            rt_err_clear(&cerr);
            const int tier = rt_comm_tier_of(s->comm, d->peer);
            if (tier < 0 || rt_comm_count_to(s->comm, d->peer, bytes, &cerr) != 0) {
                char what[RT_ERR_MSG_MAX / 2];
                snprintf(what, sizeof what, "counting a message to rank %d (%s)", d->peer,
                         cerr.msg);
                exec_fail(x, what, MPI_SUCCESS);
            } else {
                s->tally_bytes[tier] += bytes;
                s->tally_msgs[tier] += 1;
                s->pair_bytes[d->peer] += bytes;
            }
        }
        ++n;
    }
    return n;
}

/* Waits for hop k's requests and checks that every message had the size the plan says. */
static void wait_hop(sender_state *s, int k, int n, MPI_Request *req, int64_t w, exec_ctx *x)
{
    if (n == 0)
        return;
    MPI_Status *sts = s->sts;
    const int rc = MPI_Waitall(n, req, sts);
    if (rc != MPI_SUCCESS) {
        exec_fail(x, "waiting for the partial rows", rc);
    } else {
        const dspmm_hop_role *h = &s->role.hop[k];
        for (int i = 0; i < h->n_recv; ++i) {
            int got = -1;
            MPI_Get_count(&sts[i], MPI_BYTE, &got);
            const int64_t want = h->recv[i].rows * w * (int64_t)s->esize;
            if ((int64_t)got != want && x->ok) {
                x->ok = 0;
                rt_err_set(&x->err, "%s: hop %d: rank %d sent %d bytes, the plan expects %" PRId64,
                           KNAME, k, h->recv[i].peer, got, want);
            }
        }
    }
}

/* Adds what stays with me and what arrived into the next level (ld w) or into C (ld kb, at c0). */
static void reduce_hop(sender_state *s, int k, const void *src, const void *rbuf, void *dst,
                       int64_t ldd, int64_t c0, int64_t w, int self)
{
    const dspmm_hop_role *h = &s->role.hop[k];
    const double t0 = rt_clock_now();
    if (self)
        reduce_rows(s, dst, ldd, c0, src, h->self_src, h->self_dst, h->n_self, w);
    else {
        int64_t off = 0;
        for (int i = 0; i < h->n_recv; ++i) {
            reduce_rows(s, dst, ldd, c0, (const char *)rbuf + (size_t)(off * w) * s->esize, NULL,
                        h->recv[i].map, h->recv[i].rows, w);
            off += h->recv[i].rows;
        }
    }
    s->t_reduce += rt_clock_now() - t0;
}

static void zero_elems(void *p, int64_t n, size_t esize)
{
    if (n > 0)
        memset(p, 0, (size_t)n * esize);
}

static int sender_run(void *state, double *seconds, rt_err *err)
{
    sender_state *s = state;
    *seconds = -1.0; /* the runner's wall clock times host kernels */
    exec_ctx x = {.ok = 1};
    memset(s->tally_bytes, 0, sizeof s->tally_bytes);
    memset(s->tally_msgs, 0, sizeof s->tally_msgs);
    memset(s->pair_bytes, 0, (size_t)s->nranks * sizeof *s->pair_bytes);
    const int last = s->plan.hops - 1;
    zero_elems(s->c, s->role.c_rows * s->kb, s->esize);

    int pending = -1, n_pending = 0;
    int64_t pend_c0 = 0, pend_w = 0;
    for (int64_t ch = 0; ch < s->chunks; ++ch) {
        const int par = (int)(ch & 1);
        const int64_t c0 = ch * s->chunk_max;
        const int64_t w = (c0 + s->chunk_max <= s->kb) ? s->chunk_max : s->kb - c0;
        double t0 = rt_clock_now();
        local_multiply(s, s->lev[0][last == 0 ? par : 0], c0, w);
        s->t_kernel += rt_clock_now() - t0;
        /* Local hops: blocking, level k -> level k + 1. */
        for (int k = 0; k < last; ++k) {
            const void *src = s->lev[k][0];
            void *dst = s->lev[k + 1][k + 1 == last ? par : 0];
            t0 = rt_clock_now();
            const int n = post_hop(s, k, 0, src, s->rbuf[k][0], w, s->req_local, &x);
            s->t_hop[k] += rt_clock_now() - t0;
            zero_elems(dst, s->role.level_rows[k + 1] * w, s->esize);
            reduce_hop(s, k, src, NULL, dst, w, 0, w, 1);
            t0 = rt_clock_now();
            wait_hop(s, k, n, s->req_local, w, &x);
            s->t_hop[k] += rt_clock_now() - t0;
            reduce_hop(s, k, NULL, s->rbuf[k][0], dst, w, 0, w, 0);
        }
        /* The previous chunk's last hop has overlapped this chunk's local work: finish it. */
        if (pending >= 0) {
            t0 = rt_clock_now();
            wait_hop(s, last, n_pending, s->req[pending], pend_w, &x);
            s->t_hop[last] += rt_clock_now() - t0;
            reduce_hop(s, last, NULL, s->rbuf[last][pending], s->c, s->kb, pend_c0, pend_w, 0);
        }
        t0 = rt_clock_now();
        n_pending =
            post_hop(s, last, par, s->lev[last][par], s->rbuf[last][par], w, s->req[par], &x);
        s->t_hop[last] += rt_clock_now() - t0;
        reduce_hop(s, last, s->lev[last][par], NULL, s->c, s->kb, c0, w, 1);
        pending = par;
        pend_c0 = c0;
        pend_w = w;
    }
    if (pending >= 0) {
        const double t0 = rt_clock_now();
        wait_hop(s, last, n_pending, s->req[pending], pend_w, &x);
        s->t_hop[last] += rt_clock_now() - t0;
        reduce_hop(s, last, NULL, s->rbuf[last][pending], s->c, s->kb, pend_c0, pend_w, 0);
    }
    s->n_exec++;
    if (s->fail_run && x.ok) {
        x.ok = 0;
        rt_err_set(&x.err, "%s: injected failure on rank %d (test hook fail_rank)", KNAME, s->rank);
    }
    /* Every rank has sent and received everything; agree before anyone moves on, so a failure
     * here fails this execution on every rank (and no rank enters the output exchange alone). */
    int all_ok = 0, first = -1;
    char msg[RT_ERR_MSG_MAX];
    if (rt_comm_all_ok_msg(s->comm, x.ok, x.err.msg, &all_ok, &first, msg, sizeof msg) != 0)
        return rt_err_set(err, "%s: agreeing on the execution's success failed: %s", KNAME,
                          rt_comm_last_error(s->comm));
    if (all_ok)
        return 0;
    if (!x.ok) {
        *err = x.err;
        return -1;
    }
    return rt_err_set(err, "rank %d failed in the same execution: %s", first, msg);
}

/* ---- Output: my block of C moved to the family's canonical row blocks -------------------- */

static void free_all(int64_t *cstart, int *scount, int *sdispl, int *rcount, int *rdispl,
                     double *sbuf, double *rbuf)
{
    free(cstart);
    free(scount);
    free(sdispl);
    free(rcount);
    free(rdispl);
    free(sbuf);
    free(rbuf);
}

static int sender_output(void *state, double *out, rt_err *err)
{
    sender_state *s = state;
    const rt_csr *a = s->in->spmm->a;
    const int n = s->nranks;
    const int64_t k = s->in->spmm->k;
    const int64_t r0 = s->role.c_row0, r1 = r0 + s->role.c_rows;
    int64_t *cstart = malloc((size_t)(n + 1) * sizeof *cstart);
    int *scount = calloc((size_t)n, sizeof(int)), *sdispl = calloc((size_t)n, sizeof(int));
    int *rcount = calloc((size_t)n, sizeof(int)), *rdispl = calloc((size_t)n, sizeof(int));
    double *sbuf =
        malloc((size_t)(s->role.c_rows * s->kb > 0 ? s->role.c_rows * s->kb : 1) * sizeof(double));
    const int64_t my0 = s->in->c_row0, my1 = s->in->c_row1;
    double *rbuf = malloc((size_t)((my1 - my0) * k > 0 ? (my1 - my0) * k : 1) * sizeof(double));
    int ok = cstart && scount && sdispl && rcount && rdispl && sbuf && rbuf;
    if (ok) {
        dspmm_split_weighted(a->rowptr, a->rows, n, cstart);
        int64_t so = 0, ro = 0;
        for (int t = 0; t < n && ok; ++t) {
            /* To canonical owner t: my rows inside its block, my group's columns. */
            const int64_t lo = r0 > cstart[t] ? r0 : cstart[t],
                          hi = r1 < cstart[t + 1] ? r1 : cstart[t + 1];
            const int64_t cnt = hi > lo ? (hi - lo) * s->kb : 0;
            /* From rank t: its data rows inside my block, its group's columns. */
            const int tb = dspmm_grid_batch_of(&s->grid, t), td = dspmm_grid_data_of(&s->grid, t);
            const int64_t tlo = s->grid.row_start[td] > my0 ? s->grid.row_start[td] : my0;
            const int64_t thi = s->grid.row_start[td + 1] < my1 ? s->grid.row_start[td + 1] : my1;
            const int64_t tk = s->grid.k_start[tb + 1] - s->grid.k_start[tb];
            const int64_t rcnt = thi > tlo ? (thi - tlo) * tk : 0;
            if (so + cnt > INT_MAX || ro + rcnt > INT_MAX) {
                ok = 0;
                break;
            }
            scount[t] = (int)cnt;
            sdispl[t] = (int)so;
            rcount[t] = (int)rcnt;
            rdispl[t] = (int)ro;
            for (int64_t i = lo; i < hi; ++i)
                for (int64_t j = 0; j < s->kb; ++j) {
                    const int64_t at = (i - r0) * s->kb + j;
                    sbuf[so++] = s->prec == RT_FP32 ? (double)((const float *)s->c)[at]
                                                    : ((const double *)s->c)[at];
                }
            ro += rcnt;
        }
    }
    /* Collective from here: agree first, so a rank short of memory does not strand the others. */
    int all_ok = 0, first = -1;
    if (rt_comm_all_ok(s->comm, ok, &all_ok, &first) != 0 || !all_ok) {
        free_all(cstart, scount, sdispl, rcount, rdispl, sbuf, rbuf);
        return rt_err_set(err,
                          "%s: output exchange: rank %d is out of memory or its block exceeds "
                          "2^31 values",
                          KNAME, first);
    }
    const int rc =
        MPI_Alltoallv(sbuf, scount, sdispl, MPI_DOUBLE, rbuf, rcount, rdispl, MPI_DOUBLE, s->mpi);
    if (rc == MPI_SUCCESS) {
        for (int t = 0; t < n; ++t) {
            const int tb = dspmm_grid_batch_of(&s->grid, t), td = dspmm_grid_data_of(&s->grid, t);
            const int64_t tlo = s->grid.row_start[td] > my0 ? s->grid.row_start[td] : my0;
            const int64_t thi = s->grid.row_start[td + 1] < my1 ? s->grid.row_start[td + 1] : my1;
            const int64_t tk0 = s->grid.k_start[tb], tk = s->grid.k_start[tb + 1] - tk0;
            int64_t at = rdispl[t];
            for (int64_t i = tlo; i < thi; ++i)
                for (int64_t j = 0; j < tk; ++j)
                    out[(i - my0) * k + tk0 + j] = rbuf[at++];
        }
    }
    free_all(cstart, scount, sdispl, rcount, rdispl, sbuf, rbuf);
    if (rc != MPI_SUCCESS)
        return rt_err_set(err, "%s: output exchange (MPI_Alltoallv) failed", KNAME);
    return 0;
}

/* ---- Metrics ---------------------------------------------------------------------------- */

static const char *const tier_names[RT_TIER_COUNT] = {"socket", "node", "global"};

static int sender_metrics(void *state, rt_metrics *m, rt_err *err)
{
    sender_state *s = state;
    /* Collective: every rank reaches the metrics hook of a timed point. */
    int64_t local[2 * RT_TIER_COUNT + DSPMM_MAX_HOPS], hi[2 * RT_TIER_COUNT + DSPMM_MAX_HOPS],
        sum[2 * RT_TIER_COUNT + DSPMM_MAX_HOPS];
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        local[t] = s->tally_bytes[t];
        local[RT_TIER_COUNT + t] = s->tally_msgs[t];
    }
    for (int k = 0; k < DSPMM_MAX_HOPS; ++k)
        local[2 * RT_TIER_COUNT + k] =
            k < s->plan.hops ? s->role.level_rows[k] * s->kb * (int64_t)s->esize : 0;
    const int nv = 2 * RT_TIER_COUNT + DSPMM_MAX_HOPS;
    double times[2 + DSPMM_MAX_HOPS];
    const double execs = s->n_exec > 0 ? (double)s->n_exec : 1.0;
    times[0] = s->t_kernel / execs;
    times[1] = s->t_reduce / execs;
    for (int k = 0; k < DSPMM_MAX_HOPS; ++k)
        times[2 + k] = s->t_hop[k] / execs;
    const int n = s->nranks;
    const int want_mat = n <= DSPMM_COMMMAT_MAX_RANKS;
    int64_t mat[DSPMM_COMMMAT_MAX_RANKS * DSPMM_COMMMAT_MAX_RANKS];
    int64_t mat_sum[DSPMM_COMMMAT_MAX_RANKS * DSPMM_COMMMAT_MAX_RANKS];
    if (want_mat) {
        memset(mat, 0, sizeof mat);
        for (int j = 0; j < n; ++j)
            mat[s->rank * n + j] = s->pair_bytes[j];
    }
    int rc = MPI_Allreduce(local, hi, nv, MPI_INT64_T, MPI_MAX, s->mpi);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(local, sum, nv, MPI_INT64_T, MPI_SUM, s->mpi);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(MPI_IN_PLACE, times, 2 + DSPMM_MAX_HOPS, MPI_DOUBLE, MPI_MAX, s->mpi);
    if (rc == MPI_SUCCESS && want_mat)
        rc = MPI_Allreduce(mat, mat_sum, n * n, MPI_INT64_T, MPI_SUM, s->mpi);
    if (rc != MPI_SUCCESS)
        return rt_err_set(err, "%s: reducing the traffic metrics failed", KNAME);

    char name[64];
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        snprintf(name, sizeof name, "comm_bytes_%s_max", tier_names[t]);
        rt_metrics_add(m, name, "bytes", (double)hi[t], 1);
        snprintf(name, sizeof name, "comm_bytes_%s_total", tier_names[t]);
        rt_metrics_add(m, name, "bytes", (double)sum[t], 1);
        snprintf(name, sizeof name, "comm_msgs_%s_max", tier_names[t]);
        rt_metrics_add(m, name, "count", (double)hi[RT_TIER_COUNT + t], 1);
        snprintf(name, sizeof name, "comm_msgs_%s_total", tier_names[t]);
        rt_metrics_add(m, name, "count", (double)sum[RT_TIER_COUNT + t], 1);
    }
    rt_metrics_add(m, "p_data", "count", (double)s->grid.p_data, 1);
    rt_metrics_add(m, "p_batch", "count", (double)s->grid.p_batch, 1);
    rt_metrics_add(m, "chunks", "count", (double)s->chunks, 1);
    for (int k = 0; k < s->plan.hops; ++k) {
        snprintf(name, sizeof name, "partial_bytes_l%d", k);
        rt_metrics_add(m, name, "bytes", (double)sum[2 * RT_TIER_COUNT + k], 1);
    }
    rt_metrics_add(m, "time_kernel_s", "s", times[0], 0);
    rt_metrics_add(m, "time_reduce_s", "s", times[1], 0);
    for (int k = 0; k < s->plan.hops; ++k) {
        snprintf(name, sizeof name, "time_%s_s", dspmm_hop_phase(&s->plan, k));
        rt_metrics_add(m, name, "s", times[2 + k], 0);
    }
    rt_metrics_unavailable(m, "time_staging_s", "s",
                           "the CPU transport sends from host memory: there is nothing to stage");
    /* The pair matrix only when it fits beside what the runner adds after this hook (the
     * roofline model's metrics and the config's counters). */
    int entries = 0;
    if (want_mat)
        for (int i = 0; i < n * n; ++i)
            entries += mat_sum[i] != 0 && i / n != i % n;
    const int reserve = 16;
    const int stored = want_mat && m->n + 1 + entries <= RT_MAX_METRICS - reserve;
    rt_metrics_add(m, "commmat_stored", "flag", stored ? 1.0 : 0.0, 1);
    if (stored)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (i != j && mat_sum[i * n + j] != 0) {
                    snprintf(name, sizeof name, "commmat_%s_%d_%d",
                             tier_names[dspmm_topo_tier(&s->topo, i, j)], i, j);
                    rt_metrics_add(m, name, "bytes", (double)mat_sum[i * n + j], 1);
                }
    return 0;
}

/* ---- Traffic model ------------------------------------------------------------------------ */

static int sender_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_dspmm_inputs *in = inputs;
    memset(t, 0, sizeof *t);
    if (!in || !env || !env->comm)
        return rt_err_set(err, "%s: traffic model needs inputs and the communication layer", KNAME);
    int p_batch = 1;
    dspmm_comm_kind kind;
    int64_t minibatch = 0;
    if (rt_dspmm_sender_params(p, &p_batch, &kind, &minibatch, err) != 0)
        return -1;
    dspmm_topo topo;
    dspmm_grid grid;
    dspmm_plan plan;
    memset(&grid, 0, sizeof grid);
    memset(&plan, 0, sizeof plan);
    char why[256] = "";
    dspmm_tally *per = NULL;
    int rc = dspmm_topo_from_comm(env->comm, &topo, err);
    if (rc == 0) {
        rc =
            dspmm_grid_build(in->spmm->a, in->spmm->k, p_batch, &topo, &grid, why, sizeof why, err);
        if (rc == RT_INFEASIBLE)
            rc = rt_err_set(err, "%s: %s", KNAME, why);
    }
    const int me = env->rank;
    const int batch = rc == 0 ? dspmm_grid_batch_of(&grid, me) : 0;
    if (rc == 0)
        rc = dspmm_plan_build(in->spmm->a, &grid, batch, &topo, kind, &plan, err);
    if (rc == 0) {
        per = calloc((size_t)topo.nranks, sizeof *per);
        rc = per ? 0 : rt_err_set(err, "%s: out of memory", KNAME);
    }
    const size_t esize = rt_precision_bytes(in->spmm->prec);
    if (rc == 0)
        rc = dspmm_plan_tally(&plan, &topo, -1, esize, minibatch, per, NULL, err);
    if (rc == 0) {
        /* The network: what this rank sends per tier (the runner takes the busiest rank's
         * bound). Memory: compulsory bytes of this rank: its block of A, its rows of B, its
         * partial rows written once, its rows of C written once. */
        const rt_csr *a = in->spmm->a;
        const int d = dspmm_grid_data_of(&grid, me);
        const int64_t cs = grid.col_start[d], ce = grid.col_start[d + 1];
        const int64_t kb = grid.k_start[batch + 1] - grid.k_start[batch];
        int64_t nnz = 0;
        for (int64_t e = 0; e < a->nnz; ++e)
            nnz += a->colidx[e] >= cs && a->colidx[e] < ce;
        const dspmm_level *l0 = &plan.level[0];
        const int64_t n0 = l0->holder_row[d + 1] - l0->holder_row[d];
        const int64_t crows = grid.row_start[d + 1] - grid.row_start[d];
        const double eb = (double)esize;
        t->flops = 2.0 * (double)nnz * (double)kb;
        t->bytes[RT_LEVEL_DRAM] = (double)nnz * (eb + 4.0) + (double)(n0 + 1) * 8.0 +
                                  (double)(ce - cs) * (double)kb * eb +
                                  (double)n0 * (double)kb * eb + (double)crows * (double)kb * eb;
        for (int tr = 0; tr < RT_TIER_COUNT; ++tr) {
            t->net_bytes[tr] = (double)per[me].bytes[tr];
            t->net_messages[tr] = (double)per[me].msgs[tr];
        }
    }
    free(per);
    dspmm_plan_free(&plan);
    dspmm_grid_free(&grid);
    dspmm_topo_free(&topo);
    return rc == 0 ? 0 : -1;
}

static const rt_kernel_desc sender_desc = {
    .name = KNAME,
    .family = "dspmm",
    .backend = "cpu",
    .summary = "distributed sender-multiplies SpMM: batch x data grid, direct or hierarchical "
               "reduction, minibatch pipelining (host MPI)",
    .params = sender_params,
    .n_params = N_SENDER_PARAMS,
    .unavailable = NULL,
    .check = sender_check,
    .setup = sender_setup,
    .run = sender_run,
    .output = sender_output,
    .metrics = sender_metrics,
    .flush = NULL,
    .teardown = sender_teardown,
    .traffic = sender_traffic,
    .backend_ctx = NULL,
};

const rt_kernel_desc *rt_dspmm_cpu_sender_kernel(void)
{
    return &sender_desc;
}
