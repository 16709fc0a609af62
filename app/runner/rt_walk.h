/* rt_walk: the one walk of an experiment, shared by `run` and `run --model-only`: every matrix of
 * the config, every problem point, every kernel, and the kernel's parameter space for that
 * matrix and problem point (a sweep). The walk resolves what both need (the kernel's descriptor
 * and family, the family's problem point, the space, its constraints checked against the device)
 * and hands each sweep to the caller, which measures the points a search picks (rt_runner) or
 * models every point (the model-only mode).
 *
 * Order: matrices as listed, problem points in rt_problem.h's order, kernels as listed. */
#ifndef RT_WALK_H
#define RT_WALK_H

#include <stdint.h>

#include "rt_config.h"
#include "rt_device.h"
#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_registry.h"
#include "rt_space.h"

/* What a matrix step says about its matrix (the return of rt_walk_ops.matrix). */
enum {
    RT_WALK_MATRIX_OK = 0,       /* built: sweeps get a space for it */
    RT_WALK_MATRIX_NO_SPACE = 1, /* not built (its failure is the matrix's, not the run's): the
                                    sweeps are still visited, without a space, so the caller can
                                    record each one's failure */
};

typedef struct rt_sweep {
    int matrix_index;
    const rt_matrix_cfg *matrix;
    int64_t problem_index;
    int kernel_index;
    const rt_kernel_cfg *kernel_cfg;
    const rt_kernel_desc *kernel;
    const rt_family_desc *family;
    const rt_params *problem; /* the family's problem point (defaults filled in) */
    rt_space *space;          /* NULL after RT_WALK_MATRIX_NO_SPACE */
} rt_sweep;

typedef struct rt_walk_ops {
    /* The matrix step: builds matrix mi and gives its shape (the whole matrix's rows, columns and
     * nonzeros, which spaces and constraints see). Returns RT_WALK_MATRIX_OK, _NO_SPACE or -1. */
    int (*matrix)(void *ctx, int mi, const rt_matrix_cfg *mc, int64_t shape[3], rt_err *err);
    /* Optional: after the matrix's problem points (free what the matrix step built). */
    void (*matrix_done)(void *ctx, int mi);
    /* Optional: a kernel left out of the walk (a backend not here, a family without a model). */
    int (*skip)(void *ctx, int mi, int64_t pi, const rt_kernel_desc *kernel);
    /* Optional: the device whose limits a kernel's constraints see (device.*); NULL: none. */
    const rt_device_info *(*device)(void *ctx, const rt_kernel_desc *kernel);
    /* One sweep. Returns 0 or -1 (the walk stops with err). It may take s->space, setting it to
     * NULL (a sweep whose last points outlive this step: parallel tuning), and frees it then. */
    int (*sweep)(void *ctx, rt_sweep *s, rt_err *err);
    /* Optional: after a problem point's kernels (inputs of the point can go). */
    void (*problem_done)(void *ctx);
    /* Optional: 1 ends the walk before its next step (a point budget, a signal). */
    int (*stopped)(void *ctx);
} rt_walk_ops;

/* Builds a config's matrix (generator or file, then its ordering); a failure names the matrix
 * and where the config defines it. */
int rt_walk_build_matrix(const rt_matrix_cfg *mc, rt_csr *out, rt_err *err);

/* Walks cfg. Fails on a kernel the registry lacks, a problem point the family rejects, a space
 * that cannot be built, or what a step fails on. */
int rt_walk(const rt_config *cfg, const rt_registry *reg, const rt_walk_ops *ops, void *ctx,
            rt_err *err);

/* The sweep the walk visits after s (rt_walk's order; kernels whose backend is not here, the
 * runner's skip rule, left out): 1 with its matrix, problem point, kernel and family in *next and
 * its problem point in *problem (next->problem points there; next->space is NULL), 0 when s is
 * the walk's last sweep, -1 on error. Parallel tuning's workers use it to build the next sweep's
 * inputs before they reach it. */
int rt_walk_next(const rt_config *cfg, const rt_registry *reg, const rt_sweep *s, rt_sweep *next,
                 rt_params *problem, rt_err *err);

#endif
