#include "spmm_cuda_tiled.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmm_cuda_common.h"
#include "spmm_cuda_tiled_plan.h"
#include "spmm_tiled.h"

/* The device source's WARP_SIZE: ELL slices are one warp of rows. */
#define TILED_WARP_SIZE 32

typedef rt_spmm_tiled_params tiled_params;

typedef struct tiled_state {
    rt_spmm_cuda_launch base; /* first: the shared hooks take the state as this */
    rt_spmm_tiled_dev plan;
    int64_t buffsize;
} tiled_state;

static int read_params(const rt_params *p, const rt_spmm_inputs *in, tiled_params *tp, rt_err *err)
{
    return rt_spmm_tiled_read_params(p, in, tp, err);
}

static int feasible(const rt_device_info *dev, const rt_spmm_inputs *in, const tiled_params *tp,
                    char *why, size_t whylen)
{
    const int64_t shared_bytes = tp->shared_kib * 1024;
    if (dev && shared_bytes > dev->max_shared_per_block_optin) {
        snprintf(why, whylen,
                 "shared_kib=%lld (%lld bytes) exceeds the device's opt-in limit of %lld bytes "
                 "of shared memory per block",
                 (long long)tp->shared_kib, (long long)shared_bytes,
                 (long long)dev->max_shared_per_block_optin);
        return RT_INFEASIBLE;
    }
    if (tp->use_ell && tp->block_size % TILED_WARP_SIZE != 0) {
        snprintf(why, whylen, "staging=ell needs block_size to be a multiple of %d, not %lld",
                 TILED_WARP_SIZE, (long long)tp->block_size);
        return RT_INFEASIBLE;
    }
    if (tp->buffsize < 1) {
        snprintf(why, whylen,
                 "shared_kib=%lld holds no staged row of register_tile=%lld %s values "
                 "(buffsize 0)",
                 (long long)tp->shared_kib, (long long)tp->register_tile,
                 rt_precision_name(in->prec));
        return RT_INFEASIBLE;
    }
    if (tp->index_bytes == 2 && tp->buffsize > 65536) {
        snprintf(why, whylen, "index_bytes=2 addresses 65536 shared slots, buffsize is %lld",
                 (long long)tp->buffsize);
        return RT_INFEASIBLE;
    }
    return rt_cuda_check_launch(dev, tp->block_size, tp->min_blocks, why, whylen);
}

static int tiled_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_spmm_inputs *in;
    tiled_params tp;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || read_params(p, in, &tp, err) != 0)
        return -1;
    return feasible(rt_cuda_ctx_device(self->backend_ctx), in, &tp, why, whylen);
}

static void tiled_teardown(void *state)
{
    tiled_state *s = state;
    if (s) {
        rt_spmm_tiled_dev_free(s->base.pt.ctx, &s->plan);
        rt_spmm_cuda_launch_free(&s->base, NULL, 0);
    }
}

/* ---------------------------------------------------------------------------------------------
 * The plan's parameters (spmm_cuda_tiled_plan builds, checks and uploads it) */

static rt_tiled_params plan_params(const tiled_params *tp)
{
    rt_tiled_params pp = {.block_size = (int)tp->block_size,
                          .buffsize = tp->buffsize,
                          .warp_size = TILED_WARP_SIZE,
                          .use_ell = tp->use_ell,
                          .index_bytes = (int)tp->index_bytes};
    return pp;
}

/* ---------------------------------------------------------------------------------------------
 * Setup */

static int compile_variant(tiled_state *s, const rt_spmm_inputs *in, const tiled_params *tp,
                           rt_err *err)
{
    rt_cuda_defines defs;
    rt_cuda_variant_request rq;
    rt_spmm_tiled_variant(in, tp, s->base.pt.what, &defs, &rq);
    return rt_cuda_prepare_variant(s->base.pt.ctx, &rq, &s->base.variant, err);
}

/* The variant compile_variant would compile, for the compile-ahead hook (rt_spmm_cuda_hooks). */
static int tiled_variant_of(const rt_spmm_inputs *in, const rt_params *p, const rt_device_info *dev,
                            const char *what, rt_cuda_defines *defs, rt_cuda_variant_request *rq,
                            rt_err *err)
{
    tiled_params tp;
    char why[512];
    if (read_params(p, in, &tp, err) != 0)
        return -1;
    if (feasible(dev, in, &tp, why, sizeof why) != 0)
        return RT_INFEASIBLE;
    rt_spmm_tiled_variant(in, &tp, what, defs, rq);
    return 0;
}

static int tiled_prepare(void *state, const rt_params *p, rt_err *err)
{
    tiled_state *s = state;
    const rt_spmm_inputs *in = s->base.pt.inputs;
    tiled_params tp;
    if (read_params(p, in, &tp, err) != 0)
        return -1;
    const rt_csr *a = in->a;
    char why[512];
    if (feasible(rt_cuda_ctx_device(s->base.pt.ctx), in, &tp, why, sizeof why) != 0) {
        rt_err_set(err, "%s", why);
        return RT_INFEASIBLE;
    }
    s->buffsize = tp.buffsize;
    /* Compile first: a variant that spills is rejected before any preprocessing. */
    int rc = compile_variant(s, in, &tp, err);
    if (rc != 0)
        return rc;
    if (rt_spmm_cuda_launch_geometry(&s->base, a->rows, in->k, tp.block_size, tp.register_tile,
                                     tp.dynamic_shared, &s->base.ntiles, err) != 0)
        return -1;

    /* Preprocessing time = host plan build + upload; the plan checks between them are not part
     * of the method and are not counted. */
    const rt_tiled_params pp = plan_params(&tp);
    rc = rt_spmm_tiled_dev_prepare(s->base.pt.ctx, RT_SPMM_MEMO_TILED_PLAN, s->base.pt.what, a, &pp,
                                   in->prec, "shared memory", &s->plan, err);
    if (rc != 0)
        return rc;
    rc = rt_spmm_cuda_launch_dense(&s->base, err);
    if (rc != 0)
        return rc;

    rt_spmm_tiled_args_bind(&s->base, &s->plan, tp.buffsize);
    return 0;
}

static int tiled_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const tiled_state *s = state;
    rt_spmm_tiled_dev_metrics(&s->plan, m);
    rt_cuda_variant_metrics(&s->base.variant, s->base.occupancy, m);
    rt_metrics_add(m, "buffsize", "count", (double)s->buffsize, 1);
    rt_metrics_add(m, "dynamic_shared_bytes", "bytes", (double)s->base.cfg.dynamic_shared_bytes, 1);
    return 0;
}

static int tiled_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spmm_inputs *in;
    tiled_params tp;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || read_params(p, in, &tp, err) != 0)
        return -1;
    char why[512];
    if (feasible(rt_cuda_ctx_device(self->backend_ctx), in, &tp, why, sizeof why) != 0)
        return rt_err_set(err, "no traffic model for an infeasible point: %s", why);
    rt_cuda_ctx *ctx = self->backend_ctx;
    const rt_tiled_params pp = plan_params(&tp);
    const rt_spmm_tiled_summary *sum =
        rt_spmm_tiled_summary_get(ctx, RT_SPMM_MEMO_TILED_PLAN, in->a, &pp, self->name, err);
    if (!sum)
        return -1;
    return rt_spmm_tiled_traffic(in, sum, tp.register_tile, self->name, t, err);
}

const rt_spmm_cuda_hooks rt_spmm_cuda_tiled_hooks = {
    tiled_check,    tiled_prepare, sizeof(tiled_state), tiled_metrics,
    tiled_teardown, tiled_traffic, tiled_variant_of};
