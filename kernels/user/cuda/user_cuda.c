#define _POSIX_C_SOURCE 200809L
#include "user_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h>

#include "rt_clock.h"
#include "rt_cuda_catalog.h"
#include "rt_cuda_variant.h"
#include "user_cuda_catalog.h"
#include "user_diag.h"
#include "user_kernel.h"

typedef struct cuda_state {
    const user_kernel *uk;
    const user_inputs *in;
    rt_cuda_ctx *ctx;
    user_layout layout;
    unsigned char *host; /* the staged block; outputs and guards are read back into it */
    void *dev;           /* the same layout on the device */
    rt_cuda_variant variant;
    user_launch launch;
    void *dptr[USER_MAX_ARGS];   /* arrays' device addresses */
    void *params[USER_MAX_ARGS]; /* cuLaunchKernel's: &dptr[i], or the scalar in host */
    CUevent start, stop;
    double occupancy;
} cuda_state;

static int cu_fail(rt_err *err, const char *what, const char *call, CUresult r)
{
    const char *name = NULL, *text = NULL;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    return rt_err_set(err, "%s: %s failed: %s: %s", what, call, name ? name : "?",
                      text ? text : "");
}

/* Errors after which the context cannot run anything again (CUDA's sticky errors). */
static int sticky(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT: return 1;
    default: return 0;
    }
}

static int is_engine(const rt_kernel_desc *self, rt_err *err)
{
    if (strcmp(self->name, USER_ENGINE_KERNEL) != 0)
        return 0;
    return rt_err_set(err,
                      "%s carries the hooks of kernel specs; name a spec's kernel "
                      "(user_kernels: in the config) instead",
                      USER_ENGINE_KERNEL);
}

static void cuda_teardown(void *state)
{
    cuda_state *s = state;
    if (!s)
        return;
    if (s->ctx && !rt_cuda_ctx_abandoned(s->ctx)) {
        rt_cuda_free(s->ctx, s->dev);
        if (s->start)
            cuEventDestroy(s->start);
        if (s->stop)
            cuEventDestroy(s->stop);
    }
    free(s->host);
    free(s);
}

/* NVRTC's message with the user's path:line and its error lines only (the point's reason holds
 * 512 characters). */
static int compile_error(const user_kernel_spec *k, const rt_err *nvrtc, rt_err *err)
{
    char text[480];
    user_diag_nvrtc(k->source, nvrtc->msg, text, sizeof text);
    return rt_err_set(err, "%s", text);
}

