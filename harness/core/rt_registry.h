/* rt_registry: kernels and kernel families, found by name (in the spirit of PETSc's MatRegister).
 *
 * A family (e.g. "spmm") owns the problem: which problem parameters exist (K, precision, layout),
 * how inputs are built from a matrix, the reference output that verifies every kernel, and the
 * nominal flop count. A kernel (e.g. "spmm.cpu.csr", "spmm.cuda.tiled_ell") is a descriptor with
 * a parameter schema and life-cycle hooks. The harness drives both through these tables only and
 * knows nothing kernel-specific. There is no global registry: main owns one and passes it down. */
#ifndef RT_REGISTRY_H
#define RT_REGISTRY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rt_device.h"
#include "rt_error.h"
#include "rt_job.h"
#include "rt_matrix.h"
#include "rt_metrics.h"
#include "rt_params.h"
#include "rt_stop.h"

/* Returned by setup/check for a point that cannot run on this device (shared memory over the
 * limit, register spills, ...). Not an error: the point is recorded as infeasible with the reason.
 */
#define RT_INFEASIBLE 1
/* Returned by setup when it gave up at a time limit of the run (an NVRTC compile over
 * measure.compile_timeout_s): the point is recorded as a timeout with the reason. */
#define RT_TIMED_OUT 2
/* Returned by setup/run when what the kernel ran in a child process (a user C kernel's worker,
 * its compiler) was ended by SIGINT or SIGTERM: the terminal's Ctrl-C reaches rooftune's whole
 * process group. The runner decides: while the run is being interrupted the point was not measured
 * and is not recorded (a rerun measures it); otherwise it is an error with the reason. */
#define RT_INTERRUPTED 3

typedef struct rt_param_schema {
    const char *name;
    rt_vkind kind;
    /* Allowed values, checked by rt_param_check: "" (anything of the kind), "LO..HI" (inclusive
     * integer or real range) or "a|b|c" (one of the words or numbers). */
    const char *domain;
    const char *default_value; /* text, parsed per kind; used when a config omits the parameter */
    int compile_time;          /* 1: selects a variant compiled at run time (NVRTC define) */
    const char *help;
} rt_param_schema;

/* Checks one value against a schema entry; on failure fills why (e.g. "64 is outside 1..32"). */
int rt_param_check(const rt_param_schema *s, const rt_value *v, char *why, size_t whylen);
/* Parses the schema default into a value. */
int rt_param_default(const rt_param_schema *s, rt_value *out, rt_err *err);

/* Levels of the intra-node memory hierarchy and tiers of the network, for traffic models. */
typedef enum rt_mem_level {
    RT_LEVEL_DRAM = 0,
    RT_LEVEL_L2 = 1,
    RT_LEVEL_SHARED = 2,
    RT_LEVEL_COUNT = 3
} rt_mem_level;
typedef enum rt_net_tier {
    RT_TIER_SOCKET = 0,
    RT_TIER_NODE = 1,
    RT_TIER_GLOBAL = 2,
    RT_TIER_COUNT = 3
} rt_net_tier;

/* What one execution must do, at least: flops and compulsory bytes per level and per network tier
 * (per rank, for the busiest rank). Zero means "not modelled" for that level. */
typedef struct rt_traffic {
    double flops;
    double bytes[RT_LEVEL_COUNT];
    double net_bytes[RT_TIER_COUNT];
    double net_messages[RT_TIER_COUNT];
    /* A GPU kernel's links, where its data start in host memory or move between GPUs: bytes host
     * to device and device to host over the host link (PCIe, C2C) and into its GPUs from other
     * GPUs (NVLink). 0: none. */
    double h2d_bytes, d2h_bytes, peer_bytes;
    /* Devices the rank's work spreads over (0 or 1: one): the bound divides the flops and the
     * level and link bytes by it (the busiest device does at least the mean). */
    int devices;
    /* 1: the FP64 flops run on tensor cores (cuBLAS DGEMM on compute capability 8.0 and later),
     * bounded by the machine's fp64_tensor_gflops (the term is left out where it has none). */
    int fp64_tensor;
    /* 1: the kernel overlaps its network transfers with its work (a pipeline; or other workers
     * compute while some write into other ranks' memory): the bound is max(intra, inter) rather
     * than their sum. */
    int overlap;
} rt_traffic;

/* What a kernel sees of its surroundings. */
typedef struct rt_kernel_env {
    const rt_device_info *device;
    const char *cache_dir; /* on-disk cache for compiled variants; may be NULL (no cache) */
    int rank;
    int nranks;
    void *comm; /* the harness's communication layer for distributed kernels; else NULL */
} rt_kernel_env;

typedef struct rt_kernel_desc rt_kernel_desc;

