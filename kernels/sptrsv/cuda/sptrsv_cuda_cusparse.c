/* sptrsv.cuda.cusparse: the cuSPARSE baseline over every option cuSPARSE 13 offers a triangular
 * solve, FP64, forward (L X = B) or backward (L^T X = B):
 *   - api: cusparseSpSV (one right-hand side per call; with several, each column is copied into
 *     the vectors the analysis was done with and back, device to device, inside the timed region)
 *     or cusparseSpSM (every right-hand side in one call, B and X dense matrices);
 *   - format: CSR, COO or sliced ELL (sptrsv_cuda_spmat.h);
 *   - storage: lower (L stored, op(L) = L forward, L^T backward) or upper (L^T stored explicitly,
 *     op = transpose forward, none backward): the library's two ways to one solve;
 *   - index: 32- or 64-bit indices;
 *   - layout: SpSM's dense B and X column- or row-major (SpSV takes vectors: column only);
 *   - algorithm: CUSPARSE_SPSV_ALG_DEFAULT / CUSPARSE_SPSM_ALG_DEFAULT, the only ones.
 * A combination the library refuses (CUSPARSE_STATUS_NOT_SUPPORTED) is infeasible with its
 * status. The analysis runs once in setup (analysis_s); an execution is the solve phase only,
 * timed with CUDA events. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "rt_clock.h"
#include "rt_cuda_point.h"
#include "rt_schema.h"
#include "sptrsv_cuda.h"
#include "sptrsv_cuda_catalog.h"
#include "sptrsv_cuda_data.h"
#include "sptrsv_cuda_spmat.h"

typedef struct cusparse_state {
    sptrsv_cuda_data d; /* B and X */
    sptrsv_spmat m;     /* L in the point's format */
    cusparseHandle_t handle;
    cusparseDnVecDescr_t vb, vx;
    cusparseDnMatDescr_t mb, mx;
    cusparseSpSVDescr_t spsv;
    cusparseSpSMDescr_t spsm;
    int have_handle, have_vb, have_vx, have_mb, have_mx, have_spsv, have_spsm;
    int spsm_api;
    cusparseOperation_t op;
    double *colb, *colx; /* one column of B and X (SpSV, nrhs > 1) */
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

/* A refusal of the combination is infeasible; anything else an error. */
static int sp_fail(rt_err *err, const char *call, cusparseStatus_t st)
{
    rt_err_set(err, RT_SPTRSV_CUDA_CUSPARSE ": %s failed: %s", call, cusparseGetErrorString(st));
    return st == CUSPARSE_STATUS_NOT_SUPPORTED ? RT_INFEASIBLE : -1;
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
        if (s->have_spsm)
            cusparseSpSM_destroyDescr(s->spsm);
        if (s->have_vb)
            cusparseDestroyDnVec(s->vb);
        if (s->have_vx)
            cusparseDestroyDnVec(s->vx);
        if (s->have_mb)
            cusparseDestroyDnMat(s->mb);
        if (s->have_mx)
            cusparseDestroyDnMat(s->mx);
        if (s->have_handle)
            cusparseDestroy(s->handle);
        rt_cuda_free(s->d.ctx, s->colb);
        rt_cuda_free(s->d.ctx, s->colx);
        rt_cuda_free(s->d.ctx, s->buffer);
    }
    sptrsv_spmat_free(&s->m);
    sptrsv_cuda_data_free(&s->d);
    free(s);
}

typedef struct options {
    char api[8], format[8], storage[8], index[8], layout[8], algo[16];
} options;

static int read_options(const rt_kernel_desc *self, const rt_params *p, options *o, rt_err *err)
{
    const rt_cuda_catalog_entry *e = entry();
    struct {
        const char *name;
        char *out;
    } const f[] = {{"api", o->api},     {"format", o->format}, {"storage", o->storage},
                   {"index", o->index}, {"layout", o->layout}, {"algorithm", o->algo}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i)
        if (rt_schema_str(e->params, e->n_params, self->name, p, f[i].name, f[i].out, 8, err) != 0)
            return -1;
    return 0;
}

