// Tiled matrix multiply C = A B, n x n row-major (rooftune kernel spec: spec.yaml). A block
// computes a tile_size x tile_size tile of C through shared-memory tiles of A and B; each thread
// computes work_per_thread of its rows (tile_size and work_per_thread are -D defines).
#define ROWS_PER_PASS (tile_size / work_per_thread)

extern "C" __global__ void __launch_bounds__(tile_size *ROWS_PER_PASS)
    matmul(float *C, const float *__restrict__ A, const float *__restrict__ B, int n)
{
    __shared__ float sa[tile_size][tile_size];
    __shared__ float sb[tile_size][tile_size];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * tile_size + tx;
    const int row0 = blockIdx.y * tile_size + ty;
    float sum[work_per_thread];
#pragma unroll
    for (int w = 0; w < work_per_thread; ++w)
        sum[w] = 0.0f;
    for (int k0 = 0; k0 < n; k0 += tile_size) {
#pragma unroll
        for (int w = 0; w < work_per_thread; ++w) {
            const int r = ty + w * ROWS_PER_PASS;
            sa[r][tx] = A[(blockIdx.y * tile_size + r) * n + k0 + tx];
            sb[r][tx] = B[(k0 + r) * n + col];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < tile_size; ++k) {
            const float b = sb[k][tx];
#pragma unroll
            for (int w = 0; w < work_per_thread; ++w)
                sum[w] += sa[ty + w * ROWS_PER_PASS][k] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int w = 0; w < work_per_thread; ++w)
        C[(row0 + w * ROWS_PER_PASS) * n + col] = sum[w];
}
