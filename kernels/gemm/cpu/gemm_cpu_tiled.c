#include <stdio.h>
#include <stdlib.h>

#include "gemm_cpu_engine.h"
#include "gemm_cpu_kernels.h"
#include "gemm_params.h"
#include "rt_cpu_kernel.h"

#define KNAME "gemm.cpu.tiled"

static const rt_param_schema tiled_params[] = {GEMM_TILED_PARAMS};
#define N_TILED ((int)(sizeof tiled_params / sizeof tiled_params[0]))

typedef struct cpu_tiled {
    gemm_plan plan;
    gemm_cpu_engine *eng;
    gemm_tiled *drv;
} cpu_tiled;

/* The plan of a point; budget 0 means unlimited on the CPU. */
static int plan_of(const void *inputs, const rt_params *p, const rt_kernel_env *env,
                   gemm_tiled_cfg *cfg, gemm_plan *plan, rt_err *err)
{
    if (gemm_tiled_cfg_read(tiled_params, N_TILED, KNAME, p, cfg, err) != 0)
        return -1;
    return gemm_tiled_plan(inputs, cfg, env->nranks, cfg->budget_bytes, plan, err);
}

static int tiled_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    (void)self;
    gemm_tiled_cfg cfg;
    gemm_plan plan;
    const int rc = plan_of(inputs, p, env, &cfg, &plan, err);
    if (rc == RT_INFEASIBLE)
        snprintf(why, whylen, "%s", err->msg);
    return rc;
}

static void tiled_teardown(void *state)
{
    cpu_tiled *s = state;
    if (!s)
        return;
    gemm_tiled_free(s->drv);
    gemm_cpu_engine_free(s->eng);
    free(s);
}

static int tiled_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, void **state, rt_err *err)
{
    (void)self;
    const gemm_inputs *in = inputs;
    cpu_tiled *s = calloc(1, sizeof *s);
    *state = s;
    gemm_tiled_cfg cfg;
    int rc =
        s ? plan_of(inputs, p, env, &cfg, &s->plan, err) : rt_err_set(err, KNAME ": out of memory");
    if (rc == 0) {
        const size_t tile_bytes = (size_t)(cfg.t * cfg.t) * rt_precision_bytes(in->prec);
        if (gemm_cpu_engine_create((int)cfg.gpus, gemm_tiled_slots(&s->plan), tile_bytes, in->prec,
                                   &s->eng, err) != 0 ||
            gemm_tiled_create(in, &s->plan, cfg.t, env->comm, env->rank, cfg.fail_rank,
                              gemm_cpu_engine_ops(), s->eng, &s->drv, err) != 0)
            rc = rt_err_prefix(err, KNAME);
    }
    /* Every rank agrees (a rank that failed takes no part in what follows), then, with ipc, the
     * emulated GPUs of each node share their slots. */
    return gemm_tiled_connect(rc == 0 ? s->drv : NULL, env->comm, rc, KNAME, err);
}

static int tiled_run(void *state, double *seconds, rt_err *err)
{
    cpu_tiled *s = state;
    *seconds = -1.0;
    return gemm_tiled_run(s->drv, err);
}

static int tiled_output(void *state, double *out, rt_err *err)
{
    return gemm_tiled_output(((cpu_tiled *)state)->drv, out, err);
}

static int tiled_metrics(void *state, rt_metrics *m, rt_err *err)
{
    return gemm_tiled_metrics(((cpu_tiled *)state)->drv, m, err);
}

static int tiled_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    (void)self;
    gemm_tiled_cfg cfg;
    gemm_plan plan;
    if (plan_of(inputs, p, env, &cfg, &plan, err) != 0)
        return -1;
    /* The emulated GPUs have memories (and links) of their own: copies between them count as
     * link bytes, spread over G of them. */
    if (gemm_tiled_traffic(inputs, &plan, cfg.t, env->comm, env->rank, 1, t, err) != 0)
        return -1;
    t->devices = (int)cfg.gpus;
    return 0;
}

static const rt_kernel_desc tiled_desc =
    RT_CPU_KERNEL(KNAME, "gemm",
                  "chunked blocked GEMM over MPI (PaRSEC generic GEMM) with emulated GPUs: "
                  "host-memory budgets, LRU tile caches with peer reuse, lookahead; CBLAS tiles",
                  tiled_params, tiled_check, tiled_setup, tiled_run, tiled_output, tiled_metrics,
                  tiled_teardown, tiled_traffic);

const rt_kernel_desc *rt_gemm_cpu_tiled_kernel(void)
{
    return &tiled_desc;
}
