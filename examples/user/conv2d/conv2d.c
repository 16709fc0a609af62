/* 2D convolution on the CPU (rooftune kernel spec: spec.yaml): the output's rows in blocks of ROWS
 * (a -D define), one block per OpenMP iteration, the filter's rows outermost within a block so a
 * filter row is reused across ROWS output rows. */
void conv2d(float *out, const float *image, const float *filter, int w, int h, int fw, int fh)
{
    const int iw = w + fw - 1;
#pragma omp parallel for schedule(static)
    for (int y0 = 0; y0 < h; y0 += ROWS) {
        const int y1 = y0 + ROWS < h ? y0 + ROWS : h;
        for (int y = y0; y < y1; ++y)
            for (int x = 0; x < w; ++x)
                out[y * w + x] = 0.0f;
        for (int j = 0; j < fh; ++j)
            for (int i = 0; i < fw; ++i) {
                const float f = filter[j * fw + i];
                for (int y = y0; y < y1; ++y) {
                    const float *row = image + (y + j) * iw + i;
                    float *o = out + y * w;
                    for (int x = 0; x < w; ++x)
                        o[x] += row[x] * f;
                }
            }
    }
}
