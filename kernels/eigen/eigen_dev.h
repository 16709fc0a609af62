/* eigen_dev: the abstract "device" the out-of-core eigensolvers run on.
 *
 * The solvers, the task graph and the memory manager are plain C; everything that touches device
 * memory goes through this table. The host implementation (eigen_dev_host.c) is a "device" made of
 * host memory with CBLAS arithmetic, so CI runs the same tiling, schedules and staging as the GPU
 * (kernels/eigen/cuda/, cuSPARSE and cuBLAS). Dense blocks are row-major with a leading dimension
 * in elements; sparse blocks use the packed CSR layout of eigen_packed.h. */
#ifndef EIGEN_DEV_H
#define EIGEN_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

typedef struct eg_dev_ops {
    const char *name;
    /* One buffer of `bytes` for the memory manager's pool. */
    int (*pool_create)(void *impl, size_t bytes, void **base, rt_err *err);
    void (*pool_destroy)(void *impl, void *base);
    int (*h2d)(void *impl, void *dst, const void *src, size_t bytes, rt_err *err);
    int (*d2h)(void *impl, void *dst, const void *src, size_t bytes, rt_err *err);
    /* y (rows x ncols, ldy) = A x (cols x ncols, ldx) + beta y, A a packed CSR block. */
    int (*spmm)(void *impl, const void *a, int64_t rows, int64_t cols, int64_t nnz, const double *x,
                int64_t ldx, int64_t ncols, double beta, double *y, int64_t ldy, rt_err *err);
    /* z (t x w) = alpha u (t x r) m (r x w) + beta z. */
    int (*gemm_nn)(void *impl, int64_t t, int64_t r, int64_t w, double alpha, const double *u,
                   int64_t ldu, const double *m, int64_t ldm, double beta, double *z, int64_t ldz,
                   rt_err *err);
    /* g (r1 x r2) = alpha u^T v + beta g, u (t x r1), v (t x r2). */
    int (*gemm_tn)(void *impl, int64_t t, int64_t r1, int64_t r2, double alpha, const double *u,
                   int64_t ldu, const double *v, int64_t ldv, double beta, double *g, int64_t ldg,
                   rt_err *err);
    /* z (t x w) = alpha u + beta v; z may be u. */
    int (*geam)(void *impl, int64_t t, int64_t w, double alpha, const double *u, int64_t ldu,
                double beta, const double *v, int64_t ldv, double *z, int64_t ldz, rt_err *err);
    /* Waits for everything enqueued (a no-op on the host). */
    int (*sync)(void *impl, rt_err *err);
    /* Optional graph capture (the graph schedule, eigen_graph.h). Between capture_begin and
     * capture_end the operations above are recorded, not run; capture_end returns an executable
     * graph of them in *graph, or discards the capture when keep is 0 (after a failed operation).
     * NULL on a device without graphs (the host): the executor then keeps a segment's bound
     * operations as its "graph" and replays them one by one. */
    int (*capture_begin)(void *impl, rt_err *err);
    int (*capture_end)(void *impl, int keep, void **graph, rt_err *err);
    int (*graph_launch)(void *impl, void *graph, rt_err *err);
    void (*graph_destroy)(void *impl, void *graph);
} eg_dev_ops;

typedef struct eg_dev {
    const eg_dev_ops *ops;
    void *impl;
} eg_dev;

#endif
