/* spgemm2d_cpu_kernels: the CPU kernels of the spgemm2d family, C = A * A with sparse B and C
 * tiles (local Gustavson SpGEMM), by the 2D algorithms of kernels/shared/sp2 (as spmm2d's:
 * kernels/spmm2d/cpu/spmm2d_cpu_kernels.h):
 *
 *   spgemm2d.cpu.stationary_c, spgemm2d.cpu.stationary_a, spgemm2d.cpu.summa
 *
 * Parameters: pr (process grid rows, 0 = most square), refine (tile grid refinement), prefetch
 * (0|1, the RDMA variants), queue_slots (the remote queues), steal_seed (work stealing).
 * docs/families/spmm2d.md describes the kernels, the metrics they store and how to read them. */
#ifndef SPGEMM2D_CPU_KERNELS_H
#define SPGEMM2D_CPU_KERNELS_H

#include "rt_registry.h"

/* The family's CPU kernels, NULL-terminated. */
const rt_kernel_desc *const *rt_spgemm2d_kernels(void);

#endif
