#include "sptrsv_cuda_super.h"

#include <cuda_runtime.h>

#define WARP      32
#define FULL_MASK 0xffffffffu

/* Thread 0 takes the block's supernode from the ticket and waits until every update to its rows
 * has arrived. The sleep doubles up to backoff_ns so that hundreds of waiting blocks do not keep
 * the memory system busy with polls of counters that change rarely. */
__device__ static int32_t take_and_wait(const int32_t *order, const int32_t *pending,
                                        unsigned int *ticket, int backoff_ns)
{
    const unsigned int t = atomicAdd(ticket, 1u);
    const int32_t s = order[t];
    const volatile int32_t *pv = pending;
    unsigned int sleep_ns = 16;
    while (pv[s] != 0) {
        if (backoff_ns > 0) {
            __nanosleep(sleep_ns);
            sleep_ns = min(2 * sleep_ns, (unsigned int)backoff_ns);
        }
    }
    __threadfence(); /* the counter read before the partial sums it guards */
    return s;
}

#define TILE_LD (WARP + 1) /* a tile's column stride in shared memory */

/* The block copies the lower triangle of the w x w diagonal tile at (k0, k0) into shared memory
 * (tile[c * TILE_LD + r] = L(k0 + r, k0 + c), zero above the diagonal), so that the warp that
 * solves the tile reads it without waiting on global memory inside its serial loop. */
__device__ static void load_tile(const double *L, int32_t ld, int32_t k0, int32_t w, double *tile,
                                 int tid, int nthreads)
{
    for (int q = tid; q < w * w; q += nthreads) {
        const int c = q / w, r = q % w;
        tile[c * TILE_LD + r] = r >= c ? L[(int64_t)(k0 + c) * ld + k0 + r] : 0.0;
    }
}

/* Warp 0 solves the w x w diagonal tile of columns [k0, k0 + w) (w <= 32) in place: lane l keeps
 * row k0 + l of X in a register and receives each solved unknown by a shuffle. xs holds the
 * supernode's rows of X (row-major, nrhs per row), already updated by the columns before k0. */
__device__ static void solve_tile(const double *tile, int32_t k0, int32_t w, double *xs,
                                  int32_t nrhs, int lane)
{
    for (int32_t j = 0; j < nrhs; ++j) {
        double xr = lane < w ? xs[(int64_t)(k0 + lane) * nrhs + j] : 0.0;
        for (int c = 0; c < w; ++c) { /* w is the same in every lane: the shuffle stays uniform */
            const double lc = lane < w ? tile[c * TILE_LD + lane] : 0.0;
            if (lane == c)
                xr /= lc;
            const double xc = __shfl_sync(FULL_MASK, xr, c);
            if (lane > c)
                xr -= lc * xc;
        }
        if (lane < w)
            xs[(int64_t)(k0 + lane) * nrhs + j] = xr;
    }
}

/* Solves supernode s's dense diagonal block: X_s = L_ss^-1 (B_s - lsum_s), in shared memory when
 * its ncols x nrhs fit in shared_doubles (shared_x), else in place in X. Returns where X_s is; the
 * block's threads all call it and see X_s complete on return. */
