/* spmm_cpu_csr: kernel "spmm.cpu.csr", SpMM over CSR on the host with OpenMP.
 *
 * Rows are cut into chunks of `row_block` rows handed out dynamically to `threads` threads. For
 * each row the kernel sweeps the row's nonzeros once per block of `col_block` columns of B/C,
 * accumulating into a per-thread buffer small enough for registers/L1, then stores it into C.
 * Parameters:
 *   row_block int 1..1048576 (256)  rows per OpenMP chunk (dynamic schedule)
 *   col_block int 1..65536   (64)   columns per sweep; larger than K is clamped to K
 *   threads   int 0..1024    (0)    team size, 0 = every available core; more than 4x the
 *                                   available cores is infeasible
 * Metrics: threads (team actually started), chunks (row chunks per execution, deterministic). */
#ifndef SPMM_CPU_CSR_H
#define SPMM_CPU_CSR_H

#include "rt_registry.h"

const rt_kernel_desc *rt_spmm_cpu_csr_kernel(void);

#endif
