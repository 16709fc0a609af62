/* sptrsv_cuda_solve: the device kernels of sptrsv.cuda.levelset and sptrsv.cuda.syncfree, compiled
 * by nvcc as whole-program CUDA (fixed kernels, no NVRTC variants) and called from C through these
 * launchers. Both solve L X = B with L in CSR (int32 row pointers and columns, diagonal last in
 * every row) and B, X row-major n x nrhs, one warp per row: the lanes split the row's
 * off-diagonal entries, a warp reduction sums them per right-hand side, lane 0 divides by the
 * diagonal and writes the row of X.
 *
 * Each launcher enqueues its work on `stream` (a cudaStream_t) and returns the launch's
 * cudaError_t (0: cudaSuccess). */
#ifndef SPTRSV_CUDA_SOLVE_H
#define SPTRSV_CUDA_SOLVE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Solves the rows level_rows[0 .. count) of one level, whose dependencies are all in earlier
 * levels (already solved by earlier launches on the same stream). */
int sptrsv_cuda_level_launch(void *stream, int threads_per_block, const int32_t *rowptr,
                             const int32_t *colidx, const double *val, const double *b, double *x,
                             int32_t nrhs, const int32_t *level_rows, int32_t count);

/* Solves the levels [lv0, lv1) in one launch of a single block, a block barrier between levels:
 * for runs of levels no wider than the block's warps, which one launch per level would give one
 * block each anyway. level_ptr (device, int32) indexes level_rows by level. */
int sptrsv_cuda_levels_block_launch(void *stream, int threads_per_block, const int32_t *rowptr,
                                    const int32_t *colidx, const double *val, const double *b,
                                    double *x, int32_t nrhs, const int32_t *level_rows,
                                    const int32_t *level_ptr, int32_t lv0, int32_t lv1);

/* Solves all n rows in one launch. order[0 .. n) is a topological order of the rows (every row
 * after the rows it depends on); a warp takes the next row of that order from *ticket, so every
 * row a warp waits for is held by a warp that is already running, and no schedule can deadlock.
 * ready[0 .. n) and *ticket must be zero before the launch (sptrsv_cuda_syncfree_reset). */
int sptrsv_cuda_syncfree_launch(void *stream, int threads_per_block, const int32_t *rowptr,
                                const int32_t *colidx, const double *val, const double *b,
                                double *x, int32_t nrhs, const int32_t *order, int32_t n,
                                int32_t *ready, uint32_t *ticket);

/* Clears ready[0 .. n) and *ticket on the stream (asynchronous). */
int sptrsv_cuda_syncfree_reset(void *stream, int32_t *ready, int32_t n, uint32_t *ticket);

#ifdef __cplusplus
}
#endif

#endif
