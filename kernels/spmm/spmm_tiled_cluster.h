/* spmm_tiled_cluster: the Tiled SpMM plan of a thread-block cluster (spmm.cuda.tiled_pipe's
 * `cluster` parameter, sm_90 and later).
 *
 * A cluster of `cluster` consecutive row blocks, each of block_size rows with a buffer of buffsize
 * staged rows, runs one plan block (spmm_tiled.h) of cluster * block_size rows whose stages hold
 * up to cluster * buffsize staged rows: the union of the blocks' footprints, cut into stages. A
 * B row that several blocks of the cluster need is then staged once per stage instead of once per
 * block, and the cluster's window is cluster times one block's, so it needs fewer stages. The
 * blocks share the staging: cluster slot i of a stage is staged by block (rank) i % cluster, at
 * slot i / cluster of its own buffer, so rank r stages ceil((mapnz - r) / cluster) <= buffsize of
 * a stage's mapnz slots, and every block reads a staged row from its owner's shared memory
 * through distributed shared memory. The plan itself is rt_tiled_plan_build's with the cluster's
 * parameters (rt_tiled_cluster_params): block b of the plan is cluster b, and rank r's rows and
 * threads are the r-th block_size of it (its ELL slices the r-th block_size / warp_size warps of
 * each stage). With cluster = 1 it is the plan of one block, unchanged.
 *
 * Interleaving the ranks (slot i to rank i % cluster) instead of giving each a contiguous run of
 * the stage keeps every rank's share within one slot of the others' on every stage, the short
 * last stage included, and the owner of a slot a bit mask of a power of two. */
#ifndef SPMM_TILED_CLUSTER_H
#define SPMM_TILED_CLUSTER_H

#include <stdint.h>

#include "rt_error.h"
#include "spmm_tiled.h"

/* Cluster sizes the kernel compiles (__cluster_dims__): powers of two up to the portable 8. */
#define RT_TILED_CLUSTER_MAX 8

/* The plan parameters of clusters of `cluster` blocks of `block` (block_size rows, buffsize staged
 * rows per stage each): block_size * cluster rows and buffsize * cluster slots per stage, the
 * rest as block's. cluster = 1 gives *block unchanged. Refuses, naming `cluster`, a cluster that
 * is not 1, 2, 4 or 8, and 2-byte indices that cannot address the cluster's slots (the plan's
 * indices are cluster slots). */
int rt_tiled_cluster_params(const rt_tiled_params *block, int64_t cluster, rt_tiled_params *out,
                            rt_err *err);

/* The rank of the block that stages cluster slot `slot`, and the slot in that block's buffer. */
int64_t rt_tiled_cluster_owner(int64_t slot, int64_t cluster);
int64_t rt_tiled_cluster_local(int64_t slot, int64_t cluster);
/* How many of a stage's mapnz cluster slots rank stages (those that are rank mod cluster). */
int64_t rt_tiled_cluster_share(int64_t mapnz, int64_t rank, int64_t cluster);

#endif
