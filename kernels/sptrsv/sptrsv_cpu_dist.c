#include "sptrsv_cpu_dist.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_comm.h"
#include "rt_comm_rma.h"
#include "rt_schema.h"
#include "sptrsv_block.h"
#include "sptrsv_calib.h"
#include "sptrsv_family.h"
#include "sptrsv_model.h"
#include "sptrsv_plan.h"
#include "sptrsv_probe.h"
#include "sptrsv_runlog.h"

#define KNAME "sptrsv.cpu.distributed"

static const rt_param_schema dist_params[] = {
    {"poll_timeout_s", RT_V_REAL, "0.001..3600", "60", 0,
     "give up (naming the missing message) when no expected message arrives for this long"},
    {"fail_rank", RT_V_INT, "-1..1048576", "-1", 0,
     "TEST HOOK: this world rank reports a failure after the solve (-1: none)"},
};
#define N_PARAMS ((int)(sizeof dist_params / sizeof dist_params[0]))

typedef struct dist_state {
    const rt_sptrsv_inputs *in;
    rt_comm *comm;
    int rank, nranks;
    sptrsv_plan plan;
    rt_rma_win *slots; /* message slots: arrival counter + x_s */
    rt_rma_win *xwin;  /* X (n x nrhs): the rows of my supernodes and of those I received */
    double *x, *lsum;
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
    sptrsv_costs costs;
    sptrsv_prediction pred;
    sptrsv_runlog log;
} dist_state;

static void dist_teardown(void *state)
{
    dist_state *s = state;
    if (!s)
        return;
    rt_rma_win_free(s->slots);
    rt_rma_win_free(s->xwin);
    sptrsv_plan_free(&s->plan);
    free(s->lsum);
    free(s->dep);
    free(s->left);
    free(s->my_pos);
    free(s->recv_super);
    free(s->recv_off);
    free(s->pending);
    free(s->stack);
    free(s);
}

static int read_params(const rt_params *p, double *timeout, int64_t *fail_rank, rt_err *err)
{
    const rt_value *v = rt_params_get(p, "poll_timeout_s");
    *timeout = v ? rt_value_as_double(v) : 60.0;
    return rt_schema_int(dist_params, N_PARAMS, KNAME, p, "fail_rank", fail_rank, err);
}

/* Everything local: the plan, my receive list, my dependency counts. */
static int prepare(dist_state *s, rt_err *err)
{
    const rt_sptrsv_inputs *in = s->in;
    const sptrsv_factor *f = &in->f;
    const sptrsv_dag *d = &in->dag;
    const int64_t ns = f->nsuper;
    if (sptrsv_plan_build(f, d, s->nranks, in->nrhs, &s->plan, err) != 0)
        return -1;
    const size_t nx = (size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1);
    s->lsum = malloc(nx * sizeof *s->lsum);
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
    if (!s->lsum || !s->dep || !s->left || !s->my_pos || !s->recv_super || !s->recv_off ||
        !s->pending || !s->stack)
        return rt_err_set(err, "%s: out of memory", KNAME);
    int64_t k = 0;
    for (int64_t j = 0; j < ns; ++j) {
        s->my_pos[j] = sptrsv_plan_tree_pos(&s->plan, j, s->rank);
        s->dep[j] = d->pred_ptr[j + 1] - d->pred_ptr[j];
        if (s->my_pos[j] > 0) {
            s->recv_super[k] = j;
            s->recv_off[k] = s->plan.slot_off[s->plan.tree_ptr[j] + s->my_pos[j]];
            ++k;
        }
    }
    if (k != s->n_recv)
        return rt_err_set(err,
                          "%s: the plan lists %" PRId64 " receives for rank %d, the trees %" PRId64,
                          KNAME, s->n_recv, s->rank, k);
    return 0;
}

