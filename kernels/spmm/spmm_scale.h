/* spmm_scale: the per-element scale of the verification gate's elementwise check for products of
 * a sparse A and a dense B (|A||B|, in double), shared by the spmm and dspmm families. */
#ifndef SPMM_SCALE_H
#define SPMM_SCALE_H

#include <stdint.h>

#include "spmm_inputs.h"

/* Writes sum_k |a_rk| |b_kj| for rows row0..row1-1 of in->a into out, row-major (row r - row0,
 * column j at (r - row0) * k + j), reading B through its own precision and layout. */
void rt_spmm_abs_product_rows(const rt_spmm_inputs *in, int64_t row0, int64_t row1, double *out);

#endif
