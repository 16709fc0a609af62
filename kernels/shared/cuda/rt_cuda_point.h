/* rt_cuda_point: what every family's CUDA kernels do the same way to take a point: read a
 * parameter with its catalog schema's default and domain, name the point in messages, and set up
 * a kernel state (check the family's inputs, allocate the state, prepare it, tear it down on
 * failure); plus the variant and launch helpers of kernels that enqueue several launches and
 * synchronise themselves.
 *
 * A family describes its inputs once (rt_cuda_point_family: the check of its inputs and how a
 * point is named); a kernel's state starts with an rt_cuda_point, so the generic setup can fill
 * the context, the checked inputs and the point's name before the kernel's own prepare runs. */
#ifndef RT_CUDA_POINT_H
#define RT_CUDA_POINT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_cuda_catalog.h"
#include "rt_cuda_ctx.h"
#include "rt_error.h"
#include "rt_params.h"
#include "rt_registry.h"

/* Integer / string parameter `name` of catalog entry e, the schema default when p does not carry
 * it (rt_schema_int/_str: the rule of every CPU kernel). Fails on a value outside the schema's
 * domain, naming it, and on a NULL entry. */
int rt_cuda_param_int(const rt_cuda_catalog_entry *e, const rt_params *p, const char *name,
                      int64_t *out, rt_err *err);
int rt_cuda_param_str(const rt_cuda_catalog_entry *e, const rt_params *p, const char *name,
                      char *out, size_t len, rt_err *err);

/* "<kernel> {params} <problem>": the start of every message about a point; problem is the
 * family's own description of its inputs ("on 1000 x 777 (nnz 5000), K=64 fp32 row"). */
void rt_cuda_point_name(const char *kernel, const rt_params *p, const char *problem, char *out,
                        size_t len);

/* A family's inputs as its CUDA kernels see them. */
typedef struct rt_cuda_point_family {
    /* Checks inputs (what the family's make_inputs built) for the CUDA kernels; *checked gets
     * them back typed as the family's inputs. 0 or -1 (err filled). */
    int (*inputs)(const void *inputs, const void **checked, rt_err *err);
    /* Writes the problem part of a point's name (rt_cuda_point_name). */
    void (*problem)(const void *checked, char *out, size_t len);
} rt_cuda_point_family;

/* The first member of a CUDA kernel's state. */
typedef struct rt_cuda_point {
    rt_cuda_ctx *ctx;
    const void *inputs; /* the family's checked inputs (borrowed) */
    char what[768];     /* kernel and point, for every message */
} rt_cuda_point;

/* The family's check of its inputs (fam->inputs), for hooks other than setup. */
int rt_cuda_point_inputs(const rt_cuda_point_family *fam, const void *inputs, const void **checked,
                         rt_err *err);

/* The setup hook's body: checks the inputs, allocates a zeroed state of state_bytes whose first
 * member is an rt_cuda_point, fills it (self->backend_ctx, the checked inputs, the point's name)
 * and runs prepare; on failure the state goes through teardown. Returns prepare's 0,
 * RT_INFEASIBLE or -1. */
int rt_cuda_point_setup(const rt_kernel_desc *self, const rt_cuda_point_family *fam,
                        const void *inputs, const rt_params *p, size_t state_bytes,
                        int (*prepare)(void *state, const rt_params *p, rt_err *err),
                        void (*teardown)(void *state), void **state, rt_err *err);

/* Compiles (or finds) entry `entry` of the embedded NVRTC source `source_name` with the given
 * defines; messages start with what. */
int rt_cuda_point_variant(rt_cuda_ctx *ctx, const char *source_name, const char *const *defines,
                          int n_defines, const char *entry, rt_cuda_variant *v, const char *what,
                          rt_err *err);

/* Launches a loaded variant on the context's stream without waiting (the caller synchronises);
 * raises the function's dynamic shared-memory limit first when it passes 48 KiB. A grid with a
 * zero dimension launches nothing. */
int rt_cuda_point_launch(rt_cuda_ctx *ctx, const rt_cuda_variant *v, const unsigned grid[3],
                         const unsigned block[3], size_t dynamic_shared, void **args,
                         const char *what, rt_err *err);

/* The types of rt_kernel_desc's hooks (harness/core/rt_registry.h says what each does). */
typedef int rt_cuda_check_fn(const rt_kernel_desc *, const void *, const rt_params *,
                             const rt_kernel_env *, char *, size_t, rt_err *);
typedef int rt_cuda_setup_fn(const rt_kernel_desc *, const void *, const rt_params *,
                             const rt_kernel_env *, void **, rt_err *);
typedef int rt_cuda_state_fn(void *, rt_err *);
typedef int rt_cuda_metrics_fn(void *, rt_metrics *, rt_err *);
typedef int rt_cuda_traffic_fn(const rt_kernel_desc *, const void *, const rt_params *,
                               const rt_kernel_env *, rt_traffic *, rt_err *);

/* A CUDA kernel's hooks in this order, so that a descriptor is filled in one call; flush may be
 * rt_cuda_point_flush. */
typedef struct rt_cuda_point_hooks {
    rt_cuda_check_fn *check;
    rt_cuda_setup_fn *setup;
    int (*run)(void *state, double *seconds, rt_err *err);
    int (*output)(void *state, double *out, rt_err *err);
    rt_cuda_metrics_fn *metrics;
    rt_cuda_state_fn *flush;
    void (*teardown)(void *state);
    rt_cuda_traffic_fn *traffic;
} rt_cuda_point_hooks;

/* Fills d from catalog entry e (rt_cuda_catalog_describe) and the hooks; backend_ctx = ctx. */
void rt_cuda_point_describe(rt_kernel_desc *d, const rt_cuda_catalog_entry *e,
                            const rt_cuda_point_hooks *h, rt_cuda_ctx *ctx);

/* The flush hook of a state that starts with an rt_cuda_point: the context's L2 evicted. */
int rt_cuda_point_flush(void *state, rt_err *err);

/* A kernel's arguments for cuLaunchKernel, which takes the address of each value: the values
 * live here, args[i] points at value i. */
#define RT_CUDA_MAX_ARGS 24
typedef struct rt_cuda_args {
    int n;
    union {
        void *p;
        long long ll;
        int i;
    } v[RT_CUDA_MAX_ARGS];
    void *args[RT_CUDA_MAX_ARGS];
} rt_cuda_args;

/* Sets the arguments from the values after `types`, one letter each in the kernel's order:
 * 'p' a pointer (void *), 'L' a long long, 'i' an int. Returns a->args, or NULL for an unknown
 * letter or more than RT_CUDA_MAX_ARGS values. */
void **rt_cuda_args_set(rt_cuda_args *a, const char *types, ...);

#endif
