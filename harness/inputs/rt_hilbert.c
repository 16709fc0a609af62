#include "rt_hilbert.h"

#include <inttypes.h>
#include <stdlib.h>

#include "rt_sort.h"

uint64_t rt_hilbert_index(uint64_t side, uint64_t x, uint64_t y)
{
    uint64_t d = 0;
    /* Walk from the coarsest quadrant down; at each level the quadrant contributes s*s cells
     * per step, and the sub-square is reflected/transposed so the curve stays continuous. */
    for (uint64_t s = side / 2; s > 0; s /= 2) {
        const uint64_t rx = (x & s) ? 1 : 0;
        const uint64_t ry = (y & s) ? 1 : 0;
        d += s * s * ((3 * rx) ^ ry);
        if (ry == 0) {
            if (rx == 1) {
                x = s - 1 - (x & (s - 1));
                y = s - 1 - (y & (s - 1));
            }
            const uint64_t t = x;
            x = y;
            y = t;
        }
        x &= s - 1;
        y &= s - 1;
    }
    return d;
}

int rt_hilbert_rank(int64_t w, int64_t h, int64_t *rank, rt_err *err)
{
    if (w < 0 || h < 0 || (h > 0 && w > INT64_MAX / h))
        return rt_err_set(err, "Hilbert grid %" PRId64 " x %" PRId64 " is out of range", w, h);
    const int64_t n = w * h;
    uint64_t side = 1;
    while (side < (uint64_t)w || side < (uint64_t)h)
        side *= 2;
    uint64_t *key = malloc((size_t)(n > 0 ? n : 1) * sizeof *key);
    int64_t *order = key ? malloc((size_t)(n > 0 ? n : 1) * sizeof *order) : NULL;
    if (!order) {
        free(key);
        return rt_err_set(err,
                          "out of memory: cannot allocate %zu bytes for the Hilbert order of "
                          "a %" PRId64 " x %" PRId64 " grid",
                          (size_t)(n > 0 ? n : 1) * (sizeof *key + sizeof *order), w, h);
    }
    for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
            key[y * w + x] = rt_hilbert_index(side, (uint64_t)x, (uint64_t)y);
    const int rc = rt_sort_order_by_key(key, n, order, err);
    if (rc == 0)
        for (int64_t i = 0; i < n; ++i)
            rank[order[i]] = i;
    free(key);
    free(order);
    return rc;
}
