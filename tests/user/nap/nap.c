/* c = a + b, then, when NAP is not 0 and the environment says how long (NAP_SECONDS), a sleep
 * that tests/user/test_interrupt.sh ends with a signal: the file $NAP_MARK.<NAP> says the sleep
 * has begun. Without NAP_SECONDS every point is fast, so a rerun measures them all. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void add(float *c, const float *a, const float *b, int n)
{
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
    const char *seconds = getenv("NAP_SECONDS");
    const char *mark = getenv("NAP_MARK");
    if (NAP == 0 || !seconds || !mark)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", mark, NAP);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
    const struct timespec t = {.tv_sec = atoi(seconds), .tv_nsec = 0};
    nanosleep(&t, NULL);
}