struct rt_kernel_desc {
    const char *name;    /* unique, "<family>.<backend>.<impl>", e.g. "spmm.cpu.csr" */
    const char *family;  /* must name a registered family */
    const char *backend; /* "cpu" or "cuda" */
    const char *summary; /* one line for `rooftune list` */
    const rt_param_schema *params;
    int n_params;
    /* NULL when the kernel can run here. Otherwise why not (e.g. "no CUDA device on this host"):
     * the kernel is still listed and its parameters validated, but the runner skips its points
     * and says so in the run summary, recording nothing for them. Hooks may then be stubs. */
    const char *unavailable;
    /* Optional. Cheap feasibility test before setup (device limits, shapes).
     * Returns 0 feasible, RT_INFEASIBLE with why filled, or -1 on error (err filled). */
    int (*check)(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                 const rt_kernel_env *env, char *why, size_t whylen, rt_err *err);
    /* Prepares one point: preprocessing, device allocation, compilation. Returns 0, RT_INFEASIBLE
     * (err->msg holds the reason) or -1 on error. */
    int (*setup)(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                 const rt_kernel_env *env, void **state, rt_err *err);
    /* One execution, complete on return (device synchronized). *seconds: the time the kernel
     * measured itself (device events), or a negative value to let the runner use its wall clock. */
    int (*run)(void *state, double *seconds, rt_err *err);
    /* Copies this rank's output to host memory, converted to double (family output_elems). */
    int (*output)(void *state, double *out, rt_err *err);
    /* Optional. Kernel facts for the point: padding, registers, stages, preprocessing_s, ... */
    int (*metrics)(void *state, rt_metrics *m, rt_err *err);
    /* Optional. Evicts device caches before a cold-mode repetition (GPU L2). CPU kernels leave
     * it NULL and the runner flushes host caches itself. */
    int (*flush)(void *state, rt_err *err);
    void (*teardown)(void *state);
    /* Optional. Traffic model for the roofline (flops, compulsory bytes per level and tier). */
    int (*traffic)(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                   const rt_kernel_env *env, rt_traffic *t, rt_err *err);
    /* Optional. Starts, off the calling thread, the compiles setup(inputs, p) would do (kernel
     * variants, on the backend's compile-ahead pool: measure.compile_ahead), so that the point's
     * setup later finds them done; returns at once and changes nothing setup measures. An
     * infeasible point, or a backend without a pool, queues nothing (0). -1 with why: nothing
     * queued, which fails nothing (the point compiles in its setup as always). */
    int (*compile_ahead)(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, rt_err *err);

    void *backend_ctx; /* owned by the backend that registered the kernel */
};

/* What one point of a family's problem needs in memory, known before anything is allocated (see
 * rt_family_desc.footprint). */
typedef struct rt_footprint {
    int64_t input_bytes;  /* the family's inputs on the host (e.g. B; the matrix is not counted) */
    int64_t output_elems; /* output values: the runner keeps reference, output and scale, doubles */
    int64_t output_bytes; /* the output in the point's precision, as a kernel holds it (C) */
    int64_t operand_bytes;   /* the operands in the point's precision, as a device kernel copies
                                them (A and B); its own workspace comes on top */
    int64_t workspace_bytes; /* host arrays every kernel of the family keeps while it runs, beyond
                                inputs and output (e.g. LOBPCG's blocks, out-of-core GEMM's
                                matrices); counted for each point, resident inputs or not */
} rt_footprint;

struct rt_registry;
struct rt_family_model;

typedef struct rt_family_desc rt_family_desc;

