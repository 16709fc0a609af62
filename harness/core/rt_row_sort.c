#include "rt_row_sort.h"

#include <string.h>

void rt_row_sort(rt_col_val *e, int64_t n, rt_col_val *scratch)
{
    if (n <= 32 || !scratch) {
        for (int64_t i = 1; i < n; ++i) {
            const rt_col_val key = e[i];
            int64_t j = i - 1;
            while (j >= 0 && e[j].col > key.col) {
                e[j + 1] = e[j];
                --j;
            }
            e[j + 1] = key;
        }
        return;
    }
    const int64_t run = 16;
    for (int64_t b = 0; b < n; b += run)
        rt_row_sort(e + b, n - b < run ? n - b : run, NULL);
    rt_col_val *src = e, *dst = scratch;
    for (int64_t width = run; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            const int64_t mid = lo + width < n ? lo + width : n;
            const int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                dst[o++] = src[j].col < src[i].col ? src[j++] : src[i++];
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
        }
        rt_col_val *t = src;
        src = dst;
        dst = t;
    }
    if (src != e)
        memcpy(e, src, (size_t)n * sizeof *e);
}
