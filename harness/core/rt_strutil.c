#include "rt_strutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rt_levenshtein(const char *a, const char *b)
{
    const size_t la = strlen(a), lb = strlen(b);
    if (la > 128 || lb > 128)
        return (int)(la > lb ? la : lb);
    int prev[129], cur[129];
    for (size_t j = 0; j <= lb; ++j)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; ++i) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; ++j) {
            const int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            const int del = prev[j] + 1;
            const int ins = cur[j - 1] + 1;
            int best = sub < del ? sub : del;
            cur[j] = best < ins ? best : ins;
        }
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

const char *rt_suggest(const char *word, const char *const *candidates, int n)
{
    const int len = (int)strlen(word);
    const int limit = len / 3 > 2 ? len / 3 : 2;
    const char *best = NULL;
    int best_d = limit + 1;
    for (int k = 0; k < n; ++k) {
        const int d = rt_levenshtein(word, candidates[k]);
        if (d < best_d) {
            best_d = d;
            best = candidates[k];
        }
    }
    return best;
}

uint64_t rt_hash64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ULL ^ seed;
    for (size_t i = 0; i < len; ++i) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

void rt_hash_hex(uint64_t h, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

int rt_distinct_digits(double a, double b)
{
    for (int d = 3; d < 9; ++d) {
        char x[40], y[40];
        snprintf(x, sizeof x, "%.*g", d, a);
        snprintf(y, sizeof y, "%.*g", d, b);
        if (strcmp(x, y) != 0)
            return d;
    }
    return 9;
}
