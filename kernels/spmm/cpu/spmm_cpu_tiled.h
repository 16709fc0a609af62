/* spmm_cpu_tiled: kernel "spmm.cpu.tiled", a host execution of a Tiled SpMM plan (spmm_tiled.h)
 * that follows the GPU kernel step by step, so the plan is validated end to end by the runner's
 * verification gate on machines without a GPU.
 *
 * Work items are (thread block, K tile of register_tile columns), like the GPU grid's x and y,
 * spread over OpenMP threads. For each stage of its block an item copies the staged rows of B
 * (map) into a local buffer of buffsize x register_tile values (shared memory on the GPU), then
 * every row of the block accumulates from that buffer through its staged indices, padding
 * included; after the last stage the block's rows are written to C.
 * Parameters:
 *   block_size    int 32..1024 (256)  rows per block; a multiple of 32 with ELL staging
 *   buffer_kib    int 1..228   (48)   shared bytes per block / 1024;
 *                                     buffsize = buffer_kib * 1024 / (register_tile * sizeof(prec))
 *   register_tile int 1..64    (8)    columns of C per work item (outputs per thread on the GPU)
 *   staging       str ell|csr  (ell)  per (stage, warp) ELL or per (stage, row) CSR
 *   index_bytes   int 2|4      (2)    width of the staged indices
 * Metrics: the plan's (rt_tiled_plan_metrics) with staged_bytes replaced by the bytes of B staged
 * per execution (staged_entries x K x precision size), buffsize, and preprocess_s (plan build
 * time, not deterministic). */
#ifndef SPMM_CPU_TILED_H
#define SPMM_CPU_TILED_H

#include "rt_registry.h"

const rt_kernel_desc *rt_spmm_cpu_tiled_kernel(void);

#endif
