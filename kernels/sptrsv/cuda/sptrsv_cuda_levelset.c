/* sptrsv.cuda.levelset: the level-set solve on the GPU. The levels of the scalar row DAG
 * (sptrsv_dag.h, built in the family's setup) are uploaded once as one array of rows in level
 * order; an execution is one kernel launch per level on the context's stream, one warp per row,
 * the stream order being the barrier between levels. Timed with events around all the launches,
 * so the per-launch overhead the critical path pays is part of the time.
 *
 * With merge_levels = 1, every run of consecutive levels no wider than a block's warps (the long
 * tails of a supernodal factor: one row per level along a dense diagonal block) is one launch of
 * a single block that walks those levels with a block barrier between them; a barrier costs far
 * less than a launch, and one launch per level would give such a level one block anyway. */
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "rt_cuda_variant.h"
#include "rt_cuda_point.h"
#include "rt_schema.h"
#include "sptrsv_cuda.h"
#include "sptrsv_cuda_calib.h"
#include "sptrsv_cuda_catalog.h"
#include "sptrsv_cuda_data.h"
#include "sptrsv_cuda_solve.h"
#include "sptrsv_model.h"
#include "sptrsv_runlog.h"

typedef struct levelset_state {
    sptrsv_cuda_data d;
    int32_t *level_rows; /* device, n: the rows by level */
    int32_t *level_ptr;  /* device, n_levels + 1 (merge_levels only) */
    int threads_per_block, merge_levels;
    int64_t launches;
    sptrsv_costs costs; /* the model's, measured in setup (merge_levels = 0 only) */
    sptrsv_prediction pred;
    sptrsv_runlog log; /* this point's own times, for model_over_measured */
} levelset_state;

static const rt_cuda_catalog_entry *entry(void)
{
    int n = 0;
    const rt_cuda_catalog_entry *t = rt_sptrsv_cuda_catalog(&n);
    return rt_cuda_catalog_at(t, n, RT_SPTRSV_CUDA_KIND_LEVELSET);
}

static void levelset_teardown(void *state)
{
    levelset_state *s = state;
    if (!s)
        return;
    if (s->d.ctx) {
        rt_cuda_free(s->d.ctx, s->level_rows);
        rt_cuda_free(s->d.ctx, s->level_ptr);
    }
    sptrsv_cuda_data_free(&s->d);
    free(s);
}

static int64_t level_width(const sptrsv_dag *g, int64_t lv)
{
    return g->level_ptr[lv + 1] - g->level_ptr[lv];
}

/* Whether level lv goes into a merged single-block launch. */
static int merged(const levelset_state *s, int64_t lv)
{
    return s->merge_levels && level_width(&s->d.in->dag, lv) <= s->threads_per_block / 32;
}

/* The level after the launch that starts at lv. */
static int64_t launch_end(const levelset_state *s, int64_t lv)
{
    const sptrsv_dag *g = &s->d.in->dag;
    if (!merged(s, lv))
        return lv + 1;
    int64_t e = lv + 1;
    while (e < g->n_levels && merged(s, e))
        ++e;
    return e;
}

static int levelset_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    const rt_cuda_catalog_entry *e = entry();
    *state = NULL;
    int64_t tpb = 0, merge = 0;
    if (rt_schema_int(e->params, e->n_params, self->name, p, "threads_per_block", &tpb, err) != 0 ||
        rt_schema_int(e->params, e->n_params, self->name, p, "merge_levels", &merge, err) != 0)
        return -1;
    levelset_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    *state = s;
    s->threads_per_block = (int)tpb;
    s->merge_levels = (int)merge;
    rt_cuda_ctx *ctx = self->backend_ctx;
    int rc = sptrsv_cuda_data_create(self->name, ctx, in, 0, &s->d, err);
    if (rc != 0)
        return rc;
    const size_t bytes = (size_t)in->n * sizeof(int32_t);
    if ((rc = rt_cuda_alloc(ctx, (void **)&s->level_rows, bytes, "the level rows", err)) != 0 ||
        (rc = rt_cuda_upload(ctx, s->level_rows, in->dag.level_rows, bytes, "the level rows",
                             err)) != 0)
        return rc;
    const sptrsv_dag *g = &in->dag;
    for (int64_t lv = 0; lv < g->n_levels; lv = launch_end(s, lv))
        ++s->launches;
    if (!s->merge_levels) {
        /* The level-set model: a launch plus the level's bytes at the bandwidth of its rows'
         * warps, level after level (merged levels cost a barrier instead: not modelled). */
        int64_t workers = 1;
        if (sptrsv_cuda_calib_levelset(&s->d, s->level_rows, s->threads_per_block,
                                       env ? env->device : NULL, &s->costs, &workers, err) != 0)
            return -1;
        sptrsv_model_levelset(&in->f, g, in->nrhs, workers, &s->costs, &s->pred);
        return 0;
    }
    int32_t *lp = malloc((size_t)(g->n_levels + 1) * sizeof *lp);
    if (!lp)
        return rt_err_set(err, "%s: out of host memory staging the level pointers", self->name);
    for (int64_t lv = 0; lv <= g->n_levels; ++lv)
        lp[lv] = (int32_t)g->level_ptr[lv];
    rc = rt_cuda_upload_new(ctx, lp, (size_t)(g->n_levels + 1) * sizeof *lp, (void **)&s->level_ptr,
                            "the level pointers", err);
    free(lp);
    return rc;
}

