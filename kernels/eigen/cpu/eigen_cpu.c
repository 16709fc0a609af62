#include "eigen_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_cpu_kernel.h"
#include "eigen_dev_host.h"
#include "eigen_family.h"
#include "rt_schema.h"

static const rt_param_schema eigen_cpu_params[] = {
    {"tile", RT_V_INT, "1..2147483647", "8192", 0, "rows per tile (row and column blocks)"},
    {"schedule", RT_V_STR, "kbk|dag", "dag", 0,
     "kbk: call by call, each call staging its operands; dag: depth-first order of the task graph"},
    {"gpu_mem_budget", RT_V_INT, "0..1099511627776", "0", 0,
     "bytes of the device pool; 0: room for every tile (in core)"},
};

typedef struct cpu_state {
    eg_solver *s;
    eg_result last;
    double last_s;
    eg_config cfg;
    const eg_inputs *in;
} cpu_state;

static int read_params(const rt_kernel_desc *self, const eg_inputs *in, const rt_params *p,
                       eg_config *c, rt_err *err)
{
    int64_t tile = 0, budget = 0;
    char sched[16];
    if (rt_schema_int(self->params, self->n_params, self->name, p, "tile", &tile, err) != 0 ||
        rt_schema_int(self->params, self->n_params, self->name, p, "gpu_mem_budget", &budget,
                      err) != 0 ||
        rt_schema_str(self->params, self->n_params, self->name, p, "schedule", sched, sizeof sched,
                      err) != 0)
        return -1;
    *c = in->cfg;
    c->tile = tile;
    c->budget = (size_t)budget;
    c->sched = (eg_schedule)eg_schedule_parse(sched);
    return 0;
}

static int wanted_solver(const rt_kernel_desc *self)
{
    return strstr(self->name, "lanczos") ? EG_LANCZOS : EG_LOBPCG;
}

static int cpu_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    (void)p;
    (void)env;
    (void)err;
    const eg_inputs *in = inputs;
    if ((int)in->cfg.solver != wanted_solver(self)) {
        snprintf(why, whylen, "%s runs %s; the problem asks for solver %s", self->name,
                 eg_solver_name((eg_solver_kind)wanted_solver(self)),
                 eg_solver_name(in->cfg.solver));
        return RT_INFEASIBLE;
    }
    return 0;
}

static void cpu_teardown(void *state)
{
    cpu_state *st = state;
    if (!st)
        return;
    eg_solver_destroy(st->s);
    free(st);
}

static int cpu_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    (void)env;
    const eg_inputs *in = inputs;
    cpu_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "%s: out of memory", self->name);
    if (read_params(self, in, p, &st->cfg, err) != 0) {
        free(st);
        return -1;
    }
    st->in = in;
    const int rc = eg_solver_create(in->a, &st->cfg, eg_dev_host(), &st->s, err);
    if (rc != 0) {
        free(st);
        return rc;
    }
    *state = st;
    return 0;
}

static int cpu_run(void *state, double *seconds, rt_err *err)
{
    cpu_state *st = state;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const int rc = eg_solver_run(st->s, &st->last, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    st->last_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    *seconds = -1.0;
    return rc;
}

static int cpu_output(void *state, double *out, rt_err *err)
{
    (void)err;
    const cpu_state *st = state;
    eg_gate_output(st->in, &st->last, out);
    return 0;
}

static int cpu_metrics(void *state, rt_metrics *m, rt_err *err)
{
    (void)err;
    const cpu_state *st = state;
    const eg_result *r = &st->last;
    const double it = (double)st->cfg.iters;
    double all = 0.0, a_bytes = 0.0;
    int64_t ntiles = 0;
    eg_solver_sizes(st->s, &all, &a_bytes, &ntiles);
    rt_metrics_add(m, "h2d_bytes", "B", r->st.h2d_bytes, 1);
    rt_metrics_add(m, "d2h_bytes", "B", r->st.d2h_bytes, 1);
    rt_metrics_add(m, "h2d_bytes_per_iter", "B", r->st.h2d_bytes / it, 1);
    rt_metrics_add(m, "d2h_bytes_per_iter", "B", r->st.d2h_bytes / it, 1);
    rt_metrics_add(m, "compulsory_h2d_bytes", "B", r->st.compulsory_h2d, 1);
    rt_metrics_add(m, "compulsory_d2h_bytes", "B", r->st.compulsory_d2h, 1);
    rt_metrics_add(m, "evictions", "", (double)r->st.evictions, 1);
    rt_metrics_add(m, "h2d_copies_per_iter", "", (double)r->st.h2d_copies / it, 1);
    rt_metrics_add(m, "d2h_copies_per_iter", "", (double)r->st.d2h_copies / it, 1);
    rt_metrics_add(m, "host_syncs_per_iter", "", (double)r->st.syncs / it, 1);
    rt_metrics_add(m, "sync_wait_s_per_iter", "s", r->st.sync_wait_s / it, 0);
    rt_metrics_add(m, "host_task_s_per_iter", "s", r->st.host_task_s / it, 0);
    rt_metrics_add(m, "peak_resident_bytes", "B", (double)r->st.peak_resident_bytes, 1);
    rt_metrics_add(m, "footprint_bytes", "B", all, 1);
    rt_metrics_add(m, "matrix_block_bytes", "B", a_bytes, 1);
    rt_metrics_add(m, "tiles", "", (double)ntiles, 1);
    rt_metrics_add(m, "tasks", "", (double)r->tasks, 1);
    rt_metrics_add(m, "time_per_iter_s", "s", st->last_s / it, 0);
    rt_metrics_add(m, "max_rel_residual", "", r->max_rel_res, 1);
    rt_metrics_add(m, "ritz_min", "", r->nev > 0 ? r->ritz[0] : 0.0, 1);
    return 0;
}

static int cpu_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    (void)self;
    (void)p;
    (void)env;
    (void)err;
    memset(t, 0, sizeof *t);
    t->flops = rt_eigen_family()->flops(inputs);
    return 0;
}

#define EIGEN_CPU_KERNEL(ident, kname, text)                                                       \
    static const rt_kernel_desc ident =                                                            \
        RT_CPU_KERNEL(kname, "eigen", text, eigen_cpu_params, cpu_check, cpu_setup, cpu_run,       \
                      cpu_output, cpu_metrics, cpu_teardown, cpu_traffic)

EIGEN_CPU_KERNEL(k_lobpcg, "eigen.cpu.lobpcg",
                 "out-of-core block LOBPCG over tiles on a host-memory device of a given budget");
EIGEN_CPU_KERNEL(k_lanczos, "eigen.cpu.lanczos",
                 "out-of-core Lanczos (full reorthogonalisation) over tiles, host-memory device");

static const rt_kernel_desc *const kernels[] = {&k_lobpcg, &k_lanczos, NULL};

const rt_kernel_desc *const *rt_eigen_cpu_kernels(void)
{
    return kernels;
}
