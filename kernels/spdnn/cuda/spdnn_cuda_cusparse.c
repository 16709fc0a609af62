/* spdnn.cuda.cusparse: see spdnn_cuda.h. The baseline of the thesis's Fig. 2(b): cuSPARSE cannot
 * apply the activation inside its SpMM, so every layer is cusparseSpMM (W_l^T in the algorithm's
 * format times the dense block of live features), then a separate bias + clamped ReLU kernel over
 * the result, and -- because cuSPARSE reads dense operands only -- the survivors are gathered into
 * a dense block for the next layer's SpMM. Compaction is the same as the fused kernel's in both
 * layouts of the features:
 *
 *   layout col  features feature-major: B and C are neurons x live, column-major (ld = neurons)
 *   layout row  features neuron-major: B and C are neurons x live, row-major (ld = live); the
 *               activation flags columns and the gather copies columns (spdnn_ops.cu *_nm)
 *
 * The algorithms, the sparse formats they read, the handle and the device copy of each W_l^T are
 * kernels/shared/cuda/rt_cusparse_spmm's, as spmm.cuda.cusparse's are: the baseline's space is
 * every algorithm cuSPARSE offers in both layouts. */
#include "spdnn_cuda.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "rt_clock.h"
#include "rt_cuda_nvrtc.h"
#include "rt_cuda_variant.h"
#include "rt_cusparse_spmm.h"
#include "spdnn_cuda_catalog.h"
#include "spdnn_cuda_common.h"

#define CS_KIND RT_SPDNN_CUDA_KIND_CUSPARSE

typedef struct cs_params {
    const rt_cusparse_alg *alg;
    int row_major;
    int64_t ell_block;
} cs_params;

typedef struct cs_state {
    rt_cuda_point pt;          /* context, inputs, kernel and point for messages */
    const rt_spdnn_inputs *in; /* pt.inputs */
    cs_params cp;
    rt_cusparse_lib *lib;
    rt_cusparse_sparse *layer; /* W_l^T of every layer */
    rt_spdnn_cuda_pipe pipe;
    rt_cuda_variant relu_v, gather_v;
    void *d_buffer;
    size_t buffer_bytes;
    unsigned relu_blocks;
    float alpha, beta;
    double preprocess_s;
} cs_state;

static int read_params(const rt_params *p, cs_params *cp, rt_err *err)
{
    char alg[32], layout[8];
    if (rt_spdnn_cuda_param_str(p, CS_KIND, "alg", alg, sizeof alg, err) != 0 ||
        rt_spdnn_cuda_param_str(p, CS_KIND, "layout", layout, sizeof layout, err) != 0 ||
        rt_spdnn_cuda_param_int(p, CS_KIND, "ell_block", &cp->ell_block, err) != 0)
        return -1;
    cp->row_major = strcmp(layout, "row") == 0;
    cp->alg = rt_cusparse_spmm_alg(alg, RT_SPDNN_CUDA_CUSPARSE, err);
    return cp->alg ? 0 : -1;
}

#define CS_CHECK(call, setup) RT_CUSPARSE_CHECK(s->lib, s->pt.what, call, setup, err)

