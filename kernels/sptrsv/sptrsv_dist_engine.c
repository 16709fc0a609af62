#include "sptrsv_dist_engine.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_comm_rma.h"

struct sptrsv_dist {
    const char *name;
    const rt_sptrsv_inputs *in;
    rt_comm *comm;
    int rank, nranks;
    sptrsv_plan plan;
    rt_rma_win *slots; /* message slots: arrival counter + x_s */
    rt_rma_win *xwin;  /* X (n x nrhs): the rows of my supernodes and of those I received */
    double *x;
    int64_t *dep, *left; /* dependencies of my supernodes, counted down per execution */
    int64_t *my_pos;     /* nsuper: my position in each tree, -1 when none */
    int64_t *recv_super; /* supernodes whose x I receive */
    int64_t *recv_off;   /* their slot offsets */
    int64_t *pending;    /* scratch: indices into recv_* not yet arrived */
    int64_t *stack;      /* supernodes whose x is known here and not yet used */
    int64_t n_recv, n_owned;
    int64_t epoch;
    double poll_timeout_s;
    int64_t fail_rank;
    int64_t got, dup, missing; /* last execution: messages received, duplicated, pending */
    int64_t sent;
    int has_transport; /* x travels through transport, not through the slots window */
    sptrsv_dist_transport transport;
    int64_t *dst_slot; /* per tree entry: the receiver's slot index (-1 for roots) */
    int64_t *counts;   /* n_recv: the transport's arrival counters, read per poll */
};

void sptrsv_dist_free(sptrsv_dist *d)
{
    if (!d)
        return;
    rt_rma_win_free(d->slots);
    rt_rma_win_free(d->xwin);
    sptrsv_plan_free(&d->plan);
    free(d->dep);
    free(d->left);
    free(d->my_pos);
    free(d->recv_super);
    free(d->recv_off);
    free(d->pending);
    free(d->stack);
    free(d->dst_slot);
    free(d->counts);
    free(d);
}

const sptrsv_plan *sptrsv_dist_plan(const sptrsv_dist *d)
{
    return &d->plan;
}

double *sptrsv_dist_x(sptrsv_dist *d)
{
    return d->x;
}

void sptrsv_dist_set_transport(sptrsv_dist *d, const sptrsv_dist_transport *t)
{
    d->transport = *t;
    d->has_transport = 1;
}

int64_t sptrsv_dist_n_recv(const sptrsv_dist *d)
{
    return d->n_recv;
}

/* Everything local: the plan, my receive list, my dependency counts. */
static int prepare(sptrsv_dist *s, rt_err *err)
{
    const rt_sptrsv_inputs *in = s->in;
    const sptrsv_factor *f = &in->f;
    const sptrsv_dag *d = &in->dag;
    const int64_t ns = f->nsuper;
    if (sptrsv_plan_build(f, d, s->nranks, in->nrhs, &s->plan, err) != 0)
        return -1;
    s->dep = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *s->dep);
    s->left = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *s->left);
    s->my_pos = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *s->my_pos);
    s->n_recv = s->plan.recvs[s->rank];
    s->n_owned = s->plan.owned[s->rank];
    const size_t nr = (size_t)(s->n_recv > 0 ? s->n_recv : 1);
    s->recv_super = malloc(nr * sizeof *s->recv_super);
    s->recv_off = malloc(nr * sizeof *s->recv_off);
    s->pending = malloc(nr * sizeof *s->pending);
    s->stack = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *s->stack);
    s->counts = calloc(nr, sizeof *s->counts);
    const int64_t entries = s->plan.tree_ptr[ns];
    s->dst_slot = malloc((size_t)(entries > 0 ? entries : 1) * sizeof *s->dst_slot);
    int64_t *next_slot = calloc((size_t)s->nranks, sizeof *next_slot);
    if (!s->dep || !s->left || !s->my_pos || !s->recv_super || !s->recv_off || !s->pending ||
        !s->stack || !s->counts || !s->dst_slot || !next_slot) {
        free(next_slot);
        return rt_err_set(err, "%s: out of memory", s->name);
    }
    /* Every rank numbers its receives in supernode order (below), so a sender knows the slot
     * index of each of its messages at the receiver without asking. */
    for (int64_t j = 0; j < ns; ++j)
        for (int64_t t = s->plan.tree_ptr[j]; t < s->plan.tree_ptr[j + 1]; ++t)
            s->dst_slot[t] = t == s->plan.tree_ptr[j] ? -1 : next_slot[s->plan.tree_rank[t]]++;
    free(next_slot);
    int64_t k = 0;
    for (int64_t j = 0; j < ns; ++j) {
        s->my_pos[j] = sptrsv_plan_tree_pos(&s->plan, j, s->rank);
        s->dep[j] = d->pred_ptr[j + 1] - d->pred_ptr[j];
        if (s->my_pos[j] > 0) {
            if (s->dst_slot[s->plan.tree_ptr[j] + s->my_pos[j]] != k)
                return rt_err_set(err,
                                  "%s: rank %d numbers its receive of supernode %" PRId64
                                  " differently from its sender",
                                  s->name, s->rank, j);
            s->recv_super[k] = j;
            s->recv_off[k] = s->plan.slot_off[s->plan.tree_ptr[j] + s->my_pos[j]];
            ++k;
        }
    }
    if (k != s->n_recv)
        return rt_err_set(err,
                          "%s: the plan lists %" PRId64 " receives for rank %d, the trees %" PRId64,
                          s->name, s->n_recv, s->rank, k);
    return 0;
}

