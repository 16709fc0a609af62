/* sptrsv.cpu.persistent: the persistent solve's plan (sptrsv_pplan.h) on CPU ranks, forward or
 * backward: the same tasks, tickets, flags, counters, x copies and partial-sum reductions as
 * sptrsv.cuda.persistent, with each rank's OpenMP threads as the workers and MPI shared-memory
 * windows (MPI_Win_allocate_shared) as the memory other parts write into: x and partial sums
 * are copied straight into the owner's segment, flags and counters raised with atomics
 * (release/acquire), so no message passes through MPI during an execution. The parts must share
 * one node (emulated nodes count: ranks the job calls separate nodes do not share memory): else
 * the point is infeasible, and sptrsv.cpu.distributed (MPI-3 RMA) is the solve across nodes.
 * Timed by the runner's wall clock. */
#ifndef SPTRSV_CPU_PERSIST_H
#define SPTRSV_CPU_PERSIST_H

#include "rt_registry.h"

const rt_kernel_desc *rt_sptrsv_cpu_persist_kernel(void);

#endif
