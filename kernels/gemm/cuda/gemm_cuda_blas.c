/* The library baselines of the gemm family:
 *   gemm.cuda.cublas    A, B and C already in device memory, one cublasDgemm/Sgemm per execution
 *                       timed with events, in any of cuBLAS's math modes: the practical peak the
 *                       tiled kernel is measured against (the runner's minimum over repetitions is
 *                       the paper's "best of"); on R ranks every rank runs the whole product on
 *                       its own GPU at once (one GPU's rate with R busy; samples from each rank's
 *                       own C);
 *   gemm.cuda.cublasxt  one rank: A, B and C in pinned host memory, cublasXtDgemm/Sgemm on the
 *                       rank's GPU or all GPUs of the host (xt_gpus), block dimension xt_block:
 *                       the library's own tiling, timed end to end like gemm.cuda.tiled. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "gemm_cuda.h"
#include "gemm_cuda_catalog.h"
#include "gemm_family.h"
#include "rt_schema.h"

typedef struct blas_state {
    rt_cuda_ctx *ctx;
    const gemm_inputs *in;
    size_t elem;
    int xt;
    void *a, *b, *c; /* device (cublas) or pinned host (cublasXt) */
    int xt_devices;  /* devices cublasXt runs on */
    cublasHandle_t blas;
    cublasXtHandle_t xth;
    int have_blas, have_xt;
} blas_state;

static const rt_cuda_catalog_entry *entry(int kind)
{
    int n = 0;
    const rt_cuda_catalog_entry *t = rt_gemm_cuda_catalog(&n);
    return rt_cuda_catalog_at(t, n, kind);
}

static double matrix_bytes(const gemm_inputs *in)
{
    return ((double)in->m * in->k + (double)in->k * in->n + (double)in->m * in->n) *
           (double)rt_precision_bytes(in->prec);
}

static int blas_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const gemm_inputs *in = inputs;
    /* cuBLAS on R ranks: each rank multiplies the whole problem on its own GPU, all at once (the
     * point's GFLOP/s is then one GPU's rate while R of them run: G x it is the bar of a G-rank
     * tiled run, measured in the same run). cublasXt drives its devices from one process. */
    const int xt = strcmp(self->name, RT_GEMM_CUDA_CUBLASXT) == 0;
    /* A math mode that does not touch this precision's products would time the default again:
     * infeasible, saying so, at no cost (configs list every mode for every precision). */
    if (!xt) {
        const rt_cuda_catalog_entry *e = entry(RT_GEMM_CUDA_KIND_CUBLAS);
        char mode[16];
        if (rt_schema_str(e->params, e->n_params, self->name, p, "math_mode", mode, sizeof mode,
                          err) != 0)
            return -1;
        if (rt_gemm_cublas_mode_applies(mode, in->prec) == 0) {
            snprintf(why, whylen, "math_mode %s does not change %s products (the same as default)",
                     mode, in->prec == RT_FP64 ? "FP64" : "FP32");
            return RT_INFEASIBLE;
        }
    }
    if (xt && env->nranks != 1) {
        snprintf(why, whylen, "%s runs on one rank (it drives its GPUs itself); this job has %d",
                 self->name, env->nranks);
        return RT_INFEASIBLE;
    }
    if (xt) {
        const rt_cuda_catalog_entry *e = entry(RT_GEMM_CUDA_KIND_CUBLASXT);
        int64_t want = 0;
        int count = 0;
        if (rt_schema_int(e->params, e->n_params, self->name, p, "xt_gpus", &want, err) != 0)
            return -1;
        if (cudaGetDeviceCount(&count) != cudaSuccess) {
            (void)cudaGetLastError();
            count = 0;
        }
        if (want > count) {
            snprintf(why, whylen, "xt_gpus = %lld but the host has %d device(s)", (long long)want,
                     count);
            return RT_INFEASIBLE;
        }
    }
    const int on_device = self->backend_ctx && strcmp(self->name, RT_GEMM_CUDA_CUBLAS) == 0;
    if (on_device && env->device &&
        matrix_bytes(in) > 0.9 * (double)env->device->global_mem_bytes) {
        snprintf(why, whylen, "A, B and C need %.3g GB, over 90%% of the GPU's %.3g GB",
                 matrix_bytes(in) * 1e-9, (double)env->device->global_mem_bytes * 1e-9);
        return RT_INFEASIBLE;
    }
    return 0;
}

