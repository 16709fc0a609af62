/* spdnn.cuda.cusparse: see spdnn_cuda.h. The baseline of the thesis's Fig. 2(b): cuSPARSE cannot
 * apply the activation inside its SpMM, so every layer is cusparseSpMM (W_l^T in CSR times the
 * dense block of live features), then a separate bias + clamped ReLU kernel over the result, and
 * -- because cuSPARSE reads dense operands only -- the survivors are gathered into a dense block
 * for the next layer's SpMM. Compaction is the same as the fused kernel's. */
#include "spdnn_cuda.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "rt_clock.h"
#include "rt_cuda_nvrtc.h"
#include "spdnn_cuda_common.h"
#include "spdnn_cuda_catalog.h"
#include "rt_cuda_variant.h"

#define CS_KIND RT_SPDNN_CUDA_KIND_CUSPARSE

static const struct {
    const char *name;
    cusparseSpMMAlg_t alg;
} algorithms[] = {
    {"default", CUSPARSE_SPMM_ALG_DEFAULT},
    {"csr_alg1", CUSPARSE_SPMM_CSR_ALG1},
    {"csr_alg2", CUSPARSE_SPMM_CSR_ALG2},
};
#define N_ALGORITHMS ((int)(sizeof algorithms / sizeof algorithms[0]))

typedef struct cs_layer {
    void *d_rowptr, *d_col, *d_val;
    cusparseSpMatDescr_t mat;
    int have_mat;
} cs_layer;

typedef struct cs_state {
    rt_cuda_point pt;          /* context, inputs, kernel and point for messages */
    const rt_spdnn_inputs *in; /* pt.inputs */
    cusparseHandle_t handle;
    int have_handle;
    cusparseSpMMAlg_t alg;
    cs_layer *layer;
    rt_spdnn_cuda_pipe pipe;
    rt_cuda_variant relu_v, gather_v;
    void *d_buffer;
    size_t buffer_bytes;
    unsigned relu_blocks;
    float alpha, beta;
    double preprocess_s;
} cs_state;

static int read_alg(const rt_params *p, cusparseSpMMAlg_t *alg, rt_err *err)
{
    char name[32];
    if (rt_spdnn_cuda_param_str(p, CS_KIND, "alg", name, sizeof name, err) != 0)
        return -1;
    for (int i = 0; i < N_ALGORITHMS; ++i)
        if (strcmp(algorithms[i].name, name) == 0) {
            *alg = algorithms[i].alg;
            return 0;
        }
    return rt_err_set(err, "spdnn.cuda.cusparse: unknown alg '%s'", name);
}

static int cs_fail(const cs_state *s, const char *call, cusparseStatus_t st, int setup, rt_err *err)
{
    rt_err_set(err, "%s: %s failed: %s", s->pt.what, call, cusparseGetErrorString(st));
    /* At setup, an algorithm cuSPARSE does not offer for these operands is a property of the
     * point; anything else (or any failure while running) is an error. */
    const int unsupported =
        st == CUSPARSE_STATUS_NOT_SUPPORTED || st == CUSPARSE_STATUS_ARCH_MISMATCH ||
        st == CUSPARSE_STATUS_ALLOC_FAILED || st == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES;
    return setup && unsupported ? RT_INFEASIBLE : -1;
}

#define CS_CHECK(call, setup)                                                                      \
    do {                                                                                           \
        const cusparseStatus_t rt_cs_status_ = (call);                                             \
        if (rt_cs_status_ != CUSPARSE_STATUS_SUCCESS)                                              \
            return cs_fail(s, #call, rt_cs_status_, (setup), err);                                 \
    } while (0)

static int cs_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                    const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_spdnn_inputs *in;
    cusparseSpMMAlg_t alg;
    if (rt_spdnn_cuda_inputs(inputs, &in, err) != 0 || read_alg(p, &alg, err) != 0)
        return -1;
    /* cuSPARSE takes 32-bit CSR indices here: n + 1 offsets up to nnz. */
    for (int64_t l = 0; l < in->layers; ++l)
        if (in->layer[l]->nnz > INT32_MAX) {
            snprintf(why, whylen,
                     "layer %lld has %lld nonzeros, more than 32-bit CSR indices "
                     "address",
                     (long long)l, (long long)in->layer[l]->nnz);
            return RT_INFEASIBLE;
        }
    return 0;
}

