// Never returns.
extern "C" __global__ void add(float *c, const float *a, const float *b, int n)
{
    volatile int *forever = (volatile int *)&n;
    while (*forever == n)
        ;
}
