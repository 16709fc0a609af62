/* The reference of the 2D convolution (rooftune kernel spec: spec.yaml): the plain loop nest,
 * each output summed in double. */
void conv2d_reference(float *out, const float *image, const float *filter, int w, int h, int fw,
                      int fh)
{
    const int iw = w + fw - 1;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double sum = 0.0;
            for (int j = 0; j < fh; ++j)
                for (int i = 0; i < fw; ++i)
                    sum += (double)image[(y + j) * iw + x + i] * filter[j * fw + i];
            out[y * w + x] = (float)sum;
        }
}
