/* sptrsv.cpu.distributed: the message-driven distributed forward solve (the paper's algorithm on
 * CPU ranks). P x 1 block layout and binary broadcast trees from sptrsv_plan; each rank solves its
 * supernodes as their inputs arrive, with no barrier between levels. x_s travels as an MPI-3 RMA
 * put into a slot of the receiver's window followed by an atomic increment of the slot's counter,
 * which the receiver polls; a receiver forwards x_s to its children in the tree before using it.
 *
 * Every execution starts and ends with a barrier: the end one makes the solve's completion global,
 * after which each rank checks that every slot received exactly one message in this execution (its
 * counter equals the execution count) and none is pending; the start one keeps a rank's next
 * execution from overwriting X while another rank's output hook still reads it. X itself lives in
 * a second window so the output and metrics hooks fetch the canonical rows from their owners with
 * one-sided gets (no collective there, so a rank whose execution failed cannot leave others
 * waiting).
 *
 * Metrics: messages expected / received / pending / duplicated per execution (this rank),
 * the refined critical-path model's prediction with its costs (one-thread bandwidth from a
 * sequential solve, per-tier latency and bandwidth from RMA ping-pongs in setup), the critical
 * path's length and messages. */
#ifndef SPTRSV_CPU_DIST_H
#define SPTRSV_CPU_DIST_H

#include "rt_registry.h"

const rt_kernel_desc *rt_sptrsv_cpu_dist_kernel(void);

#endif
