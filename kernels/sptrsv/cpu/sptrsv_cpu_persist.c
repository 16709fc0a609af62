#define _POSIX_C_SOURCE 200809L
#include "sptrsv_cpu_persist.h"

#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "rt_clock.h"
#include "rt_comm.h"
#include "rt_cpu_kernel.h"
#include "rt_schema.h"
#include "rt_tables.h"
#include "sptrsv_family.h"
#include "sptrsv_pexec.h"
#include "sptrsv_ppoint.h"

#define KNAME "sptrsv.cpu.persistent"

static const rt_param_schema persist_params[] = {
    RT_PARAM_INT("parts", "0..64", "0",
                 "the first `parts` ranks of the job solve (0: every rank; the others wait)"),
    RT_PARAM_STR("layout", "px1|2d|1xp", "px1",
                 "blocks of L to ranks: px1 (the paper's P x 1), 2d (Pr x Pc), 1xp"),
    RT_PARAM_STR(
        "map", "cyclic|subtree", "cyclic",
        "owner of a supernode: cyclic (the paper's) or subtree (elimination subtrees by bytes)"),
    RT_PARAM_INT("chunk_rows", "1..4096", "256", "most rows below a supernode one task multiplies"),
    RT_PARAM_INT("leaf_kb", "0..65536", "0",
                 "leaf subtrees with at most this many KiB of L are one task each (0: none)"),
    RT_PARAM_INT("threads", "1..256", "2", "OpenMP threads of each rank (its workers)"),
    SPTRSV_PARAM_PERSIST_POLL_TIMEOUT,
};
#define N_PARAMS ((int)(sizeof persist_params / sizeof persist_params[0]))

/* A part's segment of the shared window: X, partial sums, reduction slots, x flags, counters,
 * the ticket and the error words, each 64-byte aligned. */
typedef struct segment {
    double *x, *lsum, *recv;
    uint64_t *xflag, *count, *ticket;
    int64_t *err; /* [0] what (1: a wait timed out), [1] task, [2] wait code, [3] value seen */
} segment;

typedef struct persist_state {
    const rt_sptrsv_inputs *in;
    rt_comm *comm;
    sptrsv_ppoint opt;
    int rank, part;
    MPI_Comm parts;
    MPI_Win win;
    int have_win;
    sptrsv_pplan plan;
    int have_plan;
    segment *seg; /* parts: every part's segment as mapped here */
    double *inv;
    int64_t *inv_off;
    uint64_t epoch;
    double *xfull;
} persist_state;

static size_t align64(size_t b)
{
    return (b + 63) & ~(size_t)63;
}

static size_t segment_bytes(const sptrsv_pplan *p, int g, int64_t nk)
{
    const size_t v = align64((size_t)nk * sizeof(double)), f = align64((size_t)p->nsuper * 8);
    return 2 * v + align64((size_t)p->recv_doubles[g] * sizeof(double)) + 2 * f + 64 + 64;
}

static segment carve(char *base, const sptrsv_pplan *p, int g, int64_t nk)
{
    segment s;
    const size_t v = align64((size_t)nk * sizeof(double)), f = align64((size_t)p->nsuper * 8);
    s.x = (double *)base;
    s.lsum = (double *)(base + v);
    s.recv = (double *)(base + 2 * v);
    char *c = base + 2 * v + align64((size_t)p->recv_doubles[g] * sizeof(double));
    s.xflag = (uint64_t *)c;
    s.count = (uint64_t *)(c + f);
    s.ticket = (uint64_t *)(c + 2 * f);
    s.err = (int64_t *)(c + 2 * f + 64);
    return s;
}

static void persist_teardown(void *state)
{
    persist_state *s = state;
    if (!s)
        return;
    if (s->have_win) { /* collective over the parts: every part tears down the same point */
        MPI_Win_unlock_all(s->win);
        MPI_Win_free(&s->win);
    }
    if (s->parts != MPI_COMM_NULL)
        MPI_Comm_free(&s->parts);
    if (s->have_plan)
        sptrsv_pplan_free(&s->plan);
    free(s->seg);
    free(s->inv);
    free(s->inv_off);
    free(s->xfull);
    free(s);
}

static int read_opts(const rt_kernel_desc *self, const rt_params *p, sptrsv_ppoint *o, rt_err *err)
{
    int64_t threads = 1;
    if (sptrsv_ppoint_read(persist_params, N_PARAMS, self->name, p, o, err) != 0 ||
        rt_schema_int(persist_params, N_PARAMS, self->name, p, "threads", &threads, err) != 0)
        return -1;
    o->threads = (int)threads;
    return 0;
}

