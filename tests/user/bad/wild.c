/* Writes far beyond any guard zone: the worker dies, not rooftune. */
void add(float *c, const float *a, const float *b, int n)
{
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
    c[(long)1 << 40] = 1.0f;
}
