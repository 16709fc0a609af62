/* The reference: c = a + b. */
void add_ref(float *c, const float *a, const float *b, int n)
{
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
