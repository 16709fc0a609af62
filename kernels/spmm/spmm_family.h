/* spmm_family: the "spmm" family descriptor (problem parameters, reference, tolerance, flops) over
 * the inputs of spmm_inputs.h, where the problem and its conventions are described. */
#ifndef SPMM_FAMILY_H
#define SPMM_FAMILY_H

#include "rt_registry.h"
#include "spmm_inputs.h"

/* The family descriptor (static, immutable). */
const rt_family_desc *rt_spmm_family(void);

#endif
