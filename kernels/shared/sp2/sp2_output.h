/* sp2_output: The output hook: C redistributed to the family's canonical rows (dense SpMM),
 * or the row signatures of C (SpGEMM), reduced over ranks. */
#ifndef SP2_OUTPUT_H
#define SP2_OUTPUT_H

#include "rt_error.h"

int sp2_output(void *state, double *out, rt_err *err);

#endif