/* Host memory for a matrix: page-aligned, its pages first touched by the threads that fill it,
 * then pinned (cudaHostRegister; cudaMallocHost would fault tens of GB in from one thread). */
static void *host_matrix(size_t bytes)
{
    const size_t page = 4096;
    return aligned_alloc(page, (bytes + page - 1) / page * page);
}

static int host_pin(void *p, size_t bytes, const char *what, rt_err *err)
{
    const cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
    if (e == cudaSuccess)
        return 0;
    (void)cudaGetLastError();
    return rt_err_set(err, "pinning %zu bytes for %s (cudaHostRegister): %s", bytes, what,
                      cudaGetErrorString(e));
}

static void host_release(void *p)
{
    if (!p)
        return;
    if (cudaHostUnregister(p) != cudaSuccess)
        (void)cudaGetLastError(); /* never pinned: a setup that failed before */
    free(p);
}

/* C poisoned with NaN (all bits set) in parallel, so an entry never written fails the gate. */
static void poison(void *p, size_t bytes)
{
    const size_t strip = (size_t)1 << 24;
    const int64_t n = (int64_t)((bytes + strip - 1) / strip);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        const size_t at = (size_t)i * strip;
        memset((char *)p + at, 0xFF, bytes - at < strip ? bytes - at : strip);
    }
}

static void blas_teardown(void *state)
{
    blas_state *s = state;
    if (!s)
        return;
    rt_err ignored;
    (void)rt_cuda_ctx_make_current(s->ctx, &ignored);
    if (s->have_blas)
        cublasDestroy(s->blas);
    if (s->have_xt)
        cublasXtDestroy(s->xth);
    if (s->xt) {
        host_release(s->a);
        host_release(s->b);
        host_release(s->c);
    } else {
        rt_cuda_free(s->ctx, s->a);
        rt_cuda_free(s->ctx, s->b);
        rt_cuda_free(s->ctx, s->c);
    }
    free(s);
}

/* Fills a whole column-major matrix (ld = rows) in strips of columns, in parallel. */
static void fill_matrix(const gemm_inputs *in, char which, int64_t rows, int64_t cols, void *dst)
{
    const size_t elem = rt_precision_bytes(in->prec);
#pragma omp parallel for schedule(dynamic)
    for (int64_t c0 = 0; c0 < cols; c0 += 64) {
        const int64_t w = cols - c0 < 64 ? cols - c0 : 64;
        gemm_fill_tile(in, which, 0, c0, rows, w, (char *)dst + (size_t)(c0 * rows) * elem);
    }
}

