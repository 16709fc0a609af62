// spmm.cuda.ell: C = A * B with A in warp-sliced ELL (rt_ell: slices of `slice_height` consecutive
// rows padded to the slice's longest row; entry j of row r at slice_ptr[s] + j * h + r % h, padding
// has column -1). One thread per row, so a warp reads one slice with coalesced loads of A.
//   RT_FP64, RT_ROW_MAJOR, BLOCK_SIZE, REGISTER, MIN_BLOCKS: as in spmm_csr.cu (rt_row_tile.cuh).
#include "rt_row_tile.cuh"
#include "rt_kernel_types.cuh"

extern "C" __global__ void RT_LAUNCH_BOUNDS
rt_spmm_ell(value_t *__restrict__ C, const value_t *__restrict__ B,
            const long long *__restrict__ slice_ptr, const int *__restrict__ slice_width,
            const int *__restrict__ colidx, const value_t *__restrict__ val, long long nrows,
            long long ncols, int K, int ntiles, int slice_height)
{
    const long long row = (long long)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (row >= nrows)
        return;
    const long long slice = row / slice_height;
    const long long lane = row - slice * slice_height;
    const long long base = slice_ptr[slice] + lane;
    const int width = slice_width[slice];
    for (int tile = blockIdx.y; tile < ntiles; tile += gridDim.y) {
        const int k0 = tile * REGISTER;
        const int kcount = (K - k0 < REGISTER) ? K - k0 : REGISTER;
        value_t acc[REGISTER];
        rt_row_tile_zero(acc);
        for (int j = 0; j < width; ++j) {
            const long long e = base + (long long)j * slice_height;
            const int c = colidx[e];
            // Padding (column -1) is skipped rather than multiplied by zero: a zero times an
            // infinite B entry would still poison the row.
            if (c < 0)
                continue;
            const value_t a = val[e];
            const long long col = c;
            rt_row_tile_fma(acc, a, B, col, K, k0, kcount, ncols);
        }
        rt_row_tile_store(C, acc, row, K, k0, kcount, nrows);
    }
}