static int dist_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    *state = NULL;
    if (!in || !env || !env->comm)
        return rt_err_set(err, "%s: no inputs or no communication layer", self->name);
    dist_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    s->in = in;
    s->comm = env->comm;
    s->rank = rt_comm_world_rank(s->comm);
    s->nranks = rt_comm_world_size(s->comm);
    int ok = read_params(p, &s->poll_timeout_s, &s->fail_rank, err) == 0;
    if (ok && (s->rank != in->rank || s->nranks != in->nranks)) {
        rt_err_set(err, "%s: the inputs were made for rank %d of %d, this is rank %d of %d",
                   self->name, in->rank, in->nranks, s->rank, s->nranks);
        ok = 0;
    }
    if (ok && prepare(s, err) != 0)
        ok = 0;
    /* The windows are collective: every rank must know that every other got this far. */
    int all_ok = 0, first = -1;
    char msg[RT_ERR_MSG_MAX];
    if (rt_comm_all_ok_msg(s->comm, ok, ok ? NULL : err->msg, &all_ok, &first, msg, sizeof msg) !=
            0 ||
        !all_ok) {
        if (ok)
            rt_err_set(err, "%s: rank %d failed in setup: %s", self->name, first, msg);
        dist_teardown(s);
        return -1;
    }
    const size_t xbytes = (size_t)(in->n * in->nrhs) * sizeof(double);
    if (rt_rma_win_create(s->comm, RT_COMM_WORLD, (size_t)s->plan.win_bytes[s->rank],
                          "sptrsv x slots", &s->slots, err) != 0 ||
        rt_rma_win_create(s->comm, RT_COMM_WORLD, xbytes, "sptrsv X", &s->xwin, err) != 0) {
        dist_teardown(s);
        return -1;
    }
    s->x = rt_rma_local(s->xwin);
    /* Model costs: this rank's one-thread solve bandwidth, the tiers' one-sided ping-pongs. */
    if (sptrsv_calib_cpu(in, 1, &s->costs, err) != 0 ||
        sptrsv_probe_tiers(s->comm, &s->costs, err) != 0) {
        dist_teardown(s);
        return rt_err_prefix(err, "%s", self->name);
    }
    const int P = s->nranks;
    int *tier = malloc((size_t)P * (size_t)P * sizeof *tier);
    if (!tier) {
        dist_teardown(s);
        return rt_err_set(err, "%s: out of memory", self->name);
    }
    sptrsv_probe_tier_matrix(s->comm, tier);
    const int rc =
        sptrsv_model_distributed(&in->f, &in->dag, &s->plan, tier, &s->costs, &s->pred, err);
    free(tier);
    if (rc != 0) {
        dist_teardown(s);
        return -1;
    }
    *state = s;
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

/* x_j is known here: pass it down its tree, then apply it to my supernodes that need it, solving
 * those whose last input it was (they join the stack). */
static void use_x(dist_state *s, int64_t j, int64_t *top, int64_t *solved, exec_ctx *x)
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
        if (rt_rma_put(s->slots, xj, bytes, dst, off + 8, &e) != 0 ||
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
        sptrsv_block_update(f, j, d->succ_rbeg[e], d->succ_rend[e], k, xj, s->lsum);
        if (--s->left[u] == 0) {
            const int64_t r0 = f->first[u] * k, r1 = f->first[u + 1] * k;
            for (int64_t i = r0; i < r1; ++i)
                s->x[i] = in->b[i] - s->lsum[i];
            sptrsv_block_solve_diag(f, u, k, s->x + r0);
            s->stack[(*top)++] = u;
            ++*solved;
        }
    }
}

static int dist_run(void *state, double *seconds, rt_err *err)
{
    dist_state *s = state;
    const rt_sptrsv_inputs *in = s->in;
    const sptrsv_factor *f = &in->f;
    const sptrsv_plan *p = &s->plan;
    const int64_t k = in->nrhs;
    exec_ctx x = {.ok = 1};
    *seconds = -1.0;
    if (rt_comm_barrier(s->comm, err) != 0)
        return -1;
    const double t0 = rt_clock_now();
    s->epoch++;
    s->sent = 0;
    int64_t top = 0, solved = 0;
    for (int64_t j = 0; j < f->nsuper; ++j) {
        if (p->owner[j] != s->rank)
            continue;
        s->left[j] = s->dep[j];
        for (int64_t i = f->first[j] * k; i < f->first[j + 1] * k; ++i)
            s->lsum[i] = 0.0;
    }
    for (int64_t j = 0; j < f->nsuper; ++j)
        if (p->owner[j] == s->rank && s->left[j] == 0) {
            const int64_t r0 = f->first[j] * k, r1 = f->first[j + 1] * k;
            for (int64_t i = r0; i < r1; ++i)
                s->x[i] = in->b[i];
            sptrsv_block_solve_diag(f, j, k, s->x + r0);
            s->stack[top++] = j;
            ++solved;
        }
    int64_t n_pending = s->n_recv;
    for (int64_t i = 0; i < n_pending; ++i)
        s->pending[i] = i;
    double last_arrival = rt_clock_now();
    while (top > 0 || n_pending > 0) {
        while (top > 0)
            use_x(s, s->stack[--top], &top, &solved, &x);
        /* Poll the slots still expected; keep the list compact. */
        int64_t kept = 0;
        int arrived = 0;
        for (int64_t q = 0; q < n_pending; ++q) {
            const int64_t i = s->pending[q];
            int64_t count = 0;
            rt_err e;
            if (rt_rma_atomic_load(s->slots, s->rank, (size_t)s->recv_off[i], &count, &e) != 0) {
                fail(&x, &e);
                count = s->epoch; /* stop waiting for what cannot be read */
            }
            if (count < s->epoch) {
                s->pending[kept++] = i;
                continue;
            }
            if (!arrived && rt_rma_sync(s->slots, &e) != 0)
                fail(&x, &e);
            arrived = 1;
            const int64_t j = s->recv_super[i];
            memcpy(s->x + f->first[j] * k,
                   (const char *)rt_rma_local(s->slots) + s->recv_off[i] + 8,
                   (size_t)(sptrsv_ncols(f, j) * k) * sizeof(double));
            s->stack[top++] = j;
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
                       KNAME, s->rank, s->poll_timeout_s, j,
                       p->tree_rank[p->tree_ptr[j] + (pos - 1) / 2], n_pending);
            fail(&x, &e);
            break;
        }
    }
    if (solved != s->n_owned && x.ok) {
        rt_err e;
        rt_err_set(&e, "%s: rank %d solved %" PRId64 " of its %" PRId64 " supernodes", KNAME,
                   s->rank, solved, s->n_owned);
        fail(&x, &e);
    }
    s->missing = n_pending;
    const double t = rt_clock_now() - t0;
    /* X's rows are read by other ranks' output hooks: publish the stores before the barrier. */
    rt_err e;
    if (rt_rma_sync(s->xwin, &e) != 0)
        fail(&x, &e);
    if (rt_comm_barrier(s->comm, err) != 0)
        return -1;
    sptrsv_runlog_add(&s->log, t);
    /* Every sender has flushed: each of my slots must have counted exactly one message per
     * execution so far. */
    s->got = 0;
    s->dup = 0;
    for (int64_t i = 0; i < s->n_recv; ++i) {
        int64_t count = 0;
        if (rt_rma_atomic_load(s->slots, s->rank, (size_t)s->recv_off[i], &count, &e) != 0) {
            fail(&x, &e);
            break;
        }
        s->got += count >= s->epoch;
        if (count > s->epoch && x.ok) {
            s->dup++;
            rt_err_set(&e,
                       "%s: rank %d received x of supernode %" PRId64 " %" PRId64
                       " times in %" PRId64 " executions (a duplicated message)",
                       KNAME, s->rank, s->recv_super[i], count, s->epoch);
            fail(&x, &e);
        }
    }
    if (x.ok && s->fail_rank == s->rank) {
        rt_err_set(&x.err, "%s: injected failure on rank %d after the solve (test hook fail_rank)",
                   KNAME, s->rank);
        x.ok = 0;
    }
    if (!x.ok) {
        *err = x.err;
        return -1;
    }
    return 0;
}

