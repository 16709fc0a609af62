/* rt_hilbert: Hilbert-curve ranks of the cells of a rectangular grid.
 *
 * The xct generator orders pixels and rays along Hilbert curves so that consecutive columns (and
 * rows) are neighbours in space, which is what gives MemXCT's tiled kernels their locality. A
 * w x h grid is embedded in the smallest power-of-two square that holds it, cells are ordered by
 * their index along that square's curve, and the ranks are compacted to 0..w*h-1. */
#ifndef RT_HILBERT_H
#define RT_HILBERT_H

#include <stdint.h>

#include "rt_error.h"

/* Distance of (x, y) along the Hilbert curve that fills a side x side square; side is a power
 * of two and x, y < side. */
uint64_t rt_hilbert_index(uint64_t side, uint64_t x, uint64_t y);
/* rank[y * w + x] = position of cell (x, y) in compacted Hilbert order of the w x h grid. */
int rt_hilbert_rank(int64_t w, int64_t h, int64_t *rank, rt_err *err);

#endif
