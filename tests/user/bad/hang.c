/* Never returns. */
void add(float *c, const float *a, const float *b, int n)
{
    volatile int forever = 1;
    while (forever)
        ;
}