static void cs_teardown(void *state)
{
    cs_state *s = state;
    if (!s)
        return;
    if (s->layer)
        for (int64_t l = 0; l < s->in->layers; ++l) {
            cs_layer *cl = &s->layer[l];
            if (cl->have_mat)
                cusparseDestroySpMat(cl->mat);
            rt_cuda_free(s->pt.ctx, cl->d_rowptr);
            rt_cuda_free(s->pt.ctx, cl->d_col);
            rt_cuda_free(s->pt.ctx, cl->d_val);
        }
    free(s->layer);
    rt_cuda_free(s->pt.ctx, s->d_buffer);
    if (s->have_handle)
        cusparseDestroy(s->handle);
    rt_spdnn_cuda_pipe_free(&s->pipe);
    free(s);
}

/* W_l^T as 32-bit CSR on the device, with its cuSPARSE descriptor. */
static int upload_layer(cs_state *s, int64_t l, rt_err *err)
{
    cs_layer *cl = &s->layer[l];
    rt_csr wt;
    if (rt_spdnn_transpose(s->in->layer[l], &wt, err) != 0)
        return rt_err_prefix(err, "%s: layer %lld", s->pt.what, (long long)l);
    const int64_t n = wt.rows, nnz = wt.nnz;
    int32_t *rowptr = malloc((size_t)(n + 1) * sizeof *rowptr);
    if (!rowptr) {
        rt_csr_free(&wt);
        return rt_err_set(err, "%s: out of host memory for layer %lld's offsets", s->pt.what,
                          (long long)l);
    }
    for (int64_t i = 0; i <= n; ++i)
        rowptr[i] = (int32_t)wt.rowptr[i];
    char what[900];
    snprintf(what, sizeof what, "layer %lld of %s", (long long)l, s->pt.what);
    int rc = rt_cuda_upload_new(s->pt.ctx, rowptr, (size_t)(n + 1) * sizeof *rowptr, &cl->d_rowptr,
                                what, err);
    free(rowptr);
    if (rc == 0)
        rc = rt_cuda_upload_new(s->pt.ctx, wt.colidx, (size_t)nnz * sizeof(int32_t), &cl->d_col,
                                what, err);
    if (rc == 0)
        rc = rt_cuda_upload_values(s->pt.ctx, wt.val, nnz, RT_FP32, &cl->d_val, what, err);
    rt_csr_free(&wt);
    if (rc != 0)
        return rc;
    CS_CHECK(cusparseCreateCsr(&cl->mat, n, n, nnz, cl->d_rowptr, cl->d_col, cl->d_val,
                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                               CUDA_R_32F),
             1);
    cl->have_mat = 1;
    return 0;
}

/* Workspace that layer l's SpMM asks for with `live` feature columns read from y. */
static int buffer_size(cs_state *s, int64_t l, int64_t live, const float *y, float *z,
                       size_t *bytes, int setup, rt_err *err)
{
    const int64_t n = s->in->neurons;
    cusparseDnMatDescr_t b, c;
    CS_CHECK(cusparseCreateDnMat(&b, n, live, n, (void *)y, CUDA_R_32F, CUSPARSE_ORDER_COL), setup);
    cusparseStatus_t st = cusparseCreateDnMat(&c, n, live, n, z, CUDA_R_32F, CUSPARSE_ORDER_COL);
    if (st != CUSPARSE_STATUS_SUCCESS) {
        cusparseDestroyDnMat(b);
        return cs_fail(s, "cusparseCreateDnMat", st, setup, err);
    }
    st = cusparseSpMM_bufferSize(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                 CUSPARSE_OPERATION_NON_TRANSPOSE, &s->alpha, s->layer[l].mat, b,
                                 &s->beta, c, CUDA_R_32F, s->alg, bytes);
    cusparseDestroyDnMat(b);
    cusparseDestroyDnMat(c);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return cs_fail(s, "cusparseSpMM_bufferSize", st, setup, err);
    return 0;
}

