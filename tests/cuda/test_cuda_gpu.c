/* GPU smoke test of the CUDA plugin, through the plugin ABI exactly as rooftune loads it:
 * dlopen librooftune_cuda.so, init on device 0, then every CUDA SpMM kernel on hand-built
 * matrices (empty rows, a dense row, a row wider than shared memory, an empty matrix) in both
 * precisions and layouts, against a dense reference computed here. Also: the NaN poison of C,
 * infeasible points (shared memory, warps, launch bounds, spills, Blocked-ELL padding), metrics,
 * traffic, the L2 flush, and that a second plugin instance compiles nothing (disk cache).
 *
 * Exits 77 (ctest SKIP) when no NVIDIA driver or no device is present, so CI without a GPU skips
 * it; on a GPU machine it must pass.
 *   test_cuda_gpu <path to librooftune_cuda.so> <cache dir> */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_plugin.h"
#include "rt_registry.h"
#include "rt_test.h"
#include "rt_test_gpu.h"
#include "spmm_traffic.h"
#include "spmm_cuda_catalog.h"
#include "spmm_family.h"

/* ---------------------------------------------------------------------------------------------
 * Matrices */

typedef struct triplets {
    int64_t n, cap;
    int64_t *ri, *ci;
    double *v;
} triplets;

static void add(triplets *t, int64_t r, int64_t c, double v)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->ri = realloc(t->ri, (size_t)t->cap * sizeof *t->ri);
        t->ci = realloc(t->ci, (size_t)t->cap * sizeof *t->ci);
        t->v = realloc(t->v, (size_t)t->cap * sizeof *t->v);
    }
    t->ri[t->n] = r;
    t->ci[t->n] = c;
    t->v[t->n] = v;
    ++t->n;
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* kind 0: 1000 x 777, ~8 per row, every 7th row empty, row 500 dense, a column band.
 * kind 1: 5 x 3 with the last two rows empty.  kind 2: 40 x 10 with no nonzeros.
 * kind 3: 3 x 70000 with one row of 60000 nonzeros (many stages at any shared size).
 * kind 4: 250 x 260, dense 16 x 16 blocks on the block diagonal and one more per block row, the
 *         last ones cut by the edges (Blocked-ELL pads little). */
static int make_matrix(int kind, rt_csr *a, rt_err *err)
{
    triplets t = {0};
    uint64_t seed = 12345 + (uint64_t)kind;
    int64_t rows = 0, cols = 0;
    if (kind == 0) {
        rows = 1000;
        cols = 777;
        for (int64_t r = 0; r < rows; ++r) {
            if (r % 7 == 3)
                continue;
            if (r == 500) {
                for (int64_t c = 0; c < cols; ++c)
                    add(&t, r, c, 1.0 / (1.0 + (double)c));
                continue;
            }
            const int64_t n = 1 + (int64_t)(lcg(&seed) % 15);
            for (int64_t j = 0; j < n; ++j)
                add(&t, r, (int64_t)(lcg(&seed) % (uint64_t)cols),
                    (double)(lcg(&seed) % 2000) / 1000.0 - 1.0);
            add(&t, r, (r * 3) % cols, 0.5);
        }
    } else if (kind == 1) {
        rows = 5;
        cols = 3;
        add(&t, 0, 0, 1.0);
        add(&t, 0, 2, -2.0);
        add(&t, 1, 1, 3.0);
        add(&t, 2, 0, 0.25);
        add(&t, 2, 1, 0.5);
        add(&t, 2, 2, 0.75);
    } else if (kind == 2) {
        rows = 40;
        cols = 10;
    } else if (kind == 4) {
        rows = 250;
        cols = 260;
        for (int64_t br = 0; br * 16 < rows; ++br) {
            const int64_t bcs[2] = {br, (br * 5 + 3) % 17};
            for (int b = 0; b < 2; ++b) {
                if (b == 1 && bcs[1] == bcs[0])
                    continue;
                for (int64_t r = br * 16; r < br * 16 + 16 && r < rows; ++r)
                    for (int64_t c = bcs[b] * 16; c < bcs[b] * 16 + 16 && c < cols; ++c)
                        add(&t, r, c, (double)((r * 31 + c * 17) % 23) / 11.0 - 1.0);
            }
        }
    } else {
        rows = 3;
        cols = 70000;
        for (int64_t c = 0; c < 60000; ++c)
            add(&t, 1, c + 5000, (double)(c % 17) / 8.0 - 1.0);
        add(&t, 0, 3, 1.0);
        add(&t, 2, 69999, -1.0);
    }
    const int rc = rt_csr_from_coo(a, rows, cols, t.n, t.ri, t.ci, t.v, err);
    free(t.ri);
    free(t.ci);
    free(t.v);
    return rc;
}

static double *reference(const rt_spmm_inputs *in)
{
    const rt_csr *a = in->a;
    const int64_t k = in->k;
    double *ref = calloc((size_t)(a->rows * k > 0 ? a->rows * k : 1), sizeof *ref);
    for (int64_t r = 0; r < a->rows; ++r)
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
            for (int64_t j = 0; j < k; ++j)
                ref[r * k + j] += a->val[e] * rt_dense_get(&in->b, a->colidx[e], j);
    return ref;
}

/* ---------------------------------------------------------------------------------------------
 * One point through the hooks, as the runner drives it. Returns 0 ok, RT_INFEASIBLE, -1. */

typedef struct point_result {
    int status; /* 0, RT_INFEASIBLE, -1 */
    double rel_error;
    double seconds;      /* first run (includes lazy module loading) */
    double warm_seconds; /* second run, after an L2 flush */
    char why[1024];
} point_result;

static void set_param(rt_params *p, const char *name, const char *value)
{
    rt_err err;
    char *end = NULL;
    const long long v = strtoll(value, &end, 10);
    rt_params_set(p, name, (end && *end == '\0') ? rt_value_int(v) : rt_value_str(value), &err);
}

/* params: "name=value,name=value" */
static void parse_params(const char *text, rt_params *p)
{
    rt_params_init(p);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = '\0';
        set_param(p, tok, eq + 1);
    }
}

