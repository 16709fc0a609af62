/* spmm2d_output: The output hook: C redistributed to the family's canonical rows (dense SpMM),
 * or the row signatures of C (SpGEMM), reduced over ranks. */
#ifndef SPMM2D_OUTPUT_H
#define SPMM2D_OUTPUT_H

#include "rt_error.h"

int sp2_output(void *state, double *out, rt_err *err);

#endif