static int cs_prepare(void *state, const rt_params *p, rt_err *err)
{
    cs_state *s = state;
    s->in = s->pt.inputs;
    if (read_alg(p, &s->alg, err) != 0)
        return -1;
    s->alpha = 1.0f;
    s->beta = 0.0f;
    const double t0 = rt_clock_now();
    int rc = rt_spdnn_cuda_pipe_setup(&s->pipe, s->pt.ctx, s->in, s->pt.what, err);
    if (rc != 0)
        return rc;
    if (rt_cuda_ctx_make_current(s->pt.ctx, err) != 0)
        return -1;
    CS_CHECK(cusparseCreate(&s->handle), 0);
    s->have_handle = 1;
    CS_CHECK(cusparseSetStream(s->handle, (cudaStream_t)rt_cuda_ctx_stream(s->pt.ctx)), 0);
    s->layer = calloc((size_t)s->in->layers, sizeof *s->layer);
    if (!s->layer)
        return rt_err_set(err, "%s: out of memory for %lld layers", s->pt.what,
                          (long long)s->in->layers);
    for (int64_t l = 0; l < s->in->layers; ++l) {
        rc = upload_layer(s, l, err);
        if (rc != 0)
            return rc;
    }
    /* Workspace for the widest SpMM (every feature live); runs check each layer's request
     * against it rather than allocating inside the timed inference. */
    for (int64_t l = 0; l < s->in->layers && s->in->features > 0; ++l) {
        size_t bytes = 0;
        rc = buffer_size(s, l, s->in->features, s->pipe.d_y0, s->pipe.d_y[0], &bytes, 1, err);
        if (rc != 0)
            return rc;
        if (bytes > s->buffer_bytes)
            s->buffer_bytes = bytes;
    }
    char what[900];
    snprintf(what, sizeof what, "cuSPARSE workspace of %s", s->pt.what);
    rc = rt_cuda_alloc(s->pt.ctx, &s->d_buffer, s->buffer_bytes, what, err);
    if (rc != 0)
        return rc;
    char define[RT_CUDA_DEFINE_MAX];
    snprintf(define, sizeof define, "SCAN_BLOCK=%d", RT_SPDNN_CUDA_SCAN_BLOCK);
    const char *const defines[1] = {define};
    if (rt_cuda_point_variant(s->pt.ctx, "spdnn_ops.cu", defines, 1, "rt_spdnn_bias_relu",
                              &s->relu_v, s->pt.what, err) != 0 ||
        rt_cuda_point_variant(s->pt.ctx, "spdnn_ops.cu", defines, 1, "rt_spdnn_gather",
                              &s->gather_v, s->pt.what, err) != 0)
        return -1;
    if (s->relu_v.max_threads_per_block < RT_SPDNN_CUDA_OPS_BLOCK ||
        s->gather_v.max_threads_per_block < RT_SPDNN_CUDA_OPS_BLOCK)
        return rt_err_set(err, "%s: the activation kernels cannot run %d threads per block",
                          s->pt.what, RT_SPDNN_CUDA_OPS_BLOCK);
    /* Grid-stride loops: enough blocks to fill the device several times over. */
    const rt_device_info *dev = rt_cuda_ctx_device(s->pt.ctx);
    s->relu_blocks = (unsigned)(dev->sm_count > 0 ? dev->sm_count * 16 : 1024);
    s->preprocess_s = rt_clock_now() - t0;
    return 0;
}

static int cs_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                    const rt_kernel_env *env, void **state, rt_err *err)
{
    return rt_cuda_point_setup(self, &rt_spdnn_cuda_point, inputs, p, sizeof(cs_state), cs_prepare,
                               cs_teardown, state, err);
}