static point_result run_point(const rt_kernel_desc *k, const rt_spmm_inputs *in,
                              const rt_device_info *dev, const char *params_text, const double *ref)
{
    point_result res = {.status = 0, .rel_error = INFINITY, .seconds = -1, .warm_seconds = -1};
    rt_params p;
    parse_params(params_text, &p);
    rt_kernel_env env = {.device = dev, .cache_dir = NULL, .rank = 0, .nranks = 1};
    rt_err err;
    err.msg[0] = '\0';
    if (k->check) {
        const int c = k->check(k, in, &p, &env, res.why, sizeof res.why, &err);
        if (c != 0) {
            res.status = c == RT_INFEASIBLE ? RT_INFEASIBLE : -1;
            if (c != RT_INFEASIBLE)
                snprintf(res.why, sizeof res.why, "check: %s", err.msg);
            return res;
        }
    }
    void *state = NULL;
    const int s = k->setup(k, in, &p, &env, &state, &err);
    if (s != 0) {
        RT_CHECK_MSG(state == NULL, "%s left a state after a failed setup", k->name);
        res.status = s == RT_INFEASIBLE ? RT_INFEASIBLE : -1;
        snprintf(res.why, sizeof res.why, "%s", err.msg);
        return res;
    }
    const int64_t n_out = in->a->rows * in->k;
    double *out = malloc((size_t)(n_out > 0 ? n_out : 1) * sizeof *out);
    /* Before any run, C must read back as the NaN poison. */
    if (n_out > 0 && k->output(state, out, &err) == 0)
        RT_CHECK_MSG(isnan(out[0]) && isnan(out[n_out - 1]), "%s %s: C not poisoned", k->name,
                     params_text);
    for (int64_t i = 0; i < n_out; ++i)
        out[i] = 12345.0;
    if (k->run(state, &res.seconds, &err) != 0 || k->output(state, out, &err) != 0) {
        res.status = -1;
        snprintf(res.why, sizeof res.why, "run/output: %s", err.msg);
    } else {
        res.rel_error = rt_spmm_rel_error(out, ref, n_out);
        RT_CHECK_MSG(res.seconds >= 0.0, "%s: run reported %g s", k->name, res.seconds);
        /* A cold-mode repetition: flush, run again, same answer. */
        if (k->flush)
            RT_CHECK_MSG(k->flush(state, &err) == 0, "%s flush: %s", k->name, err.msg);
        double again = -1;
        RT_CHECK_MSG(k->run(state, &again, &err) == 0, "%s second run: %s", k->name, err.msg);
        res.warm_seconds = again;
        rt_metrics m;
        rt_metrics_init(&m);
        if (k->metrics) {
            RT_CHECK_MSG(k->metrics(state, &m, &err) == 0, "%s metrics: %s", k->name, err.msg);
            if (strcmp(k->name, RT_SPMM_CUDA_CUSPARSE) != 0) {
                const rt_metric *regs = rt_metrics_get(&m, "registers_per_thread");
                const rt_metric *occ = rt_metrics_get(&m, "theoretical_occupancy");
                RT_CHECK_MSG(regs && regs->available && regs->value > 0, "%s: no registers metric",
                             k->name);
                RT_CHECK_MSG(occ && occ->value > 0 && occ->value <= 1.0, "%s: occupancy %g",
                             k->name, occ ? occ->value : -1.0);
                RT_CHECK(rt_metrics_get(&m, "spill_bytes") != NULL);
                RT_CHECK(rt_metrics_get(&m, "compiled") != NULL);
            }
            if (strcmp(k->name, RT_SPMM_CUDA_TILED) == 0) {
                static const char *const tiled_metrics[] = {"preprocess_s", "stages_per_block",
                                                            "padding_overhead", "reuse_factor"};
                for (size_t i = 0; i < sizeof tiled_metrics / sizeof tiled_metrics[0]; ++i)
                    RT_CHECK_MSG(rt_metrics_get(&m, tiled_metrics[i]) != NULL, "tiled lacks %s",
                                 tiled_metrics[i]);
            }
        }
    }
    k->teardown(state);
    free(out);
    if (k->traffic) {
        rt_traffic t;
        RT_CHECK_MSG(k->traffic(k, in, &p, &env, &t, &err) == 0, "%s traffic: %s", k->name,
                     err.msg);
        RT_CHECK(t.flops == 2.0 * (double)in->a->nnz * (double)in->k);
        /* C once, plus the rows of B that A references (not all of B: see spmm_traffic.h). */
        int64_t b_rows = 0;
        RT_CHECK(rt_spmm_b_rows_read(in->a, &b_rows, &err) == 0);
        RT_CHECK(t.bytes[RT_LEVEL_DRAM] >= (double)(in->a->rows + b_rows) * (double)in->k *
                                               (double)rt_precision_bytes(in->prec));
        RT_CHECK(t.bytes[RT_LEVEL_L2] >= t.bytes[RT_LEVEL_DRAM]);
    }
    return res;
}

/* ---------------------------------------------------------------------------------------------
 * The sweep */

static const char *const csr_points[] = {"block_size=256,register_tile=4,min_blocks=0",
                                         "block_size=96,register_tile=3,min_blocks=2"};
static const char *const ell_points[] = {"block_size=128,register_tile=8,min_blocks=0",
                                         "block_size=32,register_tile=1,min_blocks=1"};
static const char *const tiled_points[] = {
    "", /* the defaults: 1024 threads, 96 KiB, register tile 8, ELL, 2-byte indices */
    "block_size=64,shared_kib=1,register_tile=4,staging=csr,index_bytes=4,min_blocks=0",
    "block_size=256,shared_kib=2,register_tile=16,staging=ell,index_bytes=2,min_blocks=2",
    "block_size=96,shared_kib=200,register_tile=5,staging=csr,index_bytes=2"};
/* The pipelined Tiled SpMM: buffers of 1-2 KiB make many stages per block, so the buffer ring
 * turns over many times; stage_split 3 and 8 leave some parts of short block rows without
 * stages. Vectors run separately (pipe_vector_points: K must be a multiple of the width). */
