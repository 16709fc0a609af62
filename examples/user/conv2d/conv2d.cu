// 2D convolution (rooftune kernel spec: spec.yaml). Every thread computes tile_x x tile_y outputs
// spaced a block apart; with use_shared the block first stages its part of the image (with the
// filter's halo) in shared memory. block_size_x, block_size_y, tile_x, tile_y and use_shared are
// -D defines.
extern "C" __global__ void __launch_bounds__(block_size_x *block_size_y)
    conv2d(float *out, const float *__restrict__ image, const float *__restrict__ filter, int w,
           int h, int fw, int fh)
{
    const int iw = w + fw - 1; // the padded image's width
    const int bx = blockIdx.x * block_size_x * tile_x;
    const int by = blockIdx.y * block_size_y * tile_y;
    float sum[tile_y][tile_x];
#pragma unroll
    for (int ty = 0; ty < tile_y; ++ty)
#pragma unroll
        for (int tx = 0; tx < tile_x; ++tx)
            sum[ty][tx] = 0.0f;
#if use_shared
    extern __shared__ float tile[];
    const int sw = block_size_x * tile_x + fw - 1, sh = block_size_y * tile_y + fh - 1;
    const int ih = h + fh - 1;
    for (int y = threadIdx.y; y < sh; y += block_size_y)
        for (int x = threadIdx.x; x < sw; x += block_size_x)
            tile[y * sw + x] = (by + y < ih && bx + x < iw) ? image[(by + y) * iw + bx + x] : 0.0f;
    __syncthreads();
#endif
    for (int j = 0; j < fh; ++j)
        for (int i = 0; i < fw; ++i) {
            const float f = filter[j * fw + i];
#pragma unroll
            for (int ty = 0; ty < tile_y; ++ty)
#pragma unroll
                for (int tx = 0; tx < tile_x; ++tx) {
                    const int lx = threadIdx.x + tx * block_size_x;
                    const int ly = threadIdx.y + ty * block_size_y;
#if use_shared
                    sum[ty][tx] += tile[(ly + j) * sw + lx + i] * f;
#else
                    if (bx + lx < w && by + ly < h)
                        sum[ty][tx] += image[(by + ly + j) * iw + bx + lx + i] * f;
#endif
                }
        }
#pragma unroll
    for (int ty = 0; ty < tile_y; ++ty)
#pragma unroll
        for (int tx = 0; tx < tile_x; ++tx) {
            const int x = bx + threadIdx.x + tx * block_size_x;
            const int y = by + threadIdx.y + ty * block_size_y;
            if (x < w && y < h)
                out[y * w + x] = sum[ty][tx];
        }
}
