/* The CPU kernels of the gemm family:
 *   gemm.cpu.tiled  the chunked, blocked algorithm (gemm_tiled.h) with emulated GPUs in host
 *                   memory (gemm_cpu_engine.h): same schedule, caches, messages and counters as
 *                   gemm.cuda.tiled;
 *   gemm.cpu.summa  bulk-synchronous SUMMA with the same tiles and grid: for each k, the tile
 *                   column of A is broadcast along process rows and the tile row of B along
 *                   process columns, then every process updates all its C tiles. */
#ifndef GEMM_CPU_KERNELS_H
#define GEMM_CPU_KERNELS_H

#include "rt_registry.h"

const rt_kernel_desc *rt_gemm_cpu_tiled_kernel(void);
const rt_kernel_desc *rt_gemm_cpu_summa_kernel(void);

#endif
