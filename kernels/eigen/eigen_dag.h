/* eigen_dag: one iteration of a solver as a task graph over tiles, its schedules and its executor.
 *
 * A solver submits tasks in program order, call by call (a "call" is what one library call of a
 * straightforward port would do: a whole SpMM, one X'*Y, one X*Y). Each task names its operands
 * (tiles of the memory manager, with a mode) and either a short list of device operations or a host
 * function (reductions of partial buffers and the small dense solves). Dependencies are derived
 * from the operands (read after write, write after read, write after write), so the graph is the
 * program's. Schedules:
 *   kbk  kernel by kernel: program order, and at the end of every call all results are written
 *        back and the device is emptied (each call stages its own operands in and out);
 *   dag  the same tasks in depth-first topological order (a task's successors run as soon as they
 *        are ready, so a tile's chain of tasks runs while the tile is resident); tiles stay on the
 *        device until evicted.
 *   graph the dag order, with each run of device tasks between two host tasks (a segment) replayed
 *        as a captured graph once it repeats (eigen_graph.h; in core only).
 * Every order respects the dependencies, and host reductions sum partials in tile order, so every
 * schedule computes the same iterates. */
#ifndef EIGEN_DAG_H
#define EIGEN_DAG_H

#include <stdint.h>

#include "eigen_mem.h"
#include "rt_error.h"

#define EG_MAX_OPERANDS 8
#define EG_MAX_OPS      9

typedef enum eg_op_kind { EG_OP_SPMM = 0, EG_OP_GEMM_NN, EG_OP_GEMM_TN, EG_OP_GEAM } eg_op_kind;

/* One device operation on operand slots of its task. Slot s[0] is the output, s[1] and s[2] the
 * inputs (SpMM: s[1] is the packed A block, s[2] the dense input; GEMM_NN: s[1] = u, s[2] = m;
 * GEMM_TN: s[1] = u, s[2] = v; GEAM: s[1] = u, s[2] = v). Each slot is addressed at element
 * (row[k], col[k]) of its tile with leading dimension ld[k]. */
typedef struct eg_op {
    eg_op_kind kind;
    int s[3];
    int64_t row[3], col[3], ld[3];
    int64_t m, n, k; /* GEMM_NN: t, w, r; GEMM_TN: r1, r2, t; GEAM: t, w; SpMM: rows, ncols, cols */
    int64_t nnz;     /* SpMM */
    double alpha, beta;
} eg_op;

typedef struct eg_operand {
    int obj;
    eg_mode mode;
} eg_operand;

typedef int (*eg_host_fn)(void *ctx, int64_t arg, rt_err *err);

typedef struct eg_task {
    const char *name; /* for messages: "spmm", "gram A", ... */
    int64_t tile;
    int call;
    int n_operands;
    eg_operand operand[EG_MAX_OPERANDS];
    int n_ops;
    eg_op op[EG_MAX_OPS];
    eg_host_fn host; /* non-NULL: a host task; operands are synchronised to the host */
    void *host_ctx;
    int64_t host_arg;
    /* graph */
    int n_succ, cap_succ;
    int *succ;
    int n_pred;
} eg_task;

/* An empty task (no operands, no operations) named `name`, of tile `tile`. */
void eg_task_init(eg_task *t, const char *name, int64_t tile);

typedef enum eg_schedule { EG_SCHED_KBK = 0, EG_SCHED_DAG = 1, EG_SCHED_GRAPH = 2 } eg_schedule;

/* "kbk", "dag" or "graph" (the CUDA kernels' schema offers "graph"); -1 when unknown. */
int eg_schedule_parse(const char *s);

typedef struct eg_dag {
    int n, cap;
    eg_task *task;
    int call; /* the call that new tasks join */
    /* per object: last writer and readers since (dependency derivation) */
    int n_obj;
    int *last_writer;
    int **readers;
    int *n_readers, *cap_readers;
} eg_dag;

int eg_dag_init(eg_dag *d, int n_obj, rt_err *err);
void eg_dag_free(eg_dag *d);
/* Empties the graph for the next iteration (keeps allocations). */
void eg_dag_clear(eg_dag *d);
/* Starts a new call: the tasks added next belong to it. */
void eg_dag_next_call(eg_dag *d);
/* Adds a task (copied) and its dependencies; returns its index or -1. */
int eg_dag_add(eg_dag *d, const eg_task *t, rt_err *err);

/* The execution order of a schedule: a permutation of 0..n-1 into order (n entries). */
int eg_dag_order(const eg_dag *d, eg_schedule s, int *order, rt_err *err);

/* The largest number of pool bytes one task pins at once (the smallest feasible budget is at
 * least this), and that task's index. */
size_t eg_dag_max_operand_bytes(const eg_dag *d, const eg_mem *m, int *which);

/* Runs the tasks in order on the memory manager's device. kbk flushes and empties the device at
 * every change of call. 0, RT_INFEASIBLE (err: which task did not fit) or -1. The graph schedule
 * runs through eg_graph_execute (eigen_graph.h), not here. */
int eg_dag_execute(const eg_dag *d, const int *order, eg_schedule s, eg_mem *m, rt_err *err);

/* A host task: its read operands brought to the host, the device synchronised, the function run,
 * its written operands marked current on the host. */
int eg_dag_run_host_task(const eg_task *t, eg_mem *m, rt_err *err);

/* A device operation with its slots resolved to device addresses: what a captured graph fixes, so
 * two bound operations that compare equal do exactly the same work on the same memory. */
typedef struct eg_bound_op {
    eg_op op;
    void *base[3]; /* the device address of the tile of slot op.s[k] */
} eg_bound_op;

void eg_op_bind(const eg_op *op, void *const *slot_ptr, eg_bound_op *out);
int eg_bound_op_same(const eg_bound_op *a, const eg_bound_op *b);
int eg_bound_op_run(const eg_dev *dev, const eg_bound_op *b, rt_err *err);

#endif
