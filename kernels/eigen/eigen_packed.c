#include "eigen_packed.h"

static size_t round8(size_t b)
{
    return (b + 7) / 8 * 8;
}

size_t eg_packed_bytes(int64_t rows, int64_t nnz)
{
    return round8((size_t)(rows + 1) * 4) + round8((size_t)nnz * 4) + (size_t)nnz * 8;
}

eg_packed_view eg_packed_at(void *base, int64_t rows, int64_t nnz)
{
    char *p = base;
    eg_packed_view v;
    v.rowptr = (int32_t *)(void *)p;
    p += round8((size_t)(rows + 1) * 4);
    v.colidx = (int32_t *)(void *)p;
    p += round8((size_t)nnz * 4);
    v.val = (double *)(void *)p;
    return v;
}
