/* The spmm family's CUDA entry point for the plugin (kernels/rt_family_list.h): catalog index to
 * runnable descriptor. The single-launch kernels (csr, ell, tiled, tiled_pipe, tiled_tma) are their
 * own parts (rt_spmm_cuda_hooks) joined to the shared setup, run, output and flush here. */
#include "spmm_cuda_describe.h"

#include <stddef.h>
#include <string.h>

#include "spmm_cuda_catalog.h"
#include "spmm_cuda_common.h"
#include "spmm_cuda_csr.h"
#include "spmm_cuda_cusparse.h"
#include "spmm_cuda_ell.h"
#include "spmm_cuda_tiled.h"
#include "spmm_cuda_tiled_pipe.h"
#include "spmm_cuda_tiled_tma.h"

static const rt_spmm_cuda_hooks *hooks_of(int kind)
{
    switch (kind) {
    case RT_SPMM_CUDA_KIND_CSR: return &rt_spmm_cuda_csr_hooks;
    case RT_SPMM_CUDA_KIND_ELL: return &rt_spmm_cuda_ell_hooks;
    case RT_SPMM_CUDA_KIND_TILED: return &rt_spmm_cuda_tiled_hooks;
    case RT_SPMM_CUDA_KIND_TILED_PIPE: return &rt_spmm_cuda_tiled_pipe_hooks;
    case RT_SPMM_CUDA_KIND_TILED_TMA: return &rt_spmm_cuda_tiled_tma_hooks;
    default: return NULL;
    }
}

static int launch_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, void **state, rt_err *err)
{
    *state = NULL;
    for (int kind = 0; kind < RT_SPMM_CUDA_KIND_COUNT; ++kind) {
        const rt_spmm_cuda_hooks *h = hooks_of(kind);
        if (h && strcmp(rt_spmm_cuda_catalog_at(kind)->name, self->name) == 0)
            return rt_spmm_cuda_launch_setup(self, inputs, p, h->state_bytes, h->prepare,
                                             h->teardown, state, err);
    }
    return rt_err_set(err, "%s is not a single-launch spmm CUDA kernel", self->name);
}

/* The compile-ahead hook of the kernels that build their variant apart
 * (rt_spmm_cuda_hooks.variant): that variant queued on the context's pool, unless the point is
 * not feasible here (its setup compiles nothing either). */
static int launch_compile_ahead(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                                const rt_kernel_env *env, rt_err *err)
{
    (void)env;
    rt_cuda_ctx *ctx = self->backend_ctx;
    for (int kind = 0; kind < RT_SPMM_CUDA_KIND_COUNT; ++kind) {
        const rt_spmm_cuda_hooks *h = hooks_of(kind);
        if (!h || !h->variant || strcmp(rt_spmm_cuda_catalog_at(kind)->name, self->name) != 0)
            continue;
        const rt_spmm_inputs *in;
        rt_cuda_defines defs;
        rt_cuda_variant_request rq;
        if (rt_spmm_cuda_inputs(inputs, &in, err) != 0)
            return -1;
        const int rc = h->variant(in, p, rt_cuda_ctx_device(ctx), self->name, &defs, &rq, err);
        return rc == RT_INFEASIBLE ? 0 : rc != 0 ? -1 : rt_cuda_ahead_variant(ctx, &rq, err);
    }
    return 0;
}

void rt_spmm_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    if (index == RT_SPMM_CUDA_KIND_CUSPARSE) {
        rt_spmm_cuda_cusparse_describe(d, ctx);
        return;
    }
    const rt_spmm_cuda_hooks *h = hooks_of(index);
    if (!h)
        return;
    const rt_cuda_point_hooks launch = {h->check,
                                        launch_setup,
                                        rt_spmm_cuda_launch_run,
                                        rt_spmm_cuda_launch_output,
                                        h->metrics,
                                        rt_cuda_point_flush,
                                        h->teardown,
                                        h->traffic};
    rt_cuda_point_describe(d, rt_spmm_cuda_catalog_at(index), &launch, ctx);
    if (h->variant)
        d->compile_ahead = launch_compile_ahead;
}
