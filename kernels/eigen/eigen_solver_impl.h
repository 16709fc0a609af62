/* eigen_solver_impl: what the solver front (eigen_solver.c) and the two algorithms
 * (eigen_lobpcg.c, eigen_lanczos.c) share: the solver state and the task-building helpers. */
#ifndef EIGEN_SOLVER_IMPL_H
#define EIGEN_SOLVER_IMPL_H

#include "eigen_solver_types.h"
#include "eigen_tiles.h"

struct eg_solver {
    eg_config cfg;
    eg_mem mem;
    eg_tiling til;
    eg_dag dag;
    eg_graph_cache graphs; /* the graph schedule's captured segments, kept across runs */
    int *order;
    int order_cap;
    double a_norm_inf;
    int64_t tasks;
    eg_small token; /* host-only: orders the gathers of a reduction before its solve */
    void *algo;
    /* Builds the task graph of iteration `it` (0-based; `last` adds the final residual check). */
    int (*build)(eg_solver *s, int64_t it, rt_err *err);
    int (*start)(eg_solver *s, rt_err *err); /* host-side start of a run */
    int (*finish)(eg_solver *s, eg_result *res, rt_err *err);
    void (*free_algo)(eg_solver *s);
};

/* The state of an algorithm (s->algo) starts with its buffers, so that setting it up and freeing
 * it is one way for both algorithms. */
typedef struct eg_algo {
    eg_buffers bufs;
} eg_algo;

/* A zeroed state of `bytes` (its first member an eg_algo) as s->algo, with the algorithm's hooks
 * and eg_algo_free; NULL (err naming who) when memory is short. The caller describes its buffers
 * in ->bufs and allocates them with eg_algo_buffers. */
void *eg_algo_new(eg_solver *s, size_t bytes, int (*build)(eg_solver *, int64_t, rt_err *),
                  int (*start)(eg_solver *, rt_err *),
                  int (*finish)(eg_solver *, eg_result *, rt_err *), const char *who, rt_err *err);
int eg_algo_buffers(eg_solver *s, const char *who, rt_err *err);
/* Frees the buffers of s->algo, then the state. */
void eg_algo_free(eg_solver *s);

/* Orders and runs the current graph with the configured schedule. */
int eg_solver_exec(eg_solver *s, rt_err *err);

/* Task builders (operands and operations); each returns the task index or -1. */
typedef struct eg_ref {
    int obj;
    int64_t row, col, ld;
} eg_ref;

/* The SpMM tasks of row tile i: y_i[:, ycol..] = sum_j A(i, j) x_j[:, xcol..], ncols columns. */
int eg_task_spmm(eg_solver *s, int64_t i, const eg_bvec *x, int64_t xcol, const eg_bvec *y,
                 int64_t ycol, int64_t ncols, rt_err *err);
eg_ref eg_ref_tile(const eg_bvec *v, int64_t i, int64_t col);
eg_ref eg_ref_small(const eg_small *m, int64_t row, int64_t col);
void eg_op_gemm_nn(eg_op *op, int64_t t, int64_t r, int64_t w, double alpha, int su, eg_ref u,
                   int sm, eg_ref m, double beta, int sz, eg_ref z);
void eg_op_gemm_tn(eg_op *op, int64_t t, int64_t r1, int64_t r2, int su, eg_ref u, int sv, eg_ref v,
                   double beta, int sg, eg_ref g);
void eg_op_geam(eg_op *op, int64_t t, int64_t w, double alpha, int su, eg_ref u, double beta,
                int sv, eg_ref v, int sz, eg_ref z);
/* Appends an operand; returns its slot. */
int eg_task_operand(eg_task *t, int obj, eg_mode mode);

/* A host task (reduction, small solve) reading n_reads partial buffers and writing small
 * matrices; when the partials are many, "gather" host tasks bring them to the host first. */
int eg_add_host(eg_solver *s, const char *name, eg_host_fn fn, const eg_small *reads,
                int64_t n_reads, const eg_small *const *writes, int n_writes, rt_err *err);
int eg_host_noop(void *ctx, int64_t arg, rt_err *err);
/* Device tasks summing the leading `rows` rows of n partial buffers into sum in tile order
 * (sum = p_0, then sum += p_i), in the current call: a fixed order, so every schedule and device
 * gives the same bits, and only the reduced matrix crosses to the host (once, when a host task
 * reads it). */
int eg_add_reduce(eg_solver *s, const char *name, const eg_small *parts, int64_t n, int64_t rows,
                  const eg_small *sum, rt_err *err);

int eg_lobpcg_setup(eg_solver *s, rt_err *err);
int eg_lanczos_setup(eg_solver *s, rt_err *err);

/* Value of the starting block at (row, col), in [-1, 1). */
double eg_start_value(uint64_t seed, int64_t row, int64_t col);

#endif