static const char *const pipe_points[] = {
    "", /* the defaults: 1024 threads, 2 x 48 KiB, register tile 8, ELL, nnz_unroll 4 */
    "block_size=64,buffer_kib=1,n_buffers=3,register_tile=4,staging=csr,index_bytes=4,"
    "blocks_per_sm=2",
    "block_size=128,buffer_kib=2,n_buffers=2,register_tile=16,stage_split=3,nnz_unroll=1",
    "block_size=96,buffer_kib=1,n_buffers=1,register_tile=5,staging=csr,stage_split=8",
    /* a block row's register tiles side by side along grid.x (K = 33: 9 and 7 tiles) */
    "block_size=128,buffer_kib=2,n_buffers=2,register_tile=4,stage_split=3,tile_interleave=1",
    "block_size=96,buffer_kib=1,n_buffers=1,register_tile=5,staging=csr,tile_interleave=1"};
/* ELL steps ordered by banks (column-major only; row-major is refused). */
static const char *const pipe_bank_points[] = {
    "nnz_order=banks",
    "nnz_order=banks,block_size=64,buffer_kib=1,n_buffers=3,register_tile=4,index_bytes=4",
    "nnz_order=banks,block_size=128,buffer_kib=2,register_tile=16,stage_split=3,nnz_unroll=1",
    "nnz_order=banks,block_size=64,buffer_kib=1,register_tile=8,stage_split=2,tile_interleave=1"};
static const char *const cusparse_algs[] = {"default",  "csr_alg1", "csr_alg2",
                                            "csr_alg3", "coo_alg1", "coo_alg2",
                                            "coo_alg3", "coo_alg4", "blocked_ell"};

static int n_points_ok = 0;

static void expect_ok(const rt_kernel_desc *k, const rt_spmm_inputs *in, const rt_device_info *dev,
                      const char *params, const double *ref, const char *label)
{
    const point_result r = run_point(k, in, dev, params, ref);
    const double tol = rt_spmm_tolerance_for(in->prec, rt_spmm_max_row_nnz(in->a));
    RT_CHECK_MSG(r.status == 0 && r.rel_error <= tol,
                 "%s %s [%s]: status %d, error %g (tol %g): %s", k->name, params, label, r.status,
                 r.rel_error, tol, r.why);
    n_points_ok += r.status == 0 && r.rel_error <= tol;
}

/* What a sweep's cases share: the plugin's kernels, the device, and (for the vector sweeps) the
 * points and the rules that refuse them. */
typedef struct sweep_ctx {
    const rt_registry *reg;
    const rt_device_info *dev;
    const char *const *points;
    size_t npoints;
    const char *row_rule, *col_rule;
} sweep_ctx;

/* One case of a sweep: inputs of one precision, layout and K, their reference and a label. */
typedef struct sweep_case {
    const rt_spmm_inputs *in;
    const double *ref;
    const char *label;
    int prec, layout;
    int64_t k;
} sweep_case;

/* Calls fn on both precisions, both layouts and every K of ks (nested in that order), on inputs
 * of a made with seed; inputs that cannot be made are a failure. */
static void for_each_case(const sweep_ctx *ctx, const rt_csr *a, const char *mname,
                          const int64_t *ks, size_t nks, uint64_t seed,
                          void (*fn)(const sweep_ctx *ctx, const sweep_case *c))
{
    for (int prec = 0; prec < 2; ++prec)
        for (int layout = 0; layout < 2; ++layout)
            for (size_t ki = 0; ki < nks; ++ki) {
                rt_spmm_inputs *in = NULL;
                rt_err err;
                if (rt_spmm_inputs_create(a, ks[ki], prec ? RT_FP64 : RT_FP32,
                                          layout ? RT_COL_MAJOR : RT_ROW_MAJOR, seed, &in,
                                          &err) != 0) {
                    RT_CHECK_MSG(0, "inputs: %s", err.msg);
                    continue;
                }
                double *ref = reference(in);
                char label[128];
                snprintf(label, sizeof label, "%s K=%lld %s %s", mname, (long long)ks[ki],
                         prec ? "fp64" : "fp32", layout ? "col" : "row");
                const sweep_case c = {.in = in,
                                      .ref = ref,
                                      .label = label,
                                      .prec = prec,
                                      .layout = layout,
                                      .k = ks[ki]};
                fn(ctx, &c);
                free(ref);
                rt_spmm_inputs_destroy(in);
            }
}

static void sweep_case_run(const sweep_ctx *ctx, const sweep_case *c)
{
    const struct {
        const char *kernel;
        const char *const *points;
        size_t n;
    } lists[] = {
        {RT_SPMM_CUDA_CSR, csr_points, sizeof csr_points / sizeof csr_points[0]},
        {RT_SPMM_CUDA_ELL, ell_points, sizeof ell_points / sizeof ell_points[0]},
        {RT_SPMM_CUDA_TILED, tiled_points, sizeof tiled_points / sizeof tiled_points[0]},
        {RT_SPMM_CUDA_TILED_PIPE, pipe_points, sizeof pipe_points / sizeof pipe_points[0]}};
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; ++l)
        for (size_t i = 0; i < lists[l].n; ++i)
            expect_ok(rt_registry_find_kernel(ctx->reg, lists[l].kernel), c->in, ctx->dev,
                      lists[l].points[i], c->ref, c->label);
    for (size_t i = 0; i < sizeof pipe_bank_points / sizeof pipe_bank_points[0]; ++i) {
        const rt_kernel_desc *pipe = rt_registry_find_kernel(ctx->reg, RT_SPMM_CUDA_TILED_PIPE);
        if (c->layout) {
            expect_ok(pipe, c->in, ctx->dev, pipe_bank_points[i], c->ref, c->label);
            continue;
        }
        const point_result r = run_point(pipe, c->in, ctx->dev, pipe_bank_points[i], c->ref);
        RT_CHECK_MSG(r.status == RT_INFEASIBLE && rt_test_contains(r.why, "nnz_order=banks"),
                     "%s %s [%s]: status %d: %s", pipe->name, pipe_bank_points[i], c->label,
                     r.status, r.why);
    }
    expect_ok(rt_registry_find_kernel(ctx->reg, RT_SPMM_CUDA_CUSPARSE), c->in, ctx->dev,
              "alg=default", c->ref, c->label);
}

static void sweep_matrix(const rt_registry *reg, const rt_device_info *dev, const rt_csr *a,
                         const char *mname)
{
    static const int64_t ks[] = {1, 7, 33};
    const sweep_ctx ctx = {.reg = reg, .dev = dev};
    for_each_case(&ctx, a, mname, ks, sizeof ks / sizeof ks[0], 7, sweep_case_run);
}

