#include "eigen_pool.h"

#include <stdlib.h>
#include <string.h>

size_t eg_pool_rounded(size_t bytes)
{
    const size_t b = bytes ? bytes : 1;
    return (b + EG_POOL_ALIGN - 1) / EG_POOL_ALIGN * EG_POOL_ALIGN;
}

int eg_pool_init(eg_pool *p, size_t size, rt_err *err)
{
    memset(p, 0, sizeof *p);
    p->size = size / EG_POOL_ALIGN * EG_POOL_ALIGN;
    p->cap_holes = 16;
    p->holes = malloc((size_t)p->cap_holes * sizeof *p->holes);
    if (!p->holes)
        return rt_err_set(err, "eigen pool: out of memory for the hole list");
    p->n_holes = p->size > 0 ? 1 : 0;
    p->holes[0].off = 0;
    p->holes[0].len = p->size;
    return 0;
}

void eg_pool_free_all(eg_pool *p)
{
    free(p->holes);
    memset(p, 0, sizeof *p);
}

int eg_pool_alloc(eg_pool *p, size_t bytes, size_t *off, rt_err *err)
{
    (void)err;
    const size_t need = eg_pool_rounded(bytes);
    for (int h = 0; h < p->n_holes; ++h) {
        if (p->holes[h].len < need)
            continue;
        *off = p->holes[h].off;
        p->holes[h].off += need;
        p->holes[h].len -= need;
        if (p->holes[h].len == 0) {
            memmove(&p->holes[h], &p->holes[h + 1],
                    (size_t)(p->n_holes - h - 1) * sizeof *p->holes);
            --p->n_holes;
        }
        p->used += need;
        return 0;
    }
    return 1;
}

int eg_pool_release(eg_pool *p, size_t off, size_t bytes, rt_err *err)
{
    const size_t len = eg_pool_rounded(bytes);
    if (off + len > p->size || len > p->used)
        return rt_err_set(err, "eigen pool: release of [%zu, %zu) outside the allocated blocks",
                          off, off + len);
    int h = 0;
    while (h < p->n_holes && p->holes[h].off < off)
        ++h;
    if ((h > 0 && p->holes[h - 1].off + p->holes[h - 1].len > off) ||
        (h < p->n_holes && off + len > p->holes[h].off))
        return rt_err_set(err, "eigen pool: block [%zu, %zu) released twice", off, off + len);
    const int merge_left = h > 0 && p->holes[h - 1].off + p->holes[h - 1].len == off;
    const int merge_right = h < p->n_holes && off + len == p->holes[h].off;
    if (merge_left && merge_right) {
        p->holes[h - 1].len += len + p->holes[h].len;
        memmove(&p->holes[h], &p->holes[h + 1], (size_t)(p->n_holes - h - 1) * sizeof *p->holes);
        --p->n_holes;
    } else if (merge_left) {
        p->holes[h - 1].len += len;
    } else if (merge_right) {
        p->holes[h].off = off;
        p->holes[h].len += len;
    } else {
        if (p->n_holes == p->cap_holes) {
            eg_pool_hole *grown = realloc(p->holes, (size_t)p->cap_holes * 2 * sizeof *grown);
            if (!grown)
                return rt_err_set(err, "eigen pool: out of memory for the hole list");
            p->holes = grown;
            p->cap_holes *= 2;
        }
        memmove(&p->holes[h + 1], &p->holes[h], (size_t)(p->n_holes - h) * sizeof *p->holes);
        p->holes[h].off = off;
        p->holes[h].len = len;
        ++p->n_holes;
    }
    p->used -= len;
    return 0;
}
