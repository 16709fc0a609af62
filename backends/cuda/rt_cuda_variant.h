/* rt_cuda_variant: what every CUDA kernel of every family does to prepare a point: upload its
 * inputs into new device buffers, check a launch against the device's limits, check that a
 * compiled variant fits (spills, threads, shared memory), and report the variant's facts. */
#ifndef RT_CUDA_VARIANT_H
#define RT_CUDA_VARIANT_H

#include <stddef.h>
#include <stdint.h>

#include "rt_cuda_ctx.h"
#include "rt_cuda_defines.h"
#include "rt_cuda_nvrtc.h"
#include "rt_device.h"
#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_metrics.h"
#include "rt_registry.h"

/* grid.y is limited to 65535; kernels loop over the K tiles beyond it. */
#define RT_CUDA_MAX_GRID_Y 65535u
#define RT_CUDA_MAX_GRID_X 2147483647LL

/* Allocates a device buffer and copies bytes into it. 0, RT_INFEASIBLE or -1. */
int rt_cuda_upload_new(rt_cuda_ctx *ctx, const void *src, size_t bytes, void **dptr,
                       const char *what, rt_err *err);
/* n doubles converted to prec, uploaded into a new device buffer. 0, RT_INFEASIBLE or -1. */
int rt_cuda_upload_values(rt_cuda_ctx *ctx, const double *src, int64_t n, rt_precision prec,
                          void **dptr, const char *what, rt_err *err);

/* Common feasibility of a one-thread-per-row launch: block_size within the device's block limit,
 * min_blocks x block_size within its threads per SM. Returns 0 or RT_INFEASIBLE with why. */
int rt_cuda_check_launch(const rt_device_info *dev, int64_t block_size, int64_t min_blocks,
                         char *why, size_t whylen);

/* Whether a compiled variant can run the point: no register spills unless allow_spills (the
 * CSR and ELL kernels pass 1: they never refuse a spilling variant), block_size within the threads
 * per block its registers allow, dynamic plus static shared memory within the device's opt-in
 * limit. Returns 0 or RT_INFEASIBLE with the reason in err. */
int rt_cuda_variant_fits(const rt_device_info *dev, const rt_cuda_variant *v, int64_t block_size,
                         int64_t register_tile, int allow_spills, size_t dynamic_shared,
                         rt_err *err);

/* Prepares a variant: finds the embedded source, gets the variant (compiled with NVRTC or from
 * the cache) and checks that it fits the launch. Returns 0, RT_INFEASIBLE (it does not fit, the
 * reason in err), RT_TIMED_OUT (the compile ran past the context's limit) or -1. */
int rt_cuda_prepare_variant(rt_cuda_ctx *ctx, const rt_cuda_variant_request *rq, rt_cuda_variant *v,
                            rt_err *err);
/* Queues the compile of rq's variant on the context's compile-ahead pool
 * (rt_cuda_ctx_compile_ahead) so that a later rt_cuda_prepare_variant of it finds it compiled: the
 * same source, defines and target, so the same cache key. 0 (queued, or nothing to do: no pool,
 * already loaded or cached), or -1 with why (nothing queued; the point compiles on its own path
 * as always). */
int rt_cuda_ahead_variant(rt_cuda_ctx *ctx, const rt_cuda_variant_request *rq, rt_err *err);

/* The variant facts every GPU kernel reports. */
void rt_cuda_variant_metrics(const rt_cuda_variant *v, double occupancy, rt_metrics *m);

#endif
