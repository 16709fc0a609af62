// rt_row_tile: the one-thread-per-row SpMM kernels (spmm_csr.cu, spmm_ell.cu): their defaults and
// the register tile of a row of C, REGISTER columns from k0 (kcount of them real when K is not a
// multiple of REGISTER), accumulated from rows of B and stored in the layout RT_ROW_MAJOR says.
// Include it before rt_kernel_types.cuh (which reads BLOCK_SIZE and MIN_BLOCKS); the helpers take
// the value type as a template parameter. Embedded like rt_async_copy.cuh.
//   RT_FP64       0: float, 1: double            RT_ROW_MAJOR  1: B and C row-major, 0:
//   column-major BLOCK_SIZE    threads per block              REGISTER      columns of C per thread
//   (1..64) MIN_BLOCKS    __launch_bounds__ minimum blocks per SM (0: none)
#ifndef RT_ROW_TILE_CUH
#define RT_ROW_TILE_CUH

// (RT_FP64 defaults to 0 in rt_kernel_types.cuh.)
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 0
#endif
#ifndef REGISTER
#define REGISTER 4
#endif
#ifndef RT_ROW_MAJOR
#define RT_ROW_MAJOR 1
#endif

template <typename T> __device__ __forceinline__ void rt_row_tile_zero(T (&acc)[REGISTER])
{
#pragma unroll
    for (int k = 0; k < REGISTER; ++k)
        acc[k] = 0;
}

// acc += a * B(col, k0 .. k0 + kcount - 1); B is ncols rows of K (row- or column-major).
template <typename T>
__device__ __forceinline__ void
rt_row_tile_fma(T (&acc)[REGISTER], const T a, const T *__restrict__ B, const long long col,
                const int K, const int k0, const int kcount, const long long ncols)
{
#if RT_ROW_MAJOR
    const T *b = B + col * K + k0;
#pragma unroll
    for (int k = 0; k < REGISTER; ++k)
        if (k < kcount)
            acc[k] += a * b[k];
#else
    const T *b = B + (long long)k0 * ncols + col;
#pragma unroll
    for (int k = 0; k < REGISTER; ++k)
        if (k < kcount)
            acc[k] += a * b[(long long)k * ncols];
#endif
}

// C(row, k0 .. k0 + kcount - 1) = acc; C is nrows rows of K.
template <typename T>
__device__ __forceinline__ void rt_row_tile_store(T *__restrict__ C, const T (&acc)[REGISTER],
                                                  const long long row, const int K, const int k0,
                                                  const int kcount, const long long nrows)
{
#pragma unroll
    for (int k = 0; k < REGISTER; ++k) {
        if (k < kcount) {
#if RT_ROW_MAJOR
            C[row * K + k0 + k] = acc[k];
#else
            C[(long long)(k0 + k) * nrows + row] = acc[k];
#endif
        }
    }
}

#endif
