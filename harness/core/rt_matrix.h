/* rt_matrix: the sparse and dense containers every stage shares.
 *
 * Sparse matrices live on the host as CSR with 64-bit row offsets and 32-bit column indices;
 * values are kept in double and each kernel converts to its precision, so one matrix in memory
 * serves FP32 and FP64 points alike. Warp-sliced ELL (padding per 32 consecutive rows, rows not
 * sorted) is derived from CSR. Implemented in harness/core/rt_matrix.c. */
#ifndef RT_MATRIX_H
#define RT_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

typedef enum rt_precision { RT_FP32 = 0, RT_FP64 = 1 } rt_precision;
typedef enum rt_layout { RT_ROW_MAJOR = 0, RT_COL_MAJOR = 1 } rt_layout;

/* "fp32"/"fp64" and "row"/"col"; -1 when unknown. */
int rt_precision_parse(const char *s);
int rt_layout_parse(const char *s);
const char *rt_precision_name(rt_precision p);
const char *rt_layout_name(rt_layout l);
size_t rt_precision_bytes(rt_precision p);

typedef struct rt_csr {
    int64_t rows;
    int64_t cols;
    int64_t nnz;
    int64_t *rowptr; /* rows + 1 entries */
    int32_t *colidx; /* nnz entries, sorted within each row, no duplicates */
    double *val;     /* nnz entries */
} rt_csr;

/* Allocates rowptr (zeroed), colidx and val for the given shape; fails with a message naming the
 * bytes requested when memory is short. */
int rt_csr_alloc(rt_csr *m, int64_t rows, int64_t cols, int64_t nnz, rt_err *err);
void rt_csr_free(rt_csr *m);
/* Checks the invariants above (monotone rowptr, indices in range and sorted, no duplicates). */
int rt_csr_validate(const rt_csr *m, rt_err *err);
/* Builds CSR from coordinate triplets (0-based); duplicates are summed, entries sorted. The input
 * arrays are not modified. */
int rt_csr_from_coo(rt_csr *out, int64_t rows, int64_t cols, int64_t nnz, const int64_t *ri,
                    const int64_t *ci, const double *v, rt_err *err);
/* Deep copy. */
int rt_csr_copy(rt_csr *dst, const rt_csr *src, rt_err *err);
/* Rows [r0, r1) as a new matrix with the same column count. */
int rt_csr_row_block(rt_csr *dst, const rt_csr *src, int64_t r0, int64_t r1, rt_err *err);
/* B = P A Q^T: row i of the result is row perm_rows[i] of A; column j of A becomes column
 * inv_cols[j] (either permutation may be NULL for identity). */
int rt_csr_permute(rt_csr *dst, const rt_csr *src, const int64_t *perm_rows,
                   const int64_t *inv_cols, rt_err *err);

/* Warp-sliced ELL: rows grouped into slices of `slice_height` consecutive rows (32 = one warp);
 * each slice padded to its longest row. Entry j of row r (slice s = r / h, lane = r % h) lives at
 * slice_ptr[s] + j * h + lane. Padding entries have colidx -1 and value 0. */
typedef struct rt_ell {
    int64_t rows;
    int64_t cols;
    int64_t nnz;    /* real nonzeros */
    int64_t stored; /* entries including padding */
    int32_t slice_height;
    int64_t nslices;
    int64_t *slice_ptr;   /* nslices + 1 */
    int32_t *slice_width; /* nslices */
    int32_t *colidx;      /* stored */
    double *val;          /* stored */
} rt_ell;

int rt_ell_from_csr(rt_ell *out, const rt_csr *a, int32_t slice_height, rt_err *err);
int rt_ell_to_csr(rt_csr *out, const rt_ell *e, rt_err *err);
void rt_ell_free(rt_ell *e);

/* Dense matrix in either layout; data is float or double per prec. ld is the leading dimension
 * (cols for row-major, rows for column-major). */
typedef struct rt_dense {
    int64_t rows;
    int64_t cols;
    int64_t ld;
    rt_layout layout;
    rt_precision prec;
    void *data;
} rt_dense;

int rt_dense_alloc(rt_dense *d, int64_t rows, int64_t cols, rt_layout layout, rt_precision prec,
                   rt_err *err);
void rt_dense_free(rt_dense *d);
/* Deterministic values in [-1, 1) from seed (never all zeros: zeros hide unwritten outputs). */
void rt_dense_fill_random(rt_dense *d, uint64_t seed);
double rt_dense_get(const rt_dense *d, int64_t i, int64_t j);
void rt_dense_set(rt_dense *d, int64_t i, int64_t j, double v);

#endif
