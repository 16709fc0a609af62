/* rt_shared_matrix: a matrix in shared memory, built once by the coordinator of parallel tuning's
 * gpus mode and mapped by every worker process (rt_prefetch.h builds it, rt_wire_send_fd hands
 * the descriptor over). Before it, each of G workers built the same matrix with 1/G of the
 * host's cores, at the same time as the coordinator built it too: on 2 x H200 the Tiled SpMM
 * tuning's first matrix took 1.41 s in each of the three processes against 1.06 s alone.
 *
 * The file is an anonymous memory file (memfd): a header (magic, shape, where each array starts)
 * and the CSR arrays, 64-byte aligned. A mapping is private (copy on write): the pages are shared
 * until a process writes one, so a family that changed its matrix would change its own copy
 * only, never another worker's. */
#ifndef RT_SHARED_MATRIX_H
#define RT_SHARED_MATRIX_H

#include <stddef.h>

#include "rt_error.h"
#include "rt_matrix.h"

/* A mapped matrix: csr's arrays point into the mapping. */
typedef struct rt_shared_matrix {
    rt_csr csr;
    void *base;
    size_t len;
} rt_shared_matrix;

/* A new memory file holding m (*fd: its descriptor, close-on-exec). */
int rt_shared_matrix_create(const rt_csr *m, int *fd, rt_err *err);
/* Maps the matrix of memory file fd (fd stays open: the caller closes it). Fails, naming what is
 * wrong, on a file that is not one of rt_shared_matrix_create's (a short file, another magic, a
 * shape or an array beyond the file's end) or a matrix whose row pointers do not hold. */
int rt_shared_matrix_map(int fd, rt_shared_matrix *out, rt_err *err);
/* Unmaps (out of rt_shared_matrix_map; a zeroed one is fine) and zeroes it. */
void rt_shared_matrix_unmap(rt_shared_matrix *sm);

#endif
