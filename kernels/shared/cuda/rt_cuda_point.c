#include "rt_cuda_point.h"

#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>

#include "rt_schema.h"

/* A block may use more than this much dynamic shared memory only after opting in per function. */
#define DEFAULT_DYNAMIC_SHARED_LIMIT (48 * 1024)

int rt_cuda_param_int(const rt_cuda_catalog_entry *e, const rt_params *p, const char *name,
                      int64_t *out, rt_err *err)
{
    if (!e)
        return rt_err_set(err, "parameter %s: no CUDA catalog entry", name);
    return rt_schema_int(e->params, e->n_params, e->name, p, name, out, err);
}

int rt_cuda_param_str(const rt_cuda_catalog_entry *e, const rt_params *p, const char *name,
                      char *out, size_t len, rt_err *err)
{
    if (!e)
        return rt_err_set(err, "parameter %s: no CUDA catalog entry", name);
    return rt_schema_str(e->params, e->n_params, e->name, p, name, out, len, err);
}

void rt_cuda_point_name(const char *kernel, const rt_params *p, const char *problem, char *out,
                        size_t len)
{
    char json[384] = "{}";
    if (p && rt_params_to_json(p, json, sizeof json) < 0)
        snprintf(json, sizeof json, "{...}");
    snprintf(out, len, "%s %s %s", kernel, json, problem);
}

int rt_cuda_point_inputs(const rt_cuda_point_family *fam, const void *inputs, const void **checked,
                         rt_err *err)
{
    *checked = NULL;
    return fam->inputs(inputs, checked, err);
}

int rt_cuda_point_setup(const rt_kernel_desc *self, const rt_cuda_point_family *fam,
                        const void *inputs, const rt_params *p, size_t state_bytes,
                        int (*prepare)(void *state, const rt_params *p, rt_err *err),
                        void (*teardown)(void *state), void **state, rt_err *err)
{
    *state = NULL;
    const void *in;
    if (rt_cuda_point_inputs(fam, inputs, &in, err) != 0)
        return -1;
    rt_cuda_point *pt = calloc(1, state_bytes);
    if (!pt)
        return rt_err_set(err, "out of memory creating the state of %s", self->name);
    pt->ctx = self->backend_ctx;
    pt->inputs = in;
    char problem[384];
    fam->problem(in, problem, sizeof problem);
    rt_cuda_point_name(self->name, p, problem, pt->what, sizeof pt->what);
    const int rc = prepare(pt, p, err);
    if (rc != 0) {
        teardown(pt);
        return rc;
    }
    *state = pt;
    return 0;
}

int rt_cuda_point_variant(rt_cuda_ctx *ctx, const char *source_name, const char *const *defines,
                          int n_defines, const char *entry, rt_cuda_variant *v, const char *what,
                          rt_err *err)
{
    const char *source = rt_cuda_source(source_name);
    if (!source)
        return rt_err_set(err, "%s: kernel source %s is not embedded in the plugin", what,
                          source_name);
    if (rt_cuda_get_variant(ctx, source_name, source, defines, n_defines, entry, v, err) != 0)
        return rt_err_prefix(err, "%s", what);
    return 0;
}

int rt_cuda_point_launch(rt_cuda_ctx *ctx, const rt_cuda_variant *v, const unsigned grid[3],
                         const unsigned block[3], size_t dynamic_shared, void **args,
                         const char *what, rt_err *err)
{
    const CUfunction fn = (CUfunction)v->function;
    if (!fn)
        return rt_err_set(err, "%s: launch of a variant that was never loaded", what);
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
        return 0; /* nothing to compute */
    CUresult r = CUDA_SUCCESS;
    if (dynamic_shared > DEFAULT_DYNAMIC_SHARED_LIMIT)
        r = cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               (int)dynamic_shared);
    if (r == CUDA_SUCCESS)
        r = cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                           (unsigned)dynamic_shared, (CUstream)rt_cuda_ctx_stream(ctx), args, NULL);
    if (r != CUDA_SUCCESS) {
        const char *name = NULL, *text = NULL;
        cuGetErrorName(r, &name);
        cuGetErrorString(r, &text);
        return rt_err_set(err, "%s: launching the kernel failed: %s: %s", what,
                          name ? name : "unknown CUresult", text ? text : "");
    }
    return 0;
}

void **rt_cuda_args_set(rt_cuda_args *a, const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    a->n = 0;
    for (const char *t = types; *t; ++t) {
        if (a->n == RT_CUDA_MAX_ARGS) {
            va_end(ap);
            return NULL;
        }
        switch (*t) {
        case 'p': a->v[a->n].p = va_arg(ap, void *); break;
        case 'L': a->v[a->n].ll = va_arg(ap, long long); break;
        case 'i': a->v[a->n].i = va_arg(ap, int); break;
        default: va_end(ap); return NULL;
        }
        a->args[a->n] = &a->v[a->n];
        ++a->n;
    }
    va_end(ap);
    return a->args;
}

void rt_cuda_point_describe(rt_kernel_desc *d, const rt_cuda_catalog_entry *e,
                            const rt_cuda_point_hooks *h, rt_cuda_ctx *ctx)
{
    rt_cuda_catalog_describe(e, d);
    d->check = h->check;
    d->setup = h->setup;
    d->run = h->run;
    d->output = h->output;
    d->metrics = h->metrics;
    d->flush = h->flush;
    d->teardown = h->teardown;
    d->traffic = h->traffic;
    d->backend_ctx = ctx;
}

int rt_cuda_point_flush(void *state, rt_err *err)
{
    rt_cuda_point *pt = state;
    return rt_cuda_flush_l2(pt->ctx, err);
}
