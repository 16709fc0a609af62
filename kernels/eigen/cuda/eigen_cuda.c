/* The eigen family's GPU kernels eigen.cuda.lobpcg and eigen.cuda.lanczos: the same solvers,
 * task graphs, schedules and memory manager as the CPU kernels (eigen_cpu.c), on the CUDA device
 * of eigen_dev_cuda.c, with the tiles' host copies pinned or pageable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eigen_cuda_catalog.h"
#include "eigen_dev_cuda.h"
#include "eigen_micro_cuda.h"
#include "eigen_family.h"
#include "eigen_hooks.h"
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
    char mem[16];
    if (eg_hooks_config(self, in, p, c, err) != 0 ||
        rt_schema_str(self->params, self->n_params, self->name, p, "host_mem", mem, sizeof mem,
                      err) != 0)
        return -1;
    *pinned = strcmp(mem, "pinned") == 0;
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
    /* The solve ends with the device synchronized. */
    const int rc = eg_hooks_run(st->s, &st->last, &st->last_s, err);
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
    const double moved = r->st.h2d_bytes + r->st.d2h_bytes;
    eg_hooks_metrics(st->s, r, &st->cfg, st->last_s, m);
    rt_metrics_add(m, "copy_s_per_iter", "s", st->last_copy_s / it, 0);
    rt_metrics_add(m, "copy_bandwidth", "B/s",
                   st->last_copy_s > 0.0 ? moved / st->last_copy_s : 0.0, 0);
    rt_metrics_add(m, "host_mem_pinned", "", (double)st->pinned, 1);
    if (st->cfg.sched == EG_SCHED_GRAPH) {
        rt_metrics_add(m, "graph_segments", "", (double)r->graph.segments, 1);
        rt_metrics_add(m, "graph_eager_segments", "", (double)r->graph.eager, 1);
        rt_metrics_add(m, "graph_captures", "", (double)r->graph.captures, 1);
        rt_metrics_add(m, "graph_launches", "", (double)r->graph.launches, 1);
    }
    eg_model_add_metrics(m, (st->last_s - st->last_copy_s) / it, moved / it);
    return 0;
}

static void describe(const rt_cuda_catalog_entry *e, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {eg_hooks_check, gpu_setup,       gpu_run,
                                              gpu_output,     gpu_metrics,     NULL,
                                              gpu_teardown,   eg_hooks_traffic};
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