static int cs_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                    const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_spdnn_inputs *in;
    cs_params cp;
    if (rt_spdnn_cuda_inputs(inputs, &in, err) != 0 || read_params(p, &cp, err) != 0)
        return -1;
    if (cp.alg->format != RT_CUSPARSE_BELL)
        return 0;
    /* Whole blocks only: padded neurons would need padded feature rows in every buffer. */
    if (in->neurons % cp.ell_block != 0) {
        snprintf(why, whylen, "Blocked-ELL with ell_block=%lld does not tile %lld neurons",
                 (long long)cp.ell_block, (long long)in->neurons);
        return RT_INFEASIBLE;
    }
    const rt_device_info *dev = rt_cuda_ctx_device(self->backend_ctx);
    for (int64_t l = 0; l < in->layers; ++l) {
        rt_csr wt;
        if (rt_spdnn_transpose(in->layer[l], &wt, err) != 0)
            return -1;
        const int rc = rt_cusparse_spmm_check(cp.alg, dev, &wt, cp.ell_block, why, whylen, err);
        rt_csr_free(&wt);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void cs_teardown(void *state)
{
    cs_state *s = state;
    if (!s)
        return;
    if (s->layer)
        for (int64_t l = 0; l < s->in->layers; ++l)
            rt_cusparse_sparse_free(&s->layer[l]);
    free(s->layer);
    rt_cuda_free(s->pt.ctx, s->d_buffer);
    rt_spdnn_cuda_pipe_free(&s->pipe);
    free(s);
}

/* W_l^T on the device in the algorithm's format. */
static int upload_layer(cs_state *s, int64_t l, rt_err *err)
{
    rt_csr wt;
    if (rt_spdnn_transpose(s->in->layer[l], &wt, err) != 0)
        return rt_err_prefix(err, "%s: layer %lld", s->pt.what, (long long)l);
    char what[900];
    snprintf(what, sizeof what, "layer %lld of %s", (long long)l, s->pt.what);
    const int rc = rt_cusparse_sparse_create(&s->layer[l], s->pt.ctx, s->lib, s->cp.alg, &wt,
                                             RT_FP32, s->cp.ell_block, what, err);
    rt_csr_free(&wt);
    return rc;
}

/* The dense descriptor of a neurons x live block of features at y: column-major with leading
 * dimension neurons, or row-major with leading dimension live. */
static int dense_block(const cs_state *s, int64_t live, const float *y, cusparseDnMatDescr_t *d,
                       int setup, rt_err *err)
{
    const int64_t n = s->in->neurons;
    CS_CHECK(s->cp.row_major
                 ? cusparseCreateDnMat(d, n, live, live, (void *)y, CUDA_R_32F, CUSPARSE_ORDER_ROW)
                 : cusparseCreateDnMat(d, n, live, n, (void *)y, CUDA_R_32F, CUSPARSE_ORDER_COL),
             setup);
    return 0;
}

/* Layer l's SpMM, Z = W_l^T Y over `live` features read from y, written to z: with bytes
 * non-NULL only its workspace size, else enqueued after checking that its workspace fits the one
 * allocated at setup. Descriptors are host-side: destroying them once the call is enqueued is
 * safe. */
static int layer_spmm(cs_state *s, int64_t l, int64_t live, const float *y, float *z, size_t *bytes,
                      int setup, rt_err *err)
{
    cusparseDnMatDescr_t b, c;
    int rc = dense_block(s, live, y, &b, setup, err);
    if (rc != 0)
        return rc;
    rc = dense_block(s, live, z, &c, setup, err);
    if (rc != 0) {
        cusparseDestroyDnMat(b);
        return rc;
    }
    const cusparseHandle_t h = rt_cusparse_handle(s->lib);
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t need = 0;
    cusparseStatus_t st = cusparseSpMM_bufferSize(h, op, op, &s->alpha, s->layer[l].mat, b,
                                                  &s->beta, c, CUDA_R_32F, s->cp.alg->alg, &need);
    const char *call = "cusparseSpMM_bufferSize";
    if (st == CUSPARSE_STATUS_SUCCESS && bytes)
        *bytes = need;
    else if (st == CUSPARSE_STATUS_SUCCESS && need > s->buffer_bytes)
        rc = rt_err_set(err,
                        "%s: layer %lld's SpMM asks for %zu workspace bytes with %lld live "
                        "features, more than the %zu allocated for all features",
                        s->pt.what, (long long)l, need, (long long)live, s->buffer_bytes);
    else if (st == CUSPARSE_STATUS_SUCCESS) {
        st = cusparseSpMM(h, op, op, &s->alpha, s->layer[l].mat, b, &s->beta, c, CUDA_R_32F,
                          s->cp.alg->alg, s->d_buffer);
        call = "cusparseSpMM";
    }
    cusparseDestroyDnMat(b);
    cusparseDestroyDnMat(c);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return rt_cusparse_fail(s->lib, s->pt.what, call, st, setup, err);
    return rc;
}

static int cs_prepare(void *state, const rt_params *p, rt_err *err)
{
    cs_state *s = state;
    s->in = s->pt.inputs;
    if (read_params(p, &s->cp, err) != 0)
        return -1;
    s->alpha = 1.0f;
    s->beta = 0.0f;
    const double t0 = rt_clock_now();
    int rc = rt_spdnn_cuda_pipe_setup(&s->pipe, s->pt.ctx, s->in, s->cp.row_major, s->pt.what, err);
    if (rc != 0)
        return rc;
    if (rt_cusparse_lib_get(s->pt.ctx, &s->lib, err) != 0)
        return rt_err_prefix(err, "%s", s->pt.what);
    s->layer = calloc((size_t)s->in->layers, sizeof *s->layer);
    if (!s->layer)
        return rt_err_set(err, "%s: out of memory for %lld layers", s->pt.what,
                          (long long)s->in->layers);
    for (int64_t l = 0; l < s->in->layers; ++l) {
        rc = upload_layer(s, l, err);
        if (rc != 0)
            return rc;
    }
    if (rt_cuda_ctx_make_current(s->pt.ctx, err) != 0)
        return -1;
    /* Workspace for the widest SpMM (every feature live); runs check each layer's request
     * against it rather than allocating inside the timed inference. */
    for (int64_t l = 0; l < s->in->layers && s->in->features > 0; ++l) {
        size_t bytes = 0;
        rc = layer_spmm(s, l, s->in->features, s->pipe.d_y0, s->pipe.d_y[0], &bytes, 1, err);
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
    const char *relu = s->cp.row_major ? "rt_spdnn_bias_relu_nm" : "rt_spdnn_bias_relu";
    const char *gather = s->cp.row_major ? "rt_spdnn_gather_nm" : "rt_spdnn_gather";
    if (rt_cuda_point_variant(s->pt.ctx, "spdnn_ops.cu", defines, 1, relu, &s->relu_v, s->pt.what,
                              err) != 0 ||
        rt_cuda_point_variant(s->pt.ctx, "spdnn_ops.cu", defines, 1, gather, &s->gather_v,
                              s->pt.what, err) != 0)
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

/* Enqueues layer l: Z = W_l^T Y (live features, dense: the survivors were gathered, so `list` is
 * not needed), then the activation with liveness flags (a feature's flag is set by any of its
 * neurons: rows of Z feature-major, columns neuron-major). */
static int layer_spmm_relu(void *state, int64_t l, const float *y, const int *list, int64_t live,
                           float *z, rt_err *err)
{
    (void)list;
    cs_state *s = state;
    if (layer_spmm(s, l, live, y, z, NULL, 0, err) != 0 ||
        rt_spdnn_cuda_clear_flags(&s->pipe, live, err) != 0)
        return -1;
    const int64_t n = s->in->neurons;
    float *a_z = z;
    long long a_elements = (long long)live * n, a_width = s->cp.row_major ? live : n;
    float a_bias = (float)s->in->bias;
    int *a_active = s->pipe.d_active;
    void *args[5] = {&a_z, &a_elements, &a_width, &a_bias, &a_active};
    const long long needed = (a_elements + RT_SPDNN_CUDA_OPS_BLOCK - 1) / RT_SPDNN_CUDA_OPS_BLOCK;
    const unsigned grid[3] = {
        needed < (long long)s->relu_blocks ? (unsigned)needed : s->relu_blocks, 1, 1};
    const unsigned block[3] = {RT_SPDNN_CUDA_OPS_BLOCK, 1, 1};
    return rt_cuda_point_launch(s->pt.ctx, &s->relu_v, grid, block, 0, args, s->pt.what, err);
}

/* Enqueues the copy of the `kept` listed features of z (live of them) into y, densely. */
static int gather_features(void *state, float *y, const float *z, const int *list, int64_t kept,
                           int64_t live, rt_err *err)
{
    cs_state *s = state;
    if (kept <= 0)
        return 0;
    const int64_t n = s->in->neurons;
    float *a_dst = y;
    const float *a_src = z;
    const int *a_list = list;
    int a_count = (int)kept;
    long long a_live = live, a_neurons = n;
    const unsigned block[3] = {RT_SPDNN_CUDA_OPS_BLOCK, 1, 1};
    const unsigned max_y = RT_CUDA_MAX_GRID_Y;
    if (s->cp.row_major) {
        /* A thread per kept feature of a neuron's row, a block row per neuron. */
        void *args[6] = {&a_dst, &a_src, &a_list, &a_count, &a_live, &a_neurons};
        const int64_t gx = (kept + RT_SPDNN_CUDA_OPS_BLOCK - 1) / RT_SPDNN_CUDA_OPS_BLOCK;
        const unsigned grid[3] = {(unsigned)(gx < 1024 ? gx : 1024),
                                  (unsigned)(n < (int64_t)max_y ? n : (int64_t)max_y), 1};
        return rt_cuda_point_launch(s->pt.ctx, &s->gather_v, grid, block, 0, args, s->pt.what, err);
    }
    void *args[5] = {&a_dst, &a_src, &a_list, &a_count, &a_neurons};
    const int64_t gx = (n + RT_SPDNN_CUDA_OPS_BLOCK - 1) / RT_SPDNN_CUDA_OPS_BLOCK;
    const unsigned grid[3] = {(unsigned)(gx < 1024 ? gx : 1024),
                              (unsigned)(kept < (int64_t)max_y ? kept : (int64_t)max_y), 1};
    return rt_cuda_point_launch(s->pt.ctx, &s->gather_v, grid, block, 0, args, s->pt.what, err);
}

static int cs_run(void *state, double *seconds, rt_err *err)
{
    cs_state *s = state;
    return rt_spdnn_cuda_pipe_run(&s->pipe, s->pt.ctx, s->in->layers, layer_spmm_relu,
                                  gather_features, s, seconds, s->pt.what, err);
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
    double stored = 0.0;
    for (int64_t l = 0; l < s->in->layers; ++l)
        stored += (double)s->layer[l].stored;
    rt_metrics_add(m, "stored_entries", "count", stored, 1);
    rt_metrics_add(m, "format_coo", "count", s->cp.alg->format == RT_CUSPARSE_COO, 1);
    rt_metrics_add(m, "format_blocked_ell", "count", s->cp.alg->format == RT_CUSPARSE_BELL, 1);
    rt_metrics_add(m, "row_major", "count", s->cp.row_major, 1);
    return 0;
}

static int cs_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spdnn_inputs *in;
    cs_params cp;
    if (rt_spdnn_cuda_inputs(inputs, &in, err) != 0 || read_params(p, &cp, err) != 0)
        return -1;
    const rt_device_info *dev = rt_cuda_ctx_device(self->backend_ctx);
    /* Per nonzero of W^T, what the format must read at least: its fp32 value and its indices
     * (CSR: a 32-bit column; COO: a row and a column; Blocked-ELL: a block's column index serves
     * a whole block, so only the value is sure). The extra passes of the separate activation and
     * the gather are this baseline's own cost. */
    const double index_bytes =
        cp.alg->format == RT_CUSPARSE_COO ? 8.0 : (cp.alg->format == RT_CUSPARSE_BELL ? 0.0 : 4.0);
    rt_spdnn_traffic(in, 4.0, index_bytes, (double)dev->l2_bytes, 1, t);
    return 0;
}

void rt_spdnn_cuda_cusparse_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {cs_check,    cs_setup,   cs_run,
                                              cs_output,   cs_metrics, rt_cuda_point_flush,
                                              cs_teardown, cs_traffic};
    rt_cuda_point_describe(d, rt_spdnn_cuda_catalog_at(CS_KIND), &hooks, ctx);
}
