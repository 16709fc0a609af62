#include "user_kernel.h"

#include <stdio.h>
#include <string.h>

int user_kernel_inputs(const user_kernel *uk, const void *inputs, const user_inputs **in,
                       rt_err *err)
{
    const user_inputs *x = inputs;
    if (!x || !x->spec || strcmp(x->spec->family, uk->spec->family) != 0)
        return rt_err_set(err, "%s: given the inputs of another family", uk->k->name);
    if (strcmp(x->spec->hash, uk->spec->hash) != 0)
        return rt_err_set(err,
                          "%s: %s or a source it names changed since the run started; run again",
                          uk->k->name, uk->spec->path);
    *in = x;
    return 0;
}

/* Device limits of a launch (CUDA's, the same on every GPU rooftune supports). */
static const unsigned k_block_max[3] = {1024, 1024, 64};
static const unsigned long long k_grid_max[3] = {2147483647ULL, 65535ULL, 65535ULL};

int user_kernel_launch(const user_kernel *uk, const user_inputs *in, const rt_params *params,
                       const rt_device_info *dev, user_launch *out, char *why, size_t whylen,
                       rt_err *err)
{
    const user_kernel_spec *k = uk->k;
    const user_scope scope = {.problem = &in->problem, .params = params, .device = dev};
    unsigned long long threads = 1;
    for (int d = 0; d < 3; ++d) {
        int64_t g = 1, b = 1;
        if (d < k->n_grid && user_eval_int(&k->grid[d], &scope, 0, INT64_MAX, &g, err) != 0)
            return -1;
        if (d < k->n_block && user_eval_int(&k->block[d], &scope, 0, INT64_MAX, &b, err) != 0)
            return -1;
        const char axis = (char)('x' + d);
        if (b < 1 || (unsigned long long)b > k_block_max[d]) {
            snprintf(why, whylen, "block.%c = %lld is outside 1..%u", axis, (long long)b,
                     k_block_max[d]);
            return RT_INFEASIBLE;
        }
        if ((unsigned long long)g > k_grid_max[d]) {
            snprintf(why, whylen, "grid.%c = %lld is over the device's %llu", axis, (long long)g,
                     k_grid_max[d]);
            return RT_INFEASIBLE;
        }
        out->grid[d] = (unsigned)g;
        out->block[d] = (unsigned)b;
        threads *= (unsigned long long)b;
    }
    if (dev && dev->max_threads_per_block > 0 &&
        threads > (unsigned long long)dev->max_threads_per_block) {
        snprintf(why, whylen, "a block of %llu threads, the device allows %d", threads,
                 dev->max_threads_per_block);
        return RT_INFEASIBLE;
    }
    int64_t shared = 0;
    if (k->shared_bytes.expr &&
        user_eval_int(&k->shared_bytes, &scope, 0, INT64_MAX, &shared, err) != 0)
        return -1;
    if (dev && dev->max_shared_per_block_optin > 0 && shared > dev->max_shared_per_block_optin) {
        snprintf(why, whylen,
                 "%lld bytes of dynamic shared memory per block, the device allows %lld",
                 (long long)shared, (long long)dev->max_shared_per_block_optin);
        return RT_INFEASIBLE;
    }
    out->shared_bytes = (size_t)shared;
    return 0;
}

int user_kernel_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const user_kernel *uk = self->backend_ctx;
    const user_inputs *in;
    rt_params params;
    if (user_kernel_inputs(uk, inputs, &in, err) != 0 ||
        user_spec_kernel_params(uk->k, p, &params, err) != 0)
        return -1;
    const user_scope scope = {.problem = &in->problem, .params = &params, .device = env->device};
    for (int c = 0; c < uk->k->n_constraints; ++c) {
        const user_expr *e = &uk->k->constraints[c];
        double v;
        if (user_eval(e, &scope, &v, err) != 0)
            return -1;
        if (v == 0) {
            snprintf(why, whylen, "%s:%d:%d: constraint '%s' does not hold", e->loc.file,
                     e->loc.line, e->loc.col, rt_expr_text(e->expr));
            return RT_INFEASIBLE;
        }
    }
    if (!uk->k->cuda)
        return 0;
    user_launch launch;
    return user_kernel_launch(uk, in, &params, env->device, &launch, why, whylen, err);
}

int user_kernel_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const user_kernel *uk = self->backend_ctx;
    const user_inputs *in;
    rt_params params;
    memset(t, 0, sizeof *t);
    if (user_kernel_inputs(uk, inputs, &in, err) != 0 ||
        user_spec_kernel_params(uk->k, p, &params, err) != 0)
        return -1;
    t->flops = in->flops;
    const user_expr *bytes = uk->k->bytes.expr ? &uk->k->bytes : &in->spec->bytes;
    if (bytes->expr) {
        const user_scope scope = {.problem = &in->problem, .params = &params};
        if (user_eval(bytes, &scope, &t->bytes[RT_LEVEL_DRAM], err) != 0)
            return -1;
    }
    return 0;
}
