#include "spdnn_cuda_common.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "rt_cuda_nvrtc.h"
#include "spdnn_cuda_catalog.h"

/* Device lists and ids are int; the family's output helper takes int32_t. */
_Static_assert(sizeof(int) == sizeof(int32_t), "int must be 32 bits");

static int cuda_fail(rt_err *err, const char *what, const char *call, cudaError_t e)
{
    return rt_err_set(err, "%s: %s failed: %s: %s", what, call, cudaGetErrorName(e),
                      cudaGetErrorString(e));
}

#define SPDNN_CUDA_CHECK(call, what)                                                               \
    do {                                                                                           \
        const cudaError_t rt_spdnn_e_ = (call);                                                    \
        if (rt_spdnn_e_ != cudaSuccess)                                                            \
            return cuda_fail(err, (what), #call, rt_spdnn_e_);                                     \
    } while (0)

int rt_spdnn_cuda_inputs(const void *inputs, const rt_spdnn_inputs **out, rt_err *err)
{
    const rt_spdnn_inputs *in;
    *out = NULL;
    if (rt_spdnn_inputs_check(inputs, &in, err) != 0)
        return -1;
    /* Feature numbers and ids are 32-bit on the device; a layer is indexed with 32-bit columns. */
    if (in->features > INT_MAX || in->neurons > INT_MAX)
        return rt_err_set(err,
                          "spdnn inputs: %lld features of %lld neurons exceed the CUDA "
                          "kernels' 32-bit feature numbers",
                          (long long)in->features, (long long)in->neurons);
    *out = in;
    return 0;
}

int rt_spdnn_cuda_param_int(const rt_params *p, int index, const char *name, int64_t *out,
                            rt_err *err)
{
    return rt_cuda_param_int(rt_spdnn_cuda_catalog_at(index), p, name, out, err);
}

int rt_spdnn_cuda_param_str(const rt_params *p, int index, const char *name, char *out, size_t len,
                            rt_err *err)
{
    return rt_cuda_param_str(rt_spdnn_cuda_catalog_at(index), p, name, out, len, err);
}

static void spdnn_problem(const void *checked, char *out, size_t len)
{
    const rt_spdnn_inputs *in = checked;
    snprintf(out, len, "on %lld neurons x %lld layers, %lld features", (long long)in->neurons,
             (long long)in->layers, (long long)in->features);
}

static int spdnn_inputs(const void *inputs, const void **checked, rt_err *err)
{
    const rt_spdnn_inputs *in = NULL;
    const int rc = rt_spdnn_cuda_inputs(inputs, &in, err);
    *checked = in;
    return rc;
}

const rt_cuda_point_family rt_spdnn_cuda_point = {spdnn_inputs, spdnn_problem};

void rt_spdnn_cuda_pipe_free(rt_spdnn_cuda_pipe *pipe)
{
    if (!pipe || !pipe->ctx)
        return;
    void *buffers[] = {pipe->d_y0,      pipe->d_y[0],    pipe->d_y[1],   pipe->d_ident,
                       pipe->d_list[0], pipe->d_list[1], pipe->d_ids[0], pipe->d_ids[1],
                       pipe->d_active,  pipe->d_chunks,  pipe->d_count};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
        rt_cuda_free(pipe->ctx, buffers[i]);
    if (pipe->h_count)
        cudaFreeHost(pipe->h_count);
    memset(pipe, 0, sizeof *pipe);
}

static int alloc_buffer(rt_spdnn_cuda_pipe *pipe, void **ptr, size_t bytes, const char *label,
                        rt_err *err)
{
    char what[900];
    snprintf(what, sizeof what, "%s of %s", label, pipe->what);
    return rt_cuda_alloc(pipe->ctx, ptr, bytes, what, err);
}

static int alloc_floats(rt_spdnn_cuda_pipe *pipe, float **ptr, size_t bytes, const char *label,
                        rt_err *err)
{
    void *p = NULL;
    const int rc = alloc_buffer(pipe, &p, bytes, label, err);
    *ptr = p;
    return rc;
}

static int alloc_ints(rt_spdnn_cuda_pipe *pipe, int **ptr, size_t bytes, const char *label,
                      rt_err *err)
{
    void *p = NULL;
    const int rc = alloc_buffer(pipe, &p, bytes, label, err);
    *ptr = p;
    return rc;
}

/* The inputs feature-major (row f = feature f's neurons), or neuron-major (row i = neuron i's
 * features) when row_major. */
static float *input_features(const rt_spdnn_inputs *in, int row_major, rt_err *err)
{
    float *y0 = rt_spdnn_dense_features(in, err);
    if (!y0 || !row_major)
        return y0;
    const size_t n = (size_t)in->neurons, f = (size_t)in->features;
    float *t = malloc((n * f > 0 ? n * f : 1) * sizeof *t);
    if (!t) {
        free(y0);
        rt_err_set(err, "out of host memory transposing %zu x %zu input features", f, n);
        return NULL;
    }
    for (size_t q = 0; q < f; ++q)
        for (size_t i = 0; i < n; ++i)
            t[i * f + q] = y0[q * n + i];
    free(y0);
    return t;
}

int rt_spdnn_cuda_pipe_setup(rt_spdnn_cuda_pipe *pipe, rt_cuda_ctx *ctx, const rt_spdnn_inputs *in,
                             int row_major, const char *what, rt_err *err)
{
    memset(pipe, 0, sizeof *pipe);
    pipe->ctx = ctx;
    pipe->row_major = row_major;
    pipe->in = in;
    pipe->features = in->features;
    pipe->neurons = in->neurons;
    snprintf(pipe->what, sizeof pipe->what, "%s", what);
    const double row_bytes = (double)in->features * (double)in->neurons * sizeof(float);
    if (row_bytes > 9.0e18)
        return rt_err_set(err, "%s: the feature rows are too large to address", what);
    const size_t rows = (size_t)row_bytes;
    const size_t ints = (size_t)(in->features > 0 ? in->features : 1) * sizeof(int);
    const int64_t nchunks =
        (in->features + RT_SPDNN_CUDA_SCAN_BLOCK - 1) / RT_SPDNN_CUDA_SCAN_BLOCK;
    int rc = alloc_floats(pipe, &pipe->d_y0, rows, "input features", err);
    if (rc == 0)
        rc = alloc_floats(pipe, &pipe->d_y[0], rows, "layer outputs", err);
    if (rc == 0)
        rc = alloc_floats(pipe, &pipe->d_y[1], rows, "layer outputs", err);
    if (rc == 0)
        rc = alloc_ints(pipe, &pipe->d_ident, ints, "feature numbers", err);
    for (int i = 0; i < 2 && rc == 0; ++i) {
        rc = alloc_ints(pipe, &pipe->d_list[i], ints, "live-feature lists", err);
        if (rc == 0)
            rc = alloc_ints(pipe, &pipe->d_ids[i], ints, "live-feature ids", err);
    }
    if (rc == 0)
        rc = alloc_ints(pipe, &pipe->d_active, ints, "liveness flags", err);
    if (rc == 0)
        rc = alloc_ints(pipe, &pipe->d_chunks, (size_t)(nchunks > 0 ? nchunks : 1) * sizeof(int),
                        "compaction chunk counts", err);
    if (rc == 0)
        rc = alloc_ints(pipe, &pipe->d_count, sizeof(int), "live count", err);
    if (rc != 0)
        return rc;
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    void *pinned = NULL;
    SPDNN_CUDA_CHECK(cudaMallocHost(&pinned, sizeof(int)), what);
    pipe->h_count = pinned;

    /* Inputs and feature numbers, uploaded once: runs never write them. */
    float *y0 = input_features(in, row_major, err);
    if (!y0)
        return rt_err_prefix(err, "%s", what);
    rc = rt_cuda_upload(ctx, pipe->d_y0, y0, rows, what, err);
    free(y0);
    if (rc != 0)
        return rc;
    int *ident = malloc(ints);
    if (!ident)
        return rt_err_set(err, "%s: out of host memory for %lld feature numbers", what,
                          (long long)in->features);
    for (int64_t f = 0; f < in->features; ++f)
        ident[f] = (int)f;
    rc = rt_cuda_upload(ctx, pipe->d_ident, ident, (size_t)in->features * sizeof(int), what, err);
    free(ident);
    if (rc != 0)
        return rc;

    char define[RT_CUDA_DEFINE_MAX];
    snprintf(define, sizeof define, "SCAN_BLOCK=%d", RT_SPDNN_CUDA_SCAN_BLOCK);
    const char *const defines[1] = {define};
    if (rt_cuda_point_variant(ctx, "spdnn_ops.cu", defines, 1, "rt_spdnn_flag_count",
                              &pipe->count_v, what, err) != 0 ||
        rt_cuda_point_variant(ctx, "spdnn_ops.cu", defines, 1, "rt_spdnn_compact", &pipe->compact_v,
                              what, err) != 0)
        return -1;
    if (pipe->count_v.max_threads_per_block < RT_SPDNN_CUDA_SCAN_BLOCK ||
        pipe->compact_v.max_threads_per_block < RT_SPDNN_CUDA_SCAN_BLOCK)
        return rt_err_set(err, "%s: the compaction kernels cannot run %d threads per block", what,
                          RT_SPDNN_CUDA_SCAN_BLOCK);
    return 0;
}

int rt_spdnn_cuda_clear_flags(rt_spdnn_cuda_pipe *pipe, int64_t live, rt_err *err)
{
    if (live <= 0)
        return 0;
    SPDNN_CUDA_CHECK(cudaMemsetAsync(pipe->d_active, 0, (size_t)live * sizeof(int),
                                     (cudaStream_t)rt_cuda_ctx_stream(pipe->ctx)),
                     pipe->what);
    return 0;
}

int rt_spdnn_cuda_compact(rt_spdnn_cuda_pipe *pipe, int64_t live, const int *ids_in, int slot,
                          int64_t *next, rt_err *err)
{
    *next = 0;
    if (live <= 0)
        return 0;
    const unsigned nchunks =
        (unsigned)((live + RT_SPDNN_CUDA_SCAN_BLOCK - 1) / RT_SPDNN_CUDA_SCAN_BLOCK);
    const unsigned grid[3] = {nchunks, 1, 1};
    const unsigned block[3] = {RT_SPDNN_CUDA_SCAN_BLOCK, 1, 1};
    int count = (int)live;
    int *active = pipe->d_active, *chunks = pipe->d_chunks, *list = pipe->d_list[slot],
        *ids_out = pipe->d_ids[slot], *count_out = pipe->d_count;
    const int *ids = ids_in;
    void *count_args[] = {&active, &count, &chunks};
    void *compact_args[] = {&active, &count, &chunks, (void *)&ids, &list, &ids_out, &count_out};
    if (rt_cuda_point_launch(pipe->ctx, &pipe->count_v, grid, block, 0, count_args, pipe->what,
                             err) != 0 ||
        rt_cuda_point_launch(pipe->ctx, &pipe->compact_v, grid, block, 0, compact_args, pipe->what,
                             err) != 0)
        return rt_err_prefix(err, "compacting live features");
    const cudaStream_t stream = (cudaStream_t)rt_cuda_ctx_stream(pipe->ctx);
    SPDNN_CUDA_CHECK(
        cudaMemcpyAsync(pipe->h_count, pipe->d_count, sizeof(int), cudaMemcpyDeviceToHost, stream),
        pipe->what);
    /* Errors of the layer's kernels (illegal address, ...) surface here. */
    SPDNN_CUDA_CHECK(cudaStreamSynchronize(stream), pipe->what);
    const int kept = *pipe->h_count;
    if (kept < 0 || kept > count)
        return rt_err_set(err, "%s: compaction kept %d of %d live features", pipe->what, kept,
                          count);
    *next = kept;
    return 0;
}

static int download_final(const rt_spdnn_cuda_pipe *pipe, float **rows, int **ids,
                          unsigned char **active, rt_err *err)
{
    const int64_t count = pipe->final_count, n = pipe->neurons;
    *rows = NULL;
    *ids = NULL;
    *active = NULL;
    const size_t c = (size_t)(count > 0 ? count : 1);
    float *y = malloc(c * (size_t)n * sizeof *y);
    int *id = malloc(c * sizeof *id);
    int *flag = malloc(c * sizeof *flag);
    unsigned char *act = malloc(c);
    if (!y || !id || !flag || !act) {
        free(y);
        free(id);
        free(flag);
        free(act);
        return rt_err_set(err, "%s: out of host memory reading %lld final rows", pipe->what,
                          (long long)count);
    }
    int rc = 0;
    if (count > 0) {
        rc = rt_cuda_download(pipe->ctx, y, pipe->final_y, (size_t)count * (size_t)n * sizeof *y,
                              pipe->what, err);
        if (rc == 0)
            rc = rt_cuda_download(pipe->ctx, id, pipe->final_ids, (size_t)count * sizeof *id,
                                  pipe->what, err);
        if (rc == 0)
            rc = rt_cuda_download(pipe->ctx, flag, pipe->d_active, (size_t)count * sizeof *flag,
                                  pipe->what, err);
    }
    for (int64_t q = 0; rc == 0 && q < count; ++q)
        act[q] = flag[q] != 0;
    free(flag);
    if (rc == 0 && pipe->row_major && count > 1) {
        /* Neuron-major (row i = neuron i of every live feature): back to one row per feature. */
        float *t = malloc(c * (size_t)n * sizeof *t);
        if (!t)
            rc = rt_err_set(err, "%s: out of host memory transposing %lld final rows", pipe->what,
                            (long long)count);
        for (int64_t q = 0; t && q < count; ++q)
            for (int64_t i = 0; i < n; ++i)
                t[q * n + i] = y[i * count + q];
        free(y);
        y = t;
    }
    if (rc != 0) {
        free(y);
        free(id);
        free(act);
        return -1;
    }
    *rows = y;
    *ids = id;
    *active = act;
    return 0;
}

int rt_spdnn_cuda_pipe_output(const rt_spdnn_cuda_pipe *pipe, double *out, rt_err *err)
{
    float *y;
    int *ids;
    unsigned char *active;
    if (download_final(pipe, &y, &ids, &active, err) != 0)
        return -1;
    /* int and int32_t are the same 32-bit type on every platform CUDA supports. */
    const int rc = rt_spdnn_write_output(pipe->in, pipe->final_count, y, pipe->neurons,
                                         (const int32_t *)ids, active, out, err);
    free(y);
    free(ids);
    free(active);
    return rc == 0 ? 0 : rt_err_prefix(err, "%s", pipe->what);
}

int rt_spdnn_cuda_categories(const rt_spdnn_cuda_pipe *pipe, int64_t *categories, rt_err *err)
{
    *categories = 0;
    const int64_t count = pipe->final_count;
    if (count <= 0)
        return 0;
    int *flag = malloc((size_t)count * sizeof *flag);
    if (!flag)
        return rt_err_set(err, "%s: out of host memory reading flags", pipe->what);
    if (rt_cuda_download(pipe->ctx, flag, pipe->d_active, (size_t)count * sizeof *flag, pipe->what,
                         err) != 0) {
        free(flag);
        return -1;
    }
    for (int64_t q = 0; q < count; ++q)
        *categories += flag[q] != 0;
    free(flag);
    return 0;
}

void rt_spdnn_cuda_pipe_metrics(const rt_spdnn_cuda_pipe *pipe, rt_metrics *m, rt_err *err)
{
    int64_t categories = 0;
    if (rt_spdnn_cuda_categories(pipe, &categories, err) != 0)
        rt_metrics_unavailable(m, "categories", "count", err->msg);
    else
        rt_metrics_add(m, "categories", "count", (double)categories, 1);
    rt_metrics_add(m, "layers_run", "count", (double)pipe->layers_run, 1);
    rt_metrics_add(m, "feature_layers", "count", (double)pipe->feature_layers, 1);
}

int rt_spdnn_cuda_pipe_run(rt_spdnn_cuda_pipe *pipe, rt_cuda_ctx *ctx, int64_t layers,
                           rt_spdnn_cuda_layer_fn layer, rt_spdnn_cuda_gather_fn gather,
                           void *state, double *seconds, const char *what, rt_err *err)
{
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    /* Layer 0 reads the inputs, all of them (the identity list and ids). */
    int64_t live = pipe->features;
    const float *in_y = pipe->d_y0;
    const int *list = pipe->d_ident, *ids = pipe->d_ident;
    float *out_y = pipe->d_y[0];
    pipe->layers_run = 0;
    pipe->feature_layers = 0;
    pipe->final_count = 0;
    if (rt_cuda_timer_start(ctx, what, err) != 0)
        return -1;
    for (int64_t l = 0; l < layers && live > 0; ++l) {
        out_y = pipe->d_y[gather ? 0 : l % 2];
        if (layer(state, l, in_y, list, live, out_y, err) != 0)
            return rt_err_prefix(err, "layer %lld", (long long)l);
        pipe->layers_run = l + 1;
        pipe->feature_layers += live;
        if (l == layers - 1)
            break;
        int64_t kept = 0;
        if (rt_spdnn_cuda_compact(pipe, live, ids, (int)(l % 2), &kept, err) != 0 ||
            (gather &&
             gather(state, pipe->d_y[1], out_y, pipe->d_list[l % 2], kept, live, err) != 0))
            return rt_err_prefix(err, "after layer %lld", (long long)l);
        in_y = gather ? pipe->d_y[1] : out_y;
        list = gather ? pipe->d_ident : pipe->d_list[l % 2];
        ids = pipe->d_ids[l % 2];
        live = kept;
    }
    double sec = -1.0;
    if (rt_cuda_timer_stop(ctx, &sec, what, err) != 0)
        return -1;
    pipe->final_count = pipe->layers_run == layers ? live : 0;
    pipe->final_y = out_y;
    pipe->final_ids = ids;
    if (seconds)
        *seconds = sec;
    return 0;
}
