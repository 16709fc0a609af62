/* rt_matrix_stats: the structure of a sparse matrix as `rooftune matrix` prints it: shape,
 * nonzeros per row, bandwidth, and how much a Tiled SpMM block of rows reuses each staged row of
 * the dense operand (the footprint of every block of block_size rows, whole, with no buffer limit).
 */
#ifndef RT_MATRIX_STATS_H
#define RT_MATRIX_STATS_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"

typedef struct rt_matrix_stats {
    int64_t rows, cols, nnz;
    double density;              /* nnz / (rows * cols) */
    int64_t row_nnz_min;         /* nonzeros in the emptiest row */
    int64_t row_nnz_max;         /* and in the fullest */
    double row_nnz_mean;         /* nnz / rows */
    double row_nnz_stddev;       /* population standard deviation over rows */
    int64_t empty_rows;          /* rows with no stored entry */
    int64_t bandwidth;           /* max |i - j| over stored entries */
    int block_size;              /* rows per Tiled SpMM block (the reuse below is for it) */
    int64_t tiled_footprint;     /* sum over blocks of the distinct columns the block touches */
    double tiled_reuse;          /* nnz / tiled_footprint: uses of each staged row of B */
    int64_t tiled_footprint_max; /* most distinct columns of one block */
} rt_matrix_stats;

/* Fills s for a (validated CSR). block_size >= 1 rows per block. Fails only on bad arguments or
 * when the scratch memory for the footprints cannot be had (a->cols bytes). */
int rt_matrix_stats_compute(const rt_csr *a, int block_size, rt_matrix_stats *s, rt_err *err);

#endif
