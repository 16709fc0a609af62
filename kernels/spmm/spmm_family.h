/* spmm_family: the "spmm" family descriptor (problem parameters, reference, tolerance, flops) over
 * the inputs of spmm_inputs.h, where the problem and its conventions are described. */
#ifndef SPMM_FAMILY_H
#define SPMM_FAMILY_H

#include "rt_registry.h"
#include "rt_tables.h"
#include "spmm_inputs.h"

/* Problem parameters the families built on SpMM take as SpMM does (kernels/dspmm: K and seed;
 * kernels/spmm2d: seed, B being N columns there). */
#define SPMM_PARAM_K    RT_PARAM_INT("K", "1..65536", "32", "columns of the dense matrices B and C")
#define SPMM_PARAM_SEED RT_PARAM_INT("seed", "", "1", "seed of the values of B")

/* The family descriptor (static, immutable). */
const rt_family_desc *rt_spmm_family(void);

#endif