static int blas_setup_common(const rt_kernel_desc *self, const gemm_inputs *in, int xt,
                             blas_state **out, rt_err *err)
{
    blas_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    *out = s;
    s->ctx = self->backend_ctx;
    s->in = in;
    s->xt = xt;
    s->elem = rt_precision_bytes(in->prec);
    if (rt_cuda_ctx_make_current(s->ctx, err) != 0)
        return -1;
    const size_t ab = (size_t)(in->m * in->k) * s->elem, bb = (size_t)(in->k * in->n) * s->elem;
    const size_t cb = (size_t)(in->m * in->n) * s->elem;
    if (xt) {
        s->a = host_matrix(ab);
        s->b = host_matrix(bb);
        s->c = host_matrix(cb);
        if (!s->a || !s->b || !s->c)
            return rt_err_set(err, "%s: out of host memory for A, B and C", self->name);
        fill_matrix(in, 'A', in->m, in->k, s->a);
        fill_matrix(in, 'B', in->k, in->n, s->b);
        poison(s->c, cb);
        if (host_pin(s->a, ab, "A", err) != 0 || host_pin(s->b, bb, "B", err) != 0 ||
            host_pin(s->c, cb, "C", err) != 0)
            return rt_err_prefix(err, "%s", self->name);
        return 0;
    }
    int rc;
    if ((rc = rt_cuda_alloc(s->ctx, &s->a, ab, "A", err)) != 0 ||
        (rc = rt_cuda_alloc(s->ctx, &s->b, bb, "B", err)) != 0 ||
        (rc = rt_cuda_alloc(s->ctx, &s->c, cb, "C", err)) != 0)
        return rc;
    const size_t hb = ab > bb ? ab : bb;
    void *h = host_matrix(hb);
    if (!h)
        return rt_err_set(err, "%s: out of host memory for the upload", self->name);
    fill_matrix(in, 'A', in->m, in->k, h);
    rc = host_pin(h, hb, "the upload", err);
    if (rc == 0)
        rc = rt_cuda_upload(s->ctx, s->a, h, ab, "A", err);
    if (rc == 0) {
        fill_matrix(in, 'B', in->k, in->n, h);
        rc = rt_cuda_upload(s->ctx, s->b, h, bb, "B", err);
    }
    host_release(h);
    if (rc != 0)
        return rc == RT_INFEASIBLE ? rc : rt_err_prefix(err, "%s", self->name);
    if (rt_cuda_fill(s->ctx, s->c, 0xFF, cb, "C (NaN)", err) != 0)
        return -1;
    if (cublasCreate(&s->blas) != CUBLAS_STATUS_SUCCESS)
        return rt_err_set(err, "%s: cublasCreate failed", self->name);
    s->have_blas = 1;
    if (cublasSetStream(s->blas, rt_cuda_ctx_stream(s->ctx)) != CUBLAS_STATUS_SUCCESS)
        return rt_err_set(err, "%s: cublasSetStream failed", self->name);
    return 0;
}

static int cublas_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, void **state, rt_err *err)
{
    (void)env;
    const rt_cuda_catalog_entry *e = entry(RT_GEMM_CUDA_KIND_CUBLAS);
    char mode[16];
    if (rt_schema_str(e->params, e->n_params, self->name, p, "math_mode", mode, sizeof mode, err) !=
            0 ||
        blas_setup_common(self, inputs, 0, (blas_state **)state, err) != 0)
        return -1;
    blas_state *s = *state;
    /* The words of the catalog's domain (gemm_cuda_catalog.c), in its order. */
    static const struct {
        const char *word;
        cublasMath_t mode;
    } modes[] = {{"default", CUBLAS_DEFAULT_MATH},
                 {"pedantic", CUBLAS_PEDANTIC_MATH},
                 {"tf32", CUBLAS_TF32_TENSOR_OP_MATH},
                 {"bf16x9", CUBLAS_FP32_EMULATED_BF16X9_MATH},
                 {"fp64_emulated", CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; ++i)
        if (strcmp(mode, modes[i].word) == 0) {
            const cublasStatus_t st = cublasSetMathMode(s->blas, modes[i].mode);
            if (st != CUBLAS_STATUS_SUCCESS)
                return rt_err_set(err, "%s: cublasSetMathMode(%s): cuBLAS status %d", self->name,
                                  mode, (int)st);
            return 0;
        }
    return rt_err_set(err, "%s: math_mode '%s' is not one of " GEMM_CUBLAS_MATH_MODES, self->name,
                      mode);
}

static int cublas_run(void *state, double *seconds, rt_err *err)
{
    blas_state *s = state;
    const gemm_inputs *in = s->in;
    if (rt_cuda_timer_start(s->ctx, RT_GEMM_CUDA_CUBLAS, err) != 0)
        return -1;
    cublasStatus_t st;
    if (in->prec == RT_FP64) {
        const double one = 1.0, zero = 0.0;
        st = cublasDgemm(s->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)in->m, (int)in->n, (int)in->k,
                         &one, s->a, (int)in->m, s->b, (int)in->k, &zero, s->c, (int)in->m);
    } else {
        const float one = 1.0f, zero = 0.0f;
        st = cublasSgemm(s->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)in->m, (int)in->n, (int)in->k,
                         &one, s->a, (int)in->m, s->b, (int)in->k, &zero, s->c, (int)in->m);
    }
    if (st != CUBLAS_STATUS_SUCCESS)
        return rt_err_set(err, RT_GEMM_CUDA_CUBLAS ": cuBLAS status %d", (int)st);
    return rt_cuda_timer_stop(s->ctx, seconds, RT_GEMM_CUDA_CUBLAS, err);
}

