/* sptrsv.cuda.cusparse: cusparseSpSV on L's CSR copy, FP64, the baseline the own kernels are
 * measured against. The analysis (cusparseSpSV_analysis) runs once in setup and is reported as
 * analysis_s; an execution is the solve phase only, timed with events: one cusparseSpSV_solve per
 * right-hand side. B and X are column-major so each column is a dense vector. With one right-hand
 * side the solve reads B and writes X in place; with several, every column is copied into the
 * vectors the analysis was done with and back (device to device, inside the timed region), so
 * that no call depends on the library accepting other vectors than the analysed ones. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "rt_clock.h"
#include "rt_schema.h"
#include "sptrsv_cuda.h"
#include "sptrsv_cuda_catalog.h"
#include "sptrsv_cuda_data.h"

typedef struct cusparse_state {
    sptrsv_cuda_data d;
    cusparseHandle_t handle;
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vb, vx;
    cusparseSpSVDescr_t spsv;
    int have_handle, have_mat, have_vb, have_vx, have_spsv;
    double *colb, *colx; /* one column of B and X (nrhs > 1) */
    void *buffer;
    size_t buffer_bytes;
    double analysis_s;
} cusparse_state;

static const rt_cuda_catalog_entry *entry(void)
{
    int n = 0;
    const rt_cuda_catalog_entry *t = rt_sptrsv_cuda_catalog(&n);
    return rt_cuda_catalog_at(t, n, RT_SPTRSV_CUDA_KIND_CUSPARSE);
}

static int sp_fail(rt_err *err, const char *call, cusparseStatus_t st)
{
    return rt_err_set(err, RT_SPTRSV_CUDA_CUSPARSE ": %s failed: %s", call,
                      cusparseGetErrorString(st));
}

static void cusparse_teardown(void *state)
{
    cusparse_state *s = state;
    if (!s)
        return;
    if (s->d.ctx) {
        rt_err ignored;
        (void)rt_cuda_ctx_make_current(s->d.ctx, &ignored);
        if (s->have_spsv)
            cusparseSpSV_destroyDescr(s->spsv);
        if (s->have_vb)
            cusparseDestroyDnVec(s->vb);
        if (s->have_vx)
            cusparseDestroyDnVec(s->vx);
        if (s->have_mat)
            cusparseDestroySpMat(s->mat);
        if (s->have_handle)
            cusparseDestroy(s->handle);
        rt_cuda_free(s->d.ctx, s->colb);
        rt_cuda_free(s->d.ctx, s->colx);
        rt_cuda_free(s->d.ctx, s->buffer);
    }
    sptrsv_cuda_data_free(&s->d);
    free(s);
}