static int cusparse_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    options o;
    if (read_options(self, p, &o, err) != 0)
        return -1;
    if (strcmp(o.api, "spsv") == 0 && strcmp(o.layout, "row") == 0) {
        snprintf(why, whylen,
                 "%s: cusparseSpSV solves vectors, one per right-hand side: layout row is "
                 "cusparseSpSM's (api: spsm)",
                 self->name);
        return RT_INFEASIBLE;
    }
    if (strcmp(o.api, "spsm") == 0 && strcmp(o.format, "sell") == 0) {
        /* cusparseSpSM takes CSR and COO only: on sliced ELL its analysis fails with "internal
         * error" (CUDA 13.0, H100), so the point is refused before any upload. */
        snprintf(why, whylen,
                 "%s: cusparseSpSM takes CSR and COO, not sliced ELL (format sell is "
                 "cusparseSpSV's: api spsv)",
                 self->name);
        return RT_INFEASIBLE;
    }
    return sptrsv_cuda_check_both(self, inputs, p, env, why, whylen, err);
}

/* The dense operands: vectors for SpSV (B and X themselves, or one column each), matrices for
 * SpSM. */
static int dense(cusparse_state *s, int row_major, rt_err *err)
{
    const int64_t n = s->d.in->n, k = s->d.in->nrhs;
    rt_cuda_ctx *ctx = s->d.ctx;
    cusparseStatus_t st;
    if (s->spsm_api) {
        const cusparseOrder_t ord = row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
        const int64_t ld = row_major ? k : n;
        if ((st = cusparseCreateDnMat(&s->mb, n, k, ld, s->d.b, CUDA_R_64F, ord)) !=
            CUSPARSE_STATUS_SUCCESS)
            return sp_fail(err, "cusparseCreateDnMat(B)", st);
        s->have_mb = 1;
        if ((st = cusparseCreateDnMat(&s->mx, n, k, ld, s->d.x, CUDA_R_64F, ord)) !=
            CUSPARSE_STATUS_SUCCESS)
            return sp_fail(err, "cusparseCreateDnMat(X)", st);
        s->have_mx = 1;
        return 0;
    }
    int rc;
    if (k > 1 &&
        ((rc = rt_cuda_alloc(ctx, (void **)&s->colb, (size_t)n * 8, "a column of B", err)) != 0 ||
         (rc = rt_cuda_alloc(ctx, (void **)&s->colx, (size_t)n * 8, "a column of X", err)) != 0))
        return rc;
    if ((st = cusparseCreateDnVec(&s->vb, n, k > 1 ? s->colb : s->d.b, CUDA_R_64F)) !=
        CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseCreateDnVec(B)", st);
    s->have_vb = 1;
    if ((st = cusparseCreateDnVec(&s->vx, n, k > 1 ? s->colx : s->d.x, CUDA_R_64F)) !=
        CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseCreateDnVec(X)", st);
    s->have_vx = 1;
    return 0;
}

/* Buffer size, buffer, analysis (timed: analysis_s). */
static int analyse(cusparse_state *s, const char *name, rt_err *err)
{
    const double one = 1.0;
    rt_cuda_ctx *ctx = s->d.ctx;
    cusparseStatus_t st;
    if (s->spsm_api) {
        if ((st = cusparseSpSM_createDescr(&s->spsm)) != CUSPARSE_STATUS_SUCCESS)
            return sp_fail(err, "cusparseSpSM_createDescr", st);
        s->have_spsm = 1;
        if ((st = cusparseSpSM_bufferSize(s->handle, s->op, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                          s->m.mat, s->mb, s->mx, CUDA_R_64F,
                                          CUSPARSE_SPSM_ALG_DEFAULT, s->spsm, &s->buffer_bytes)) !=
            CUSPARSE_STATUS_SUCCESS)
            return sp_fail(err, "cusparseSpSM_bufferSize", st);
    } else {
        if ((st = cusparseSpSV_createDescr(&s->spsv)) != CUSPARSE_STATUS_SUCCESS)
            return sp_fail(err, "cusparseSpSV_createDescr", st);
        s->have_spsv = 1;
        if ((st = cusparseSpSV_bufferSize(s->handle, s->op, &one, s->m.mat, s->vb, s->vx,
                                          CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, s->spsv,
                                          &s->buffer_bytes)) != CUSPARSE_STATUS_SUCCESS)
            return sp_fail(err, "cusparseSpSV_bufferSize", st);
    }
    int rc = rt_cuda_alloc(ctx, &s->buffer, s->buffer_bytes > 0 ? s->buffer_bytes : 1,
                           "the solve's buffer", err);
    if (rc != 0)
        return rc;
    if (rt_cuda_sync(ctx, name, err) != 0)
        return -1;
    const double t0 = rt_clock_now();
    st = s->spsm_api
             ? cusparseSpSM_analysis(s->handle, s->op, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                     s->m.mat, s->mb, s->mx, CUDA_R_64F, CUSPARSE_SPSM_ALG_DEFAULT,
                                     s->spsm, s->buffer)
             : cusparseSpSV_analysis(s->handle, s->op, &one, s->m.mat, s->vb, s->vx, CUDA_R_64F,
                                     CUSPARSE_SPSV_ALG_DEFAULT, s->spsv, s->buffer);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, s->spsm_api ? "cusparseSpSM_analysis" : "cusparseSpSV_analysis", st);
    if (rt_cuda_sync(ctx, "the analysis", err) != 0)
        return -1;
    s->analysis_s = rt_clock_now() - t0;
    return 0;
}

static int cusparse_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    (void)env;
    *state = NULL;
    options o;
    if (read_options(self, p, &o, err) != 0)
        return -1;
    cusparse_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    *state = s;
    rt_cuda_ctx *ctx = self->backend_ctx;
    s->spsm_api = strcmp(o.api, "spsm") == 0;
    const int row_major = s->spsm_api && strcmp(o.layout, "row") == 0;
    const int upper = strcmp(o.storage, "upper") == 0;
    const sptrsv_spfmt fmt = strcmp(o.format, "coo") == 0    ? SPTRSV_SP_COO
                             : strcmp(o.format, "sell") == 0 ? SPTRSV_SP_SELL
                                                             : SPTRSV_SP_CSR;
    /* L (lower) forward and L^T (upper) backward are solved as stored; the other two through
     * the transpose of what is stored. */
    s->op = upper == in->backward ? CUSPARSE_OPERATION_NON_TRANSPOSE : CUSPARSE_OPERATION_TRANSPOSE;
    int rc = sptrsv_cuda_data_create_vectors(self->name, ctx, in, !row_major, &s->d, err);
    if (rc == 0)
        rc = sptrsv_spmat_create(self->name, ctx, in, fmt, upper, strcmp(o.index, "64") == 0, &s->m,
                                 err);
    if (rc != 0)
        return rc;
    cusparseStatus_t st;
    if ((st = cusparseCreate(&s->handle)) != CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseCreate", st);
    s->have_handle = 1;
    if ((st = cusparseSetStream(s->handle, (cudaStream_t)rt_cuda_ctx_stream(ctx))) !=
        CUSPARSE_STATUS_SUCCESS)
        return sp_fail(err, "cusparseSetStream", st);
    if ((rc = dense(s, row_major, err)) != 0)
        return rc;
    return analyse(s, self->name, err);
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
    if (s->spsm_api) {
        const cusparseStatus_t st =
            cusparseSpSM_solve(s->handle, s->op, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->m.mat,
                               s->mb, s->mx, CUDA_R_64F, CUSPARSE_SPSM_ALG_DEFAULT, s->spsm);
        if (st != CUSPARSE_STATUS_SUCCESS) {
            sp_fail(err, "cusparseSpSM_solve", st);
            return -1;
        }
    }
    for (int64_t j = 0; !s->spsm_api && j < k; ++j) {
        if (k > 1 && copy_d2d(s, s->colb, s->d.b + j * n, err) != 0)
            return -1;
        const cusparseStatus_t st =
            cusparseSpSV_solve(s->handle, s->op, &one, s->m.mat, s->vb, s->vx, CUDA_R_64F,
                               CUSPARSE_SPSV_ALG_DEFAULT, s->spsv);
        if (st != CUSPARSE_STATUS_SUCCESS) {
            sp_fail(err, "cusparseSpSV_solve", st);
            return -1;
        }
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
    rt_metrics_add(m, "setup_s", "s", s->analysis_s + s->d.upload_s + s->m.upload_s, 0);
    rt_metrics_add(m, "matrix_upload_s", "s", s->m.upload_s, 0);
    rt_metrics_add(m, "stored_entries", "count", (double)s->m.stored, 1);
    rt_metrics_add(m, "spsv_buffer_bytes", "B", (double)s->buffer_bytes, 0);
    rt_metrics_add(m, "transposed_op", "flag", s->op == CUSPARSE_OPERATION_TRANSPOSE ? 1.0 : 0.0,
                   1);
    return 0;
}

void rt_sptrsv_cuda_cusparse_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {cusparse_check,    cusparse_setup,     cusparse_run,
                                              cusparse_output,   cusparse_metrics,   NULL,
                                              cusparse_teardown, sptrsv_cuda_traffic};
    rt_cuda_point_describe(d, entry(), &hooks, ctx);
}
