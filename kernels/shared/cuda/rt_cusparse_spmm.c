#include "rt_cusparse_spmm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "rt_cuda_variant.h"
#include "rt_registry.h"

/* In the order of RT_CUSPARSE_SPMM_ALGS (kernels/shared/rt_cusparse_algs.h). */
static const rt_cusparse_alg algorithms[] = {
    {"default", CUSPARSE_SPMM_ALG_DEFAULT, RT_CUSPARSE_CSR},
    {"csr_alg1", CUSPARSE_SPMM_CSR_ALG1, RT_CUSPARSE_CSR},
    {"csr_alg2", CUSPARSE_SPMM_CSR_ALG2, RT_CUSPARSE_CSR},
    {"csr_alg3", CUSPARSE_SPMM_CSR_ALG3, RT_CUSPARSE_CSR},
    {"coo_alg1", CUSPARSE_SPMM_COO_ALG1, RT_CUSPARSE_COO},
    {"coo_alg2", CUSPARSE_SPMM_COO_ALG2, RT_CUSPARSE_COO},
    {"coo_alg3", CUSPARSE_SPMM_COO_ALG3, RT_CUSPARSE_COO},
    {"coo_alg4", CUSPARSE_SPMM_COO_ALG4, RT_CUSPARSE_COO},
    {"blocked_ell", CUSPARSE_SPMM_BLOCKED_ELL_ALG1, RT_CUSPARSE_BELL},
};
#define N_ALGORITHMS ((int)(sizeof algorithms / sizeof algorithms[0]))

