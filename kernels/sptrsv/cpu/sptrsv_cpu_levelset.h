/* sptrsv.cpu.levelset: the level-set solve on the CSR copy of L — rows of one level of the scalar
 * DAG are independent and run in parallel (OpenMP), levels one after another with a barrier
 * between them. The level sets are built in setup (the analysis, reported as preprocessing). */
#ifndef SPTRSV_CPU_LEVELSET_H
#define SPTRSV_CPU_LEVELSET_H

#include "rt_registry.h"

const rt_kernel_desc *rt_sptrsv_cpu_levelset_kernel(void);

#endif
