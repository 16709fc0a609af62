// spmm.cuda.csr: C = A * B with A in CSR, one thread per row of A, REGISTER columns of C per
// thread held in registers. Compiled at run time by NVRTC; the defines below select the variant
// (their defaults only serve the nvcc syntax check in the build).
//   RT_FP64       0: float, 1: double            RT_ROW_MAJOR  1: B and C row-major, 0:
//   column-major BLOCK_SIZE    threads per block               REGISTER      columns of C per
//   thread (1..64) MIN_BLOCKS    __launch_bounds__ minimum blocks per SM (0: none)
// B is n x K, C is m x K. grid.x covers the rows, grid.y walks K in tiles of REGISTER; when K needs
// more than 65535 tiles each block loops over the tiles it owns (blockIdx.y + j * gridDim.y).
#ifndef RT_FP64
#define RT_FP64 0
#endif
#ifndef RT_ROW_MAJOR
#define RT_ROW_MAJOR 1
#endif
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef REGISTER
#define REGISTER 4
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 0
#endif

#include "rt_kernel_types.cuh"

extern "C" __global__ void RT_LAUNCH_BOUNDS
rt_spmm_csr(value_t *__restrict__ C, const value_t *__restrict__ B,
            const long long *__restrict__ rowptr, const int *__restrict__ colidx,
            const value_t *__restrict__ val, long long nrows, long long ncols, int K, int ntiles)
{
    const long long row = (long long)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    // No barriers in this kernel, so threads past the last row may leave at once.
    if (row >= nrows)
        return;
    const long long begin = rowptr[row];
    const long long end = rowptr[row + 1];
    for (int tile = blockIdx.y; tile < ntiles; tile += gridDim.y) {
        const int k0 = tile * REGISTER;
        // The last tile may be partial when K is not a multiple of REGISTER.
        const int kcount = (K - k0 < REGISTER) ? K - k0 : REGISTER;
        value_t acc[REGISTER];
#pragma unroll
        for (int k = 0; k < REGISTER; ++k)
            acc[k] = 0;
        for (long long e = begin; e < end; ++e) {
            const value_t a = val[e];
            const long long col = colidx[e];
#if RT_ROW_MAJOR
            const value_t *b = B + col * K + k0;
#pragma unroll
            for (int k = 0; k < REGISTER; ++k)
                if (k < kcount)
                    acc[k] += a * b[k];
#else
            const value_t *b = B + (long long)k0 * ncols + col;
#pragma unroll
            for (int k = 0; k < REGISTER; ++k)
                if (k < kcount)
                    acc[k] += a * b[(long long)k * ncols];
#endif
        }
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
}
