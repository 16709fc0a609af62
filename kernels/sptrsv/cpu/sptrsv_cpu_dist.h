/* sptrsv.cpu.distributed: the message-driven distributed forward solve (the paper's algorithm on
 * CPU ranks): the messages are sptrsv_dist_engine's (P x 1 block layout, binary broadcast trees of
 * MPI-3 RMA puts and polled counters, no barrier between levels), the arithmetic here (dense block
 * updates into this rank's partial sums and diagonal solves, one thread).
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
