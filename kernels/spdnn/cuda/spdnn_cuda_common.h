/* spdnn_cuda_common: what both CUDA sparse DNN kernels (spdnn.cuda.fused, spdnn.cuda.cusparse)
 * share: the feature buffers on the device, the ordered compaction of live features between
 * layers (src/spdnn_ops.cu), the final output, parameters read through the catalog schemas, and
 * asynchronous launches on the context's stream.
 *
 * Feature rows live on the device feature-major (row f = a feature's neurons, contiguous), in
 * three buffers of features x neurons floats: y0 (the rank's inputs, uploaded once at setup and
 * never written, so every execution starts from the same state) and y[0], y[1] (layer outputs);
 * or, for the cuSPARSE baseline's row-major operands, neuron-major (row i = neuron i of every live
 * feature, live floats wide) in the same buffers.
 * After each layer the live flags are compacted into a list of surviving positions (the next
 * layer's rows) and their original feature ids; the live count comes back to the host, which
 * sizes the next layer's grid (one small device-to-host copy per layer, part of the timed
 * inference as it is of the method). */
#ifndef SPDNN_CUDA_COMMON_H
#define SPDNN_CUDA_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "rt_cuda_ctx.h"
#include "rt_cuda_point.h"
#include "rt_error.h"
#include "rt_params.h"
#include "rt_registry.h"
#include "spdnn_family.h"

/* Threads of the compaction blocks (SCAN_BLOCK of spdnn_ops.cu) and of the elementwise kernels. */
#define RT_SPDNN_CUDA_SCAN_BLOCK 1024
#define RT_SPDNN_CUDA_OPS_BLOCK  256

typedef struct rt_spdnn_cuda_pipe {
    rt_cuda_ctx *ctx;
    const rt_spdnn_inputs *in;
    int64_t features, neurons;
    /* 0: features feature-major (row f = a feature's neurons); 1: neuron-major (row i = a
     * neuron's live features, `live` wide: the row-major dense operands of cuSPARSE) */
    int row_major;
    float *d_y0;    /* features x neurons inputs */
    float *d_y[2];  /* layer outputs */
    int *d_ident;   /* 0 .. features-1: layer 0's list and ids */
    int *d_list[2]; /* next layer's source rows */
    int *d_ids[2];  /* original feature ids of the live rows */
    int *d_active;  /* liveness flag per live feature of the current layer */
    int *d_chunks;  /* live count per compaction chunk */
    int *d_count;   /* live count after compaction */
    int *h_count;   /* pinned host copy of it */
    rt_cuda_variant count_v, compact_v;
    /* What the last execution left (set by the kernels' run). */
    int64_t final_count;    /* live features that entered the last layer (0: all died earlier) */
    const float *final_y;   /* their rows (row q at final_y + q * neurons; row_major: neuron i
                             * of feature q at final_y + i * final_count + q) */
    const int *final_ids;   /* their original ids */
    int64_t layers_run;     /* layers executed (fewer than layers when every feature died) */
    int64_t feature_layers; /* live features summed over the layers run */
    char what[768];
} rt_spdnn_cuda_pipe;

/* The checked spdnn inputs; fails on anything the CUDA kernels cannot index with 32-bit feature
 * numbers. */
int rt_spdnn_cuda_inputs(const void *inputs, const rt_spdnn_inputs **out, rt_err *err);

/* The family's inputs for the generic CUDA setup (rt_cuda_point.h); a kernel's state starts with
 * an rt_cuda_point. */
extern const rt_cuda_point_family rt_spdnn_cuda_point;

/* Integer / string parameter of catalog entry `index` (rt_cuda_param_int/_str). */
int rt_spdnn_cuda_param_int(const rt_params *p, int index, const char *name, int64_t *out,
                            rt_err *err);
int rt_spdnn_cuda_param_str(const rt_params *p, int index, const char *name, char *out, size_t len,
                            rt_err *err);

/* Allocates and fills the buffers (the inputs in y0 neuron-major when row_major), compiles the
 * compaction kernels. 0, RT_INFEASIBLE (device memory) or -1. pipe->what names the point in
 * messages. */
int rt_spdnn_cuda_pipe_setup(rt_spdnn_cuda_pipe *pipe, rt_cuda_ctx *ctx, const rt_spdnn_inputs *in,
                             int row_major, const char *what, rt_err *err);
void rt_spdnn_cuda_pipe_free(rt_spdnn_cuda_pipe *pipe);

/* Enqueues zeroing of the first `live` flags. */
int rt_spdnn_cuda_clear_flags(rt_spdnn_cuda_pipe *pipe, int64_t live, rt_err *err);

/* Compacts the `live` flags of the layer just enqueued: writes the survivors' positions to
 * d_list[slot] and their ids (read from ids_in) to d_ids[slot], waits, and returns the new live
 * count in *next. */
int rt_spdnn_cuda_compact(rt_spdnn_cuda_pipe *pipe, int64_t live, const int *ids_in, int slot,
                          int64_t *next, rt_err *err);

/* The family output of the last execution (rt_spdnn_write_output from the final rows, ids and
 * flags, downloaded). */
int rt_spdnn_cuda_pipe_output(const rt_spdnn_cuda_pipe *pipe, double *out, rt_err *err);

/* Categories of the last execution (flags of the final rows), or -1 with err filled. */
int rt_spdnn_cuda_categories(const rt_spdnn_cuda_pipe *pipe, int64_t *categories, rt_err *err);
/* The metrics both spdnn kernels report of their pipeline: categories (unavailable, with the
 * reason, when they cannot be read back), layers_run, feature_layers. */
void rt_spdnn_cuda_pipe_metrics(const rt_spdnn_cuda_pipe *pipe, rt_metrics *m, rt_err *err);
/* One layer of a timed inference, enqueued by a kernel: its `live` features are read from in_y
 * (list: their columns there, for a kernel that reads them in place) and written to out_y. */
typedef int (*rt_spdnn_cuda_layer_fn)(void *state, int64_t l, const float *in_y, const int *list,
                                      int64_t live, float *out_y, rt_err *err);
/* After compaction, copies the `kept` listed features of z (live of them) densely into y (a kernel
 * that cannot read features in place). */
typedef int (*rt_spdnn_cuda_gather_fn)(void *state, float *y, const float *z, const int *list,
                                       int64_t kept, int64_t live, rt_err *err);

/* A timed inference over `layers` layers, the same for every kernel: the timer starts, each layer
 * runs on the features that survived the last (compacted on the device) until none survive, the
 * timer stops, and the surviving features are recorded for the output (none unless every layer
 * ran). Without `gather` a layer reads the survivors in place (list), layers writing y[0] and
 * y[1] in turn; with it every layer writes y[0] and the survivors are gathered into y[1]. The time
 * goes to *seconds (when not NULL). */
int rt_spdnn_cuda_pipe_run(rt_spdnn_cuda_pipe *pipe, rt_cuda_ctx *ctx, int64_t layers,
                           rt_spdnn_cuda_layer_fn layer, rt_spdnn_cuda_gather_fn gather,
                           void *state, double *seconds, const char *what, rt_err *err);

#endif
