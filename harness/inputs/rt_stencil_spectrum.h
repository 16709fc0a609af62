/* rt_stencil_spectrum: recognises a matrix as one of the stencil generator's (rt_gen_stencil.h)
 * and gives the smallest eigenvalues in closed form where one exists, so eigensolvers can be
 * verified against exact values rather than against another solver. */
#ifndef RT_STENCIL_SPECTRUM_H
#define RT_STENCIL_SPECTRUM_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_gen_stencil.h"
#include "rt_matrix.h"

/* 1 and *shape filled when A equals, entry for entry, the stencil matrix of some grid (every
 * factorisation of the row count is tried; a mismatch is usually found in the first rows);
 * 0 otherwise. */
int rt_stencil_match(const rt_csr *a, rt_stencil_shape *shape);

/* The k smallest eigenvalues, ascending. 5/7 points (Laplacians): sum over the axes of
 * 2 - 2 cos(i pi / (n + 1)); 27 points: 27 - prod over the axes of (1 + 2 cos(i pi / (n + 1)))
 * (the matrix is 27 I - B (x) B (x) B with B the all-ones tridiagonal). Returns 0, or 1 when the
 * stencil has no closed form (125 points: the truncated pentadiagonal factor is not diagonalised
 * by the sine transform), or -1 on error. */
int rt_stencil_smallest(const rt_stencil_shape *shape, int64_t k, double *out, rt_err *err);

#endif
