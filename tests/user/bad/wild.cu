// Writes far outside any allocation: an illegal address, a sticky error for the context.
extern "C" __global__ void add(float *c, const float *a, const float *b, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
    if (i == 0)
        c[(long long)1 << 40] = 1.0f;
}
