/* 7-point 3D stencil on the CPU (rooftune kernel spec: spec.yaml): OpenMP over z planes, the rows
 * of a plane in blocks of ROWS (a -D define). */
void stencil3d(float *out, const float *in, int nx, int ny, int nz, float c0, float c1)
{
    const long plane = (long)nx * ny;
#pragma omp parallel for schedule(static)
    for (int z = 0; z < nz; ++z)
        for (int y0 = 0; y0 < ny; y0 += ROWS) {
            const int y1 = y0 + ROWS < ny ? y0 + ROWS : ny;
            for (int y = y0; y < y1; ++y) {
                const long r = z * plane + (long)y * nx;
                const int edge = z == 0 || z == nz - 1 || y == 0 || y == ny - 1;
                for (int x = 0; x < nx; ++x) {
                    const long i = r + x;
                    if (edge || x == 0 || x == nx - 1)
                        out[i] = in[i];
                    else
                        out[i] = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - nx] +
                                                    in[i + nx] + in[i - plane] + in[i + plane]);
                }
            }
        }
}
