/* c = a + b, the loop unrolled by UNROLL (a -D define from the kernel spec: spec.yaml). */
void vecadd(float *c, const float *a, const float *b, int n)
{
    int i = 0;
    for (; i + UNROLL <= n; i += UNROLL)
        for (int u = 0; u < UNROLL; ++u)
            c[i + u] = a[i + u] + b[i + u];
    for (; i < n; ++i)
        c[i] = a[i] + b[i];
}