int sptrsv_dist_create(const char *name, const rt_sptrsv_inputs *in, rt_comm *comm,
                       double poll_timeout_s, int64_t fail_rank, const rt_err *prior,
                       sptrsv_dist **out, rt_err *err)
{
    *out = NULL;
    sptrsv_dist *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", name);
    s->name = name;
    s->in = in;
    s->comm = comm;
    s->rank = rt_comm_world_rank(comm);
    s->nranks = rt_comm_world_size(comm);
    s->poll_timeout_s = poll_timeout_s;
    s->fail_rank = fail_rank;
    int ok = 1;
    if (prior) {
        *err = *prior;
        ok = 0;
    } else if (s->rank != in->rank || s->nranks != in->nranks) {
        rt_err_set(err, "%s: the inputs were made for rank %d of %d, this is rank %d of %d", name,
                   in->rank, in->nranks, s->rank, s->nranks);
        ok = 0;
    }
    if (ok && prepare(s, err) != 0)
        ok = 0;
    /* The windows are collective: every rank must know that every other got this far. */
    int all_ok = 0, first = -1;
    char msg[RT_ERR_MSG_MAX];
    if (rt_comm_all_ok_msg(comm, ok, ok ? NULL : err->msg, &all_ok, &first, msg, sizeof msg) != 0 ||
        !all_ok) {
        if (ok)
            rt_err_set(err, "%s: rank %d failed in setup: %s", name, first, msg);
        sptrsv_dist_free(s);
        return -1;
    }
    const size_t xbytes = (size_t)(in->n * in->nrhs) * sizeof(double);
    if (rt_rma_win_create(comm, RT_COMM_WORLD, (size_t)s->plan.win_bytes[s->rank], "sptrsv x slots",
                          &s->slots, err) != 0 ||
        rt_rma_win_create(comm, RT_COMM_WORLD, xbytes, "sptrsv X", &s->xwin, err) != 0) {
        sptrsv_dist_free(s);
        return -1;
    }
    s->x = rt_rma_local(s->xwin);
    *out = s;
    return 0;
}

typedef struct exec_ctx {
    int ok;
    rt_err err;
} exec_ctx;

static void fail(exec_ctx *x, const rt_err *e)
{
    if (x->ok) {
        x->ok = 0;
        x->err = *e;
    }
}

/* My supernode u has every input: the caller's arithmetic writes x_u, which joins the stack. */
static void solve_mine(sptrsv_dist *s, const sptrsv_dist_ops *ops, int64_t u, int64_t *top,
                       int64_t *solved, exec_ctx *x)
{
    rt_err e;
    if (ops->solve(ops->ctx, u, s->x + s->in->f.first[u] * s->in->nrhs, &e) != 0)
        fail(x, &e);
    s->stack[(*top)++] = u;
    ++*solved;
}

/* x_j is known here: pass it down its tree, then apply it to my supernodes that need it, solving
 * those whose last input it was (they join the stack). */