/* Enqueues layer l's SpMM, Z = W_l^T Y over the live columns, after checking that its workspace
 * fits the one allocated at setup. */
static int enqueue_spmm(cs_state *s, int64_t l, cusparseDnMatDescr_t b, cusparseDnMatDescr_t c,
                        int64_t live, rt_err *err)
{
    size_t bytes = 0;
    CS_CHECK(cusparseSpMM_bufferSize(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                     CUSPARSE_OPERATION_NON_TRANSPOSE, &s->alpha, s->layer[l].mat,
                                     b, &s->beta, c, CUDA_R_32F, s->alg, &bytes),
             0);
    if (bytes > s->buffer_bytes)
        return rt_err_set(err,
                          "%s: layer %lld's SpMM asks for %zu workspace bytes with %lld "
                          "live features, more than the %zu allocated for all features",
                          s->pt.what, (long long)l, bytes, (long long)live, s->buffer_bytes);
    CS_CHECK(cusparseSpMM(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                          CUSPARSE_OPERATION_NON_TRANSPOSE, &s->alpha, s->layer[l].mat, b, &s->beta,
                          c, CUDA_R_32F, s->alg, s->d_buffer),
             0);
    return 0;
}

/* Enqueues layer l: Z = W_l^T Y (live columns), then the activation with liveness flags. */
static int layer_spmm_relu(cs_state *s, int64_t l, const float *y, int64_t live, float *z,
                           rt_err *err)
{
    const int64_t n = s->in->neurons;
    cusparseDnMatDescr_t b, c;
    CS_CHECK(cusparseCreateDnMat(&b, n, live, n, (void *)y, CUDA_R_32F, CUSPARSE_ORDER_COL), 0);
    const cusparseStatus_t st =
        cusparseCreateDnMat(&c, n, live, n, z, CUDA_R_32F, CUSPARSE_ORDER_COL);
    if (st != CUSPARSE_STATUS_SUCCESS) {
        cusparseDestroyDnMat(b);
        return cs_fail(s, "cusparseCreateDnMat", st, 0, err);
    }
    const int rc = enqueue_spmm(s, l, b, c, live, err);
    /* Descriptors are host-side: destroying them once the call is enqueued is safe. */
    cusparseDestroyDnMat(b);
    cusparseDestroyDnMat(c);
    if (rc != 0)
        return rc;

    if (rt_spdnn_cuda_clear_flags(&s->pipe, live, err) != 0)
        return -1;
    float *a_z = z;
    long long a_elements = (long long)live * n, a_neurons = n;
    float a_bias = (float)s->in->bias;
    int *a_active = s->pipe.d_active;
    void *args[5] = {&a_z, &a_elements, &a_neurons, &a_bias, &a_active};
    const long long needed = (a_elements + RT_SPDNN_CUDA_OPS_BLOCK - 1) / RT_SPDNN_CUDA_OPS_BLOCK;
    const unsigned grid[3] = {
        needed < (long long)s->relu_blocks ? (unsigned)needed : s->relu_blocks, 1, 1};
    const unsigned block[3] = {RT_SPDNN_CUDA_OPS_BLOCK, 1, 1};
    return rt_cuda_point_launch(s->pt.ctx, &s->relu_v, grid, block, 0, args, s->pt.what, err);
}

/* Enqueues the copy of the `kept` listed rows of z into y, densely. */
static int gather_rows(cs_state *s, float *y, const float *z, const int *list, int64_t kept,
                       rt_err *err)
{
    if (kept <= 0)
        return 0;
    const int64_t n = s->in->neurons;
    float *a_dst = y;
    const float *a_src = z;
    const int *a_list = list;
    int a_count = (int)kept;
    long long a_neurons = n;
    void *args[5] = {&a_dst, &a_src, &a_list, &a_count, &a_neurons};
    const int64_t gx = (n + RT_SPDNN_CUDA_OPS_BLOCK - 1) / RT_SPDNN_CUDA_OPS_BLOCK;
    const unsigned grid[3] = {
        (unsigned)(gx < 1024 ? gx : 1024),
        (unsigned)(kept < (int64_t)RT_CUDA_MAX_GRID_Y ? kept : (int64_t)RT_CUDA_MAX_GRID_Y), 1};
    const unsigned block[3] = {RT_SPDNN_CUDA_OPS_BLOCK, 1, 1};
    return rt_cuda_point_launch(s->pt.ctx, &s->gather_v, grid, block, 0, args, s->pt.what, err);
}