static int persist_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    if (!env || !env->comm)
        return rt_err_set(err, "%s: no communication layer", self->name);
    sptrsv_ppoint o;
    if (read_opts(self, p, &o, err) != 0)
        return -1;
    const int nranks = rt_comm_world_size(env->comm);
    int rc = sptrsv_ppoint_check(&o, inputs, nranks, 64, self->name, why, whylen);
    if (rc != 0)
        return rc;
    rt_err e;
    if (sptrsv_ppoint_resolve(&o, nranks, &e) != 0)
        return RT_INFEASIBLE;
    /* Shared memory joins the parts: they must be one node of the job (emulated or real). */
    for (int r = 1; r < o.parts; ++r)
        if (rt_comm_node_of(env->comm, r) != rt_comm_node_of(env->comm, 0)) {
            snprintf(why, whylen,
                     "%s: its parts share memory, but ranks 0 and %d are on nodes %d and %d of the "
                     "job; sptrsv.cpu.distributed (MPI-3 RMA) solves across nodes",
                     self->name, r, rt_comm_node_of(env->comm, 0), rt_comm_node_of(env->comm, r));
            return RT_INFEASIBLE;
        }
    return 0;
}

static int agree(persist_state *s, int rc, const char *step, rt_err *err)
{
    return rt_comm_agree_outcome(s->comm, rc, KNAME, step, err);
}

/* The window over the parts and every part's segment, X as NaN and the rest zero. */
static int make_window(persist_state *s, rt_err *err)
{
    const int64_t nk = s->in->n * s->in->nrhs;
    char *base = NULL;
    if (MPI_Win_allocate_shared((MPI_Aint)segment_bytes(&s->plan, s->part, nk), 1, MPI_INFO_NULL,
                                s->parts, &base, &s->win) != MPI_SUCCESS)
        return rt_err_set(err, "%s: MPI_Win_allocate_shared failed", KNAME);
    s->have_win = 1;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, s->win);
    s->seg = calloc((size_t)s->opt.parts, sizeof *s->seg);
    if (!s->seg)
        return rt_err_set(err, "%s: out of memory", KNAME);
    for (int g = 0; g < s->opt.parts; ++g) {
        MPI_Aint size = 0;
        int disp = 0;
        char *ptr = NULL;
        if (MPI_Win_shared_query(s->win, g, &size, &disp, &ptr) != MPI_SUCCESS)
            return rt_err_set(err, "%s: MPI_Win_shared_query of part %d failed", KNAME, g);
        s->seg[g] = carve(ptr, &s->plan, g, nk);
    }
    memset(base, 0, segment_bytes(&s->plan, s->part, nk));
    for (int64_t i = 0; i < nk; ++i)
        s->seg[s->part].x[i] = NAN; /* a row no step writes fails the gate */
    MPI_Win_sync(s->win);
    return MPI_Barrier(s->parts) == MPI_SUCCESS ? 0 : rt_err_set(err, "%s: barrier failed", KNAME);
}

static int persist_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    *state = NULL;
    if (!in || !env || !env->comm)
        return rt_err_set(err, "%s: no inputs or no communication layer", self->name);
    persist_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    s->parts = MPI_COMM_NULL;
    int rc = read_opts(self, p, &s->opt, err);
    if (rc == 0)
        rc = sptrsv_ppoint_resolve(&s->opt, rt_comm_world_size(env->comm), err);
    if (rc != 0) { /* the same on every rank: no collective yet */
        free(s);
        return rc;
    }
    s->in = in;
    s->comm = env->comm;
    s->rank = rt_comm_world_rank(env->comm);
    s->part = s->rank < s->opt.parts ? s->rank : -1;
    if (MPI_Comm_split(rt_comm_mpi(env->comm, RT_COMM_WORLD), s->part >= 0 ? 0 : MPI_UNDEFINED,
                       s->rank, &s->parts) != MPI_SUCCESS) {
        free(s);
        return rt_err_set(err, "%s: MPI_Comm_split of the parts failed", self->name);
    }
    *state = s;
    s->xfull = malloc((size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1) * sizeof *s->xfull);
    if (!s->xfull)
        rc = rt_err_set(err, "%s: out of memory", self->name);
    if (rc == 0 && s->part >= 0) {
        sptrsv_pplan_opts po;
        sptrsv_ppoint_plan_opts(&s->opt, in, &po);
        rc = sptrsv_pplan_build(&in->f, &in->dag, &po, &s->plan, err);
        s->have_plan = rc == 0;
        int64_t total = 0;
        if (rc == 0)
            rc =
                sptrsv_pexec_inverses(&in->f, &s->plan, s->part, &s->inv, &s->inv_off, &total, err);
    }
    if ((rc = agree(s, rc, "planning", err)) == 0 && s->part >= 0)
        rc = make_window(s, err);
    if ((rc = agree(s, rc, "the shared window", err)) != 0) {
        persist_teardown(s);
        *state = NULL;
    }
    return rc;
}

