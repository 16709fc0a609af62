/* spmm2d_cpu_kernels: the CPU kernels of the spmm2d family (Brock, Buluc, Yelick, ICS'24,
 * sections 2-4), one rank per core, MPI between ranks; the algorithms are kernels/shared/sp2's:
 *
 *   spmm2d.cpu.stationary_c   each C tile's owner gets A(i,k) and B(k,j) with one-sided gets and
 *                             accumulates locally; k runs from the offset i + j; with prefetch the
 *                             next pair of tiles is fetched (non-blocking) during the multiply
 *   spmm2d.cpu.stationary_a   each A tile's owner gets B(k,j) (j from offset i + k) and sends the
 *                             partial C(i,j) to the owner's remote accumulation queue
 *   spmm2d.cpu.stationary_b   each B tile's owner gets A(i,k) (i from offset k + j), partial C to
 *                             the owner's queue
 *   spmm2d.cpu.summa          bulk-synchronous SUMMA: at step k, A(:,k) broadcast along process
 *                             rows and B(k,:) along process columns, then local multiplies
 *   spmm2d.cpu.summa_a        reduce-based stationary-A SUMMA: at step j, B(:,j) broadcast along
 *                             process columns, partial C(:,j) reduced along process rows
 *   spmm2d.cpu.ws_random      stationary A with random work stealing: a 2D work grid (one counter
 *                             per A tile hands out its column tiles j by fetch-and-add); idle ranks
 *                             claim pieces of random other tiles
 *   spmm2d.cpu.ws_locality    stationary C with locality-aware stealing: a 3D work grid (one
 *                             counter per product C(i,j) += A(i,k) B(k,j)); idle ranks claim only
 *                             products whose A or B tile they own
 *
 * Parameters: pr (process grid rows, 0 = most square), refine (tile grid refinement), prefetch
 * (0|1, the RDMA variants), queue_slots (the remote queues), steal_seed (work stealing).
 * docs/families/spmm2d.md describes the kernels, the metrics they store and how to read them. */
#ifndef SPMM2D_CPU_KERNELS_H
#define SPMM2D_CPU_KERNELS_H

#include "rt_registry.h"

/* The family's CPU kernels, NULL-terminated. */
const rt_kernel_desc *const *rt_spmm2d_kernels(void);

#endif
