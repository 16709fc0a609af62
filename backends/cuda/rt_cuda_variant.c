#include "rt_cuda_variant.h"

#include <stdio.h>
#include <stdlib.h>

int rt_cuda_upload_new(rt_cuda_ctx *ctx, const void *src, size_t bytes, void **dptr,
                       const char *what, rt_err *err)
{
    const int rc = rt_cuda_alloc(ctx, dptr, bytes, what, err);
    if (rc != 0)
        return rc;
    return rt_cuda_upload(ctx, *dptr, src, bytes, what, err);
}

int rt_cuda_upload_values(rt_cuda_ctx *ctx, const double *src, int64_t n, rt_precision prec,
                          void **dptr, const char *what, rt_err *err)
{
    *dptr = NULL;
    if (n < 0)
        return rt_err_set(err, "%s: negative value count", what);
    if (prec == RT_FP64)
        return rt_cuda_upload_new(ctx, src, (size_t)n * sizeof(double), dptr, what, err);
    float *f = malloc(n > 0 ? (size_t)n * sizeof(float) : 1);
    if (!f)
        return rt_err_set(err, "%s: out of host memory converting %lld values to fp32", what,
                          (long long)n);
    for (int64_t i = 0; i < n; ++i)
        f[i] = (float)src[i];
    const int rc = rt_cuda_upload_new(ctx, f, (size_t)n * sizeof(float), dptr, what, err);
    free(f);
    return rc;
}

int rt_cuda_check_launch(const rt_device_info *dev, int64_t block_size, int64_t min_blocks,
                         char *why, size_t whylen)
{
    if (dev && dev->max_threads_per_block > 0 && block_size > dev->max_threads_per_block) {
        snprintf(why, whylen, "block_size=%lld exceeds the device's %d threads per block",
                 (long long)block_size, dev->max_threads_per_block);
        return RT_INFEASIBLE;
    }
    if (dev && dev->max_threads_per_sm > 0 && min_blocks > 0 &&
        block_size * min_blocks > dev->max_threads_per_sm) {
        snprintf(why, whylen,
                 "min_blocks=%lld x block_size=%lld = %lld threads exceeds the device's %d "
                 "threads per SM",
                 (long long)min_blocks, (long long)block_size, (long long)(min_blocks * block_size),
                 dev->max_threads_per_sm);
        return RT_INFEASIBLE;
    }
    return 0;
}

void rt_cuda_variant_metrics(const rt_cuda_variant *v, double occupancy, rt_metrics *m)
{
    rt_metrics_add(m, "registers_per_thread", "count", v->registers, 1);
    rt_metrics_add(m, "spill_bytes", "bytes", v->local_bytes, 1);
    rt_metrics_add(m, "static_shared_bytes", "bytes", v->static_shared_bytes, 1);
    rt_metrics_add(m, "theoretical_occupancy", "ratio", occupancy, 1);
    rt_metrics_add(m, "compiled", "count", v->from_cache ? 0.0 : 1.0, 0);
    rt_metrics_add(m, "compile_s", "s", v->compile_s, 0);
    /* compile_s is NVRTC on the point's path; what the compile-ahead pool did for it off the
     * path (measure.compile_ahead), and how long the point waited for that compile to end. */
    rt_metrics_add(m, "compiled_ahead", "count", v->compiled_ahead ? 1.0 : 0.0, 0);
    rt_metrics_add(m, "compile_ahead_s", "s", v->ahead_s, 0);
    rt_metrics_add(m, "compile_wait_s", "s", v->ahead_wait_s, 0);
}

int rt_cuda_variant_fits(const rt_device_info *dev, const rt_cuda_variant *v, int64_t block_size,
                         int64_t register_tile, int allow_spills, size_t dynamic_shared,
                         rt_err *err)
{
    if (v->local_bytes > 0 && !allow_spills) {
        rt_err_set(err,
                   "register spills: %d bytes of local memory per thread (register_tile=%lld, "
                   "%d registers per thread; allow_spills=1 runs it anyway)",
                   v->local_bytes, (long long)register_tile, v->registers);
        return RT_INFEASIBLE;
    }
    if (v->max_threads_per_block < block_size) {
        rt_err_set(err,
                   "block_size=%lld exceeds the %d threads per block this variant can launch "
                   "with %d registers per thread",
                   (long long)block_size, v->max_threads_per_block, v->registers);
        return RT_INFEASIBLE;
    }
    const long long shared_total = (long long)dynamic_shared + v->static_shared_bytes;
    if (shared_total > dev->max_shared_per_block_optin) {
        rt_err_set(err,
                   "%lld bytes of shared memory per block (%zu dynamic + %d static) exceed "
                   "the device's %lld",
                   shared_total, dynamic_shared, v->static_shared_bytes,
                   (long long)dev->max_shared_per_block_optin);
        return RT_INFEASIBLE;
    }
    return 0;
}

/* rq's embedded source, once its defines are checked (at most RT_CUDA_MAX_DEFINES); NULL with
 * err set otherwise. */
static const char *request_source(const rt_cuda_variant_request *rq, rt_err *err)
{
    const rt_cuda_defines *d = rq->defines;
    if (d->n > RT_CUDA_MAX_DEFINES) {
        rt_err_set(err, "%s: %d NVRTC defines, at most %d", rq->what, d->n, RT_CUDA_MAX_DEFINES);
        return NULL;
    }
    const char *source = rt_cuda_source(rq->source_name);
    if (!source)
        rt_err_set(err, "%s: kernel source %s is not embedded in the plugin", rq->what,
                   rq->source_name);
    return source;
}

int rt_cuda_prepare_variant(rt_cuda_ctx *ctx, const rt_cuda_variant_request *rq, rt_cuda_variant *v,
                            rt_err *err)
{
    const rt_cuda_defines *d = rq->defines;
    const char *source = request_source(rq, err);
    if (!source)
        return -1;
    const int got =
        rt_cuda_get_variant(ctx, rq->source_name, source, d->list, d->n, rq->entry, v, err);
    if (got != 0) {
        rt_err_prefix(err, "%s", rq->what);
        return got == RT_TIMED_OUT ? RT_TIMED_OUT : -1;
    }
    return rt_cuda_variant_fits(rt_cuda_ctx_device(ctx), v, rq->block_size, rq->register_tile,
                                rq->allow_spills, rq->dynamic_shared, err);
}

int rt_cuda_ahead_variant(rt_cuda_ctx *ctx, const rt_cuda_variant_request *rq, rt_err *err)
{
    const char *source = request_source(rq, err);
    if (!source)
        return -1;
    const rt_cuda_defines *d = rq->defines;
    if (rt_cuda_ctx_compile_ahead(ctx, rq->source_name, source, d->list, d->n, rq->entry, err) != 0)
        return rt_err_prefix(err, "%s: compile ahead", rq->what);
    return 0;
}