/* Rows [r0, r1) of X from their owners (one-sided gets; owners take no part). */
static int fetch_rows(dist_state *s, int64_t r0, int64_t r1, double *out, rt_err *err)
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

static int dist_output(void *state, double *out, rt_err *err)
{
    dist_state *s = state;
    return fetch_rows(s, s->in->row0, s->in->row1, out, err);
}

static int dist_metrics(void *state, rt_metrics *m, rt_err *err)
{
    dist_state *s = state;
    const rt_sptrsv_inputs *in = s->in;
    sptrsv_factor_metrics(in, m);
    double *full = malloc((size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1) * sizeof *full);
    if (!full)
        return rt_err_set(err, "%s: out of memory", KNAME);
    if (fetch_rows(s, 0, in->n, full, err) != 0) {
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
    rt_metrics_add(m, "critical_path_len", "count", (double)s->pred.path_tasks, 0);
    rt_metrics_add(m, "critical_path_messages", "count", (double)s->pred.path_messages, 0);
    rt_metrics_add(m, "model_time_s", "s", s->pred.time_s, 0);
    rt_metrics_add(m, "model_path_compute_s", "s", s->pred.path_compute_s, 0);
    rt_metrics_add(m, "model_path_comm_s", "s", s->pred.path_comm_s, 0);
    rt_metrics_add(m, "model_unit_gbs", "GB/s", s->costs.unit_bps * 1e-9, 0);
    static const char *tiers[RT_TIER_COUNT] = {"socket", "node", "global"};
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        char name[64];
        if (s->costs.lat_s[t] <= 0.0)
            continue;
        snprintf(name, sizeof name, "model_%s_latency_us", tiers[t]);
        rt_metrics_add(m, name, "us", s->costs.lat_s[t] * 1e6, 0);
        snprintf(name, sizeof name, "model_%s_gbs", tiers[t]);
        rt_metrics_add(m, name, "GB/s", s->costs.bw_bps[t] * 1e-9, 0);
    }
    const double med = sptrsv_runlog_median(&s->log);
    if (med > 0.0)
        rt_metrics_add(m, "model_over_measured", "ratio", s->pred.time_s / med, 0);
    return 0;
}

static int dist_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    (void)self;
    (void)p;
    (void)env;
    (void)err;
    /* Per rank: its share of L (supernodes are dealt round robin), B and X. */
    const double share = 1.0 / (double)in->nranks;
    const double nnz = (double)in->f.csr.nnz, n = (double)in->n, k = (double)in->nrhs;
    t->flops = 2.0 * nnz * k * share;
    t->bytes[RT_LEVEL_DRAM] = (12.0 * nnz + 16.0 * n * k) * share;
    return 0;
}

static const rt_kernel_desc dist_desc = {
    .name = KNAME,
    .family = "sptrsv",
    .backend = "cpu",
    .summary = "message-driven distributed solve: P x 1 block rows, x broadcast along binary "
               "trees with MPI-3 RMA puts and a polled counter, no barriers between levels",
    .params = dist_params,
    .n_params = N_PARAMS,
    .setup = dist_setup,
    .run = dist_run,
    .output = dist_output,
    .metrics = dist_metrics,
    .teardown = dist_teardown,
    .traffic = dist_traffic,
};

const rt_kernel_desc *rt_sptrsv_cpu_dist_kernel(void)
{
    return &dist_desc;
}
