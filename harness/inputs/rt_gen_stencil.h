/* rt_gen_stencil: the "stencil" matrix generator (2D/3D Laplacians, 3D 27- and 125-point
 * stencils on a box grid with Dirichlet boundaries) and the row enumeration that the generator
 * and the shape matcher (rt_stencil_spectrum.h) share. */
#ifndef RT_GEN_STENCIL_H
#define RT_GEN_STENCIL_H

#include <stdint.h>

#include "rt_generator_desc.h"

extern const rt_generator_desc rt_gen_stencil_desc;

/* points: 5 (2D Laplacian, nz = 1), 7 (3D Laplacian), 27 (3D, every neighbour at distance 1
 * in each coordinate), 125 (3D, distance 2). Rows are numbered x + nx (y + ny z). */
typedef struct rt_stencil_shape {
    int points;
    int64_t nx, ny, nz;
} rt_stencil_shape;

#define RT_STENCIL_MAX_POINTS 125

/* 1 when `points` names a stencil this generator knows. */
int rt_stencil_points_valid(int points);
/* Row r of the stencil matrix: columns ascending, diagonal points - 1, every other entry -1
 * (a diagonally dominant M-matrix, symmetric positive definite). Returns the entry count. */
int rt_stencil_row(const rt_stencil_shape *s, int64_t r, int32_t *cols, double *vals);

#endif