static int prepare(cuda_state *s, const rt_params *params, rt_err *err)
{
    const user_kernel *uk = s->uk;
    const user_kernel_spec *k = uk->k;
    const rt_device_info *dev = rt_cuda_ctx_device(s->ctx);
    char why[400] = "";
    int rc = user_kernel_launch(uk, s->in, params, dev, &s->launch, why, sizeof why, err);
    if (rc == RT_INFEASIBLE) {
        rt_err_set(err, "%s", why);
        return RT_INFEASIBLE;
    }
    if (rc != 0)
        return -1;

    /* The parameters as NVRTC defines, in the schema's order. */
    char text[RT_MAX_PARAMS][USER_DEFINE_MAX];
    const char *defines[RT_MAX_PARAMS];
    user_spec_defines(params, text, defines);
    rt_err nvrtc;
    rt_err_clear(&nvrtc);
    if (rt_cuda_get_variant(s->ctx, k->source, k->source_text, defines, params->n, k->entry,
                            &s->variant, &nvrtc) != 0)
        return compile_error(k, &nvrtc, err);
    const int64_t threads = (int64_t)s->launch.block[0] * s->launch.block[1] * s->launch.block[2];
    rc = rt_cuda_variant_fits(dev, &s->variant, threads, 1, 1, s->launch.shared_bytes, err);
    if (rc != 0)
        return rc;
    if (rt_cuda_occupancy(s->ctx, &s->variant, (int)threads, s->launch.shared_bytes, &s->occupancy,
                          err) != 0)
        return -1;

    /* The arguments: staged on the host with guards, copied to the device in one piece. */
    if (user_inputs_layout(s->in, &s->layout, err) != 0)
        return -1;
    s->host = malloc(s->layout.total);
    if (!s->host)
        return rt_err_set(err, "out of memory staging %zu bytes", s->layout.total);
    if (user_inputs_stage(s->in, params, &s->layout, s->host, err) != 0)
        return -1;
    rc = rt_cuda_alloc(s->ctx, &s->dev, s->layout.total, k->name, err);
    if (rc != 0)
        return rc;
    if (rt_cuda_upload(s->ctx, s->dev, s->host, s->layout.total, k->name, err) != 0)
        return -1;
    for (int i = 0; i < uk->spec->n_args; ++i) {
        if (uk->spec->args[i].is_array) {
            s->dptr[i] = (unsigned char *)s->dev + s->layout.offset[i];
            s->params[i] = &s->dptr[i];
        } else {
            s->params[i] = s->host + s->layout.offset[i];
        }
    }
    CUresult r = cuEventCreate(&s->start, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
        r = cuEventCreate(&s->stop, CU_EVENT_DEFAULT);
    if (r != CUDA_SUCCESS)
        return cu_fail(err, k->name, "cuEventCreate", r);
    if (s->launch.shared_bytes > 48 * 1024) {
        r = cuFuncSetAttribute((CUfunction)s->variant.function,
                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               (int)s->launch.shared_bytes);
        if (r != CUDA_SUCCESS)
            return cu_fail(err, k->name, "cuFuncSetAttribute", r);
    }
    return 0;
}

static int cuda_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, void **state, rt_err *err)
{
    *state = NULL;
    if (is_engine(self, err) != 0)
        return -1;
    const user_kernel *uk = self->backend_ctx;
    cuda_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    s->uk = uk;
    s->ctx = uk->cuda_ctx;
    *state = s;
    rt_params params;
    if (rt_cuda_ctx_make_current(s->ctx, err) != 0 ||
        user_kernel_inputs(uk, inputs, &s->in, err) != 0 ||
        user_spec_kernel_params(uk->k, p, &params, err) != 0)
        return -1;
    const int rc = prepare(s, &params, err);
    if (rc == -1)
        return rt_err_prefix(err, "%s:%d:%d: %s", uk->k->source_loc.file, uk->k->source_loc.line,
                             uk->k->source_loc.col, uk->k->name);
    return rc;
}

/* Waits for the kernel's end event, at most timeout_s. */
static CUresult wait_event(CUevent ev, double timeout_s, int *timed_out)
{
    *timed_out = 0;
    const double t0 = rt_clock_now();
    const struct timespec pause = {0, 50000}; /* 50 us: the event times the kernel, not this */
    for (unsigned spins = 0;; ++spins) {
        const CUresult r = cuEventQuery(ev);
        if (r != CUDA_ERROR_NOT_READY)
            return r;
        const double waited = rt_clock_now() - t0;
        if (waited > timeout_s) {
            *timed_out = 1;
            return CUDA_ERROR_NOT_READY;
        }
        if (spins > 1000)
            nanosleep(&pause, NULL);
    }
}

