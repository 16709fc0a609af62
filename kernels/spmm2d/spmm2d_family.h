/* spmm2d_family: the family "spmm2d" (kernels/shared/sp2/sp2_problem.h describes the problem, its
 * output and rates, which spmm2d and spgemm2d share). */
#ifndef SPMM2D_FAMILY_H
#define SPMM2D_FAMILY_H

#include "rt_registry.h"

const rt_family_desc *rt_spmm2d_family(void);

#endif