const rt_cusparse_alg *rt_cusparse_spmm_alg(const char *name, const char *owner, rt_err *err)
{
    for (int i = 0; i < N_ALGORITHMS; ++i)
        if (strcmp(algorithms[i].name, name) == 0)
            return &algorithms[i];
    rt_err_set(err, "%s: unknown cuSPARSE SpMM alg '%s'", owner, name);
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * The library handle, one per context (a memo of the context). */

#define LIB_MEMO "cusparse.handle"

struct rt_cusparse_lib {
    cusparseHandle_t handle;
    FILE *log;
    long log_pos;
};

static void lib_release(void *data)
{
    rt_cusparse_lib *lib = data;
    if (!lib)
        return;
    if (lib->handle)
        cusparseDestroy(lib->handle);
    if (lib->log) {
        cusparseLoggerSetLevel(0);
        cusparseLoggerSetFile(stderr);
        fclose(lib->log);
    }
    free(lib);
}

int rt_cusparse_lib_get(rt_cuda_ctx *ctx, rt_cusparse_lib **out, rt_err *err)
{
    rt_cusparse_lib *lib = rt_cuda_ctx_memo(ctx, LIB_MEMO);
    if (lib) {
        *out = lib;
        return 0;
    }
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    lib = calloc(1, sizeof *lib);
    if (!lib)
        return rt_err_set(err, "out of memory creating the cuSPARSE handle");
    cusparseStatus_t st = cusparseCreate(&lib->handle);
    if (st != CUSPARSE_STATUS_SUCCESS) {
        free(lib);
        return rt_err_set(err, "cusparseCreate failed: %s", cusparseGetErrorString(st));
    }
    st = cusparseSetStream(lib->handle, (cudaStream_t)rt_cuda_ctx_stream(ctx));
    if (st != CUSPARSE_STATUS_SUCCESS) {
        lib_release(lib);
        return rt_err_set(err, "cusparseSetStream failed: %s", cusparseGetErrorString(st));
    }
    const char *user_level = getenv("CUSPARSE_LOG_LEVEL");
    if (!user_level || !*user_level) {
        lib->log = tmpfile();
        if (lib->log && (cusparseLoggerSetFile(lib->log) != CUSPARSE_STATUS_SUCCESS ||
                         cusparseLoggerSetLevel(1) != CUSPARSE_STATUS_SUCCESS)) {
            fclose(lib->log);
            lib->log = NULL;
        }
    }
    if (rt_cuda_ctx_set_memo(ctx, LIB_MEMO, lib, lib_release, err) != 0) {
        lib_release(lib);
        return -1;
    }
    *out = lib;
    return 0;
}

cusparseHandle_t rt_cusparse_handle(const rt_cusparse_lib *lib)
{
    return lib->handle;
}

/* The last line cuSPARSE logged since the previous call, or "". */
static void lib_log_tail(rt_cusparse_lib *lib, char *out, size_t len)
{
    out[0] = '\0';
    if (!lib || !lib->log || len < 2)
        return;
    fflush(lib->log);
    if (fseek(lib->log, 0, SEEK_END) != 0)
        return;
    const long end = ftell(lib->log);
    if (end <= lib->log_pos)
        return;
    long from = lib->log_pos;
    if (end - from > 4000)
        from = end - 4000;
    char buf[4001];
    if (fseek(lib->log, from, SEEK_SET) != 0)
        return;
    const size_t n = fread(buf, 1, (size_t)(end - from), lib->log);
    buf[n] = '\0';
    fseek(lib->log, 0, SEEK_END); /* cuSPARSE appends from here */
    lib->log_pos = end;
    /* Last non-empty line. */
    size_t stop = n;
    while (stop > 0 && (buf[stop - 1] == '\n' || buf[stop - 1] == '\r' || buf[stop - 1] == ' '))
        --stop;
    buf[stop] = '\0';
    const char *line = strrchr(buf, '\n');
    snprintf(out, len, "%s", line ? line + 1 : buf);
}

int rt_cusparse_fail(rt_cusparse_lib *lib, const char *what, const char *call, cusparseStatus_t st,
                     int infeasible_allowed, rt_err *err)
{
    char reason[480];
    lib_log_tail(lib, reason, sizeof reason);
    const int unsupported =
        st == CUSPARSE_STATUS_NOT_SUPPORTED || st == CUSPARSE_STATUS_ARCH_MISMATCH ||
        st == CUSPARSE_STATUS_ALLOC_FAILED || st == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES;
    rt_err_set(err, "%s: %s failed: %s%s%s", what, call, cusparseGetErrorString(st),
               reason[0] ? ": " : "", reason);
    return infeasible_allowed && unsupported ? RT_INFEASIBLE : -1;
}

/* ---------------------------------------------------------------------------------------------
 * Blocked-ELL: A cut into ell_block x ell_block blocks; every block row keeps as many block
 * columns as the fullest one (ell_blocks), padded with -1 block columns of zeros. */

typedef struct bell_shape {
    int64_t bs, m_pad, n_pad, block_rows, block_cols, ell_blocks, stored;
} bell_shape;

/* Distinct block columns per block row, with a stamp array instead of a set per block row. */
static int bell_measure(const rt_csr *a, int64_t bs, bell_shape *sh, rt_err *err)
{
    memset(sh, 0, sizeof *sh);
    sh->bs = bs;
    sh->block_rows = (a->rows + bs - 1) / bs;
    sh->block_cols = (a->cols + bs - 1) / bs;
    sh->m_pad = sh->block_rows * bs;
    sh->n_pad = sh->block_cols * bs;
    int64_t *stamp = malloc((size_t)(sh->block_cols > 0 ? sh->block_cols : 1) * sizeof *stamp);
    if (!stamp)
        return rt_err_set(err, "out of host memory measuring Blocked-ELL (%lld block columns)",
                          (long long)sh->block_cols);
    for (int64_t j = 0; j < sh->block_cols; ++j)
        stamp[j] = -1;
    for (int64_t br = 0; br < sh->block_rows; ++br) {
        const int64_t r1 = (br + 1) * bs < a->rows ? (br + 1) * bs : a->rows;
        int64_t distinct = 0;
        for (int64_t e = a->rowptr[br * bs]; e < a->rowptr[r1]; ++e) {
            const int64_t bc = a->colidx[e] / bs;
            if (stamp[bc] != br) {
                stamp[bc] = br;
                ++distinct;
            }
        }
        if (distinct > sh->ell_blocks)
            sh->ell_blocks = distinct;
    }
    free(stamp);
    sh->stored = sh->m_pad * sh->ell_blocks * bs;
    return 0;
}

static int bell_padding_ok(const rt_csr *a, const bell_shape *sh, char *why, size_t whylen)
{
    const double factor = a->nnz > 0 ? (double)sh->stored / (double)a->nnz : 0.0;
    if (a->nnz == 0 || factor > RT_CUSPARSE_BELL_MAX_PADDING) {
        snprintf(why, whylen,
                 "Blocked-ELL with ell_block=%lld stores %lld values for %lld nonzeros (padding "
                 "factor %.2f, more than %.0f)",
                 (long long)sh->bs, (long long)sh->stored, (long long)a->nnz, factor,
                 RT_CUSPARSE_BELL_MAX_PADDING);
        return 0;
    }
    return 1;
}

static int compare_int32(const void *x, const void *y)
{
    const int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* Fills colind (block_rows x ell_blocks, -1 for empty) and values (m_pad x ell_blocks*bs,
 * row-major, zeros for padding). */
static int bell_fill(const rt_csr *a, const bell_shape *sh, int32_t *colind, double *values,
                     rt_err *err)
{
    const int64_t bs = sh->bs, eb = sh->ell_blocks, ell_cols = eb * bs;
    int64_t *stamp = malloc((size_t)(sh->block_cols > 0 ? sh->block_cols : 1) * sizeof *stamp);
    int32_t *slot = malloc((size_t)(sh->block_cols > 0 ? sh->block_cols : 1) * sizeof *slot);
    if (!stamp || !slot) {
        free(stamp);
        free(slot);
        return rt_err_set(err, "out of host memory building Blocked-ELL");
    }
    for (int64_t j = 0; j < sh->block_cols; ++j)
        stamp[j] = -1;
    for (int64_t i = 0; i < sh->block_rows * eb; ++i)
        colind[i] = -1;
    memset(values, 0, (size_t)sh->stored * sizeof *values);
    for (int64_t br = 0; br < sh->block_rows; ++br) {
        const int64_t r0 = br * bs;
        const int64_t r1 = (br + 1) * bs < a->rows ? (br + 1) * bs : a->rows;
        int32_t *list = colind + br * eb;
        int64_t count = 0;
        for (int64_t e = a->rowptr[r0]; e < a->rowptr[r1]; ++e) {
            const int64_t bc = a->colidx[e] / bs;
            if (stamp[bc] != br) {
                stamp[bc] = br;
                list[count++] = (int32_t)bc;
            }
        }
        /* Increasing block columns, so the layout does not depend on the order rows list them. */
        qsort(list, (size_t)count, sizeof *list, compare_int32);
        for (int64_t j = 0; j < count; ++j)
            slot[list[j]] = (int32_t)j;
        for (int64_t r = r0; r < r1; ++r)
            for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {
                const int64_t c = a->colidx[e];
                values[r * ell_cols + (int64_t)slot[c / bs] * bs + c % bs] = a->val[e];
            }
    }
    free(stamp);
    free(slot);
    return 0;
}

int rt_cusparse_spmm_check(const rt_cusparse_alg *alg, const rt_device_info *dev, const rt_csr *a,
                           int64_t ell_block, char *why, size_t whylen, rt_err *err)
{
    if (alg->format != RT_CUSPARSE_BELL)
        return 0;
    if (dev->cc_major < 7) {
        snprintf(why, whylen,
                 "cuSPARSE Blocked-ELL SpMM needs compute capability 7.0, the device has %d.%d",
                 dev->cc_major, dev->cc_minor);
        return RT_INFEASIBLE;
    }
    bell_shape sh;
    if (bell_measure(a, ell_block, &sh, err) != 0)
        return -1;
    return bell_padding_ok(a, &sh, why, whylen) ? 0 : RT_INFEASIBLE;
}

static int index_bits_of(const rt_csr *a)
{
    /* 32-bit indices whenever they reach: half the index traffic, and some algorithms take no
     * other. */
    return (a->nnz <= INT32_MAX && a->rows < INT32_MAX && a->cols < INT32_MAX) ? 32 : 64;
}

int rt_cusparse_sparse_bytes(const rt_cusparse_alg *alg, const rt_csr *a, rt_precision prec,
                             int64_t ell_block, double *bytes, rt_err *err)
{
    const double elem = (double)rt_precision_bytes(prec);
    const double idx = index_bits_of(a) / 8.0;
    switch (alg->format) {
    case RT_CUSPARSE_COO: *bytes = (double)a->nnz * (elem + 2.0 * idx); return 0;
    case RT_CUSPARSE_BELL: {
        bell_shape sh;
        if (bell_measure(a, ell_block, &sh, err) != 0)
            return -1;
        *bytes = (double)sh.stored * elem + (double)(sh.block_rows * sh.ell_blocks) * 4.0;
        return 0;
    }
    default: *bytes = (double)a->nnz * (elem + idx) + (double)(a->rows + 1) * idx; return 0;
    }
}

/* ---------------------------------------------------------------------------------------------
 * A on the device */

/* Converts int64 offsets or int32 indices to the chosen index width and uploads them. */
static int upload_indices(rt_cusparse_sparse *s, const void *src, int src_is_64, int64_t n,
                          void **dptr, const char *label, const char *owner, rt_err *err)
{
    char what[900];
    snprintf(what, sizeof what, "%s of %s", label, owner);
    const size_t width = s->index_bits == 64 ? 8 : 4;
    if ((src_is_64 && width == 8) || (!src_is_64 && width == 4))
        return rt_cuda_upload_new(s->ctx, src, (size_t)n * width, dptr, what, err);
    void *tmp = malloc(n > 0 ? (size_t)n * width : 1);
    if (!tmp)
        return rt_err_set(err, "%s: out of host memory converting %lld indices", what,
                          (long long)n);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t v = src_is_64 ? ((const int64_t *)src)[i] : ((const int32_t *)src)[i];
        if (width == 8)
            ((int64_t *)tmp)[i] = v;
        else
            ((int32_t *)tmp)[i] = (int32_t)v;
    }
    const int rc = rt_cuda_upload_new(s->ctx, tmp, (size_t)n * width, dptr, what, err);
    free(tmp);
    return rc;
}

static cudaDataType value_type(rt_precision prec)
{
    return prec == RT_FP64 ? CUDA_R_64F : CUDA_R_32F;
}

static int build_csr_or_coo(rt_cusparse_sparse *s, rt_cusparse_lib *lib, const rt_csr *a,
                            rt_precision prec, const char *owner, rt_err *err)
{
    const cusparseIndexType_t it = s->index_bits == 64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
    char what[900];
    snprintf(what, sizeof what, "values of %s", owner);
    int rc = rt_cuda_upload_values(s->ctx, a->val, a->nnz, prec, &s->d_val, what, err);
    if (rc == 0)
        rc = upload_indices(s, a->colidx, 0, a->nnz, &s->d_col, "column indices", owner, err);
    if (rc != 0)
        return rc;
    s->stored = a->nnz;
    if (s->format == RT_CUSPARSE_CSR) {
        rc = upload_indices(s, a->rowptr, 1, a->rows + 1, &s->d_row, "row offsets", owner, err);
        if (rc != 0)
            return rc;
        RT_CUSPARSE_CHECK(lib, owner,
                          cusparseCreateCsr(&s->mat, a->rows, a->cols, a->nnz, s->d_row, s->d_col,
                                            s->d_val, it, it, CUSPARSE_INDEX_BASE_ZERO,
                                            value_type(prec)),
                          1, err);
        s->have_mat = 1;
        return 0;
    }
    int64_t *rows = malloc((size_t)(a->nnz > 0 ? a->nnz : 1) * sizeof *rows);
    if (!rows)
        return rt_err_set(err, "%s: out of host memory building COO rows", owner);
    for (int64_t r = 0; r < a->rows; ++r)
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
            rows[e] = r;
    rc = upload_indices(s, rows, 1, a->nnz, &s->d_row, "row indices", owner, err);
    free(rows);
    if (rc != 0)
        return rc;
    RT_CUSPARSE_CHECK(lib, owner,
                      cusparseCreateCoo(&s->mat, a->rows, a->cols, a->nnz, s->d_row, s->d_col,
                                        s->d_val, it, CUSPARSE_INDEX_BASE_ZERO, value_type(prec)),
                      1, err);
    s->have_mat = 1;
    return 0;
}

static int build_bell(rt_cusparse_sparse *s, rt_cusparse_lib *lib, const rt_csr *a,
                      rt_precision prec, const bell_shape *sh, const char *owner, rt_err *err)
{
    const int64_t n_colind = sh->block_rows * sh->ell_blocks;
    int32_t *colind = malloc((size_t)(n_colind > 0 ? n_colind : 1) * sizeof *colind);
    double *values = malloc((size_t)(sh->stored > 0 ? sh->stored : 1) * sizeof *values);
    if (!colind || !values) {
        free(colind);
        free(values);
        return rt_err_set(err, "%s: out of host memory building Blocked-ELL (%lld values)", owner,
                          (long long)sh->stored);
    }
    int rc = bell_fill(a, sh, colind, values, err);
    char what[900];
    if (rc == 0) {
        snprintf(what, sizeof what, "Blocked-ELL values of %s (padding factor %.2f)", owner,
                 (double)sh->stored / (double)(a->nnz > 0 ? a->nnz : 1));
        rc = rt_cuda_upload_values(s->ctx, values, sh->stored, prec, &s->d_val, what, err);
    }
    if (rc == 0) {
        snprintf(what, sizeof what, "Blocked-ELL block columns of %s", owner);
        rc = rt_cuda_upload_new(s->ctx, colind, (size_t)n_colind * sizeof *colind, &s->d_col, what,
                                err);
    }
    free(colind);
    free(values);
    if (rc != 0)
        return rc;
    s->stored = sh->stored;
    s->ell_cols = sh->ell_blocks * sh->bs;
    s->padding_overhead = (double)sh->stored / (double)a->nnz - 1.0;
    RT_CUSPARSE_CHECK(lib, owner,
                      cusparseCreateBlockedEll(&s->mat, sh->m_pad, sh->n_pad, sh->bs, s->ell_cols,
                                               s->d_col, s->d_val, CUSPARSE_INDEX_32I,
                                               CUSPARSE_INDEX_BASE_ZERO, value_type(prec)),
                      1, err);
    s->have_mat = 1;
    return 0;
}

int rt_cusparse_sparse_create(rt_cusparse_sparse *s, rt_cuda_ctx *ctx, rt_cusparse_lib *lib,
                              const rt_cusparse_alg *alg, const rt_csr *a, rt_precision prec,
                              int64_t ell_block, const char *what, rt_err *err)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->format = alg->format;
    s->rows = a->rows;
    s->cols = a->cols;
    s->index_bits = index_bits_of(a);
    if (alg->format != RT_CUSPARSE_BELL)
        return build_csr_or_coo(s, lib, a, prec, what, err);
    bell_shape sh;
    if (bell_measure(a, ell_block, &sh, err) != 0)
        return rt_err_prefix(err, "%s", what);
    char why[512];
    if (!bell_padding_ok(a, &sh, why, sizeof why)) {
        rt_err_set(err, "%s: %s", what, why);
        return RT_INFEASIBLE;
    }
    s->index_bits = 32;
    s->rows = sh.m_pad;
    s->cols = sh.n_pad;
    return build_bell(s, lib, a, prec, &sh, what, err);
}

void rt_cusparse_sparse_free(rt_cusparse_sparse *s)
{
    if (!s || !s->ctx)
        return;
    if (s->have_mat)
        cusparseDestroySpMat(s->mat);
    rt_cuda_free(s->ctx, s->d_val);
    rt_cuda_free(s->ctx, s->d_row);
    rt_cuda_free(s->ctx, s->d_col);
    memset(s, 0, sizeof *s);
}

void rt_cusparse_sparse_metrics(const rt_cusparse_sparse *s, rt_metrics *m)
{
    rt_metrics_add(m, "index_bits", "count", s->index_bits, 1);
    rt_metrics_add(m, "stored_entries", "count", (double)s->stored, 1);
    rt_metrics_add(m, "format_blocked_ell", "count", s->format == RT_CUSPARSE_BELL, 1);
    rt_metrics_add(m, "format_coo", "count", s->format == RT_CUSPARSE_COO, 1);
    if (s->format == RT_CUSPARSE_BELL) {
        rt_metrics_add(m, "padding_overhead", "ratio", s->padding_overhead, 1);
        rt_metrics_add(m, "ell_cols", "count", (double)s->ell_cols, 1);
    }
}
