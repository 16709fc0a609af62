#include "sptrsv_cpu_levelset.h"

#include <stdlib.h>

#include "rt_clock.h"
#include "rt_cpu_kernel.h"
#include "rt_cpu_threads.h"
#include "rt_schema.h"
#include "sptrsv_calib.h"
#include "sptrsv_family.h"
#include "sptrsv_model.h"
#include "sptrsv_runlog.h"

#define KNAME "sptrsv.cpu.levelset"

static const rt_param_schema levelset_params[] = {
    RT_CPU_PARAM_THREADS,
};
#define N_PARAMS ((int)(sizeof levelset_params / sizeof levelset_params[0]))

typedef struct levelset_state {
    const rt_sptrsv_inputs *in;
    int team;
    double *x;
    double setup_s;
    sptrsv_costs costs;
    sptrsv_prediction pred;
    sptrsv_runlog log;
} levelset_state;

static int levelset_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    int64_t threads = 0;
    if (sptrsv_forward_only(inputs, self->name, why, whylen) != 0)
        return RT_INFEASIBLE;
    if (rt_schema_int(levelset_params, N_PARAMS, KNAME, p, "threads", &threads, err) != 0)
        return -1;
    int team = 1;
    return rt_cpu_resolve_threads(threads, env, &team, why, whylen);
}

static void levelset_teardown(void *state)
{
    levelset_state *s = state;
    if (!s)
        return;
    free(s->x);
    free(s);
}

static int levelset_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    *state = NULL;
    int64_t threads = 0;
    if (rt_schema_int(levelset_params, N_PARAMS, KNAME, p, "threads", &threads, err) != 0)
        return -1;
    levelset_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    char why[256] = "";
    const int rc = rt_cpu_resolve_threads(threads, env, &s->team, why, sizeof why);
    if (rc != 0) {
        free(s);
        rt_err_set(err, "%s", why);
        return rc;
    }
    s->in = in;
    const double t0 = rt_clock_now();
    s->x = malloc((size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1) * sizeof *s->x);
    if (!s->x) {
        levelset_teardown(s);
        return rt_err_set(err, "%s: out of memory for X", self->name);
    }
    s->setup_s = rt_clock_now() - t0;
    if (sptrsv_calib_cpu(in, s->team, &s->costs, err) != 0) {
        levelset_teardown(s);
        return rt_err_prefix(err, "%s", self->name);
    }
    sptrsv_model_levelset(&in->f, &in->dag, in->nrhs, s->team, &s->costs, &s->pred);
    *state = s;
    return 0;
}

static int levelset_run(void *state, double *seconds, rt_err *err)
{
    levelset_state *s = state;
    (void)err;
    const rt_sptrsv_inputs *in = s->in;
    const rt_csr *l = &in->f.csr;
    const sptrsv_dag *d = &in->dag;
    const int64_t k = in->nrhs;
    const double *b = in->b;
    double *x = s->x;
    const double t0 = rt_clock_now();
#pragma omp parallel num_threads(s->team)
    for (int64_t lv = 0; lv < d->n_levels; ++lv) {
        /* The implicit barrier at the end of the loop is the level boundary. */
#pragma omp for schedule(static)
        for (int64_t q = d->level_ptr[lv]; q < d->level_ptr[lv + 1]; ++q) {
            const int64_t i = d->level_rows[q];
            const int64_t diag = l->rowptr[i + 1] - 1;
            double acc[64];
            for (int64_t j = 0; j < k; ++j)
                acc[j] = b[i * k + j];
            for (int64_t e = l->rowptr[i]; e < diag; ++e) {
                const double v = l->val[e];
                const double *xr = x + (int64_t)l->colidx[e] * k;
                for (int64_t j = 0; j < k; ++j)
                    acc[j] -= v * xr[j];
            }
            const double dv = l->val[diag];
            for (int64_t j = 0; j < k; ++j)
                x[i * k + j] = acc[j] / dv;
        }
    }
    const double t = rt_clock_now() - t0;
    sptrsv_runlog_add(&s->log, t);
    *seconds = -1.0; /* the runner's clock times host kernels; t feeds the model's ratio */
    return 0;
}

static int levelset_output(void *state, double *out, rt_err *err)
{
    const levelset_state *s = state;
    (void)err;
    sptrsv_canonical_rows(s->in, s->x, out);
    return 0;
}

static int levelset_metrics(void *state, rt_metrics *m, rt_err *err)
{
    levelset_state *s = state;
    (void)err;
    sptrsv_factor_metrics(s->in, m);
    rt_metrics_add(m, "preprocessing_s", "s", s->setup_s, 0);
    rt_metrics_add(m, "residual", "ratio", sptrsv_residual(s->in, s->x), 0);
    rt_metrics_add(m, "critical_path_len", "count", (double)s->pred.path_tasks, 1);
    rt_metrics_add(m, "critical_path_messages", "count", 0.0, 1);
    rt_metrics_add(m, "model_time_s", "s", s->pred.time_s, 0);
    rt_metrics_add(m, "model_unit_gbs", "GB/s", s->costs.unit_bps * 1e-9, 0);
    rt_metrics_add(m, "model_peak_gbs", "GB/s", s->costs.peak_bps * 1e-9, 0);
    rt_metrics_add(m, "model_sync_us", "us", s->costs.sync_s * 1e6, 0);
    sptrsv_runlog_ratio_metric(&s->log, s->pred.time_s, m);
    return 0;
}

static int levelset_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                            const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    (void)self;
    (void)p;
    (void)env;
    (void)err;
    /* L's CSR copy with 8-byte row pointers. */
    sptrsv_compulsory_traffic(in, 8.0, 1.0, t);
    return 0;
}

static const rt_kernel_desc levelset_desc =
    RT_CPU_KERNEL(KNAME, "sptrsv",
                  "level-set forward solve on L's CSR copy: rows of a level in parallel, a barrier "
                  "between levels (OpenMP)",
                  levelset_params, levelset_check, levelset_setup, levelset_run, levelset_output,
                  levelset_metrics, levelset_teardown, levelset_traffic);

const rt_kernel_desc *rt_sptrsv_cpu_levelset_kernel(void)
{
    return &levelset_desc;
}
