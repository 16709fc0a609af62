/* The eigen family's GPU kernels eigen.cuda.lobpcg and eigen.cuda.lanczos: the same solvers,
 * task graphs, schedules and memory manager as the CPU kernels (eigen_cpu.c), on the CUDA device
 * of eigen_dev_cuda.c, with the tiles' host copies pinned or pageable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eigen_cuda_catalog.h"
#include "eigen_dev_cuda.h"
#include "eigen_micro_cuda.h"
#include "eigen_family.h"
#include "eigen_model.h"
#include "eigen_solver_impl.h"
#include "rt_cuda_ctx.h"
#include "rt_cuda_point.h"
#include "rt_schema.h"

typedef struct gpu_state {
    rt_cuda_ctx *ctx;
    eg_cuda_dev *dev;
    eg_solver *s;
    const eg_inputs *in;
    eg_config cfg;
    eg_result last;
    double last_s, last_copy_s;
    int pinned;
} gpu_state;

static int read_params(const rt_kernel_desc *self, const eg_inputs *in, const rt_params *p,
                       eg_config *c, int *pinned, rt_err *err)
{
    int64_t tile = 0, budget = 0;
    char sched[16], mem[16];
    if (rt_schema_int(self->params, self->n_params, self->name, p, "tile", &tile, err) != 0 ||
        rt_schema_int(self->params, self->n_params, self->name, p, "gpu_mem_budget", &budget,
                      err) != 0 ||
        rt_schema_str(self->params, self->n_params, self->name, p, "schedule", sched, sizeof sched,
                      err) != 0 ||
        rt_schema_str(self->params, self->n_params, self->name, p, "host_mem", mem, sizeof mem,
                      err) != 0)
        return -1;
    *c = in->cfg;
    c->tile = tile;
    c->budget = (size_t)budget;
    c->sched = (eg_schedule)eg_schedule_parse(sched);
    *pinned = strcmp(mem, "pinned") == 0;
    return 0;
}

static int wanted_solver(const rt_kernel_desc *self)
{
    return strcmp(self->name, RT_EIGEN_CUDA_LANCZOS) == 0 ? EG_LANCZOS : EG_LOBPCG;
}

static int gpu_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
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

static void gpu_teardown(void *state)
{
    gpu_state *st = state;
    if (!st)
        return;
    if (st->ctx) {
        rt_err ignored;
        rt_cuda_ctx_make_current(st->ctx, &ignored);
    }
    if (st->dev)
        eg_cuda_dev_unpin(st->dev); /* before the solver frees the host copies */
    eg_solver_destroy(st->s);
    eg_cuda_dev_destroy(st->dev);
    free(st);
}

/* Every tile's host copy, page-locked for the copies. */
static int pin_tiles(gpu_state *st, rt_err *err)
{
    const eg_mem *m = &st->s->mem;
    void **host = malloc((size_t)(m->n_obj ? m->n_obj : 1) * sizeof *host);
    size_t *bytes = malloc((size_t)(m->n_obj ? m->n_obj : 1) * sizeof *bytes);
    int rc = -1;
    if (!host || !bytes) {
        rt_err_set(err, "eigen: out of memory listing %d tiles", m->n_obj);
    } else {
        for (int i = 0; i < m->n_obj; ++i) {
            host[i] = m->obj[i].host;
            bytes[i] = m->obj[i].bytes;
        }
        rc = eg_cuda_dev_pin(st->dev, host, bytes, m->n_obj, err);
    }
    free(host);
    free(bytes);
    return rc;
}

static int gpu_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    (void)env;
    const eg_inputs *in = inputs;
    gpu_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "%s: out of memory", self->name);
    st->ctx = self->backend_ctx;
    st->in = in;
    int rc = read_params(self, in, p, &st->cfg, &st->pinned, err);
    if (rc == 0)
        rc = rt_cuda_ctx_make_current(st->ctx, err);
    if (rc == 0)
        rc = eg_cuda_dev_create(&st->dev, err);
    if (rc == 0)
        rc = eg_solver_create(in->a, &st->cfg, eg_cuda_dev_ops(st->dev), &st->s, err);
    if (rc == 0 && st->pinned)
        rc = pin_tiles(st, err);
    if (rc != 0) {
        gpu_teardown(st);
        return rc;
    }
    *state = st;
    return 0;
}

static int gpu_run(void *state, double *seconds, rt_err *err)
{
    gpu_state *st = state;
    if (rt_cuda_ctx_make_current(st->ctx, err) != 0)
        return -1;
    eg_cuda_dev_reset_copy_seconds(st->dev);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const int rc = eg_solver_run(st->s, &st->last, err); /* ends with the device synchronized */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    st->last_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    st->last_copy_s = eg_cuda_dev_copy_seconds(st->dev);
    *seconds = st->last_s;
    return rc;
}

static int gpu_output(void *state, double *out, rt_err *err)
{
    (void)err;
    const gpu_state *st = state;
    eg_gate_output(st->in, &st->last, out);
    return 0;
}

static int gpu_metrics(void *state, rt_metrics *m, rt_err *err)
{
    (void)err;
    const gpu_state *st = state;
    const eg_result *r = &st->last;
    const double it = (double)st->cfg.iters;
    double all = 0.0, a_bytes = 0.0;
    int64_t ntiles = 0;
    eg_solver_sizes(st->s, &all, &a_bytes, &ntiles);
    const double moved = r->st.h2d_bytes + r->st.d2h_bytes;
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
    rt_metrics_add(m, "copy_s_per_iter", "s", st->last_copy_s / it, 0);
    rt_metrics_add(m, "copy_bandwidth", "B/s",
                   st->last_copy_s > 0.0 ? moved / st->last_copy_s : 0.0, 0);
    rt_metrics_add(m, "host_mem_pinned", "", (double)st->pinned, 1);
    rt_metrics_add(m, "max_rel_residual", "", r->max_rel_res, 1);
    rt_metrics_add(m, "ritz_min", "", r->nev > 0 ? r->ritz[0] : 0.0, 1);
    if (st->cfg.sched == EG_SCHED_GRAPH) {
        rt_metrics_add(m, "graph_segments", "", (double)r->graph.segments, 1);
        rt_metrics_add(m, "graph_eager_segments", "", (double)r->graph.eager, 1);
        rt_metrics_add(m, "graph_captures", "", (double)r->graph.captures, 1);
        rt_metrics_add(m, "graph_launches", "", (double)r->graph.launches, 1);
    }
    eg_model_add_metrics(m, (st->last_s - st->last_copy_s) / it, moved / it);
    return 0;
}

static int gpu_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
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

static void describe(const rt_cuda_catalog_entry *e, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {gpu_check,   gpu_setup, gpu_run,      gpu_output,
                                              gpu_metrics, NULL,      gpu_teardown, gpu_traffic};
    rt_cuda_point_describe(d, e, &hooks, ctx);
}

void rt_eigen_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    int n = 0;
    const rt_cuda_catalog_entry *table = rt_eigen_cuda_catalog(&n);
    const rt_cuda_catalog_entry *e = rt_cuda_catalog_at(table, n, index);
    if (!e)
        return;
    if (strcmp(e->name, RT_EIGEN_CUDA_SPMM_OOC) == 0 || strcmp(e->name, RT_EIGEN_CUDA_XTY_OOC) == 0)
        eg_micro_cuda_describe(e, d, ctx);
    else
        describe(e, d, ctx);
}