static double sample_of(const blas_state *s, const void *c_host, int64_t row, int64_t col)
{
    const size_t e = (size_t)(col * s->in->m + row);
    return s->in->prec == RT_FP64 ? ((const double *)c_host)[e]
                                  : (double)((const float *)c_host)[e];
}

static int blas_output(void *state, double *out, rt_err *err)
{
    blas_state *s = state;
    const gemm_inputs *in = s->in;
    if (rt_cuda_ctx_make_current(s->ctx, err) != 0)
        return -1;
    for (int64_t i = 0; i < in->sample1 - in->sample0; ++i) {
        int64_t r, c;
        gemm_sample_at(in, in->sample0 + i, &r, &c);
        if (s->xt) {
            out[i] = sample_of(s, s->c, r, c);
            continue;
        }
        double v[1];
        const size_t off = (size_t)(c * in->m + r) * s->elem;
        if (rt_cuda_download(s->ctx, v, (const char *)s->c + off, s->elem, "a sample of C", err) !=
            0)
            return -1;
        out[i] = sample_of(s, v, 0, 0);
    }
    return 0;
}

static int blas_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const gemm_inputs *in = inputs;
    memset(t, 0, sizeof *t);
    t->flops = 2.0 * (double)in->m * (double)in->n * (double)in->k;
    gemm_cuda_flops_model(in, env->device, t);
    /* cuBLAS: the compulsory device-memory bytes (the data live on the device). cublasXt: the data
     * start and end in host memory, so A and B cross the host links once at least and C once
     * back, spread over its devices, overlapped with the products. */
    if (strcmp(self->name, RT_GEMM_CUDA_CUBLAS) == 0) {
        t->bytes[RT_LEVEL_DRAM] = matrix_bytes(in);
        return 0;
    }
    const double e = (double)rt_precision_bytes(in->prec);
    t->h2d_bytes = ((double)in->m * in->k + (double)in->k * in->n) * e;
    t->d2h_bytes = (double)in->m * in->n * e;
    t->overlap = 1;
    int64_t want = 0;
    int count = 0;
    const rt_cuda_catalog_entry *x = entry(RT_GEMM_CUDA_KIND_CUBLASXT);
    if (rt_schema_int(x->params, x->n_params, self->name, p, "xt_gpus", &want, err) != 0)
        return -1;
    if (want == 0 && cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        count = 1;
    }
    t->devices = (int)(want > 0 ? want : count);
    return 0;
}