static int cusparse_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    const rt_cuda_catalog_entry *e = entry();
    (void)env;
    *state = NULL;
    char algo[16];
    if (rt_schema_str(e->params, e->n_params, self->name, p, "algorithm", algo, sizeof algo, err) !=
        0)
        return -1;
    cusparse_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    *state = s;
    rt_cuda_ctx *ctx = self->backend_ctx;
    int rc = sptrsv_cuda_data_create(self->name, ctx, in, 1, &s->d, err);
    if (rc != 0)
        return rc;
    const int64_t n = in->n, k = in->nrhs;
    if (k > 1 &&
        ((rc = rt_cuda_alloc(ctx, (void **)&s->colb, (size_t)n * 8, "a column of B", err)) != 0 ||
         (rc = rt_cuda_alloc(ctx, (void **)&s->colx, (size_t)n * 8, "a column of X", err)) != 0))
        return rc;
    double *vb = k > 1 ? s->colb : s->d.b, *vx = k > 1 ? s->colx : s->d.x;
    cusparseStatus_t st;
    if ((st = cusparseCreate(&s->handle)) != CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseCreate", st);
    s->have_handle = 1;
    if ((st = cusparseSetStream(s->handle, (cudaStream_t)rt_cuda_ctx_stream(ctx))) !=
        CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseSetStream", st);
    if ((st = cusparseCreateCsr(&s->mat, n, n, in->f.csr.nnz, s->d.rowptr, s->d.colidx, s->d.val,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                CUDA_R_64F)) != CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseCreateCsr", st);
    s->have_mat = 1;
    cusparseFillMode_t fill = CUSPARSE_FILL_MODE_LOWER;
    cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    if ((st = cusparseSpMatSetAttribute(s->mat, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill)) !=
            CUSPARSE_STATUS_SUCCESS ||
        (st = cusparseSpMatSetAttribute(s->mat, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag)) !=
            CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseSpMatSetAttribute", st);
    if ((st = cusparseCreateDnVec(&s->vb, n, vb, CUDA_R_64F)) != CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseCreateDnVec(B)", st);
    s->have_vb = 1;
    if ((st = cusparseCreateDnVec(&s->vx, n, vx, CUDA_R_64F)) != CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseCreateDnVec(X)", st);
    s->have_vx = 1;
    if ((st = cusparseSpSV_createDescr(&s->spsv)) != CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseSpSV_createDescr", st);
    s->have_spsv = 1;
    const double one = 1.0;
    if ((st = cusparseSpSV_bufferSize(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->mat,
                                      s->vb, s->vx, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, s->spsv,
                                      &s->buffer_bytes)) != CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseSpSV_bufferSize", st);
    if ((rc = rt_cuda_alloc(ctx, &s->buffer, s->buffer_bytes, "the SpSV buffer", err)) != 0)
        return rc;
    if (rt_cuda_sync(ctx, self->name, err) != 0)
        return -1;
    const double t0 = rt_clock_now();
    if ((st = cusparseSpSV_analysis(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->mat,
                                    s->vb, s->vx, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, s->spsv,
                                    s->buffer)) != CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseSpSV_analysis", st);
    if (rt_cuda_sync(ctx, "cusparseSpSV_analysis", err) != 0)
        return -1;
    s->analysis_s = rt_clock_now() - t0;
    return 0;
}

static int copy_d2d(cusparse_state *s, double *dst, const double *src, rt_err *err)
{
    const cudaError_t e =
        cudaMemcpyAsync(dst, src, (size_t)s->d.in->n * sizeof(double), cudaMemcpyDeviceToDevice,
                        (cudaStream_t)rt_cuda_ctx_stream(s->d.ctx));
    if (e != cudaSuccess)
        return rt_err_set(err, RT_SPTRSV_CUDA_CUSPARSE ": cudaMemcpyAsync: %s",
                          cudaGetErrorString(e));
    return 0;
}

static int cusparse_run(void *state, double *seconds, rt_err *err)
{
    cusparse_state *s = state;
    const int64_t n = s->d.in->n, k = s->d.in->nrhs;
    const double one = 1.0;
    if (rt_cuda_ctx_make_current(s->d.ctx, err) != 0 ||
        rt_cuda_timer_start(s->d.ctx, RT_SPTRSV_CUDA_CUSPARSE, err) != 0)
        return -1;
    for (int64_t j = 0; j < k; ++j) {
        if (k > 1 && copy_d2d(s, s->colb, s->d.b + j * n, err) != 0)
            return -1;
        const cusparseStatus_t st =
            cusparseSpSV_solve(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->mat, s->vb,
                               s->vx, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, s->spsv);
        if (st != CUSPARSE_STATUS_SUCCESS)
            return sp_fail(err, "cusparseSpSV_solve", st);
        if (k > 1 && copy_d2d(s, s->d.x + j * n, s->colx, err) != 0)
            return -1;
    }
    return rt_cuda_timer_stop(s->d.ctx, seconds, RT_SPTRSV_CUDA_CUSPARSE, err);
}

static int cusparse_output(void *state, double *out, rt_err *err)
{
    cusparse_state *s = state;
    return sptrsv_cuda_data_output(&s->d, out, err);
}

static int cusparse_metrics(void *state, rt_metrics *m, rt_err *err)
{
    cusparse_state *s = state;
    if (sptrsv_cuda_data_metrics(&s->d, m, err) != 0)
        return -1;
    rt_metrics_add(m, "analysis_s", "s", s->analysis_s, 0);
    rt_metrics_add(m, "setup_s", "s", s->analysis_s + s->d.upload_s, 0);
    rt_metrics_add(m, "spsv_buffer_bytes", "B", (double)s->buffer_bytes, 0);
    return 0;
}

void rt_sptrsv_cuda_cusparse_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    rt_cuda_catalog_describe(entry(), d);
    d->check = sptrsv_cuda_check;
    d->setup = cusparse_setup;
    d->run = cusparse_run;
    d->output = cusparse_output;
    d->metrics = cusparse_metrics;
    d->teardown = cusparse_teardown;
    d->traffic = sptrsv_cuda_traffic;
    d->backend_ctx = ctx;
}
