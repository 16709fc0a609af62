/* eigen_pool: first-fit placement of tiles inside one device buffer of a fixed size (the
 * `gpu_mem_budget` pool). The pool only hands out offsets; the memory manager owns the buffer.
 * Every block is rounded up to EG_POOL_ALIGN bytes so device pointers suit cuSPARSE and cuBLAS.
 * Free blocks are coalesced with their neighbours on release. */
#ifndef EIGEN_POOL_H
#define EIGEN_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

#define EG_POOL_ALIGN 256

typedef struct eg_pool_hole {
    size_t off, len;
} eg_pool_hole;

typedef struct eg_pool {
    size_t size;
    size_t used; /* bytes in allocated blocks (after rounding) */
    int n_holes, cap_holes;
    eg_pool_hole *holes; /* sorted by offset, never adjacent */
} eg_pool;

int eg_pool_init(eg_pool *p, size_t size, rt_err *err);
void eg_pool_free_all(eg_pool *p);
/* The rounded size a request of `bytes` occupies. */
size_t eg_pool_rounded(size_t bytes);
/* First fit: 0 and *off on success, 1 when no hole is large enough, -1 on error. */
int eg_pool_alloc(eg_pool *p, size_t bytes, size_t *off, rt_err *err);
/* Returns a block obtained from eg_pool_alloc with the same byte count. */
int eg_pool_release(eg_pool *p, size_t off, size_t bytes, rt_err *err);

#endif
