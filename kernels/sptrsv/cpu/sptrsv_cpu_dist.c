#include "sptrsv_cpu_dist.h"

#include <stdio.h>
#include <stdlib.h>

#include "rt_comm.h"
#include "rt_cpu_kernel.h"
#include "rt_schema.h"
#include "rt_tables.h"
#include "sptrsv_block.h"
#include "sptrsv_calib.h"
#include "sptrsv_dist_engine.h"
#include "sptrsv_family.h"
#include "sptrsv_model.h"
#include "sptrsv_probe.h"
#include "sptrsv_runlog.h"

#define KNAME "sptrsv.cpu.distributed"

static const rt_param_schema dist_params[] = {
    SPTRSV_PARAM_DIST_POLL_TIMEOUT,
    RT_PARAM_INT("fail_rank", "-1..1048576", "-1",
                 "TEST HOOK: this world rank reports a failure after the solve (-1: none)"),
};
#define N_PARAMS ((int)(sizeof dist_params / sizeof dist_params[0]))

typedef struct dist_state {
    const rt_sptrsv_inputs *in;
    sptrsv_dist *engine;
    int rank;
    double *lsum; /* n x nrhs: partial sums of my supernodes' rows */
    sptrsv_costs costs;
    sptrsv_prediction pred;
    sptrsv_runlog log;
} dist_state;

static void dist_teardown(void *state)
{
    dist_state *s = state;
    if (!s)
        return;
    sptrsv_dist_free(s->engine);
    free(s->lsum);
    free(s);
}

static int read_params(const rt_params *p, double *timeout, int64_t *fail_rank, rt_err *err)
{
    const rt_value *v = rt_params_get(p, "poll_timeout_s");
    *timeout = v ? rt_value_as_double(v) : 60.0;
    return rt_schema_int(dist_params, N_PARAMS, KNAME, p, "fail_rank", fail_rank, err);
}

static int dist_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    *state = NULL;
    if (!in || !env || !env->comm)
        return rt_err_set(err, "%s: no inputs or no communication layer", self->name);
    double timeout = 60.0;
    int64_t fail_rank = -1;
    /* A bad parameter is the same on every rank, so no rank reaches the collective below. */
    if (read_params(p, &timeout, &fail_rank, err) != 0)
        return -1;
    dist_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    s->in = in;
    s->rank = rt_comm_world_rank(env->comm);
    s->lsum = malloc((size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1) * sizeof *s->lsum);
    rt_err oom;
    if (!s->lsum)
        rt_err_set(&oom, "%s: out of memory", self->name);
    if (sptrsv_dist_create(KNAME, in, env->comm, timeout, fail_rank, s->lsum ? NULL : &oom,
                           &s->engine, err) != 0) {
        dist_teardown(s);
        return -1;
    }
    /* Model costs: this rank's one-thread solve bandwidth, the tiers' one-sided ping-pongs. */
    if (sptrsv_calib_cpu(in, 1, &s->costs, err) != 0 ||
        sptrsv_probe_tiers(env->comm, &s->costs, err) != 0) {
        dist_teardown(s);
        return rt_err_prefix(err, "%s", self->name);
    }
    const int P = rt_comm_world_size(env->comm);
    int *tier = malloc((size_t)P * (size_t)P * sizeof *tier);
    if (!tier) {
        dist_teardown(s);
        return rt_err_set(err, "%s: out of memory", self->name);
    }
    sptrsv_probe_tier_matrix(env->comm, tier);
    const int rc = sptrsv_model_distributed(&in->f, &in->dag, sptrsv_dist_plan(s->engine), tier,
                                            &s->costs, &s->pred, err);
    free(tier);
    if (rc != 0) {
        dist_teardown(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int dist_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    (void)p;
    (void)env;
    (void)err;
    return sptrsv_forward_only(inputs, self->name, why, whylen);
}

/* The CPU arithmetic of the engine's hooks: dense block updates into lsum, diagonal solves. */
static int cpu_begin(void *ctx, rt_err *err)
{
    dist_state *s = ctx;
    const rt_sptrsv_inputs *in = s->in;
    const sptrsv_factor *f = &in->f;
    const int *owner = sptrsv_dist_plan(s->engine)->owner;
    (void)err;
    for (int64_t j = 0; j < f->nsuper; ++j)
        if (owner[j] == s->rank)
            for (int64_t i = f->first[j] * in->nrhs; i < f->first[j + 1] * in->nrhs; ++i)
                s->lsum[i] = 0.0;
    return 0;
}

static int cpu_update(void *ctx, int64_t j, int64_t e, const double *xj, rt_err *err)
{
    dist_state *s = ctx;
    const sptrsv_dag *d = &s->in->dag;
    (void)err;
    sptrsv_block_update(&s->in->f, j, d->succ_rbeg[e], d->succ_rend[e], s->in->nrhs, xj, s->lsum);
    return 0;
}

static int cpu_solve(void *ctx, int64_t u, double *xu, rt_err *err)
{
    dist_state *s = ctx;
    const rt_sptrsv_inputs *in = s->in;
    const int64_t r0 = in->f.first[u] * in->nrhs, r1 = in->f.first[u + 1] * in->nrhs;
    (void)err;
    for (int64_t i = r0; i < r1; ++i)
        xu[i - r0] = in->b[i] - s->lsum[i];
    sptrsv_block_solve_diag(&in->f, u, in->nrhs, xu);
    return 0;
}

static int dist_run(void *state, double *seconds, rt_err *err)
{
    dist_state *s = state;
    const sptrsv_dist_ops ops = {s, cpu_begin, cpu_update, cpu_solve};
    double t = 0.0;
    *seconds = -1.0; /* the runner's clock times host kernels; t feeds the model's ratio */
    const int rc = sptrsv_dist_execute(s->engine, &ops, &t, err);
    if (rc == 0)
        sptrsv_runlog_add(&s->log, t);
    return rc;
}

static int dist_output(void *state, double *out, rt_err *err)
{
    dist_state *s = state;
    return sptrsv_dist_fetch_rows(s->engine, s->in->row0, s->in->row1, out, err);
}

static int dist_metrics(void *state, rt_metrics *m, rt_err *err)
{
    dist_state *s = state;
    sptrsv_factor_metrics(s->in, m);
    if (sptrsv_dist_metrics(s->engine, m, err) != 0)
        return -1;
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
    sptrsv_runlog_ratio_metric(&s->log, s->pred.time_s, m);
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
    /* Per rank: its share of L (supernodes are dealt round robin, no row pointers), B and X. */
    sptrsv_compulsory_traffic(in, 0.0, 1.0 / (double)in->nranks, t);
    return 0;
}

static const rt_kernel_desc dist_desc =
    RT_CPU_KERNEL(KNAME, "sptrsv",
                  "message-driven distributed solve: P x 1 block rows, x broadcast along binary "
                  "trees with MPI-3 RMA puts and a polled counter, no barriers between levels",
                  dist_params, dist_check, dist_setup, dist_run, dist_output, dist_metrics,
                  dist_teardown, dist_traffic);

const rt_kernel_desc *rt_sptrsv_cpu_dist_kernel(void)
{
    return &dist_desc;
}