static int cs_run(void *state, double *seconds, rt_err *err)
{
    cs_state *s = state;
    rt_spdnn_cuda_pipe *pipe = &s->pipe;
    const int64_t layers = s->in->layers;
    if (rt_cuda_ctx_make_current(s->pt.ctx, err) != 0)
        return -1;
    /* Layer 0 reads the inputs; later layers the survivors gathered into y[1]; every SpMM
     * writes y[0]. */
    int64_t live = pipe->features;
    const float *in_y = pipe->d_y0;
    float *z = pipe->d_y[0];
    const int *ids = pipe->d_ident;
    pipe->layers_run = 0;
    pipe->feature_layers = 0;
    pipe->final_count = 0;
    if (rt_cuda_timer_start(s->pt.ctx, s->pt.what, err) != 0)
        return -1;
    for (int64_t l = 0; l < layers && live > 0; ++l) {
        if (layer_spmm_relu(s, l, in_y, live, z, err) != 0)
            return rt_err_prefix(err, "layer %lld", (long long)l);
        pipe->layers_run = l + 1;
        pipe->feature_layers += live;
        if (l == layers - 1)
            break;
        int64_t kept = 0;
        if (rt_spdnn_cuda_compact(pipe, live, ids, (int)(l % 2), &kept, err) != 0 ||
            gather_rows(s, pipe->d_y[1], z, pipe->d_list[l % 2], kept, err) != 0)
            return rt_err_prefix(err, "after layer %lld", (long long)l);
        in_y = pipe->d_y[1];
        ids = pipe->d_ids[l % 2];
        live = kept;
    }
    return rt_spdnn_cuda_pipe_finish(pipe, s->pt.ctx, layers, live, z, ids, seconds, s->pt.what,
                                     err);
}

static int cs_output(void *state, double *out, rt_err *err)
{
    const cs_state *s = state;
    return rt_spdnn_cuda_pipe_output(&s->pipe, out, err);
}

static int cs_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const cs_state *s = state;
    rt_spdnn_cuda_pipe_metrics(&s->pipe, m, err);
    rt_metrics_add(m, "workspace_bytes", "bytes", (double)s->buffer_bytes, 0);
    rt_metrics_add(m, "preprocess_s", "s", s->preprocess_s, 0);
    return 0;
}

static int cs_flush(void *state, rt_err *err)
{
    cs_state *s = state;
    return rt_cuda_flush_l2(s->pt.ctx, err);
}

static int cs_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spdnn_inputs *in;
    cusparseSpMMAlg_t alg;
    if (rt_spdnn_cuda_inputs(inputs, &in, err) != 0 || read_alg(p, &alg, err) != 0)
        return -1;
    const rt_device_info *dev = rt_cuda_ctx_device(self->backend_ctx);
    /* fp32 values and 32-bit column indices: what the fused kernel must move too; the extra
     * passes of the separate activation and the gather are this baseline's own cost. */
    rt_spdnn_traffic(in, 4.0, 4.0, (double)dev->l2_bytes, 1, t);
    return 0;
}

void rt_spdnn_cuda_cusparse_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    rt_cuda_catalog_describe(rt_spdnn_cuda_catalog_at(CS_KIND), d);
    d->check = cs_check;
    d->setup = cs_setup;
    d->run = cs_run;
    d->output = cs_output;
    d->metrics = cs_metrics;
    d->flush = cs_flush;
    d->teardown = cs_teardown;
    d->traffic = cs_traffic;
    d->backend_ctx = ctx;
}