static void pipe_vector_case(const sweep_ctx *ctx, const sweep_case *c)
{
    const rt_kernel_desc *k = rt_registry_find_kernel(ctx->reg, RT_SPMM_CUDA_TILED_PIPE);
    const int64_t width = c->prec ? 2 : 4;
    for (size_t i = 0; i < ctx->npoints; ++i) {
        if (c->layout == 0 && c->k % width == 0) {
            expect_ok(k, c->in, ctx->dev, ctx->points[i], c->ref, c->label);
            continue;
        }
        const point_result r = run_point(k, c->in, ctx->dev, ctx->points[i], c->ref);
        const char *rule = c->layout ? ctx->col_rule : ctx->row_rule;
        RT_CHECK_MSG(r.status == RT_INFEASIBLE && rt_test_contains(r.why, rule),
                     "%s %s [%s]: status %d (expected refused by %s): %s", k->name, ctx->points[i],
                     c->label, r.status, rule, r.why);
    }
}

/* The pipelined Tiled SpMM's 16-byte points over both precisions, both layouts and K = 12, 32, 6:
 * row-major with K a multiple of the vector width runs and is right (K = 12 and 6 leave part of
 * the last register tile past K, zero-filled by whole vectors); every other combination must be
 * refused as infeasible with a reason naming row_rule (K off the width, row-major) or col_rule
 * (column-major), never launched. */
static void pipe_vector_sweep(const rt_registry *reg, const rt_device_info *dev, const rt_csr *a,
                              const char *mname, const char *const *points, size_t npoints,
                              uint64_t seed, const char *row_rule, const char *col_rule)
{
    static const int64_t ks[] = {12, 32, 6};
    const sweep_ctx ctx = {.reg = reg,
                           .dev = dev,
                           .points = points,
                           .npoints = npoints,
                           .row_rule = row_rule,
                           .col_rule = col_rule};
    for_each_case(&ctx, a, mname, ks, sizeof ks / sizeof ks[0], seed, pipe_vector_case);
}

/* 16-byte vectors of the pipelined Tiled SpMM (vector 1: copies of B, 2: and stores of C); the
 * vector rule refuses column-major and K off the width. */
static void pipe_vector_points(const rt_registry *reg, const rt_device_info *dev, const rt_csr *a,
                               const char *mname)
{
    static const char *const points[] = {
        "block_size=256,buffer_kib=2,n_buffers=2,register_tile=8,vector=2",
        "block_size=128,buffer_kib=1,n_buffers=3,register_tile=4,vector=1,stage_split=4",
        "block_size=512,buffer_kib=100,n_buffers=2,register_tile=16,vector=1,nnz_unroll=2"};
    pipe_vector_sweep(reg, dev, a, mname, points, sizeof points / sizeof points[0], 5,
                      "vector=", "vector=");
}

/* XOR-swizzled row-major stages of the pipelined Tiled SpMM (swizzle 1, 16-byte copies), in the
 * column order and with bank-ordered ELL steps in 8-lane passes (nnz_order banks, the plan's
 * bank_lanes 8); register tiles of 1 to 16 chunks cover both branches of the swizzle, and the
 * zero-filled chunks past K sit at swizzled positions. Column-major is refused by the swizzle
 * rule, K off the width by the vector rule. */
static void pipe_swizzle_points(const rt_registry *reg, const rt_device_info *dev, const rt_csr *a,
                                const char *mname)
{
    static const char *const points[] = {
        "swizzle=1,vector=1,block_size=128,buffer_kib=1,n_buffers=3,register_tile=8",
        "swizzle=1,vector=2,nnz_order=banks,block_size=64,buffer_kib=1,n_buffers=2,"
        "register_tile=8,stage_split=3",
        "swizzle=1,vector=1,nnz_order=banks,block_size=256,buffer_kib=2,n_buffers=2,"
        "register_tile=16,nnz_unroll=2,index_bytes=4",
        "swizzle=1,vector=1,nnz_order=banks,block_size=128,buffer_kib=4,n_buffers=1,"
        "register_tile=32",
        "swizzle=1,vector=1,staging=csr,block_size=96,buffer_kib=1,n_buffers=2,register_tile=4,"
        "stage_split=2",
        "swizzle=1,vector=1,nnz_order=banks,block_size=128,buffer_kib=1,n_buffers=1,"
        "register_tile=4,stage_split=3,tile_interleave=1"};
    pipe_vector_sweep(reg, dev, a, mname, points, sizeof points / sizeof points[0], 11,
                      "vector=", "swizzle=1");
}

/* The pipelined Tiled SpMM in thread-block clusters (cluster 2, 4, 8: the blocks of a cluster read
 * each other's staged rows through distributed shared memory). Below compute capability 9.0 every
 * point is refused by the capability rule; 16-byte points are refused on column-major data (by the
 * swizzle rule with swizzle=1, else the vector rule) and with K off the width. */
static void pipe_cluster_case(const sweep_ctx *ctx, const sweep_case *c)
{
    const rt_kernel_desc *k = rt_registry_find_kernel(ctx->reg, RT_SPMM_CUDA_TILED_PIPE);
    const int64_t width = c->prec ? 2 : 4;
    for (size_t i = 0; i < ctx->npoints; ++i) {
        const int vectors = strstr(ctx->points[i], "vector=") != NULL;
        const char *rule = NULL;
        if (ctx->dev->cc_major < 9)
            rule = "compute capability 9.0";
        else if (vectors && c->layout)
            rule = strstr(ctx->points[i], "swizzle=1") ? "swizzle=1" : "vector=";
        else if (vectors && c->k % width != 0)
            rule = "vector=";
        if (!rule) {
            expect_ok(k, c->in, ctx->dev, ctx->points[i], c->ref, c->label);
            continue;
        }
        const point_result r = run_point(k, c->in, ctx->dev, ctx->points[i], c->ref);
        RT_CHECK_MSG(r.status == RT_INFEASIBLE && rt_test_contains(r.why, rule),
                     "%s %s [%s]: status %d (expected refused by '%s'): %s", k->name,
                     ctx->points[i], c->label, r.status, rule, r.why);
    }
}

