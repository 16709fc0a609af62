/* dspmm_cuda_reduce: the device reduction of dspmm.cuda.sender, compiled by nvcc as whole-program
 * CUDA (a fixed kernel with no variants, so no NVRTC) and called from C through this launcher.
 *
 *   dst[map[r] * ldd + c0 + j] += src[(src_rows ? src_rows[r] : r) * w + j]
 *
 * for r < n, j < w. The rows of one map are distinct (each destination row appears once), so the
 * rows are reduced in parallel without atomics, and because a reduction is one launch per source
 * buffer on one stream, applying peers in a fixed order gives the same result every time. */
#ifndef DSPMM_CUDA_REDUCE_H
#define DSPMM_CUDA_REDUCE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues the reduction on `stream` (a cudaStream_t) and returns the launch's cudaError_t (0:
 * cudaSuccess). fp64 selects double, else float. map and src_rows are device arrays of n int64;
 * src_rows may be NULL. n == 0 or w == 0 launches nothing. */
int dspmm_cuda_reduce_rows(void *stream, int fp64, void *dst, int64_t ldd, int64_t c0,
                           const void *src, const int64_t *src_rows, const int64_t *map, int64_t n,
                           int64_t w);

#ifdef __cplusplus
}
#endif

#endif
