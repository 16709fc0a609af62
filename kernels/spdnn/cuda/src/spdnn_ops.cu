// The sparse DNN kernels' helpers (spdnn.cuda.fused and spdnn.cuda.cusparse):
//   rt_spdnn_flag_count  live flags per chunk of SCAN_BLOCK features
//   rt_spdnn_compact     ordered compaction: the positions of the flagged features (the next
//                        layer's list), their original ids, and the new live count
//   rt_spdnn_bias_relu   Z = min(max(Z + bias, 0), 32) in place, with liveness flags (the
//                        cuSPARSE baseline's separate activation kernel)
//   rt_spdnn_gather      copies the listed feature rows into a dense buffer (what cuSPARSE needs
//                        in place of the fused kernel's indirection)
//   rt_spdnn_bias_relu_nm, rt_spdnn_gather_nm: the same two for neuron-major features (row i =
//                        neuron i of every live feature: cuSPARSE's row-major operands), where a
//                        feature is a column
// Compaction is two launches over chunks of SCAN_BLOCK features: each block of the second finds
// its output offset by summing the counts of the chunks before it (at most a few thousand even
// for 10^7 features), then scans its own flags with warp shuffles. The order is kept, so feature
// positions (and results) do not depend on scheduling.
//   SCAN_BLOCK  threads of the counting and compaction blocks: a multiple of 32, at most 1024
#ifndef SCAN_BLOCK
#define SCAN_BLOCK 1024
#endif
#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu
#define YMAX      32.0f

#if (SCAN_BLOCK % WARP_SIZE) != 0 || SCAN_BLOCK > 1024 || SCAN_BLOCK < WARP_SIZE
#error "SCAN_BLOCK must be a multiple of 32 between 32 and 1024"
#endif

extern "C" __global__ void __launch_bounds__(SCAN_BLOCK)
    rt_spdnn_flag_count(const int *__restrict__ active, int count, int *__restrict__ chunk_counts)
{
    const long long q = (long long)blockIdx.x * SCAN_BLOCK + threadIdx.x;
    const int flag = (q < count && active[q] != 0) ? 1 : 0;
    const int total = __syncthreads_count(flag);
    if (threadIdx.x == 0)
        chunk_counts[blockIdx.x] = total;
}

// Inclusive sum over the lanes of a warp.
__device__ __forceinline__ int warp_inclusive_sum(int x, int lane)
{
#pragma unroll
    for (int d = 1; d < WARP_SIZE; d <<= 1) {
        const int y = __shfl_up_sync(FULL_MASK, x, d);
        if (lane >= d)
            x += y;
    }
    return x;
}

extern "C" __global__ void __launch_bounds__(SCAN_BLOCK)
    rt_spdnn_compact(const int *__restrict__ active, int count,
                     const int *__restrict__ chunk_counts, const int *__restrict__ ids_in,
                     int *__restrict__ list_out, int *__restrict__ ids_out,
                     int *__restrict__ count_out)
{
    __shared__ int warp_sums[SCAN_BLOCK / WARP_SIZE];
    __shared__ int offset_shared;
    const int lane = threadIdx.x % WARP_SIZE;
    const int warp = threadIdx.x / WARP_SIZE;

    // This chunk's offset: the live features of every chunk before it.
    int partial = 0;
    for (int c = threadIdx.x; c < (int)blockIdx.x; c += SCAN_BLOCK)
        partial += chunk_counts[c];
    partial = warp_inclusive_sum(partial, lane); // lane 31 holds the warp's total
    if (lane == WARP_SIZE - 1)
        warp_sums[warp] = partial;
    __syncthreads();
    if (threadIdx.x == 0) {
        int sum = 0;
        for (int w = 0; w < SCAN_BLOCK / WARP_SIZE; ++w)
            sum += warp_sums[w];
        offset_shared = sum;
    }
    __syncthreads();
    const int offset = offset_shared;

    // Ordered positions inside the chunk.
    const long long q = (long long)blockIdx.x * SCAN_BLOCK + threadIdx.x;
    const int flag = (q < count && active[q] != 0) ? 1 : 0;
    const int inclusive = warp_inclusive_sum(flag, lane);
    __syncthreads(); // warp_sums is reused
    if (lane == WARP_SIZE - 1)
        warp_sums[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        int w = lane < SCAN_BLOCK / WARP_SIZE ? warp_sums[lane] : 0;
        w = warp_inclusive_sum(w, lane);
        if (lane < SCAN_BLOCK / WARP_SIZE)
            warp_sums[lane] = w;
    }
    __syncthreads();
    const int before = (warp > 0 ? warp_sums[warp - 1] : 0) + inclusive - flag;
    if (flag) {
        list_out[offset + before] = (int)q;
        ids_out[offset + before] = ids_in[q];
    }
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0)
        *count_out = offset + warp_sums[SCAN_BLOCK / WARP_SIZE - 1];
}

// Z = min(max(Z + bias, 0), YMAX) over the elements, grid-stride; the feature of a positive
// element is flagged live: element i belongs to feature i / width (feature-major rows of width
// neurons) or, neuron-major, to feature i % width (rows of width live features).
template <bool NEURON_MAJOR>
__device__ __forceinline__ void bias_relu(float *__restrict__ Z, long long elements,
                                          long long width, float bias, int *__restrict__ active)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < elements;
         i += stride) {
        float v = Z[i] + bias;
        v = v < 0.0f ? 0.0f : (v > YMAX ? YMAX : v);
        Z[i] = v;
        if (v > 0.0f)
            active[NEURON_MAJOR ? i % width : i / width] = 1;
    }
}

extern "C" __global__ void rt_spdnn_bias_relu(float *__restrict__ Z, long long elements,
                                              long long neurons, float bias,
                                              int *__restrict__ active)
{
    bias_relu<false>(Z, elements, neurons, bias, active);
}

extern "C" __global__ void rt_spdnn_gather(float *__restrict__ dst, const float *__restrict__ src,
                                           const int *__restrict__ list, int count,
                                           long long neurons)
{
    for (int p = blockIdx.y; p < count; p += gridDim.y) {
        const float *from = src + (long long)list[p] * neurons;
        float *to = dst + (long long)p * neurons;
        for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < neurons;
             i += (long long)gridDim.x * blockDim.x)
            to[i] = from[i];
    }
}

extern "C" __global__ void rt_spdnn_bias_relu_nm(float *__restrict__ Z, long long elements,
                                                 long long live, float bias,
                                                 int *__restrict__ active)
{
    bias_relu<true>(Z, elements, live, bias, active);
}

// dst (neurons x count) gets the listed columns of src (neurons x live): consecutive threads
// write consecutive columns of a row.
extern "C" __global__ void rt_spdnn_gather_nm(float *__restrict__ dst,
                                              const float *__restrict__ src,
                                              const int *__restrict__ list, int count,
                                              long long live, long long neurons)
{
    for (long long i = blockIdx.y; i < neurons; i += gridDim.y) {
        const float *from = src + i * live;
        float *to = dst + i * count;
        for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < count; p += gridDim.x * blockDim.x)
            to[p] = from[list[p]];
    }
}
