/* eigen_packed: one sparse block of the tiled matrix as a single contiguous buffer, so it moves
 * between host and device in one copy and is one entry of the memory manager's tile map:
 *   int32 rowptr[rows + 1] | int32 colidx[nnz] | double val[nnz]
 * each part starting at a multiple of 8 bytes; column indices are local to the block. */
#ifndef EIGEN_PACKED_H
#define EIGEN_PACKED_H

#include <stddef.h>
#include <stdint.h>

size_t eg_packed_bytes(int64_t rows, int64_t nnz);

typedef struct eg_packed_view {
    int32_t *rowptr;
    int32_t *colidx;
    double *val;
} eg_packed_view;

/* Pointers into a packed block at base (host or device address: only arithmetic is done). */
eg_packed_view eg_packed_at(void *base, int64_t rows, int64_t nnz);

#endif
