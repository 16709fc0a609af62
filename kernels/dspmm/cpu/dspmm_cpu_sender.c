#include "dspmm_cpu_sender.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "rt_cpu_kernel.h"
#include "dspmm_family.h"
#include "dspmm_part.h"
#include "dspmm_sender_common.h"
#include "rt_clock.h"
#include "rt_comm.h"
#include "rt_schema.h"
#include "rt_cpu_threads.h"
#include "rt_tables.h"

static const rt_param_schema sender_params[] = {
    DSPMM_PARAM_P_BATCH,
    DSPMM_PARAM_COMM,
    DSPMM_PARAM_MINIBATCH,
    DSPMM_PARAM_STAGES,
    DSPMM_PARAM_STAGE_BUFFERS,
    RT_PARAM_INT("threads", "0..1024", "0", "OpenMP threads per rank, 0 = every available core"),
    DSPMM_PARAM_FAIL_RANK,
    DSPMM_PARAM_FAIL_AT,
};
#define N_SENDER_PARAMS ((int)(sizeof sender_params / sizeof sender_params[0]))
#define KNAME           "dspmm.cpu.sender"

typedef struct sender_state {
    dspmm_sender_base b; /* grid, plan, role, local operands, tallies, phase times */
    int team;
    /* Level buffers and receive areas; the last hop has stage_buffers sets ([.][set]), the others
     * one. */
    void *lev[DSPMM_MAX_HOPS][DSPMM_MAX_STAGE_BUFFERS];
    void *rbuf[DSPMM_MAX_HOPS][DSPMM_MAX_STAGE_BUFFERS];
    void *c;                                   /* my C rows x kb */
    MPI_Request *req[DSPMM_MAX_STAGE_BUFFERS]; /* the last hop's requests, per buffer set */
    MPI_Request *req_local;                    /* an intermediate hop's requests */
    MPI_Status *sts; /* statuses of one hop's requests (allocated once, in setup) */
    int max_req;
} sender_state;

int rt_dspmm_sender_params(const rt_params *p, int *p_batch, dspmm_comm_kind *comm,
                           int64_t *minibatch, int64_t *stages, rt_err *err)
{
    dspmm_sender_cfg cfg;
    if (dspmm_sender_read_cfg(sender_params, N_SENDER_PARAMS, KNAME, p, &cfg, err) != 0)
        return -1;
    *p_batch = cfg.p_batch;
    *comm = cfg.comm;
    *minibatch = cfg.minibatch;
    *stages = cfg.stages;
    return 0;
}

static int sender_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    dspmm_sender_cfg cfg;
    int64_t threads = 0;
    (void)self;
    if (dspmm_sender_read_cfg(sender_params, N_SENDER_PARAMS, KNAME, p, &cfg, err) != 0 ||
        rt_schema_int(sender_params, N_SENDER_PARAMS, KNAME, p, "threads", &threads, err) != 0)
        return -1;
    const int rc = dspmm_sender_check(KNAME, inputs, &cfg, env, why, whylen, err);
    if (rc != 0)
        return rc;
    int team = 1;
    return rt_cpu_resolve_threads(threads, env, &team, why, whylen);
}

static void sender_teardown(void *state)
{
    sender_state *s = state;
    if (!s)
        return;
    dspmm_sender_base_free(&s->b);
    for (int k = 0; k < DSPMM_MAX_HOPS; ++k)
        for (int set = 0; set < DSPMM_MAX_STAGE_BUFFERS; ++set) {
            free(s->lev[k][set]);
            free(s->rbuf[k][set]);
        }
    free(s->c);
    for (int set = 0; set < DSPMM_MAX_STAGE_BUFFERS; ++set)
        free(s->req[set]);
    free(s->req_local);
    free(s->sts);
    free(s);
}

static void *alloc_elems(int64_t n, size_t esize)
{
    return malloc((size_t)(n > 0 ? n : 1) * esize);
}

