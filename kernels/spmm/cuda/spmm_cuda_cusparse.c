#include "spmm_cuda_cusparse.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "rt_clock.h"
#include "rt_cusparse_spmm.h"
#include "spmm_cuda_common.h"

/* The algorithms, the formats they read, the handle and the device copy of A are
 * kernels/shared/cuda/rt_cusparse_spmm's (spdnn.cuda.cusparse uses them too); this file binds
 * them to the spmm problem: B and C in the point's layout and precision. */

typedef struct cs_params {
    const rt_cusparse_alg *alg;
    int64_t ell_block;
} cs_params;

typedef struct cs_state {
    rt_cuda_point pt; /* context, the checked rt_spmm_inputs, kernel and point for messages */
    rt_cusparse_lib *lib;
    const rt_cusparse_alg *alg;
    rt_cusparse_sparse a;
    rt_spmm_cuda_dense dense;
    void *d_buffer;
    size_t buffer_bytes;
    cusparseDnMatDescr_t mat_b, mat_c;
    int have_b, have_c;
    cudaDataType type;
    float alpha_f, beta_f;
    double alpha_d, beta_d;
    double preprocess_s;
} cs_state;

static int read_params(const rt_params *p, cs_params *cp, rt_err *err)
{
    char alg[32];
    if (rt_spmm_cuda_param_str(p, RT_SPMM_CUDA_KIND_CUSPARSE, "alg", alg, sizeof alg, err) != 0 ||
        rt_spmm_cuda_param_int(p, RT_SPMM_CUDA_KIND_CUSPARSE, "ell_block", &cp->ell_block, err) !=
            0)
        return -1;
    cp->alg = rt_cusparse_spmm_alg(alg, RT_SPMM_CUDA_CUSPARSE, err);
    return cp->alg ? 0 : -1;
}

#define CS_CHECK(call, infeasible_allowed)                                                         \
    RT_CUSPARSE_CHECK(s->lib, s->pt.what, call, infeasible_allowed, err)

static int cs_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                    const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_spmm_inputs *in;
    cs_params cp;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || read_params(p, &cp, err) != 0)
        return -1;
    return rt_cusparse_spmm_check(cp.alg, rt_cuda_ctx_device(self->backend_ctx), in->a,
                                  cp.ell_block, why, whylen, err);
}

static void cs_teardown(void *state)
{
    cs_state *s = state;
    if (!s)
        return;
    if (s->have_b)
        cusparseDestroyDnMat(s->mat_b);
    if (s->have_c)
        cusparseDestroyDnMat(s->mat_c);
    rt_cusparse_sparse_free(&s->a);
    rt_spmm_cuda_dense_free(&s->dense);
    rt_cuda_free(s->pt.ctx, s->d_buffer);
    free(s);
}

