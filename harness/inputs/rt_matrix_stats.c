/* rt_matrix_stats: see rt_matrix_stats.h. */
#include "rt_matrix_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_ordering.h"

int rt_matrix_stats_compute(const rt_csr *a, int block_size, rt_matrix_stats *s, rt_err *err)
{
    memset(s, 0, sizeof *s);
    if (block_size < 1)
        return rt_err_set(err, "block size %d: must be at least 1", block_size);
    s->rows = a->rows;
    s->cols = a->cols;
    s->nnz = a->nnz;
    s->block_size = block_size;
    s->density = a->rows > 0 && a->cols > 0 ? (double)a->nnz / ((double)a->rows * a->cols) : 0.0;
    s->bandwidth = rt_ordering_bandwidth(a);
    if (a->rows == 0)
        return 0;
    s->row_nnz_min = INT64_MAX;
    double sumsq = 0.0;
    const double mean = (double)a->nnz / (double)a->rows;
    for (int64_t i = 0; i < a->rows; ++i) {
        const int64_t n = a->rowptr[i + 1] - a->rowptr[i];
        if (n < s->row_nnz_min)
            s->row_nnz_min = n;
        if (n > s->row_nnz_max)
            s->row_nnz_max = n;
        s->empty_rows += n == 0;
        sumsq += ((double)n - mean) * ((double)n - mean);
    }
    s->row_nnz_mean = mean;
    s->row_nnz_stddev = sqrt(sumsq / (double)a->rows);

    /* Distinct columns per block: a column is counted once per block, marked with the block's
     * number (+1 so that 0 means never seen), so the scratch array is cleared only once. */
    int64_t *seen = calloc(a->cols > 0 ? (size_t)a->cols : 1, sizeof *seen);
    if (!seen)
        return rt_err_set(err, "cannot allocate %lld bytes for the block footprints",
                          (long long)(a->cols * (int64_t)sizeof *seen));
    for (int64_t b = 0; b * block_size < a->rows; ++b) {
        const int64_t r0 = b * block_size;
        const int64_t r1 = r0 + block_size < a->rows ? r0 + block_size : a->rows;
        int64_t distinct = 0;
        for (int64_t k = a->rowptr[r0]; k < a->rowptr[r1]; ++k) {
            const int32_t c = a->colidx[k];
            if (seen[c] != b + 1) {
                seen[c] = b + 1;
                ++distinct;
            }
        }
        s->tiled_footprint += distinct;
        if (distinct > s->tiled_footprint_max)
            s->tiled_footprint_max = distinct;
    }
    free(seen);
    s->tiled_reuse = s->tiled_footprint > 0 ? (double)a->nnz / (double)s->tiled_footprint : 0.0;
    return 0;
}
