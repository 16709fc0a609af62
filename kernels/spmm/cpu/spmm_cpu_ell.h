/* spmm_cpu_ell: kernel "spmm.cpu.ell", SpMM over warp-sliced ELL on the host with OpenMP.
 *
 * The same row-chunked, column-blocked execution as spmm.cpu.csr, over A converted in setup to
 * ELL sliced every `slice_height` rows (rt_ell_from_csr). Padding entries are executed, as a GPU
 * executes them (value 0 times a row of B), so the cost of padding shows in the timings.
 * Parameters: row_block, col_block, threads as spmm.cpu.csr, and
 *   slice_height int 1..1024 (32)  rows per ELL slice (32 = one warp)
 * Metrics: padding_overhead = stored / nnz - 1 (deterministic), ell_stored, threads, chunks. */
#ifndef SPMM_CPU_ELL_H
#define SPMM_CPU_ELL_H

#include "rt_registry.h"

const rt_kernel_desc *rt_spmm_cpu_ell_kernel(void);

#endif