static int xt_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                    const rt_kernel_env *env, void **state, rt_err *err)
{
    (void)env;
    const rt_cuda_catalog_entry *e = entry(RT_GEMM_CUDA_KIND_CUBLASXT);
    int64_t block = 0, gpus = 0;
    if (rt_schema_int(e->params, e->n_params, self->name, p, "xt_block", &block, err) != 0 ||
        rt_schema_int(e->params, e->n_params, self->name, p, "xt_gpus", &gpus, err) != 0)
        return -1;
    if (blas_setup_common(self, inputs, 1, (blas_state **)state, err) != 0)
        return -1;
    blas_state *s = *state;
    if (cublasXtCreate(&s->xth) != CUBLAS_STATUS_SUCCESS)
        return rt_err_set(err, "%s: cublasXtCreate failed", self->name);
    s->have_xt = 1;
    /* xt_gpus 1: the rank's own device; n > 1: devices 0 .. n-1; 0: every device of the host. */
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1)
        return rt_err_set(err, "%s: no CUDA device", self->name);
    int devs[64];
    int n = gpus == 0 ? count : (int)gpus;
    if (n > 64)
        n = 64;
    for (int i = 0; i < n; ++i)
        devs[i] = n == 1 ? rt_cuda_ctx_ordinal(s->ctx) : i;
    if (cublasXtDeviceSelect(s->xth, n, devs) != CUBLAS_STATUS_SUCCESS)
        return rt_err_set(err, "%s: cublasXtDeviceSelect(%d devices) failed", self->name, n);
    s->xt_devices = n;
    if (block > 0 && cublasXtSetBlockDim(s->xth, (int)block) != CUBLAS_STATUS_SUCCESS)
        return rt_err_set(err, "%s: cublasXtSetBlockDim(%lld) failed", self->name,
                          (long long)block);
    return 0;
}

/* cublasXt returns once C is back in host memory: the runner's wall clock times it. */
static int xt_run(void *state, double *seconds, rt_err *err)
{
    blas_state *s = state;
    const gemm_inputs *in = s->in;
    *seconds = -1.0;
    if (rt_cuda_ctx_make_current(s->ctx, err) != 0)
        return -1;
    cublasStatus_t st;
    if (in->prec == RT_FP64) {
        const double one = 1.0, zero = 0.0;
        st = cublasXtDgemm(s->xth, CUBLAS_OP_N, CUBLAS_OP_N, (size_t)in->m, (size_t)in->n,
                           (size_t)in->k, &one, s->a, (size_t)in->m, s->b, (size_t)in->k, &zero,
                           s->c, (size_t)in->m);
    } else {
        const float one = 1.0f, zero = 0.0f;
        st = cublasXtSgemm(s->xth, CUBLAS_OP_N, CUBLAS_OP_N, (size_t)in->m, (size_t)in->n,
                           (size_t)in->k, &one, s->a, (size_t)in->m, s->b, (size_t)in->k, &zero,
                           s->c, (size_t)in->m);
    }
    if (st != CUBLAS_STATUS_SUCCESS)
        return rt_err_set(err, RT_GEMM_CUDA_CUBLASXT ": cuBLAS status %d", (int)st);
    return 0;
}

static int xt_metrics(void *state, rt_metrics *m, rt_err *err)
{
    (void)err;
    const blas_state *s = state;
    rt_metrics_add(m, "xt_devices", "count", s->xt_devices, 1);
    return 0;
}

/* The two kernels differ in setup, run and metrics (cublasXt's only); check, output, teardown and
 * traffic are the same. */
static void blas_describe(rt_kernel_desc *d, int kind,
                          int (*setup)(const rt_kernel_desc *, const void *, const rt_params *,
                                       const rt_kernel_env *, void **, rt_err *),
                          int (*run)(void *, double *, rt_err *),
                          int (*metrics)(void *, rt_metrics *, rt_err *), rt_cuda_ctx *ctx)
{
    rt_cuda_catalog_describe(entry(kind), d);
    d->check = blas_check;
    d->setup = setup;
    d->run = run;
    d->metrics = metrics;
    d->output = blas_output;
    d->teardown = blas_teardown;
    d->traffic = blas_traffic;
    d->backend_ctx = ctx;
}

void rt_gemm_cuda_cublas_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    blas_describe(d, RT_GEMM_CUDA_KIND_CUBLAS, cublas_setup, cublas_run, NULL, ctx);
}

void rt_gemm_cuda_cublasxt_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    blas_describe(d, RT_GEMM_CUDA_KIND_CUBLASXT, xt_setup, xt_run, xt_metrics, ctx);
}