/* Clusters of 2, 4 and 8 blocks over both precisions, both layouts and K = 1, 7, 33 (vectors: 12,
 * 32, 6) on every matrix of the sweep: buffers of 1-4 KiB (many stages, short last stages, uneven
 * shares of a stage between the ranks), ELL and CSR, the stage split (parts of a cluster row
 * without stages return together), interleaved tiles (the rank innermost of grid.x), the warp
 * mapping, 16-byte copies and swizzled stages; the empty matrix and the 5-row one leave whole
 * ranks of a cluster without rows. */
static void pipe_cluster_points(const rt_registry *reg, const rt_device_info *dev, const rt_csr *a,
                                const char *mname)
{
    static const char *const points[] = {
        "cluster=2", /* the defaults: 1024 threads, 2 x 48 KiB, register tile 8, ELL */
        "cluster=4,block_size=64,buffer_kib=1,n_buffers=3,register_tile=4,staging=csr,"
        "index_bytes=4,blocks_per_sm=2",
        "cluster=8,block_size=128,buffer_kib=2,n_buffers=2,register_tile=16,stage_split=3,"
        "nnz_unroll=1",
        "cluster=2,block_size=96,buffer_kib=1,n_buffers=1,register_tile=5,staging=csr,"
        "stage_split=8",
        "cluster=4,block_size=128,buffer_kib=2,n_buffers=2,register_tile=4,stage_split=3,"
        "tile_interleave=1",
        "cluster=8,block_size=96,buffer_kib=1,n_buffers=1,register_tile=5,staging=csr,"
        "tile_interleave=1",
        "cluster=2,block_size=64,buffer_kib=4,register_tile=32,staging=csr,warp_rows=2,"
        "lane_values=2"};
    static const char *const vector_points[] = {
        "cluster=4,block_size=128,buffer_kib=1,n_buffers=3,register_tile=8,vector=2",
        "cluster=2,block_size=64,buffer_kib=1,n_buffers=2,register_tile=8,vector=1,swizzle=1,"
        "stage_split=3,tile_interleave=1"};
    static const int64_t ks[] = {1, 7, 33}, vector_ks[] = {12, 32, 6};
    const sweep_ctx ctx = {
        .reg = reg, .dev = dev, .points = points, .npoints = sizeof points / sizeof points[0]};
    for_each_case(&ctx, a, mname, ks, sizeof ks / sizeof ks[0], 19, pipe_cluster_case);
    const sweep_ctx vctx = {.reg = reg,
                            .dev = dev,
                            .points = vector_points,
                            .npoints = sizeof vector_points / sizeof vector_points[0]};
    for_each_case(&vctx, a, mname, vector_ks, sizeof vector_ks / sizeof vector_ks[0], 23,
                  pipe_cluster_case);
}

static void tma_case(const sweep_ctx *ctx, const sweep_case *c)
{
    const rt_kernel_desc *k = rt_registry_find_kernel(ctx->reg, RT_SPMM_CUDA_TILED_TMA);
    /* Whole rows: one register tile of K, merged runs, C a warp at a time. */
    char whole[3][160];
    snprintf(whole[0], sizeof whole[0],
             "block_size=64,buffer_kib=2,n_buffers=3,register_tile=%lld,"
             "merge_runs=1,skew=1,c_store=bulk",
             (long long)c->k);
    snprintf(whole[1], sizeof whole[1],
             "block_size=128,buffer_kib=1,n_buffers=2,register_tile=%lld,"
             "merge_runs=1,producer=0,staging=csr",
             (long long)c->k);
    snprintf(whole[2], sizeof whole[2],
             "block_size=32,buffer_kib=4,n_buffers=1,register_tile=%lld,"
             "c_store=bulk,nnz_unroll=2",
             (long long)c->k);
    const char *all[8];
    size_t n = 0;
    for (size_t i = 0; i < ctx->npoints; ++i)
        all[n++] = ctx->points[i];
    for (int i = 0; i < 3; ++i)
        all[n++] = whole[i];
    const int64_t width = c->prec ? 2 : 4;
    for (size_t i = 0; i < n; ++i) {
        const char *rule = NULL;
        if (ctx->dev->cc_major < 9)
            rule = "compute capability 9.0";
        else if (c->layout)
            rule = "layout=col";
        else if (c->k % width != 0)
            rule = "K=";
        if (!rule) {
            expect_ok(k, c->in, ctx->dev, all[i], c->ref, c->label);
            continue;
        }
        const point_result r = run_point(k, c->in, ctx->dev, all[i], c->ref);
        RT_CHECK_MSG(r.status == RT_INFEASIBLE && rt_test_contains(r.why, rule),
                     "%s %s [%s]: status %d (expected refused by '%s'): %s", k->name, all[i],
                     c->label, r.status, rule, r.why);
    }
}

/* The bulk-copy Tiled SpMM (spmm.cuda.tiled_tma) over both precisions, both layouts and K = 32,
 * 12, 8: row-major points with K a multiple of the 16-byte width run and are right (K = 12 and 8
 * leave part of the last register tile past K: those columns are not copied and not stored), on
 * every matrix of the sweep (empty rows, a dense row, the wide row's many stages, the empty
 * matrix: blocks without stages still store zeros). Each point runs the ring a different way: the
 * producer warp or warp 0 issuing, 1 to 4 buffers of 1-2 KiB (many turns of the ring), ELL and
 * CSR, skewed chunks, C through bulk stores per row or per warp, interleaved tiles, and whole rows
 * (register_tile = K) with runs of consecutive columns merged into one copy. Column-major is
 * refused by the layout rule, fp32 K = 6 by the K rule; on a device below compute capability 9.0
 * every point is refused by the capability rule. */