static int sender_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_dspmm_inputs *in = inputs;
    *state = NULL;
    if (!in || !env || !env->comm)
        return rt_err_set(err, "%s: no inputs or no communication layer", self->name);
    dspmm_sender_cfg cfg;
    int64_t threads = 0;
    if (dspmm_sender_read_cfg(sender_params, N_SENDER_PARAMS, KNAME, p, &cfg, err) != 0 ||
        rt_schema_int(sender_params, N_SENDER_PARAMS, KNAME, p, "threads", &threads, err) != 0)
        return -1;
    /* Setup communicates with nobody, so a rank that fails here cannot leave a partner waiting:
     * the runner's agreement after setup records the failure with this rank named. */
    if (cfg.fail_rank == env->rank && cfg.fail_in_setup)
        return rt_err_set(err, "%s: injected failure on rank %d in setup (test hook fail_rank)",
                          self->name, env->rank);

    sender_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    char why[256] = "";
    int rc = rt_cpu_resolve_threads(threads, env, &s->team, why, sizeof why);
    if (rc == RT_INFEASIBLE)
        rt_err_set(err, "%s", why);
    if (rc == 0)
        rc = dspmm_sender_base_init(&s->b, KNAME, in, env, &cfg, err);
    if (rc != 0) {
        sender_teardown(s);
        return rc;
    }
    const int last = s->b.plan.hops - 1;
    for (int k = 0; k <= last; ++k) {
        const dspmm_hop_role *h = &s->b.role.hop[k];
        if (h->n_send + h->n_recv > s->max_req)
            s->max_req = h->n_send + h->n_recv;
    }
    int ok = 1;
    const size_t nreq = (size_t)(s->max_req > 0 ? s->max_req : 1);
    for (int k = 0; k <= last; ++k) {
        const int sets = k == last ? s->b.stage_buffers : 1;
        for (int set = 0; set < sets; ++set) {
            s->lev[k][set] = alloc_elems(s->b.role.level_rows[k] * s->b.chunk_max, s->b.esize);
            s->rbuf[k][set] = alloc_elems(s->b.role.hop[k].recv_rows * s->b.chunk_max, s->b.esize);
            ok = ok && s->lev[k][set] && s->rbuf[k][set];
            if (k == last) {
                s->req[set] = malloc(nreq * sizeof(MPI_Request));
                ok = ok && s->req[set];
            }
        }
    }
    s->c = alloc_elems(s->b.role.c_rows * s->b.kb, s->b.esize);
    s->req_local = malloc(nreq * sizeof(MPI_Request));
    s->sts = malloc(nreq * sizeof(MPI_Status));
    if (!ok || !s->c || !s->req_local || !s->sts) {
        sender_teardown(s);
        return rt_err_set(err, "%s: out of memory for the partial-row buffers", self->name);
    }
    *state = s;
    return 0;
}

/* ---- One execution ------------------------------------------------------------------------ */

/* One row of the sender's two loops for one value type T (fp32 and fp64 run the same code): a
 * reduced row (dr += xr, w values) and a level-0 partial row (orow = row r of A_local times the
 * columns [c0, c0 + w) of B_block). */
#define DSPMM_SENDER_ROW(T, SUFFIX)                                                                \
    static void reduce_row_##SUFFIX(T *dr, const T *xr, int64_t w)                                 \
    {                                                                                              \
        for (int64_t j = 0; j < w; ++j)                                                            \
            dr[j] += xr[j];                                                                        \
    }                                                                                              \
    static void multiply_row_##SUFFIX(const sender_state *s, T *orow, int64_t r, int64_t c0,       \
                                      int64_t w)                                                   \
    {                                                                                              \
        const T *v = s->b.lval, *b = s->b.bblk;                                                    \
        for (int64_t j = 0; j < w; ++j)                                                            \
            orow[j] = (T)0;                                                                        \
        for (int64_t e = s->b.lrowptr[r]; e < s->b.lrowptr[r + 1]; ++e) {                          \
            const T a = v[e];                                                                      \
            const T *brow = b + (int64_t)s->b.lcol[e] * s->b.kb + c0;                              \
            for (int64_t j = 0; j < w; ++j)                                                        \
                orow[j] += a * brow[j];                                                            \
        }                                                                                          \
    }
DSPMM_SENDER_ROW(float, fp32)
DSPMM_SENDER_ROW(double, fp64)

/* dst[map[r]] += src[r] for rows of w values; dst rows have ld ldd and start at column c0. Rows of
 * one map are distinct, so the rows can be reduced in parallel. */
static void reduce_rows(const sender_state *s, void *dst, int64_t ldd, int64_t c0, const void *src,
                        const int64_t *src_rows, const int64_t *map, int64_t n, int64_t w)
{
    const size_t eb = s->b.esize;
#pragma omp parallel for schedule(static) num_threads(s->team) if (n * w > 4096)
    for (int64_t r = 0; r < n; ++r) {
        char *dr = (char *)dst + (size_t)(map[r] * ldd + c0) * eb;
        const char *xr = (const char *)src + (size_t)((src_rows ? src_rows[r] : r) * w) * eb;
        if (s->b.prec == RT_FP32)
            reduce_row_fp32((float *)dr, (const float *)xr, w);
        else
            reduce_row_fp64((double *)dr, (const double *)xr, w);
    }
}