static int levelset_run(void *state, double *seconds, rt_err *err)
{
    levelset_state *s = state;
    const rt_sptrsv_inputs *in = s->d.in;
    const sptrsv_dag *dag = &in->dag;
    void *stream = rt_cuda_ctx_stream(s->d.ctx);
    if (rt_cuda_ctx_make_current(s->d.ctx, err) != 0 ||
        rt_cuda_timer_start(s->d.ctx, RT_SPTRSV_CUDA_LEVELSET, err) != 0)
        return -1;
    for (int64_t lv = 0, end = 0; lv < dag->n_levels; lv = end) {
        end = launch_end(s, lv);
        const int64_t q0 = dag->level_ptr[lv], q1 = dag->level_ptr[lv + 1];
        const int rc =
            merged(s, lv)
                ? sptrsv_cuda_levels_block_launch(stream, s->threads_per_block, s->d.rowptr,
                                                  s->d.colidx, s->d.val, s->d.b, s->d.x,
                                                  (int32_t)in->nrhs, s->level_rows, s->level_ptr,
                                                  (int32_t)lv, (int32_t)end)
                : sptrsv_cuda_level_launch(stream, s->threads_per_block, s->d.rowptr, s->d.colidx,
                                           s->d.val, s->d.b, s->d.x, (int32_t)in->nrhs,
                                           s->level_rows + q0, (int32_t)(q1 - q0));
        if (rc != 0)
            return rt_err_set(err, RT_SPTRSV_CUDA_LEVELSET ": launch of level %lld: %s",
                              (long long)lv, cudaGetErrorString((cudaError_t)rc));
    }
    if (rt_cuda_timer_stop(s->d.ctx, seconds, RT_SPTRSV_CUDA_LEVELSET, err) != 0)
        return -1;
    sptrsv_runlog_add(&s->log, *seconds);
    return 0;
}

static int levelset_output(void *state, double *out, rt_err *err)
{
    levelset_state *s = state;
    return sptrsv_cuda_data_output(&s->d, out, err);
}

static int levelset_metrics(void *state, rt_metrics *m, rt_err *err)
{
    levelset_state *s = state;
    if (sptrsv_cuda_data_metrics(&s->d, m, err) != 0)
        return -1;
    rt_metrics_add(m, "launches", "count", (double)s->launches, 1);
    rt_metrics_add(m, "critical_path_len", "count", (double)s->d.in->dag.n_levels, 1);
    rt_metrics_add(m, "setup_s", "s", s->d.upload_s, 0);
    if (s->merge_levels)
        return 0;
    rt_metrics_add(m, "model_time_s", "s", s->pred.time_s, 0);
    rt_metrics_add(m, "model_path_len", "count", (double)s->pred.path_tasks, 0);
    rt_metrics_add(m, "model_path_compute_s", "s", s->pred.path_compute_s, 0);
    rt_metrics_add(m, "model_unit_gbs", "GB/s", s->costs.unit_bps * 1e-9, 0);
    rt_metrics_add(m, "model_peak_gbs", "GB/s", s->costs.peak_bps * 1e-9, 0);
    rt_metrics_add(m, "model_launch_us", "us", s->costs.sync_s * 1e6, 0);
    if (s->pred.time_s > 0.0) /* a ratio only where the model predicted a time */
        sptrsv_runlog_ratio_metric(&s->log, s->pred.time_s, m);
    return 0;
}

void rt_sptrsv_cuda_levelset_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {sptrsv_cuda_check, levelset_setup,     levelset_run,
                                              levelset_output,   levelset_metrics,   NULL,
                                              levelset_teardown, sptrsv_cuda_traffic};
    rt_cuda_point_describe(d, entry(), &hooks, ctx);
}
