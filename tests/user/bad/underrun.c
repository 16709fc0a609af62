/* Writes the element before the start of c. */
void add(float *c, const float *a, const float *b, int n)
{
    for (int i = -1; i < n; ++i)
        c[i] = i >= 0 ? a[i] + b[i] : 0.0f;
}