/* Level-0 partial rows for columns [c0, c0 + w) of my group: out (rows x w) = A_local * B_block. */
static void local_multiply(const sender_state *s, void *out, int64_t c0, int64_t w)
{
    const int64_t n0 = s->b.role.level_rows[0];
    const size_t eb = s->b.esize;
#pragma omp parallel for schedule(dynamic, 64) num_threads(s->team)
    for (int64_t r = 0; r < n0; ++r) {
        char *orow = (char *)out + (size_t)(r * w) * eb;
        if (s->b.prec == RT_FP32)
            multiply_row_fp32(s, (float *)orow, r, c0, w);
        else
            multiply_row_fp64(s, (double *)orow, r, c0, w);
    }
}

/* Execution context: the first local failure is kept, and the protocol goes on regardless, so
 * every partner still gets (and sends) every message it expects. */
typedef dspmm_exec_ctx exec_ctx;

static void exec_fail(exec_ctx *x, const char *what, int rc)
{
    dspmm_exec_fail_mpi(x, KNAME, what, rc);
}

/* Posts hop k for one chunk of width w: receives into rbuf, sends from src (my level-k buffer).
 * Fills req (recvs first) and returns how many were posted. */
static int post_hop(sender_state *s, int k, int parity, const void *src, void *rbuf, int64_t w,
                    MPI_Request *req, exec_ctx *x)
{
    const dspmm_hop_role *h = &s->b.role.hop[k];
    const int tag = DSPMM_TAG_BASE + 2 * k + parity;
    const size_t row_bytes = (size_t)w * s->b.esize;
    int n = 0;
    int64_t off = 0;
    for (int i = 0; i < h->n_recv; ++i) {
        const dspmm_xfer *r = &h->recv[i];
        const int rc =
            MPI_Irecv((char *)rbuf + (size_t)off * row_bytes, (int)((size_t)r->rows * row_bytes),
                      MPI_BYTE, r->peer, tag, s->b.mpi, &req[n]);
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
                                 MPI_BYTE, d->peer, tag, s->b.mpi, &req[n]);
        if (rc != MPI_SUCCESS) {
            req[n] = MPI_REQUEST_NULL;
            exec_fail(x, "posting a send", rc);
        } else {
            rt_err cerr;
            rt_err_clear(&cerr);
            if (dspmm_sender_count(&s->b, d->peer, bytes, &cerr) != 0 && x->ok) {
                x->ok = 0;
                x->err = cerr;
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
        const dspmm_hop_role *h = &s->b.role.hop[k];
        for (int i = 0; i < h->n_recv; ++i) {
            int got = -1;
            MPI_Get_count(&sts[i], MPI_BYTE, &got);
            const int64_t want = h->recv[i].rows * w * (int64_t)s->b.esize;
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
    const dspmm_hop_role *h = &s->b.role.hop[k];
    const double t0 = rt_clock_now();
    if (self)
        reduce_rows(s, dst, ldd, c0, src, h->self_src, h->self_dst, h->n_self, w);
    else {
        int64_t off = 0;
        for (int i = 0; i < h->n_recv; ++i) {
            reduce_rows(s, dst, ldd, c0, (const char *)rbuf + (size_t)(off * w) * s->b.esize, NULL,
                        h->recv[i].map, h->recv[i].rows, w);
            off += h->recv[i].rows;
        }
    }
    s->b.t_reduce += rt_clock_now() - t0;
}

static void zero_elems(void *p, int64_t n, size_t esize)
{
    if (n > 0)
        memset(p, 0, (size_t)n * esize);
}

/* The last hop of one stage, posted and not yet finished. */
typedef struct stage_inflight {
    int set, n;
    int64_t c0, w;
} stage_inflight;

/* Waits for an in-flight stage's last hop and adds what arrived into C. */
static void finish_stage(sender_state *s, const stage_inflight *st, exec_ctx *x)
{
    const int last = s->b.plan.hops - 1;
    const double t0 = rt_clock_now();
    wait_hop(s, last, st->n, s->req[st->set], st->w, x);
    s->b.t_hop[last] += rt_clock_now() - t0;
    reduce_hop(s, last, NULL, s->rbuf[last][st->set], s->c, s->b.kb, st->c0, st->w, 0);
}

/* Stage ch multiplies into buffer set ch % stage_buffers, reduces its local hops (blocking), and
 * posts its last hop, which stays in flight (nonblocking MPI) behind the next stages' multiplies
 * until its set is needed again: at most stage_buffers - 1 stages are in flight when a stage
 * posts, and they finish in order. */
static int sender_run(void *state, double *seconds, rt_err *err)
{
    sender_state *s = state;
    *seconds = -1.0; /* the runner's wall clock times host kernels */
    exec_ctx x = {.ok = 1};
    dspmm_sender_begin(&s->b);
    const int last = s->b.plan.hops - 1;
    const int sets = s->b.stage_buffers;
    zero_elems(s->c, s->b.role.c_rows * s->b.kb, s->b.esize);

    stage_inflight fly[DSPMM_MAX_STAGE_BUFFERS];
    int64_t oldest = 0; /* stages [oldest, ch) are in flight; stage j is in fly[j % sets] */
    for (int64_t ch = 0; ch < s->b.chunks; ++ch) {
        const int set = (int)(ch % sets);
        int64_t c0 = 0, w = 0;
        dspmm_sender_chunk(&s->b, ch, &c0, &w);
        double t0 = rt_clock_now();
        local_multiply(s, s->lev[0][last == 0 ? set : 0], c0, w);
        s->b.t_kernel += rt_clock_now() - t0;
        /* Local hops: blocking, level k -> level k + 1. */
        for (int k = 0; k < last; ++k) {
            const void *src = s->lev[k][0];
            void *dst = s->lev[k + 1][k + 1 == last ? set : 0];
            t0 = rt_clock_now();
            const int n = post_hop(s, k, 0, src, s->rbuf[k][0], w, s->req_local, &x);
            s->b.t_hop[k] += rt_clock_now() - t0;
            zero_elems(dst, s->b.role.level_rows[k + 1] * w, s->b.esize);
            reduce_hop(s, k, src, NULL, dst, w, 0, w, 1);
            t0 = rt_clock_now();
            wait_hop(s, k, n, s->req_local, w, &x);
            s->b.t_hop[k] += rt_clock_now() - t0;
            reduce_hop(s, k, NULL, s->rbuf[k][0], dst, w, 0, w, 0);
        }
        /* Earlier stages' last hops have overlapped this stage's local work; finish those whose
         * set the next stages need (with two sets: the previous stage, as before). */
        while (oldest < ch && ch - oldest >= sets - 1)
            finish_stage(s, &fly[oldest++ % sets], &x);
        t0 = rt_clock_now();
        stage_inflight *f = &fly[set];
        f->set = set;
        f->c0 = c0;
        f->w = w;
        f->n = post_hop(s, last, (int)(ch & 1), s->lev[last][set], s->rbuf[last][set], w,
                        s->req[set], &x);
        s->b.t_hop[last] += rt_clock_now() - t0;
        reduce_hop(s, last, s->lev[last][set], NULL, s->c, s->b.kb, c0, w, 1);
    }
    while (oldest < s->b.chunks)
        finish_stage(s, &fly[oldest++ % sets], &x);
    return dspmm_sender_finish(&s->b, x.ok, &x.err, err);
}

static int sender_output(void *state, double *out, rt_err *err)
{
    const sender_state *s = state;
    return dspmm_sender_output(&s->b, s->c, out, err);
}

static int sender_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const sender_state *s = state;
    return dspmm_sender_metrics(
        &s->b, "the CPU transport sends from host memory: there is nothing to stage", m, err);
}

static int sender_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    dspmm_sender_cfg cfg;
    (void)self;
    memset(t, 0, sizeof *t);
    if (dspmm_sender_read_cfg(sender_params, N_SENDER_PARAMS, KNAME, p, &cfg, err) != 0)
        return -1;
    return dspmm_sender_traffic(KNAME, inputs, &cfg, env, t, err);
}

static const rt_kernel_desc sender_desc =
    RT_CPU_KERNEL(KNAME, "dspmm",
                  "distributed sender-multiplies SpMM: batch x data grid, direct or hierarchical "
                  "reduction, minibatch pipelining (host MPI)",
                  sender_params, sender_check, sender_setup, sender_run, sender_output,
                  sender_metrics, sender_teardown, sender_traffic);

const rt_kernel_desc *rt_dspmm_cpu_sender_kernel(void)
{
    return &sender_desc;
}
