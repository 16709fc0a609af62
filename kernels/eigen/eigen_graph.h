/* eigen_graph: the graph schedule of the eigensolvers (DeepSparseGPU's CUDA-graph version).
 *
 * An iteration's tasks run in the dag order. Host tasks (reductions of partial buffers, the small
 * LAPACKE solves) split it into segments: maximal runs of device tasks. For a segment, the operands
 * of all its tasks are made resident first (the memory manager's copies, counted as always), its
 * operations are bound to device addresses, and the bound list is looked up in a cache:
 *   - first sight: it runs eagerly, op by op, and is remembered (this also sizes library
 *     workspaces outside any capture, and only segments that repeat are worth a graph);
 *   - second sight of an identical list (same operations, sizes, scalars, addresses): it is
 *     captured into a graph, which is launched;
 *   - later sights: the graph is launched again, with no capture.
 * A graph is replayed only for a list equal to the one captured, so a replay does exactly what the
 * eager operations would do, and every schedule computes the same iterates.
 *
 * Why segments and not one graph per iteration with host nodes: the host tasks need their operands
 * on the host and write small matrices the next device tasks read, and it is the memory manager
 * that decides, counts and times those copies (write-back, copy-in, dropped device copies); a host
 * node may make no CUDA call, so it could neither run the manager nor report a LAPACKE failure. The
 * segments keep every copy and byte count exactly where the other schedules have them.
 *
 * In core only (gpu_mem_budget 0): every segment's operands fit at once, nothing is evicted. */
#ifndef EIGEN_GRAPH_H
#define EIGEN_GRAPH_H

#include <stdint.h>

#include "eigen_dag.h"
#include "eigen_mem.h"
#include "rt_error.h"

/* Cached segments beyond this run eagerly (no capture), so the cache stays bounded. */
#define EG_GRAPH_MAX_SEGMENTS 256

typedef struct eg_graph_seg {
    uint64_t hash;
    int n_ops;
    eg_bound_op *ops;
    int captured; /* 1: a graph exists (graph, or the bound list itself on a device without) */
    void *graph;
} eg_graph_seg;

typedef struct eg_graph_stats {
    int64_t segments; /* device segments run */
    int64_t eager;    /* of them run op by op (first sight, or the cache full) */
    int64_t captures; /* graphs captured */
    int64_t launches; /* graph launches (a capture's first launch included) */
} eg_graph_stats;

typedef struct eg_graph_cache {
    eg_graph_seg *seg;
    int n_seg;
    eg_bound_op *scratch; /* the bound list of the segment being run */
    int cap_scratch;
    int *acquired; /* operands pinned for the segment, to release */
    int cap_acquired;
    eg_graph_stats st; /* since the last eg_graph_reset_stats */
} eg_graph_cache;

void eg_graph_init(eg_graph_cache *c);
/* Destroys the graphs on dev (which must still exist) and frees the cache. */
void eg_graph_free(eg_graph_cache *c, const eg_dev *dev);
void eg_graph_reset_stats(eg_graph_cache *c);

/* Runs the tasks of d in order (a dag order) as host tasks and cached device segments. 0,
 * RT_INFEASIBLE (a segment's operands do not fit at once) or -1. */
int eg_graph_execute(const eg_dag *d, const int *order, eg_mem *m, eg_graph_cache *c, rt_err *err);

#endif