__device__ static double *solve_diag(const sptrsv_super_dev &f, int32_t s,
                                     const double *__restrict__ b, double *x, const double *lsum,
                                     int32_t nrhs, int shared_doubles, double *shared_x,
                                     double *tile)
{
    const int tid = threadIdx.x, nthreads = blockDim.x, lane = tid % WARP;
    const int32_t c0 = f.first[s], nc = f.first[s + 1] - c0;
    const double *L = f.val + f.valstart[s];
    const int32_t ld = f.ld[s];
    const int64_t ncx = (int64_t)nc * nrhs;
    double *xs = ncx <= shared_doubles ? shared_x : x + (int64_t)c0 * nrhs;

    /* B - (updates from the descendants), read past L1 (other blocks' atomics wrote lsum). */
    for (int64_t q = tid; q < ncx; q += nthreads)
        xs[q] = b[(int64_t)c0 * nrhs + q] - __ldcg(&lsum[(int64_t)c0 * nrhs + q]);
    load_tile(L, ld, 0, min(WARP, nc), tile, tid, nthreads);
    __syncthreads();

    /* By panels of 32 columns: warp 0 solves the panel's tile, then every thread updates the rows
     * of the triangle below it and loads the next tile (two barriers per panel). */
    for (int32_t k0 = 0; k0 < nc; k0 += WARP) {
        const int32_t w = min(WARP, nc - k0);
        if (tid < WARP)
            solve_tile(tile, k0, w, xs, nrhs, lane);
        __syncthreads();
        if (k0 + w < nc)
            load_tile(L, ld, k0 + w, min(WARP, nc - k0 - w), tile, tid, nthreads);
        const int32_t below = nc - k0 - w;
        const int64_t items = (int64_t)below * nrhs;
        for (int64_t q = tid; q < items; q += nthreads) {
            const int32_t i = k0 + w + (int32_t)(q % below), j = (int32_t)(q / below);
            double sum = 0.0;
            for (int32_t c = 0; c < w; ++c)
                sum += L[(int64_t)(k0 + c) * ld + i] * xs[(int64_t)(k0 + c) * nrhs + j];
            xs[(int64_t)i * nrhs + j] -= sum;
        }
        __syncthreads();
    }
    return xs;
}

/* lsum[row] += L(row, columns of s) X_s for the rows at positions [p0, p1) of s's row list (below
 * its diagonal block). With fewer (row, rhs) items than threads the columns are split too, so
 * that a wide supernode with few rows below it still keeps the whole block busy; each part adds
 * its own partial sum with an atomic. */
__device__ static void add_below(const sptrsv_super_dev &f, int32_t s, int32_t p0, int32_t p1,
                                 const double *xs, double *lsum, int32_t nrhs)
{
    const int tid = threadIdx.x, nthreads = blockDim.x;
    const int32_t nc = f.first[s + 1] - f.first[s];
    const double *L = f.val + f.valstart[s];
    const int32_t ld = f.ld[s];
    const int64_t r0 = f.rowstart[s];
    const int32_t m = p1 - p0;
    const int64_t items = (int64_t)m * nrhs;
    if (items <= 0)
        return;
    int32_t ksplit = 1;
    if (items < nthreads)
        ksplit = (int32_t)min((int64_t)nc, (int64_t)nthreads / items);
    for (int64_t q = tid; q < items * ksplit; q += nthreads) {
        const int64_t item = q % items;
        const int32_t part = (int32_t)(q / items);
        const int32_t r = p0 + (int32_t)(item % m), j = (int32_t)(item / m);
        double sum = 0.0;
        for (int32_t k = part; k < nc; k += ksplit)
            sum += L[(int64_t)k * ld + r] * xs[(int64_t)k * nrhs + j];
        atomicAdd(&lsum[(int64_t)f.rows[r0 + r] * nrhs + j], sum);
    }
}

/* X_s from shared memory to X (nothing to do when it was solved in place). */
__device__ static void store_x(const sptrsv_super_dev &f, int32_t s, const double *xs, double *x,
                               int32_t nrhs)
{
    const int64_t c0 = f.first[s], ncx = (int64_t)(f.first[s + 1] - c0) * nrhs;
    if (xs == x + c0 * nrhs)
        return;
    for (int64_t q = threadIdx.x; q < ncx; q += blockDim.x)
        x[c0 * nrhs + q] = xs[q];
}

__global__ void sptrsv_super_kernel(sptrsv_super_dev f, const double *__restrict__ b, double *x,
                                    double *lsum, int32_t nrhs, int32_t *pending,
                                    unsigned int *ticket, int shared_doubles, int backoff_ns)
{
    extern __shared__ double shared_x[];
    __shared__ double tile[WARP * TILE_LD];
    __shared__ int32_t s_block;
    if (threadIdx.x == 0)
        s_block = take_and_wait(f.order, pending, ticket, backoff_ns);
    __syncthreads();
    const int32_t s = s_block;
    const double *xs = solve_diag(f, s, b, x, lsum, nrhs, shared_doubles, shared_x, tile);
    const int32_t nc = f.first[s + 1] - f.first[s];
    add_below(f, s, nc, (int32_t)(f.rowstart[s + 1] - f.rowstart[s]), xs, lsum, nrhs);
    store_x(f, s, xs, x, nrhs);
    __threadfence(); /* this thread's partial sums visible device-wide before the counters */
    __syncthreads();
    if (threadIdx.x == 0)
        for (int32_t e = f.succ_ptr[s]; e < f.succ_ptr[s + 1]; ++e)
            atomicSub(&pending[f.succ[e]], 1);
}

