/* rt_cusparse_spmm: what the kernels that multiply with cusparseSpMM share (spmm.cuda.cusparse,
 * spdnn.cuda.cusparse): the algorithms by name (kernels/shared/rt_cusparse_algs.h) with the sparse
 * format each reads, the library handle of a CUDA context with cuSPARSE's log kept for messages,
 * failed calls turned into messages (and into infeasible points where the library declines the
 * operands), and a sparse matrix on the device in the algorithm's format, built from a host CSR.
 *
 * Seen on an H100 with CUDA 13.0 (tests/cuda/test_cuda_gpu.c prints the table): every algorithm
 * accepts fp32 and fp64, row- and column-major dense operands, with 32-bit indices, and matches
 * the fp64 reference to working precision -- except Blocked-ELL in fp32, which cuSPARSE computes
 * through TF32 tensor cores (normwise error about 3e-4): the verification gate records those
 * points as wrong rather than this module hiding them. An algorithm that cuSPARSE rejects for a
 * combination (CUSPARSE_STATUS_NOT_SUPPORTED, e.g. on other versions or architectures) becomes an
 * infeasible point carrying cuSPARSE's logged reason. */
#ifndef RT_CUSPARSE_SPMM_H
#define RT_CUSPARSE_SPMM_H

#include <stddef.h>
#include <stdint.h>

#include <cusparse.h>

#include "rt_cuda_ctx.h"
#include "rt_device.h"
#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_metrics.h"

/* Blocked-ELL stores whole ell_block x ell_block blocks; beyond this many stored values per
 * nonzero the format measures padding, not SpMM, and the point is infeasible. */
#define RT_CUSPARSE_BELL_MAX_PADDING 4.0

typedef enum rt_cusparse_format {
    RT_CUSPARSE_CSR = 0,
    RT_CUSPARSE_COO = 1,
    RT_CUSPARSE_BELL = 2
} rt_cusparse_format;

typedef struct rt_cusparse_alg {
    const char *name; /* the `alg` parameter's value */
    cusparseSpMMAlg_t alg;
    rt_cusparse_format format;
} rt_cusparse_alg;

/* The algorithm of that name (one of RT_CUSPARSE_SPMM_ALGS), or NULL with err naming `owner`. */
const rt_cusparse_alg *rt_cusparse_spmm_alg(const char *name, const char *owner, rt_err *err);

/* The context's cuSPARSE handle, created on first use on the context's stream and kept as a memo
 * of the context (key "cusparse.handle"): one handle serves every kernel of the plugin. With
 * CUSPARSE_LOG_LEVEL unset, cuSPARSE's log goes to a private temporary file, whose last line a
 * failure message quotes. */
typedef struct rt_cusparse_lib rt_cusparse_lib;
int rt_cusparse_lib_get(rt_cuda_ctx *ctx, rt_cusparse_lib **out, rt_err *err);
cusparseHandle_t rt_cusparse_handle(const rt_cusparse_lib *lib);

/* A failed call: err = "<what>: <call> failed: <status>[: <cuSPARSE's last log line>]". Returns
 * RT_INFEASIBLE when infeasible_allowed and cuSPARSE declines these operands (not supported,
 * architecture mismatch, allocation failed, insufficient resources), else -1. */
int rt_cusparse_fail(rt_cusparse_lib *lib, const char *what, const char *call, cusparseStatus_t st,
                     int infeasible_allowed, rt_err *err);

#define RT_CUSPARSE_CHECK(lib, what, call, infeasible_allowed, err)                                \
    do {                                                                                           \
        const cusparseStatus_t rt_cusparse_st_ = (call);                                           \
        if (rt_cusparse_st_ != CUSPARSE_STATUS_SUCCESS)                                            \
            return rt_cusparse_fail((lib), (what), #call, rt_cusparse_st_, (infeasible_allowed),   \
                                    (err));                                                        \
    } while (0)

/* Whether alg can run A on dev: Blocked-ELL needs compute capability 7.0 and a padding factor
 * within RT_CUSPARSE_BELL_MAX_PADDING (ell_block is its block size). 0, RT_INFEASIBLE with why,
 * or -1 (out of memory measuring). */
int rt_cusparse_spmm_check(const rt_cusparse_alg *alg, const rt_device_info *dev, const rt_csr *a,
                           int64_t ell_block, char *why, size_t whylen, rt_err *err);

/* The bytes of A the algorithm reads from memory: values and indices of its format, Blocked-ELL's
 * padding included (the traffic models' A term). */
int rt_cusparse_sparse_bytes(const rt_cusparse_alg *alg, const rt_csr *a, rt_precision prec,
                             int64_t ell_block, double *bytes, rt_err *err);

/* A on the device in alg's format, with its cuSPARSE descriptor. */
typedef struct rt_cusparse_sparse {
    rt_cuda_ctx *ctx;
    rt_cusparse_format format;
    void *d_val, *d_row, *d_col;
    cusparseSpMatDescr_t mat;
    int have_mat;
    int index_bits;          /* 32 whenever A's indices fit (always for Blocked-ELL), else 64 */
    int64_t rows, cols;      /* of the descriptor: A's, padded to whole blocks for Blocked-ELL */
    int64_t stored;          /* values stored, padding included */
    int64_t ell_cols;        /* Blocked-ELL: block columns per block row x ell_block */
    double padding_overhead; /* Blocked-ELL: stored / nnz - 1 */
} rt_cusparse_sparse;

/* Builds A (values converted to prec) for alg and uploads it; `what` names the point in messages.
 * Returns 0, RT_INFEASIBLE (device memory, a declined descriptor, too much Blocked-ELL padding)
 * or -1. On failure what was uploaded stays in s for rt_cusparse_sparse_free. */
int rt_cusparse_sparse_create(rt_cusparse_sparse *s, rt_cuda_ctx *ctx, rt_cusparse_lib *lib,
                              const rt_cusparse_alg *alg, const rt_csr *a, rt_precision prec,
                              int64_t ell_block, const char *what, rt_err *err);
void rt_cusparse_sparse_free(rt_cusparse_sparse *s);
/* index_bits, stored_entries, format_blocked_ell, format_coo, and for Blocked-ELL
 * padding_overhead and ell_cols. */
void rt_cusparse_sparse_metrics(const rt_cusparse_sparse *s, rt_metrics *m);

#endif
