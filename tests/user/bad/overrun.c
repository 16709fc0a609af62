/* Writes three elements past the end of c. */
void add(float *c, const float *a, const float *b, int n)
{
    for (int i = 0; i < n + 3; ++i)
        c[i] = i < n ? a[i] + b[i] : 0.0f;
}