static void tma_points(const rt_registry *reg, const rt_device_info *dev, const rt_csr *a,
                       const char *mname)
{
    static const char *const points[] = {
        "", /* the defaults: 256 consumers + a producer warp, 3 x 32 KiB, register tile 8 */
        "block_size=64,buffer_kib=1,n_buffers=2,register_tile=4,producer=0,staging=csr,"
        "index_bytes=4",
        "block_size=128,buffer_kib=2,n_buffers=4,register_tile=16,skew=1,c_store=bulk,"
        "tile_interleave=1",
        "block_size=96,buffer_kib=1,n_buffers=1,register_tile=8,skew=1,c_store=bulk,staging=csr,"
        "nnz_unroll=1",
        "block_size=64,buffer_kib=1,n_buffers=3,register_tile=8,producer=0,nnz_unroll=8"};
    static const int64_t ks[] = {32, 12, 8, 6};
    const sweep_ctx ctx = {
        .reg = reg, .dev = dev, .points = points, .npoints = sizeof points / sizeof points[0]};
    for_each_case(&ctx, a, mname, ks, sizeof ks / sizeof ks[0], 13, tma_case);
}

/* Every cuSPARSE algorithm on every precision and layout: a supported combination must be right,
 * an unsupported one infeasible (never an error); prints the table for the record. */
static void cusparse_table(const rt_registry *reg, const rt_device_info *dev, const rt_csr *a,
                           const rt_csr *blocky)
{
    const rt_kernel_desc *k = rt_registry_find_kernel(reg, RT_SPMM_CUDA_CUSPARSE);
    printf("cuSPARSE SpMM support on %s (K=32):\n", dev->name);
    for (size_t ai = 0; ai < sizeof cusparse_algs / sizeof cusparse_algs[0]; ++ai)
        for (int prec = 0; prec < 2; ++prec)
            for (int layout = 0; layout < 2; ++layout) {
                rt_spmm_inputs *in = NULL;
                rt_err err;
                if (rt_spmm_inputs_create(a, 32, prec ? RT_FP64 : RT_FP32,
                                          layout ? RT_COL_MAJOR : RT_ROW_MAJOR, 3, &in, &err) != 0)
                    continue;
                double *ref = reference(in);
                char params[96];
                snprintf(params, sizeof params, "alg=%s,ell_block=8", cusparse_algs[ai]);
                if (strcmp(cusparse_algs[ai], "blocked_ell") == 0) {
                    /* Random sparsity pads far beyond 4x; use the block-structured matrix. */
                    free(ref);
                    rt_spmm_inputs_destroy(in);
                    in = NULL;
                    if (rt_spmm_inputs_create(blocky, 32, prec ? RT_FP64 : RT_FP32,
                                              layout ? RT_COL_MAJOR : RT_ROW_MAJOR, 3, &in,
                                              &err) != 0)
                        continue;
                    ref = reference(in);
                    snprintf(params, sizeof params, "alg=blocked_ell,ell_block=%d",
                             8 << (prec + layout));
                }
                const point_result r = run_point(k, in, dev, params, ref);
                const double tol = rt_spmm_tolerance_for(in->prec, rt_spmm_max_row_nnz(in->a));
                printf("  %-28s %s %s: %s", params, prec ? "fp64" : "fp32", layout ? "col" : "row",
                       r.status == 0 ? (r.rel_error <= tol ? "ok" : "WRONG")
                                     : (r.status == RT_INFEASIBLE ? "infeasible" : "ERROR"));
                if (r.status == 0)
                    printf(" (error %.2g, %.1f us)\n", r.rel_error, r.warm_seconds * 1e6);
                else
                    printf(": %s\n", r.why);
                RT_CHECK_MSG(r.status != -1, "cuSPARSE %s: error instead of infeasible: %s", params,
                             r.why);
                /* cuSPARSE's Blocked-ELL SpMM computes fp32 through TF32 tensor cores (seen on
                 * H100, CUDA 13.0: normwise error 2.6e-4): the runner's gate records those points
                 * as wrong, which is the truth; here only garbage is a failure. */
                const int tf32 = strcmp(cusparse_algs[ai], "blocked_ell") == 0 && !prec;
                RT_CHECK_MSG(r.status != 0 || r.rel_error <= (tf32 ? 4e-3 : tol),
                             "cuSPARSE %s: wrong (%g)", params, r.rel_error);
                free(ref);
                rt_spmm_inputs_destroy(in);
            }
}

