// c = a + b, one element per thread (rooftune kernel spec: spec.yaml). block_size_x comes in as a
// -D define, so the compiler knows the block size.
extern "C" __global__ void __launch_bounds__(block_size_x)
    vecadd(float *c, const float *a, const float *b, int n)
{
    const int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