/* One supernode's diagonal solve, one block (the distributed solve's per-supernode step). */
__global__ void sptrsv_super_diag_kernel(sptrsv_super_dev f, int32_t s,
                                         const double *__restrict__ b, double *x,
                                         const double *lsum, int32_t nrhs, int shared_doubles)
{
    extern __shared__ double shared_x[];
    __shared__ double tile[WARP * TILE_LD];
    const double *xs = solve_diag(f, s, b, x, lsum, nrhs, shared_doubles, shared_x, tile);
    store_x(f, s, xs, x, nrhs);
}

/* One DAG edge's update, lsum[rows at positions p0..p1 of s] += L(those rows, s) X_s, one block. */
__global__ void sptrsv_super_update_kernel(sptrsv_super_dev f, int32_t s, int32_t p0, int32_t p1,
                                           const double *x, double *lsum, int32_t nrhs)
{
    add_below(f, s, p0, p1, x + (int64_t)f.first[s] * nrhs, lsum, nrhs);
}

extern "C" int sptrsv_cuda_super_diag_launch(void *stream, int threads_per_block,
                                             int shared_doubles, const sptrsv_super_dev *f,
                                             int32_t s, const double *b, double *x,
                                             const double *lsum, int32_t nrhs)
{
    const size_t shared_bytes = (size_t)(shared_doubles > 0 ? shared_doubles : 0) * sizeof(double);
    sptrsv_super_diag_kernel<<<1, threads_per_block, shared_bytes, (cudaStream_t)stream>>>(
        *f, s, b, x, lsum, nrhs, shared_doubles);
    return (int)cudaGetLastError();
}

extern "C" int sptrsv_cuda_super_update_launch(void *stream, int threads_per_block,
                                               const sptrsv_super_dev *f, int32_t s, int32_t p0,
                                               int32_t p1, const double *x, double *lsum,
                                               int32_t nrhs)
{
    if (p1 <= p0)
        return (int)cudaSuccess;
    sptrsv_super_update_kernel<<<1, threads_per_block, 0, (cudaStream_t)stream>>>(*f, s, p0, p1, x,
                                                                                  lsum, nrhs);
    return (int)cudaGetLastError();
}

extern "C" int sptrsv_cuda_super_launch(void *stream, int threads_per_block, int shared_doubles,
                                        int backoff_ns, const sptrsv_super_dev *f, const double *b,
                                        double *x, double *lsum, int32_t nrhs, int32_t *pending,
                                        uint32_t *ticket)
{
    if (f->nsuper <= 0)
        return (int)cudaSuccess;
    const size_t shared_bytes = (size_t)(shared_doubles > 0 ? shared_doubles : 0) * sizeof(double);
    sptrsv_super_kernel<<<(unsigned)f->nsuper, threads_per_block, shared_bytes,
                          (cudaStream_t)stream>>>(
        *f, b, x, lsum, nrhs, pending, (unsigned int *)ticket, shared_doubles, backoff_ns);
    return (int)cudaGetLastError();
}

extern "C" int sptrsv_cuda_super_reset(void *stream, double *lsum, int64_t n_times_nrhs,
                                       int32_t *pending, const int32_t *pending_init,
                                       int32_t nsuper, uint32_t *ticket)
{
    cudaStream_t st = (cudaStream_t)stream;
    cudaError_t e =
        cudaMemsetAsync(lsum, 0, (size_t)(n_times_nrhs > 0 ? n_times_nrhs : 0) * sizeof *lsum, st);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(pending, pending_init,
                            (size_t)(nsuper > 0 ? nsuper : 0) * sizeof *pending,
                            cudaMemcpyDeviceToDevice, st);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(ticket, 0, sizeof *ticket, st);
    return (int)e;
}
