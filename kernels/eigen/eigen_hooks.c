#include "eigen_hooks.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "eigen_dag.h"
#include "rt_schema.h"

/* What the kernel's name says it runs. */
static eg_solver_kind wanted(const char *name)
{
    if (strstr(name, "lanczos"))
        return EG_LANCZOS;
    if (strstr(name, "spmm"))
        return EG_SPMM;
    if (strstr(name, "xty"))
        return EG_XTY;
    return EG_LOBPCG;
}

int eg_hooks_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                   const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    (void)p;
    (void)env;
    (void)err;
    const eg_inputs *in = inputs;
    const eg_solver_kind k = wanted(self->name);
    if (in->cfg.solver != k) {
        snprintf(why, whylen, "%s runs %s; the problem asks for solver %s", self->name,
                 eg_solver_name(k), eg_solver_name(in->cfg.solver));
        return RT_INFEASIBLE;
    }
    return 0;
}

int eg_hooks_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
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

int eg_hooks_config(const rt_kernel_desc *self, const eg_inputs *in, const rt_params *p,
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

int eg_hooks_run(eg_solver *s, eg_result *r, double *elapsed, rt_err *err)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const int rc = eg_solver_run(s, r, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *elapsed = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return rc;
}

void eg_hooks_metrics(const eg_solver *s, const eg_result *r, const eg_config *cfg, double last_s,
                      rt_metrics *m)
{
    const double it = (double)cfg->iters;
    double all = 0.0, a_bytes = 0.0;
    int64_t ntiles = 0;
    eg_solver_sizes(s, &all, &a_bytes, &ntiles);
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
    rt_metrics_add(m, "time_per_iter_s", "s", last_s / it, 0);
    rt_metrics_add(m, "max_rel_residual", "", r->max_rel_res, 1);
    rt_metrics_add(m, "ritz_min", "", r->nev > 0 ? r->ritz[0] : 0.0, 1);
}