static void use_x(sptrsv_dist *s, const sptrsv_dist_ops *ops, int64_t j, int64_t *top,
                  int64_t *solved, exec_ctx *x)
{
    const rt_sptrsv_inputs *in = s->in;
    const sptrsv_factor *f = &in->f;
    const sptrsv_dag *d = &in->dag;
    const sptrsv_plan *p = &s->plan;
    const int64_t k = in->nrhs;
    double *xj = s->x + f->first[j] * k;
    const int64_t pos = s->my_pos[j] < 0 ? 0 : s->my_pos[j];
    const int64_t t0 = p->tree_ptr[j], tn = p->tree_ptr[j + 1] - t0;
    const size_t bytes = (size_t)(sptrsv_ncols(f, j) * k) * sizeof(double);
    for (int64_t c = 2 * pos + 1; c <= 2 * pos + 2 && c < tn; ++c) {
        const int dst = p->tree_rank[t0 + c];
        const size_t off = (size_t)p->slot_off[t0 + c];
        rt_err e;
        int64_t old = 0;
        if (s->has_transport) {
            if (s->transport.send(s->transport.ctx, j, dst, s->dst_slot[t0 + c], &e) != 0)
                fail(x, &e);
            else
                s->sent++;
        } else if (rt_rma_put(s->slots, xj, bytes, dst, off + 8, &e) != 0 ||
                   rt_rma_flush(s->slots, dst, &e) != 0 ||
                   rt_rma_fetch_add(s->slots, dst, off, 1, &old, &e) != 0)
            fail(x, &e);
        else
            s->sent++;
    }
    for (int64_t e = d->succ_ptr[j]; e < d->succ_ptr[j + 1]; ++e) {
        const int64_t u = d->succ[e];
        if (p->owner[u] != s->rank)
            continue;
        rt_err ue;
        if (ops->update(ops->ctx, j, e, xj, &ue) != 0)
            fail(x, &ue);
        if (--s->left[u] == 0)
            solve_mine(s, ops, u, top, solved, x);
    }
}

/* After the closing barrier every sender has flushed: each of my slots must have counted exactly
 * one message per execution so far. */
static void count_messages(sptrsv_dist *s, exec_ctx *x)
{
    rt_err e;
    s->got = 0;
    s->dup = 0;
    if (s->has_transport && s->transport.counts(s->transport.ctx, s->counts, &e) != 0) {
        fail(x, &e);
        return;
    }
    for (int64_t i = 0; i < s->n_recv; ++i) {
        int64_t count = s->counts[i];
        if (!s->has_transport &&
            rt_rma_atomic_load(s->slots, s->rank, (size_t)s->recv_off[i], &count, &e) != 0) {
            fail(x, &e);
            break;
        }
        s->got += count >= s->epoch;
        if (count > s->epoch && x->ok) {
            s->dup++;
            rt_err_set(&e,
                       "%s: rank %d received x of supernode %" PRId64 " %" PRId64
                       " times in %" PRId64 " executions (a duplicated message)",
                       s->name, s->rank, s->recv_super[i], count, s->epoch);
            fail(x, &e);
        }
    }
}