typedef struct run_ctx {
    persist_state *s;
    uint64_t e;
    double deadline_s;
    int stop;
} run_ctx;

static uint64_t load_acq(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Spins (yielding) until *ptr >= want; 0 when it timed out or another thread failed. */
static int wait_ge(run_ctx *r, const uint64_t *ptr, uint64_t want, int64_t task, int64_t code)
{
    segment *me = &r->s->seg[r->s->part];
    const double t0 = rt_clock_now();
    for (unsigned spin = 0;; ++spin) {
        const uint64_t v = load_acq(ptr);
        if (v >= want)
            return 1;
        if (__atomic_load_n(&me->err[0], __ATOMIC_ACQUIRE) != 0)
            return 0;
        if ((spin & 255) == 255 && rt_clock_now() - t0 > r->deadline_s) {
            int64_t zero = 0;
            if (__atomic_compare_exchange_n(&me->err[0], &zero, 1, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                me->err[1] = task;
                me->err[2] = code;
                me->err[3] = (int64_t)v;
            }
            return 0;
        }
        sched_yield(); /* ranks and threads may outnumber the cores */
    }
}

static void diag(run_ctx *r, int64_t sn)
{
    persist_state *s = r->s;
    const sptrsv_pplan *p = &s->plan;
    const sptrsv_factor *f = &s->in->f;
    segment *me = &s->seg[s->part];
    const int64_t k = s->in->nrhs, r0 = f->first[sn] * k, m = sptrsv_ncols(f, sn) * k;
    sptrsv_pexec_diag(f, p, sn, s->inv + s->inv_off[sn], s->in->b, me->lsum, me->recv, me->x);
    for (int64_t d = p->xdst_ptr[sn]; d < p->xdst_ptr[sn + 1]; ++d)
        memcpy(s->seg[p->xdst[d]].x + r0, me->x + r0, (size_t)m * sizeof(double));
    for (int64_t d = p->xdst_ptr[sn]; d < p->xdst_ptr[sn + 1]; ++d)
        __atomic_store_n(&s->seg[p->xdst[d]].xflag[sn], r->e, __ATOMIC_RELEASE);
    __atomic_store_n(&me->xflag[sn], r->e, __ATOMIC_RELEASE);
}

static void chunk(run_ctx *r, int64_t c)
{
    persist_state *s = r->s;
    const sptrsv_pplan *p = &s->plan;
    const sptrsv_factor *f = &s->in->f;
    segment *me = &s->seg[s->part];
    const int64_t k = s->in->nrhs, ns = p->nsuper;
    sptrsv_pexec_chunk(f, p, c, me->x, me->lsum, 1);
    for (int64_t o = p->ch_out_ptr[c]; o < p->ch_out_ptr[c + 1]; ++o) {
        const int64_t sn = p->ch_out[o];
        const int h = p->home[sn];
        const uint64_t old = __atomic_fetch_add(&me->count[sn], 1, __ATOMIC_ACQ_REL);
        if (h == s->part || old + 1 != r->e * (uint64_t)p->target[(int64_t)s->part * ns + sn])
            continue;
        /* the last of this part's signals of sn: its partial sums go to the owner */
        const int64_t r0 = f->first[sn] * k, m = sptrsv_ncols(f, sn) * k;
        double *slot = s->seg[h].recv + p->red_off[(int64_t)s->part * ns + sn];
        for (int64_t q = 0; q < m; ++q) {
            slot[q] = me->lsum[r0 + q];
            me->lsum[r0 + q] = 0.0;
        }
        __atomic_fetch_add(&s->seg[h].count[sn], 1, __ATOMIC_RELEASE);
    }
}

static void worker(run_ctx *r)
{
    persist_state *s = r->s;
    const sptrsv_pplan *p = &s->plan;
    segment *me = &s->seg[s->part];
    const int64_t t0 = p->ticket_ptr[s->part], nt = p->ticket_ptr[s->part + 1] - t0;
    const int64_t ns = p->nsuper;
    for (;;) {
        const uint64_t i = __atomic_fetch_add(me->ticket, 1, __ATOMIC_RELAXED);
        if ((int64_t)i >= nt || __atomic_load_n(&r->stop, __ATOMIC_RELAXED))
            return;
        const int64_t t = p->ticket[t0 + (int64_t)i];
        for (int64_t w = p->task_wait_ptr[t]; w < p->task_wait_ptr[t + 1]; ++w) {
            const int64_t code = p->task_wait[w];
            const int ok =
                code >= 0 ? wait_ge(r, &me->xflag[code], r->e, t, code)
                          : wait_ge(r, &me->count[-1 - code],
                                    r->e * (uint64_t)p->target[(int64_t)s->part * ns - 1 - code], t,
                                    code);
            if (!ok) {
                __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
                return;
            }
        }
        for (int64_t q = p->task_step_ptr[t]; q < p->task_step_ptr[t + 1]; ++q) {
            const int64_t code = p->task_step[q];
            if (code >= 0)
                diag(r, code);
            else
                chunk(r, SPTRSV_PSTEP_ID(code));
        }
    }
}

static int persist_run(void *state, double *seconds, rt_err *err)
{
    persist_state *s = state;
    *seconds = -1.0; /* the runner's wall clock */
    if (s->part < 0)
        return 0;
    segment *me = &s->seg[s->part];
    run_ctx r = {s, ++s->epoch, s->opt.timeout_s, 0};
    *me->ticket = 0;
    for (int i = 0; i < 4; ++i)
        me->err[i] = 0;
#pragma omp parallel num_threads(s->opt.threads)
    worker(&r);
    if (me->err[0] == 0)
        return 0;
    char what[160];
    sptrsv_ppoint_describe_task(&s->plan, me->err[1], what, sizeof what);
    const int64_t code = me->err[2];
    if (code >= 0)
        return rt_err_set(
            err, "%s: part %d, %s, waited %.3g s for x of supernode %" PRId64 " from part %d",
            KNAME, s->part, what, s->opt.timeout_s, code, s->plan.home[code]);
    return rt_err_set(err,
                      "%s: part %d, %s, waited %.3g s for the partial sums of supernode %" PRId64,
                      KNAME, s->part, what, s->opt.timeout_s, -1 - code);
}

/* The whole X from the owners' segments (shared memory); waiting ranks ask rank 0 for it. */
static int gather_x(persist_state *s, rt_err *err)
{
    const rt_sptrsv_inputs *in = s->in;
    const int64_t k = in->nrhs, nk = in->n * k;
    if (s->part >= 0) {
        MPI_Win_sync(s->win);
        for (int64_t j = 0; j < in->f.nsuper; ++j)
            memcpy(s->xfull + in->f.first[j] * k, s->seg[s->plan.home[j]].x + in->f.first[j] * k,
                   (size_t)(sptrsv_ncols(&in->f, j) * k) * sizeof(double));
    }
    if (MPI_Bcast(s->xfull, (int)nk, MPI_DOUBLE, 0, rt_comm_mpi(s->comm, RT_COMM_WORLD)) !=
        MPI_SUCCESS)
        return rt_err_set(err, "%s: sharing X (MPI_Bcast) failed", KNAME);
    return 0;
}

/* This rank's canonical rows, from the whole X every rank now holds. */
static int persist_output(void *state, double *out, rt_err *err)
{
    persist_state *s = state;
    const int rc = gather_x(s, err);
    if (rc == 0)
        sptrsv_canonical_rows(s->in, s->xfull, out);
    return rc;
}

static int persist_metrics(void *state, rt_metrics *m, rt_err *err)
{
    persist_state *s = state;
    (void)err;
    rt_metrics_add(m, "threads", "count", (double)s->opt.threads, 1);
    sptrsv_ppoint_solution_metrics(s->in, s->xfull, m);
    if (s->part >= 0)
        sptrsv_ppoint_plan_metrics(&s->plan, m);
    return 0;
}

/* The bytes a part's steps touch and the x and partial sums it copies into other parts'
 * segments, all at the host's memory (no network tier: the copies are memcpy). */
static int persist_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                           const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    sptrsv_ppoint o;
    if (!env || !env->comm)
        return rt_err_set(err, "%s: no communication layer", self->name);
    if (read_opts(self, p, &o, err) != 0 ||
        sptrsv_ppoint_resolve(&o, rt_comm_world_size(env->comm), err) != 0)
        return -1;
    if (sptrsv_ppoint_traffic(&o, inputs, env->comm, t, err) != 0)
        return -1;
    for (int k = 0; k < RT_TIER_COUNT; ++k) {
        t->bytes[RT_LEVEL_DRAM] += t->net_bytes[k];
        t->net_bytes[k] = 0.0;
    }
    return 0;
}

static const rt_kernel_desc persist_desc = RT_CPU_KERNEL(
    KNAME, "sptrsv",
    "the persistent message-driven solve (forward or backward) on CPU ranks: the plan "
    "of sptrsv.cuda.persistent, threads as workers, shared-memory windows for x, "
    "partial sums, flags and counters",
    persist_params, persist_check, persist_setup, persist_run, persist_output, persist_metrics,
    persist_teardown, persist_traffic);

const rt_kernel_desc *rt_sptrsv_cpu_persist_kernel(void)
{
    return &persist_desc;
}