struct rt_family_desc {
    const char *name; /* "spmm" */
    const char *summary;
    const rt_param_schema *problem_params; /* e.g. K, precision, layout */
    int n_problem_params;
    /* Builds inputs for one matrix and one problem point (e.g. dense B from a seed). The matrix is
     * this rank's share; it outlives the inputs. job is the job that measures the point (never
     * NULL): a family that splits its problem by rank builds job->rank's share of job->nranks
     * (rt_job.h; a rank measuring whole points alone is a one-rank job), never MPI_COMM_WORLD's. */
    int (*make_inputs)(const rt_csr *a, const rt_params *problem, const rt_job *job, void **inputs,
                       rt_err *err);
    /* Optional: make_inputs for families whose inputs take minutes to build (a reference computed
     * there, generated layers). It polls stop between pieces of work and, when asked, frees what
     * it built and fails with a message saying it stopped; the runner then ends the run as
     * interrupted instead of waiting. NULL: the runner calls make_inputs. */
    int (*make_inputs_until)(const rt_csr *a, const rt_params *problem, const rt_job *job,
                             const rt_stop *stop, void **inputs, rt_err *err);
    void (*free_inputs)(void *inputs);
    int64_t (*output_elems)(const void *inputs);
    /* Relative-error tolerance of the verification gate for these inputs (depends on precision
     * and on the length of the reductions). */
    double (*tolerance)(const void *inputs);
    /* The reference output, computed in double precision from the same inputs; it is the gate
     * every kernel of the family must pass before it is timed. */
    int (*reference)(const void *inputs, double *out, rt_err *err);
    /* Nominal flops of one execution (GFLOP/s are reported against this, whatever the kernel
     * does internally). */
    double (*flops)(const void *inputs);
    /* Nominal nonzeros processed per execution, for GNNZ/s; may be NULL. */
    double (*nonzeros)(const void *inputs);
    /* 0: under MPI each rank gets a block of rows of the matrix (balanced by nonzeros) and runs the
     * kernel on it alone. 1: every rank gets the whole matrix (distributed families partition it
     * themselves, and communicate). make_inputs then receives the whole matrix on every rank. */
    int wants_whole_matrix;
    /* Optional. The scale of each output element's rounding error, in the output's order: for a
     * product C = A B, element (i, j) gets sum_k |a_ik| |b_kj| (the row's |A||B|). With it the
     * gate also checks every element, |out - ref| <= tolerance x scale, so one wrong element
     * cannot hide in the norm of a large output. NULL: the normwise check alone. */
    int (*reference_scale)(const void *inputs, double *scale, rt_err *err);
    /* Optional. The memory a point needs, from the matrix (this rank's share), the problem and
     * the job alone (as make_inputs would build them), so the runner records a point that cannot
     * fit as infeasible, with the numbers, before allocating anything (instead of being killed by
     * the OS). NULL: no estimate. */
    int (*footprint)(const rt_csr *a, const rt_params *problem, const rt_job *job,
                     rt_footprint *out, rt_err *err);
    /* Optional: the model-only mode (`rooftune run CONFIG --model-only --ranks N`): a per-point
     * hook and its table's columns (rt_family_model.h). NULL: the family has none, and
     * --model-only says so. */
    const struct rt_family_model *model;
    /* Optional: state of the family's own, with the two hooks that take it. When given they take
     * the place of make_inputs and footprint. A family made at run time needs them (a kernel
     * spec's, kernels/user): its hooks are shared by every family made the same way, and what
     * tells them apart (the spec, found by a path that may be longer than any parameter) cannot
     * ride in the problem. Callers reach the hooks through rt_family_make_inputs and
     * rt_family_footprint, which pick the one to call. */
    const void *ctx;
    int (*make_inputs_ctx)(const void *ctx, const rt_csr *a, const rt_params *problem,
                           const rt_job *job, void **inputs, rt_err *err);
    int (*footprint_ctx)(const void *ctx, const rt_csr *a, const rt_params *problem,
                         const rt_job *job, rt_footprint *out, rt_err *err);
};

/* Whether the family builds inputs (any make_inputs hook) and estimates its footprint. */
int rt_family_has_inputs(const rt_family_desc *fam);
int rt_family_has_footprint(const rt_family_desc *fam);
/* The family's inputs for one matrix and problem point in job (checked with rt_job_check):
 * make_inputs_ctx, make_inputs_until (polling stop, which may be NULL) or make_inputs, the first
 * the family has. */
int rt_family_make_inputs(const rt_family_desc *fam, const rt_csr *a, const rt_params *problem,
                          const rt_job *job, const rt_stop *stop, void **inputs, rt_err *err);
/* The family's footprint estimate in job (footprint_ctx or footprint); only when it has one. */
int rt_family_footprint(const rt_family_desc *fam, const rt_csr *a, const rt_params *problem,
                        const rt_job *job, rt_footprint *out, rt_err *err);

#define RT_REGISTRY_MAX_FAMILIES 16
#define RT_REGISTRY_MAX_KERNELS  256

typedef struct rt_registry {
    int n_families;
    const rt_family_desc *families[RT_REGISTRY_MAX_FAMILIES];
    int n_kernels;
    const rt_kernel_desc *kernels[RT_REGISTRY_MAX_KERNELS];
} rt_registry;

void rt_registry_init(rt_registry *reg);
int rt_registry_add_family(rt_registry *reg, const rt_family_desc *fam, rt_err *err);
/* Fails on a duplicate name, an unknown family or a malformed schema. */
int rt_registry_add_kernel(rt_registry *reg, const rt_kernel_desc *k, rt_err *err);
const rt_kernel_desc *rt_registry_find_kernel(const rt_registry *reg, const char *name);
const rt_family_desc *rt_registry_find_family(const rt_registry *reg, const char *name);
const rt_param_schema *rt_kernel_find_param(const rt_kernel_desc *k, const char *name);
/* Closest registered kernel name to a misspelt one (for "did you mean"), or NULL. */
const char *rt_registry_suggest(const rt_registry *reg, const char *name);

#endif