static void infeasible_points(const rt_registry *reg, const rt_device_info *dev, const rt_csr *a,
                              const rt_csr *wide)
{
    rt_spmm_inputs *in = NULL, *in64 = NULL, *in_wide = NULL;
    rt_err err;
    if (rt_spmm_inputs_create(a, 32, RT_FP32, RT_ROW_MAJOR, 1, &in, &err) != 0 ||
        rt_spmm_inputs_create(a, 64, RT_FP64, RT_ROW_MAJOR, 1, &in64, &err) != 0 ||
        rt_spmm_inputs_create(wide, 8, RT_FP32, RT_ROW_MAJOR, 1, &in_wide, &err) != 0) {
        RT_CHECK_MSG(0, "inputs: %s", err.msg);
        return;
    }
    double *ref = reference(in);
    double *ref64 = reference(in64);
    const rt_kernel_desc *tiled = rt_registry_find_kernel(reg, RT_SPMM_CUDA_TILED);
    const rt_kernel_desc *csr = rt_registry_find_kernel(reg, RT_SPMM_CUDA_CSR);
    const rt_kernel_desc *cs = rt_registry_find_kernel(reg, RT_SPMM_CUDA_CUSPARSE);

    char params[128];
    const long long over_kib = dev->max_shared_per_block_optin / 1024 + 1;
    if (over_kib <= 228) {
        snprintf(params, sizeof params, "shared_kib=%lld", over_kib);
        point_result r = run_point(tiled, in, dev, params, ref);
        RT_CHECK_MSG(r.status == RT_INFEASIBLE && rt_test_contains(r.why, "opt-in"), "%s: %s",
                     params, r.why);
    }
    point_result r = run_point(tiled, in, dev, "block_size=48,staging=ell", ref);
    RT_CHECK_MSG(r.status == RT_INFEASIBLE && rt_test_contains(r.why, "multiple of 32"), "%s",
                 r.why);
    r = run_point(tiled, in, dev, "block_size=48,staging=csr,min_blocks=0", ref);
    RT_CHECK_MSG(r.status == 0, "block 48 csr: %s", r.why);
    r = run_point(csr, in, dev, "block_size=1024,min_blocks=32", ref);
    RT_CHECK_MSG(r.status == RT_INFEASIBLE && rt_test_contains(r.why, "threads per SM"), "%s",
                 r.why);
    /* fp64 with 64 columns per thread under launch bounds (1024, 1) spills (see spmm_tiled.cu). */
    r = run_point(tiled, in64, dev, "register_tile=64,allow_spills=0", ref64);
    RT_CHECK_MSG(r.status == RT_INFEASIBLE && rt_test_contains(r.why, "register spills"), "%s",
                 r.why);
    printf("spilling variant: %s\n", r.why);
    r = run_point(tiled, in64, dev, "register_tile=64,allow_spills=1", ref64);
    RT_CHECK_MSG(r.status == 0 &&
                     r.rel_error <= rt_spmm_tolerance_for(RT_FP64, rt_spmm_max_row_nnz(a)),
                 "spilling variant run anyway: %d %g %s", r.status, r.rel_error, r.why);
    /* Blocked-ELL of a matrix with one dense row among near-empty ones pads far beyond 4x. */
    double *ref_wide = reference(in_wide);
    r = run_point(cs, in_wide, dev, "alg=blocked_ell,ell_block=64", ref_wide);
    RT_CHECK_MSG(r.status == RT_INFEASIBLE && rt_test_contains(r.why, "padding factor"), "%s",
                 r.why);
    /* The pipelined kernel: buffers past the opt-in limit and SM residency that the shared
     * memory cannot give are infeasible with the parameters named. */
    const rt_kernel_desc *pipe = rt_registry_find_kernel(reg, RT_SPMM_CUDA_TILED_PIPE);
    r = run_point(pipe, in, dev, "n_buffers=3,buffer_kib=100", ref);
    RT_CHECK_MSG(r.status == RT_INFEASIBLE && rt_test_contains(r.why, "opt-in") &&
                     rt_test_contains(r.why, "n_buffers=3"),
                 "%s", r.why);
    r = run_point(pipe, in, dev, "block_size=512,blocks_per_sm=2,n_buffers=2,buffer_kib=100", ref);
    RT_CHECK_MSG(r.status == RT_INFEASIBLE && rt_test_contains(r.why, "blocks_per_sm=2"), "%s",
                 r.why);
    /* Parameters outside their domain are errors, not crashes. */
    r = run_point(tiled, in, dev, "register_tile=65", ref);
    RT_CHECK_MSG(r.status == -1 && rt_test_contains(r.why, "register_tile"), "%s", r.why);
    r = run_point(cs, in, dev, "alg=csr_alg9", ref);
    RT_CHECK_MSG(r.status == -1 && rt_test_contains(r.why, "alg"), "%s", r.why);
    /* Inputs that are not spmm inputs. */
    void *state = (void *)ref;
    rt_params p;
    rt_params_init(&p);
    rt_kernel_env env = {.device = dev};
    RT_CHECK(tiled->setup(tiled, NULL, &p, &env, &state, &err) == -1 && state == NULL);
    rt_spmm_inputs bad = *in;
    bad.k = 0;
    RT_CHECK(csr->setup(csr, &bad, &p, &env, &state, &err) == -1 && rt_test_contains(err.msg, "K"));
    bad = *in;
    bad.prec = RT_FP64; /* B holds floats */
    RT_CHECK(csr->setup(csr, &bad, &p, &env, &state, &err) == -1);
    free(ref);
    free(ref64);
    free(ref_wide);
    rt_spmm_inputs_destroy(in);
    rt_spmm_inputs_destroy(in64);
    rt_spmm_inputs_destroy(in_wide);
}

/* A large problem for a rough speed figure (no assertion on speed, only on correctness). */
static void timing_report(const rt_registry *reg, const rt_device_info *dev)
{
    triplets t = {0};
    uint64_t seed = 99;
    const int64_t rows = 200000, cols = 200000;
    for (int64_t r = 0; r < rows; ++r)
        for (int j = 0; j < 16; ++j) {
            /* Banded with scatter, so tiles reuse B rows. */
            const int64_t c = (r + (int64_t)(lcg(&seed) % 4096)) % cols;
            add(&t, r, c, (double)(lcg(&seed) % 1000) / 500.0 - 1.0);
        }
    rt_csr a;
    rt_err err;
    if (rt_csr_from_coo(&a, rows, cols, t.n, t.ri, t.ci, t.v, &err) != 0) {
        RT_CHECK_MSG(0, "%s", err.msg);
        return;
    }
    free(t.ri);
    free(t.ci);
    free(t.v);
    rt_spmm_inputs *in = NULL;
    if (rt_spmm_inputs_create(&a, 32, RT_FP32, RT_COL_MAJOR, 5, &in, &err) != 0) {
        rt_csr_free(&a);
        return;
    }
    double *ref = reference(in);
    const struct {
        const char *kernel, *params;
    } runs[] = {{RT_SPMM_CUDA_CSR, "register_tile=8"},
                {RT_SPMM_CUDA_ELL, "register_tile=8"},
                {RT_SPMM_CUDA_TILED, ""},
                {RT_SPMM_CUDA_TILED, "register_tile=16"},
                {RT_SPMM_CUDA_TILED, "register_tile=32"},
                {RT_SPMM_CUDA_CUSPARSE, "alg=default"},
                {RT_SPMM_CUDA_CUSPARSE, "alg=csr_alg1"}};
    printf(
        "timing, %lld x %lld, nnz %lld, K=32, fp32, col-major (second run, after an L2 flush):\n",
        (long long)rows, (long long)cols, (long long)a.nnz);
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; ++i) {
        const rt_kernel_desc *k = rt_registry_find_kernel(reg, runs[i].kernel);
        const point_result r = run_point(k, in, dev, runs[i].params, ref);
        const double tol = rt_spmm_tolerance_for(RT_FP32, rt_spmm_max_row_nnz(&a));
        RT_CHECK_MSG(r.status == 0 && r.rel_error <= tol, "%s %s: %d %g %s", runs[i].kernel,
                     runs[i].params, r.status, r.rel_error, r.why);
        if (r.status == 0)
            printf("  %-20s %-18s %8.1f us  %7.1f GFLOP/s\n", runs[i].kernel, runs[i].params,
                   r.warm_seconds * 1e6, 2.0 * (double)a.nnz * 32 / r.warm_seconds * 1e-9);
    }
    free(ref);
    rt_spmm_inputs_destroy(in);
    rt_csr_free(&a);
}

