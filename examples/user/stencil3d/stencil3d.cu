// 7-point 3D stencil (rooftune kernel spec: spec.yaml): a 2D block of threads covers an x-y tile
// and each thread marches z_per_thread consecutive planes, keeping its column's below, centre and
// above values in registers. block_size_x, block_size_y and z_per_thread are -D defines.
extern "C" __global__ void __launch_bounds__(block_size_x *block_size_y)
    stencil3d(float *out, const float *__restrict__ in, int nx, int ny, int nz, float c0, float c1)
{
    const int x = blockIdx.x * block_size_x + threadIdx.x;
    const int y = blockIdx.y * block_size_y + threadIdx.y;
    const int z0 = blockIdx.z * z_per_thread;
    if (x >= nx || y >= ny || z0 >= nz)
        return;
    const long plane = (long)nx * ny;
    const int z1 = z0 + z_per_thread < nz ? z0 + z_per_thread : nz;
    const int edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;
    long i = (long)z0 * plane + (long)y * nx + x;
    float below = z0 > 0 ? in[i - plane] : 0.0f, centre = in[i];
    for (int z = z0; z < z1; ++z, i += plane) {
        const float above = z + 1 < nz ? in[i + plane] : 0.0f;
        if (edge || z == 0 || z == nz - 1)
            out[i] = centre;
        else
            out[i] = c0 * centre +
                     c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + below + above);
        below = centre;
        centre = above;
    }
}
