#include "sptrsv_cuda_solve.h"

#include <cuda_runtime.h>

#define WARP      32
#define FULL_MASK 0xffffffffu

/* Sum over the warp; every lane gets the total. */
__device__ static double warp_sum(double v)
{
    for (int off = WARP / 2; off > 0; off /= 2)
        v += __shfl_xor_sync(FULL_MASK, v, off);
    return v;
}

/* One row of the solve by a whole warp. The x entries of the row's dependencies must be
 * visible to this warp; they are read through volatile pointers so that the syncfree kernel never
 * sees a stale cached copy (the level-set kernel's launches order them anyway). */
__device__ static void solve_row(int32_t i, const int32_t *__restrict__ rowptr,
                                 const int32_t *__restrict__ colidx, const double *__restrict__ val,
                                 const double *__restrict__ b, double *x, int32_t nrhs, int lane)
{
    const int32_t beg = rowptr[i], diag = rowptr[i + 1] - 1; /* diagonal last */
    const volatile double *xv = x;
    const double dv = val[diag];
    for (int32_t j = 0; j < nrhs; ++j) {
        double part = 0.0;
        for (int32_t e = beg + lane; e < diag; e += WARP)
            part += val[e] * xv[(int64_t)colidx[e] * nrhs + j];
        const double sum = warp_sum(part);
        if (lane == 0)
            x[(int64_t)i * nrhs + j] = (b[(int64_t)i * nrhs + j] - sum) / dv;
    }
}

__global__ void sptrsv_level_kernel(const int32_t *__restrict__ rowptr,
                                    const int32_t *__restrict__ colidx,
                                    const double *__restrict__ val, const double *__restrict__ b,
                                    double *x, int32_t nrhs, const int32_t *__restrict__ rows,
                                    int32_t count)
{
    const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    const int lane = threadIdx.x % WARP;
    if (w >= count)
        return; /* whole warps leave together: count is per warp */
    solve_row(rows[w], rowptr, colidx, val, b, x, nrhs, lane);
}

/* Consecutive levels [lv0, lv1) in one block: its warps share each level's rows and a block
 * barrier (which also makes the level's X visible to the block) separates the levels. */
__global__ void
sptrsv_levels_block_kernel(const int32_t *__restrict__ rowptr, const int32_t *__restrict__ colidx,
                           const double *__restrict__ val, const double *__restrict__ b, double *x,
                           int32_t nrhs, const int32_t *__restrict__ level_rows,
                           const int32_t *__restrict__ level_ptr, int32_t lv0, int32_t lv1)
{
    const int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
    const int warps = blockDim.x / WARP;
    for (int32_t lv = lv0; lv < lv1; ++lv) {
        for (int32_t q = level_ptr[lv] + warp; q < level_ptr[lv + 1]; q += warps)
            solve_row(level_rows[q], rowptr, colidx, val, b, x, nrhs, lane);
        __syncthreads();
    }
}

__global__ void sptrsv_syncfree_kernel(const int32_t *__restrict__ rowptr,
                                       const int32_t *__restrict__ colidx,
                                       const double *__restrict__ val, const double *__restrict__ b,
                                       double *x, int32_t nrhs, const int32_t *__restrict__ order,
                                       int32_t n, int32_t *ready, unsigned int *ticket)
{
    const int lane = threadIdx.x % WARP;
    /* The row comes from a ticket, not from the warp's position in the grid: a warp only gets a
     * ticket once it runs, so the rows before it in the order are all held by running warps. */
    unsigned int t = 0;
    if (lane == 0)
        t = atomicAdd(ticket, 1u);
    t = __shfl_sync(FULL_MASK, t, 0);
    if (t >= (unsigned int)n)
        return;
    const int32_t i = order[t];
    const int32_t beg = rowptr[i], diag = rowptr[i + 1] - 1;
    const volatile int32_t *rv = ready;
    /* Each lane waits for the rows of its own entries; no barrier between levels. */
    for (int32_t e = beg + lane; e < diag; e += WARP)
        while (rv[colidx[e]] == 0) {
        }
    __syncwarp();
    __threadfence(); /* order the flag reads before the x reads */
    solve_row(i, rowptr, colidx, val, b, x, nrhs, lane);
    if (lane == 0) {
        __threadfence(); /* x of row i visible device-wide before its flag */
        atomicExch(&ready[i], 1);
    }
}

extern "C" int sptrsv_cuda_level_launch(void *stream, int threads_per_block, const int32_t *rowptr,
                                        const int32_t *colidx, const double *val, const double *b,
                                        double *x, int32_t nrhs, const int32_t *level_rows,
                                        int32_t count)
{
    if (count <= 0)
        return (int)cudaSuccess;
    const int64_t warps_per_block = threads_per_block / WARP;
    const unsigned blocks = (unsigned)((count + warps_per_block - 1) / warps_per_block);
    sptrsv_level_kernel<<<blocks, threads_per_block, 0, (cudaStream_t)stream>>>(
        rowptr, colidx, val, b, x, nrhs, level_rows, count);
    return (int)cudaGetLastError();
}

extern "C" int sptrsv_cuda_levels_block_launch(void *stream, int threads_per_block,
                                               const int32_t *rowptr, const int32_t *colidx,
                                               const double *val, const double *b, double *x,
                                               int32_t nrhs, const int32_t *level_rows,
                                               const int32_t *level_ptr, int32_t lv0, int32_t lv1)
{
    if (lv1 <= lv0)
        return (int)cudaSuccess;
    sptrsv_levels_block_kernel<<<1, threads_per_block, 0, (cudaStream_t)stream>>>(
        rowptr, colidx, val, b, x, nrhs, level_rows, level_ptr, lv0, lv1);
    return (int)cudaGetLastError();
}

extern "C" int sptrsv_cuda_syncfree_launch(void *stream, int threads_per_block,
                                           const int32_t *rowptr, const int32_t *colidx,
                                           const double *val, const double *b, double *x,
                                           int32_t nrhs, const int32_t *order, int32_t n,
                                           int32_t *ready, uint32_t *ticket)
{
    if (n <= 0)
        return (int)cudaSuccess;
    const int64_t warps_per_block = threads_per_block / WARP;
    const unsigned blocks = (unsigned)((n + warps_per_block - 1) / warps_per_block);
    sptrsv_syncfree_kernel<<<blocks, threads_per_block, 0, (cudaStream_t)stream>>>(
        rowptr, colidx, val, b, x, nrhs, order, n, ready, (unsigned int *)ticket);
    return (int)cudaGetLastError();
}

extern "C" int sptrsv_cuda_syncfree_reset(void *stream, int32_t *ready, int32_t n, uint32_t *ticket)
{
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e = cudaMemsetAsync(ready, 0, (size_t)(n > 0 ? n : 0) * sizeof *ready, s);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(ticket, 0, sizeof *ticket, s);
    return (int)e;
}