int main(int argc, char **argv)
{
    int status = 0;
    const rt_plugin_api *api = rt_test_plugin_open(argc, argv, &status);
    if (!api)
        return status;

    rt_registry reg;
    rt_err err;
    rt_registry_init(&reg);
    RT_CHECK(rt_registry_add_family(&reg, rt_spmm_family(), &err) == 0);
    rt_plugin_options opt = {.device_ordinal = 0, .cache_dir = argv[2], .verbose = 0};
    rt_device_info dev;
    void *state = NULL;

    /* A device that does not exist is an error naming the ordinal, not a crash. */
    rt_plugin_options bad_opt = opt;
    bad_opt.device_ordinal = 4096;
    RT_CHECK(api->init(&bad_opt, &reg, &dev, &state, &err) != 0 && state == NULL);
    RT_CHECK_MSG(rt_test_contains(err.msg, "4096"), "%s", err.msg);
    RT_CHECK(reg.n_kernels == 0);

    if (api->init(&opt, &reg, &dev, &state, &err) != 0) {
        fprintf(stderr, "FAIL: plugin init: %s\n", err.msg);
        return 1;
    }
    printf("device: %s, cc %d.%d, %d SMs, L2 %lld B, shared opt-in %lld B, driver %s, runtime %s, "
           "SM clock %.0f MHz, memory clock %.0f MHz, bus %d bits\n",
           dev.name, dev.cc_major, dev.cc_minor, dev.sm_count, (long long)dev.l2_bytes,
           (long long)dev.max_shared_per_block_optin, dev.driver_version, dev.runtime_version,
           dev.sm_clock_mhz, dev.mem_clock_mhz, dev.mem_bus_bits);
    RT_CHECK(strcmp(dev.backend, "cuda") == 0 && dev.name[0]);
    RT_CHECK(dev.cc_major >= 7 && dev.sm_count > 0 && dev.l2_bytes > 0 && dev.warp_size == 32);
    RT_CHECK(dev.max_shared_per_block_optin >= dev.max_shared_per_block);
    RT_CHECK(dev.max_threads_per_block >= 1024 && dev.regs_per_sm > 0 && dev.global_mem_bytes > 0);
    RT_CHECK(dev.driver_version[0] && dev.runtime_version[0] && dev.sm_clock_mhz > 0);
    RT_CHECK(reg.n_kernels == RT_SPMM_CUDA_KIND_COUNT);
    /* The plugin carries its own copy of the catalog: same schemas, other addresses. */
    for (int i = 0; i < RT_SPMM_CUDA_KIND_COUNT; ++i) {
        const rt_cuda_catalog_entry *e = rt_spmm_cuda_catalog_at(i);
        const rt_kernel_desc *k = rt_registry_find_kernel(&reg, e->name);
        RT_CHECK_MSG(k && k->unavailable == NULL && k->n_params == e->n_params, "%s", e->name);
        for (int j = 0; k && j < k->n_params && j < e->n_params; ++j)
            RT_CHECK(strcmp(k->params[j].name, e->params[j].name) == 0 &&
                     strcmp(k->params[j].domain, e->params[j].domain) == 0 &&
                     strcmp(k->params[j].default_value, e->params[j].default_value) == 0);
    }
    /* A second init into the same registry is refused (duplicate kernels). */
    void *state2 = NULL;
    rt_device_info dev2;
    RT_CHECK(api->init(&opt, &reg, &dev2, &state2, &err) != 0 && state2 == NULL);
    RT_CHECK(reg.n_kernels == RT_SPMM_CUDA_KIND_COUNT);

    rt_csr mats[5];
    const char *names[5] = {"1000x777", "5x3", "empty 40x10", "3x70000 wide row", "250x260 blocks"};
    for (int i = 0; i < 5; ++i)
        if (make_matrix(i, &mats[i], &err) != 0) {
            fprintf(stderr, "FAIL: matrix %d: %s\n", i, err.msg);
            return 1;
        }
    for (int i = 0; i < 5; ++i)
        sweep_matrix(&reg, &dev, &mats[i], names[i]);
    pipe_vector_points(&reg, &dev, &mats[0], names[0]);
    pipe_vector_points(&reg, &dev, &mats[4], names[4]);
    pipe_swizzle_points(&reg, &dev, &mats[0], names[0]);
    pipe_swizzle_points(&reg, &dev, &mats[4], names[4]);
    for (int i = 0; i < 5; ++i)
        tma_points(&reg, &dev, &mats[i], names[i]);
    for (int i = 0; i < 5; ++i)
        pipe_cluster_points(&reg, &dev, &mats[i], names[i]);
    cusparse_table(&reg, &dev, &mats[0], &mats[4]);
    infeasible_points(&reg, &dev, &mats[0], &mats[3]);
    /* ROOFTUNE_SMOKE_QUICK=1 skips the large timing problem (for runs under compute-sanitizer). */
    const char *quick = getenv("ROOFTUNE_SMOKE_QUICK");
    if (!quick || strcmp(quick, "1") != 0)
        timing_report(&reg, &dev);

    int compiles = -1, hits = -1;
    api->stats(state, &compiles, &hits);
    printf("first instance: %d compiles, %d cache hits, %d points verified\n", compiles, hits,
           n_points_ok);
    RT_CHECK(compiles + hits > 0);
    api->fini(state);

    /* A fresh instance finds every variant in the disk cache. */
    rt_registry_init(&reg);
    RT_CHECK(rt_registry_add_family(&reg, rt_spmm_family(), &err) == 0);
    if (api->init(&opt, &reg, &dev, &state, &err) != 0) {
        fprintf(stderr, "FAIL: second plugin init: %s\n", err.msg);
        return 1;
    }
    sweep_matrix(&reg, &dev, &mats[1], names[1]);
    api->stats(state, &compiles, &hits);
    printf("second instance: %d compiles, %d cache hits\n", compiles, hits);
    RT_CHECK_MSG(compiles == 0 && hits > 0, "second instance compiled %d variants", compiles);
    api->fini(state);
    for (int i = 0; i < 5; ++i)
        rt_csr_free(&mats[i]);
    /* The plugin is not dlclose()d: CUDA libraries keep atexit handlers (as rooftune does). */
    return RT_TEST_RESULT();
}
