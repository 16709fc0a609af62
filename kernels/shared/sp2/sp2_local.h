/* sp2_local: the local multiplies of the 2D algorithms, on one rank and one thread (one rank
 * per core, as the paper runs one process per GPU): sparse tile x dense tile (SpMM), sparse tile x
 * sparse tile (SpGEMM, Gustavson's row-by-row method with a dense accumulator), and the sparse
 * accumulator that sums the partial products of one C tile. Arithmetic is in the tiles'
 * precision (float or double). */
#ifndef SP2_LOCAL_H
#define SP2_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"
#include "sp2_dist.h"

/* c (a->rows x b->cols, row-major, leading dimension ldc) += a * b. a sparse, b dense with
 * b->rows == a->cols. Returns the flops done (2 per stored nonzero of a per column of b). */
double sp2_spmm_acc(const sp2_tile *a, const sp2_tile *b, void *c, int64_t ldc);

/* A growable CSR matrix in one precision (rowptr rows + 1, colidx and val nnz). */
typedef struct sp2_csrbuf {
    rt_precision prec;
    int64_t rows, cols, nnz;
    int64_t cap_rows, cap_nnz;
    int64_t *rowptr;
    int32_t *colidx;
    void *val;
} sp2_csrbuf;

void sp2_csrbuf_free(sp2_csrbuf *m);
/* Empties m and makes room for rows (+1) row pointers and nnz entries. */
int sp2_csrbuf_reset(sp2_csrbuf *m, rt_precision prec, int64_t rows, int64_t cols, int64_t nnz,
                     rt_err *err);
void sp2_csrbuf_view(const sp2_csrbuf *m, sp2_tile *out);

/* Dense accumulator of Gustavson's method: one value and one marker per column. */
typedef struct sp2_spa {
    rt_precision prec;
    int64_t cols;
    void *acc;
    int64_t *mark;
    int32_t *touched;
} sp2_spa;

int sp2_spa_init(sp2_spa *w, rt_precision prec, int64_t cols, rt_err *err);
void sp2_spa_free(sp2_spa *w);

/* out = a * b (both sparse, same precision, a->cols == b->rows), column indices sorted within
 * each row. *flops receives 2 per multiply-add. w must cover b->cols columns. */
int sp2_spgemm_tile(const sp2_tile *a, const sp2_tile *b, sp2_spa *w, sp2_csrbuf *out,
                    double *flops, rt_err *err);

/* The partial products of one sparse C tile, kept as (row, column, value) entries and summed at
 * the end: partial results arrive in any order (local products, queue messages, broadcasts). */
typedef struct sp2_spacc {
    rt_precision prec;
    int64_t rows, cols;
    int64_t n, cap;
    int32_t *r, *c;
    void *v;
} sp2_spacc;

int sp2_spacc_init(sp2_spacc *s, rt_precision prec, int64_t rows, int64_t cols, rt_err *err);
void sp2_spacc_free(sp2_spacc *s);
void sp2_spacc_clear(sp2_spacc *s);
/* Adds the rows [row0, row0 + nrows) of a partial given as CSR (rowptr relative to its first
 * entry, nrows + 1 values; colidx local to the tile; val in the accumulator's precision). */
int sp2_spacc_add_csr(sp2_spacc *s, int64_t row0, int64_t nrows, const int64_t *rowptr,
                      const int32_t *colidx, const void *val, rt_err *err);
/* Sums duplicates into out (sorted columns per row); w must cover the tile's columns. */
int sp2_spacc_finalize(const sp2_spacc *s, sp2_spa *w, sp2_csrbuf *out, rt_err *err);

#endif