static int cs_prepare(void *state, const rt_params *p, rt_err *err)
{
    cs_state *s = state;
    const rt_spmm_inputs *in = s->pt.inputs;
    cs_params cp;
    if (read_params(p, &cp, err) != 0)
        return -1;
    s->alg = cp.alg;
    s->type = in->prec == RT_FP64 ? CUDA_R_64F : CUDA_R_32F;
    s->alpha_f = 1.0f;
    s->beta_f = 0.0f;
    s->alpha_d = 1.0;
    s->beta_d = 0.0;
    if (rt_cusparse_lib_get(s->pt.ctx, &s->lib, err) != 0)
        return rt_err_prefix(err, "%s", s->pt.what);
    char why[512];
    int rc = rt_cusparse_spmm_check(s->alg, rt_cuda_ctx_device(s->pt.ctx), in->a, cp.ell_block, why,
                                    sizeof why, err);
    if (rc == RT_INFEASIBLE)
        rt_err_set(err, "%s", why);
    if (rc != 0)
        return rc;
    const double t0 = rt_clock_now();
    rc = rt_cusparse_sparse_create(&s->a, s->pt.ctx, s->lib, s->alg, in->a, in->prec, cp.ell_block,
                                   s->pt.what, err);
    if (rc != 0)
        return rc;
    /* Blocked-ELL pads A to whole blocks: B and C get the padded rows (zeros in B). */
    const int64_t b_rows = s->a.cols, c_rows = s->a.rows;
    rc = rt_spmm_cuda_dense_setup(&s->dense, s->pt.ctx, in, b_rows, c_rows, s->pt.what, err);
    if (rc != 0)
        return rc;
    const cusparseOrder_t order =
        in->layout == RT_ROW_MAJOR ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
    const int64_t ldb = in->layout == RT_ROW_MAJOR ? in->k : b_rows;
    const int64_t ldc = in->layout == RT_ROW_MAJOR ? in->k : c_rows;
    CS_CHECK(cusparseCreateDnMat(&s->mat_b, b_rows, in->k, ldb, s->dense.d_b, s->type, order), 1);
    s->have_b = 1;
    CS_CHECK(cusparseCreateDnMat(&s->mat_c, c_rows, in->k, ldc, s->dense.d_c, s->type, order), 1);
    s->have_c = 1;

    const void *alpha = in->prec == RT_FP64 ? (const void *)&s->alpha_d : (const void *)&s->alpha_f;
    const void *beta = in->prec == RT_FP64 ? (const void *)&s->beta_d : (const void *)&s->beta_f;
    const cusparseHandle_t h = rt_cusparse_handle(s->lib);
    if (rt_cuda_ctx_make_current(s->pt.ctx, err) != 0)
        return -1;
    CS_CHECK(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                     CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, s->a.mat, s->mat_b,
                                     beta, s->mat_c, s->type, s->alg->alg, &s->buffer_bytes),
             1);
    char what[900];
    snprintf(what, sizeof what, "cuSPARSE workspace of %s", s->pt.what);
    rc = rt_cuda_alloc(s->pt.ctx, &s->d_buffer, s->buffer_bytes, what, err);
    if (rc != 0)
        return rc;
    /* Analysis of A's pattern for the algorithms that use it; not part of the timed call. */
    CS_CHECK(cusparseSpMM_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                     CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, s->a.mat, s->mat_b,
                                     beta, s->mat_c, s->type, s->alg->alg, s->d_buffer),
             1);
    if (rt_cuda_sync(s->pt.ctx, s->pt.what, err) != 0)
        return -1;
    s->preprocess_s = rt_clock_now() - t0;
    return 0;
}

static int cs_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                    const rt_kernel_env *env, void **state, rt_err *err)
{
    return rt_cuda_point_setup(self, &rt_spmm_cuda_point, inputs, p, sizeof(cs_state), cs_prepare,
                               cs_teardown, state, err);
}

static int cs_run(void *state, double *seconds, rt_err *err)
{
    cs_state *s = state;
    const int fp64 = s->type == CUDA_R_64F;
    const void *alpha = fp64 ? (const void *)&s->alpha_d : (const void *)&s->alpha_f;
    const void *beta = fp64 ? (const void *)&s->beta_d : (const void *)&s->beta_f;
    double sec = -1.0;
    if (rt_cuda_timer_start(s->pt.ctx, s->pt.what, err) != 0)
        return -1;
    CS_CHECK(cusparseSpMM(rt_cusparse_handle(s->lib), CUSPARSE_OPERATION_NON_TRANSPOSE,
                          CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, s->a.mat, s->mat_b, beta,
                          s->mat_c, s->type, s->alg->alg, s->d_buffer),
             0);
    if (rt_cuda_timer_stop(s->pt.ctx, &sec, s->pt.what, err) != 0)
        return -1;
    if (seconds)
        *seconds = sec;
    return 0;
}

static int cs_output(void *state, double *out, rt_err *err)
{
    cs_state *s = state;
    return rt_spmm_cuda_dense_output(&s->dense, out, s->pt.what, err);
}

static int cs_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const cs_state *s = state;
    rt_metrics_add(m, "preprocess_s", "s", s->preprocess_s, 0);
    rt_metrics_add(m, "workspace_bytes", "bytes", (double)s->buffer_bytes, 0);
    rt_cusparse_sparse_metrics(&s->a, m);
    return 0;
}

static int cs_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spmm_inputs *in;
    cs_params cp;
    double a_bytes = 0.0;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || read_params(p, &cp, err) != 0 ||
        rt_cusparse_sparse_bytes(cp.alg, in->a, in->prec, cp.ell_block, &a_bytes, err) != 0)
        return -1;
    return rt_spmm_cuda_traffic(in, a_bytes, self->name, t, err);
}

void rt_spmm_cuda_cusparse_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {cs_check,    cs_setup,   cs_run,
                                              cs_output,   cs_metrics, rt_cuda_point_flush,
                                              cs_teardown, cs_traffic};
    rt_cuda_point_describe(d, rt_spmm_cuda_catalog_at(RT_SPMM_CUDA_KIND_CUSPARSE), &hooks, ctx);
}
