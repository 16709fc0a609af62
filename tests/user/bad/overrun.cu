// Writes three elements past the end of c.
extern "C" __global__ void add(float *c, const float *a, const float *b, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
    if (i < 3)
        c[n + i] = 0.0f;
}
