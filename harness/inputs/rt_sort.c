#include "rt_sort.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

static int cmp_int64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void rt_sort_int64(int64_t *a, int64_t n)
{
    if (n > 24) {
        qsort(a, (size_t)n, sizeof *a, cmp_int64);
        return;
    }
    for (int64_t i = 1; i < n; ++i) {
        const int64_t key = a[i];
        int64_t j = i - 1;
        while (j >= 0 && a[j] > key) {
            a[j + 1] = a[j];
            --j;
        }
        a[j + 1] = key;
    }
}

typedef struct key_index {
    uint64_t key;
    int64_t index;
} key_index;

static int cmp_key_index(const void *a, const void *b)
{
    const key_index *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

int rt_sort_order_by_key(const uint64_t *key, int64_t n, int64_t *order, rt_err *err)
{
    if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(key_index))
        return rt_err_set(err, "cannot sort %" PRId64 " keys (count out of range)", n);
    key_index *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof *tmp);
    if (!tmp)
        return rt_err_set(err, "out of memory: cannot allocate %zu bytes to sort %" PRId64 " keys",
                          (size_t)(n > 0 ? n : 1) * sizeof *tmp, n);
    for (int64_t i = 0; i < n; ++i) {
        tmp[i].key = key[i];
        tmp[i].index = i;
    }
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_key_index);
    for (int64_t i = 0; i < n; ++i)
        order[i] = tmp[i].index;
    free(tmp);
    return 0;
}
