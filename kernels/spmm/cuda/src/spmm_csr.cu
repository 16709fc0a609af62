// spmm.cuda.csr: C = A * B with A in CSR, one thread per row of A, REGISTER columns of C per
// thread held in registers. Compiled at run time by NVRTC; the defines below select the variant
// (their defaults only serve the nvcc syntax check in the build): RT_FP64, RT_ROW_MAJOR,
// BLOCK_SIZE, REGISTER, MIN_BLOCKS, described in rt_row_tile.cuh with the row's register tile.
// B is n x K, C is m x K. grid.x covers the rows, grid.y walks K in tiles of REGISTER; when K needs
// more than 65535 tiles each block loops over the tiles it owns (blockIdx.y + j * gridDim.y).
#include "rt_row_tile.cuh"
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
        rt_row_tile_zero(acc);
        for (long long e = begin; e < end; ++e) {
            const value_t a = val[e];
            const long long col = colidx[e];
            rt_row_tile_fma(acc, a, B, col, K, k0, kcount, ncols);
        }
        rt_row_tile_store(C, acc, row, K, k0, kcount, nrows);
    }
}