static int cuda_run(void *state, double *seconds, rt_err *err)
{
    cuda_state *s = state;
    const char *name = s->uk->k->name;
    *seconds = -1.0;
    if (rt_cuda_ctx_make_current(s->ctx, err) != 0)
        return -1;
    const CUstream stream = (CUstream)rt_cuda_ctx_stream(s->ctx);
    const user_launch *l = &s->launch;
    CUresult r = cuEventRecord(s->start, stream);
    if (r == CUDA_SUCCESS && l->grid[0] && l->grid[1] && l->grid[2])
        r = cuLaunchKernel((CUfunction)s->variant.function, l->grid[0], l->grid[1], l->grid[2],
                           l->block[0], l->block[1], l->block[2], (unsigned)l->shared_bytes, stream,
                           s->params, NULL);
    if (r == CUDA_SUCCESS)
        r = cuEventRecord(s->stop, stream);
    int timed_out = 0;
    if (r == CUDA_SUCCESS)
        r = wait_event(s->stop, s->uk->timeout_s, &timed_out);
    if (timed_out) {
        char why[400];
        snprintf(why, sizeof why,
                 "%s did not finish within measure.point_timeout_s = %.3g s (a kernel that hangs "
                 "cannot be stopped from the host)",
                 name, s->uk->timeout_s);
        rt_cuda_ctx_abandon(s->ctx, why);
        return rt_err_set(err,
                          "timeout: %s; the GPU is left to it until rooftune exits, and the "
                          "later GPU points of this run fail",
                          why);
    }
    if (r != CUDA_SUCCESS) {
        if (sticky(r)) {
            char why[400];
            const char *cname = NULL;
            cuGetErrorName(r, &cname);
            snprintf(why, sizeof why, "%s failed with %s, which CUDA keeps for the whole context",
                     name, cname ? cname : "a sticky error");
            rt_cuda_ctx_abandon(s->ctx, why);
        }
        return cu_fail(err, name, "the launch", r);
    }
    float ms = 0;
    r = cuEventElapsedTime(&ms, s->start, s->stop);
    if (r != CUDA_SUCCESS)
        return cu_fail(err, name, "cuEventElapsedTime", r);
    *seconds = ms * 1e-3;
    return 0;
}

static int cuda_output(void *state, double *out, rt_err *err)
{
    cuda_state *s = state;
    const user_spec *spec = s->uk->spec;
    const user_layout *l = &s->layout;
    const char *name = s->uk->k->name;
    for (int i = 0; i < spec->n_args; ++i) {
        if (!spec->args[i].is_array)
            continue;
        /* Every guard, and each output's data. */
        const size_t before = l->offset[i] - USER_GUARD_BYTES;
        const size_t data = spec->args[i].output ? l->bytes[i] : 0;
        const size_t after = l->offset[i] + l->bytes[i];
        if (rt_cuda_download(s->ctx, s->host + before, (unsigned char *)s->dev + before,
                             USER_GUARD_BYTES + data, name, err) != 0 ||
            rt_cuda_download(s->ctx, s->host + after, (unsigned char *)s->dev + after,
                             user_guard_tail_bytes(l, i), name, err) != 0)
            return -1;
    }
    if (user_guard_check_all(spec, l, s->host, name, err) != 0)
        return -1;
    user_inputs_outputs(s->in, l, s->host, out);
    return 0;
}

static int cuda_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const cuda_state *s = state;
    rt_cuda_variant_metrics(&s->variant, s->occupancy, m);
    rt_metrics_add(m, "grid_x", "count", s->launch.grid[0], 1);
    rt_metrics_add(m, "grid_y", "count", s->launch.grid[1], 1);
    rt_metrics_add(m, "grid_z", "count", s->launch.grid[2], 1);
    rt_metrics_add(m, "block_threads", "count",
                   (double)s->launch.block[0] * s->launch.block[1] * s->launch.block[2], 1);
    return 0;
}

static int cuda_flush(void *state, rt_err *err)
{
    const cuda_state *s = state;
    return rt_cuda_flush_l2(s->ctx, err);
}

void rt_user_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    int n = 0;
    /* The table first: as one call's arguments, n could be read before the catalog sets it. */
    const rt_cuda_catalog_entry *table = rt_user_cuda_catalog(&n);
    const rt_cuda_catalog_entry *e = rt_cuda_catalog_at(table, n, index);
    rt_cuda_catalog_describe(e, d);
    d->setup = cuda_setup;
    d->run = cuda_run;
    d->output = cuda_output;
    d->metrics = cuda_metrics;
    d->flush = cuda_flush;
    d->teardown = cuda_teardown;
    d->backend_ctx = ctx;
}