int sptrsv_dist_execute(sptrsv_dist *s, const sptrsv_dist_ops *ops, double *seconds, rt_err *err)
{
    const rt_sptrsv_inputs *in = s->in;
    const sptrsv_factor *f = &in->f;
    const sptrsv_plan *p = &s->plan;
    const int64_t k = in->nrhs;
    exec_ctx x = {.ok = 1};
    *seconds = 0.0;
    if (rt_comm_barrier(s->comm, err) != 0)
        return -1;
    const double t0 = rt_clock_now();
    s->epoch++;
    s->sent = 0;
    int64_t top = 0, solved = 0;
    rt_err be;
    if (ops->begin(ops->ctx, &be) != 0)
        fail(&x, &be);
    for (int64_t j = 0; j < f->nsuper; ++j)
        if (p->owner[j] == s->rank)
            s->left[j] = s->dep[j];
    for (int64_t j = 0; j < f->nsuper; ++j)
        if (p->owner[j] == s->rank && s->left[j] == 0)
            solve_mine(s, ops, j, &top, &solved, &x);
    int64_t n_pending = s->n_recv;
    for (int64_t i = 0; i < n_pending; ++i)
        s->pending[i] = i;
    double last_arrival = rt_clock_now();
    while (top > 0 || n_pending > 0) {
        while (top > 0)
            use_x(s, ops, s->stack[--top], &top, &solved, &x);
        /* Poll the slots still expected; keep the list compact. */
        int64_t kept = 0;
        int arrived = 0;
        int counts_ok = 1;
        if (s->has_transport && n_pending > 0) {
            rt_err e;
            if (s->transport.counts(s->transport.ctx, s->counts, &e) != 0) {
                fail(&x, &e);
                counts_ok = 0;
            }
        }
        for (int64_t q = 0; q < n_pending; ++q) {
            const int64_t i = s->pending[q];
            int64_t count = s->counts[i];
            rt_err e;
            if (!counts_ok ||
                (!s->has_transport &&
                 rt_rma_atomic_load(s->slots, s->rank, (size_t)s->recv_off[i], &count, &e) != 0)) {
                if (counts_ok)
                    fail(&x, &e);
                count = s->epoch; /* stop waiting for what cannot be read */
            }
            if (count < s->epoch) {
                s->pending[kept++] = i;
                continue;
            }
            const int64_t j = s->recv_super[i];
            s->stack[top++] = j;
            if (s->has_transport) { /* x_j is where the transport put it: nothing to copy */
                arrived = 1;
                continue;
            }
            if (!arrived && rt_rma_sync(s->slots, &e) != 0)
                fail(&x, &e);
            arrived = 1;
            memcpy(s->x + f->first[j] * k,
                   (const char *)rt_rma_local(s->slots) + s->recv_off[i] + 8,
                   (size_t)(sptrsv_ncols(f, j) * k) * sizeof(double));
        }
        n_pending = kept;
        if (arrived) {
            last_arrival = rt_clock_now();
        } else if (n_pending > 0 && top == 0 && rt_clock_now() - last_arrival > s->poll_timeout_s) {
            const int64_t j = s->recv_super[s->pending[0]];
            const int64_t pos = s->my_pos[j];
            rt_err e;
            rt_err_set(&e,
                       "%s: rank %d waited %.3g s for x of supernode %" PRId64
                       " from rank %d (%" PRId64 " messages still pending)",
                       s->name, s->rank, s->poll_timeout_s, j,
                       p->tree_rank[p->tree_ptr[j] + (pos - 1) / 2], n_pending);
            fail(&x, &e);
            break;
        }
    }
    if (solved != s->n_owned && x.ok) {
        rt_err e;
        rt_err_set(&e, "%s: rank %d solved %" PRId64 " of its %" PRId64 " supernodes", s->name,
                   s->rank, solved, s->n_owned);
        fail(&x, &e);
    }
    s->missing = n_pending;
    *seconds = rt_clock_now() - t0;
    /* X's rows are read by other ranks' output hooks: publish the stores before the barrier. */
    rt_err e;
    if (rt_rma_sync(s->xwin, &e) != 0)
        fail(&x, &e);
    if (rt_comm_barrier(s->comm, err) != 0)
        return -1;
    count_messages(s, &x);
    if (x.ok && s->fail_rank == s->rank) {
        rt_err_set(&x.err, "%s: injected failure on rank %d after the solve (test hook fail_rank)",
                   s->name, s->rank);
        x.ok = 0;
    }
    if (!x.ok) {
        *err = x.err;
        return -1;
    }
    return 0;
}

int sptrsv_dist_fetch_rows(sptrsv_dist *s, int64_t r0, int64_t r1, double *out, rt_err *err)
{
    const rt_sptrsv_inputs *in = s->in;
    const int64_t k = in->nrhs;
    int64_t r = r0;
    while (r < r1) {
        const int64_t j = in->dag.col_super[r];
        const int64_t end = in->f.first[j + 1] < r1 ? in->f.first[j + 1] : r1;
        const size_t bytes = (size_t)((end - r) * k) * sizeof(double);
        const size_t off = (size_t)(r * k) * sizeof(double);
        if (rt_rma_get(s->xwin, out + (r - r0) * k, bytes, s->plan.owner[j], off, err) != 0)
            return -1;
        r = end;
    }
    return 0;
}

int sptrsv_dist_metrics(sptrsv_dist *s, rt_metrics *m, rt_err *err)
{
    const rt_sptrsv_inputs *in = s->in;
    double *full = malloc((size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1) * sizeof *full);
    if (!full)
        return rt_err_set(err, "%s: out of memory", s->name);
    if (sptrsv_dist_fetch_rows(s, 0, in->n, full, err) != 0) {
        free(full);
        return -1;
    }
    rt_metrics_add(m, "residual", "ratio", sptrsv_residual(in, full), 0);
    free(full);
    rt_metrics_add(m, "messages_expected", "count", (double)s->n_recv, 1);
    rt_metrics_add(m, "messages_received", "count", (double)s->got, 1);
    rt_metrics_add(m, "messages_pending", "count", (double)s->missing, 1);
    rt_metrics_add(m, "messages_duplicated", "count", (double)s->dup, 1);
    rt_metrics_add(m, "messages_sent", "count", (double)s->sent, 1);
    rt_metrics_add(m, "messages_total", "count", (double)s->plan.messages, 1);
    rt_metrics_add(m, "tree_depth", "count", (double)s->plan.tree_depth, 1);
    return 0;
}
