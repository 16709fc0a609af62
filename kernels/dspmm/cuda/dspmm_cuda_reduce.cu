#include "dspmm_cuda_reduce.h"

#include <cuda_runtime.h>

/* One thread per element of the n x w source, grid-stride so any size fits a bounded grid. */
template <typename T>
__global__ void reduce_rows_kernel(T *__restrict__ dst, int64_t ldd, int64_t c0,
                                   const T *__restrict__ src, const int64_t *__restrict__ src_rows,
                                   const int64_t *__restrict__ map, int64_t n, int64_t w)
{
    const int64_t total = n * w;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        const int64_t r = i / w, j = i - r * w;
        const int64_t from = (src_rows ? src_rows[r] : r) * w + j;
        dst[map[r] * ldd + c0 + j] += src[from];
    }
}

extern "C" int dspmm_cuda_reduce_rows(void *stream, int fp64, void *dst, int64_t ldd, int64_t c0,
                                      const void *src, const int64_t *src_rows, const int64_t *map,
                                      int64_t n, int64_t w)
{
    if (n <= 0 || w <= 0)
        return (int)cudaSuccess;
    const int threads = 256;
    const int64_t want = (n * w + threads - 1) / threads;
    /* Enough blocks to fill any current GPU several times over; the loop covers the rest. */
    const unsigned blocks = (unsigned)(want < 65536 ? want : 65536);
    cudaStream_t s = (cudaStream_t)stream;
    if (fp64)
        reduce_rows_kernel<double><<<blocks, threads, 0, s>>>(
            (double *)dst, ldd, c0, (const double *)src, src_rows, map, n, w);
    else
        reduce_rows_kernel<float><<<blocks, threads, 0, s>>>(
            (float *)dst, ldd, c0, (const float *)src, src_rows, map, n, w);
    return (int)cudaGetLastError();
}
