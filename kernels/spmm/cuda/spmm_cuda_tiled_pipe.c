#include "spmm_cuda_tiled_pipe.h"

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmm_cuda_common.h"
#include "spmm_cuda_tiled_plan.h"
#include "spmm_tiled.h"
#include "spmm_tiled_cluster.h"
#include "spmm_tiled_pipe_rules.h"

/* The device source's WARP_SIZE: ELL slices are one warp of rows. */
#define PIPE_WARP_SIZE 32

typedef struct pipe_params {
    rt_tiled_pipe_config c; /* what the feasibility rules read */
    int64_t nnz_unroll, allow_spills;
    int64_t buffsize;      /* staged B rows per buffer */
    size_t dynamic_shared; /* n_buffers * buffsize * register_tile * sizeof(value) */
} pipe_params;

typedef struct pipe_state {
    rt_spmm_cuda_launch base; /* first: the shared hooks take the state as this */
    rt_spmm_tiled_dev plan;
    int64_t buffsize, stage_split, plan_rows, cluster;
    int max_active_clusters; /* the driver's count with cluster > 1, else 0 (not asked) */
} pipe_state;

static int read_params(const rt_params *p, const rt_spmm_inputs *in, pipe_params *pp, rt_err *err)
{
    const int kind = RT_SPMM_CUDA_KIND_TILED_PIPE;
    char staging[16], order[16];
    memset(pp, 0, sizeof *pp);
    rt_tiled_pipe_config *c = &pp->c;
    if (rt_spmm_cuda_param_int(p, kind, "block_size", &c->block_size, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "buffer_kib", &c->buffer_kib, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "n_buffers", &c->n_buffers, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "blocks_per_sm", &c->blocks_per_sm, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "register_tile", &c->register_tile, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "stage_split", &c->stage_split, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "vector", &c->vector, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "index_bytes", &c->index_bytes, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "warp_rows", &c->warp_rows, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "lane_values", &c->lane_values, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "skew", &c->skew, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "swizzle", &c->swizzle, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "tile_interleave", &c->tile_interleave, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "cluster", &c->cluster, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "nnz_unroll", &pp->nnz_unroll, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "allow_spills", &pp->allow_spills, err) != 0 ||
        rt_spmm_cuda_param_str(p, kind, "staging", staging, sizeof staging, err) != 0 ||
        rt_spmm_cuda_param_str(p, kind, "nnz_order", order, sizeof order, err) != 0)
        return -1;
    c->use_ell = strcmp(staging, "ell") == 0;
    c->bank_order = strcmp(order, "banks") == 0;
    c->k = in->k;
    c->elem = rt_precision_bytes(in->prec);
    c->row_major = in->layout == RT_ROW_MAJOR;
    pp->buffsize = rt_tiled_pipe_buffsize(c);
    pp->dynamic_shared = rt_tiled_pipe_dynamic_shared(c);
    return 0;
}

static int feasible(const rt_device_info *dev, const pipe_params *pp, char *why, size_t whylen)
{
    const int rc = rt_tiled_pipe_feasible(&pp->c, dev, why, whylen);
    if (rc != 0)
        return rc;
    return rt_cuda_check_launch(dev, pp->c.block_size, pp->c.blocks_per_sm, why, whylen);
}

static int pipe_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    (void)env;
    const rt_spmm_inputs *in;
    pipe_params pp;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || read_params(p, in, &pp, err) != 0)
        return -1;
    return feasible(rt_cuda_ctx_device(self->backend_ctx), &pp, why, whylen);
}

static void pipe_teardown(void *state)
{
    pipe_state *s = state;
    if (s) {
        rt_spmm_tiled_dev_free(s->base.pt.ctx, &s->plan);
        rt_spmm_cuda_launch_free(&s->base, NULL, 0);
    }
}

/* ---------------------------------------------------------------------------------------------
 * The plan's parameters (spmm_cuda_tiled_plan builds, checks and uploads it) */

static int plan_params(const pipe_params *pp, rt_tiled_params *out, rt_err *err)
{
    /* The plan's block rows are rows of A, which the warp mapping makes more than threads.
     * Banks of a swizzled row-major stage are read 16 bytes a lane, in passes of 8 lanes (keys
     * slot mod 8); those of a column-major stage 4 bytes a lane, the whole warp in one pass.
     * With cluster > 1 the plan's blocks are clusters (spmm_tiled_cluster.h). */
    const rt_tiled_params tp = {.block_size = (int)rt_tiled_pipe_plan_rows(&pp->c),
                                .buffsize = pp->buffsize,
                                .warp_size = PIPE_WARP_SIZE,
                                .use_ell = pp->c.use_ell,
                                .index_bytes = (int)pp->c.index_bytes,
                                .bank_order = (int)pp->c.bank_order,
                                .bank_lanes = pp->c.bank_order && pp->c.swizzle ? 8 : 0};
    return rt_tiled_cluster_params(&tp, pp->c.cluster, out, err);
}

/* ---------------------------------------------------------------------------------------------
 * Setup */

/* The variant of these parameters: its defines in *defs (which rq points at) and the request; the
 * set-up compiles it and the compile-ahead hook queues it. */
static void pipe_variant(const rt_spmm_inputs *in, const pipe_params *pp, const char *what,
                         rt_cuda_defines *defs, rt_cuda_variant_request *rq)
{
    rt_spmm_cuda_defines(defs, in, pp->c.block_size, pp->c.register_tile, pp->c.blocks_per_sm);
    rt_cuda_define_int(defs, "STAGING_ELL", pp->c.use_ell);
    rt_cuda_define_int(defs, "INDEX_BYTES", pp->c.index_bytes);
    rt_cuda_define_int(defs, "NNZ_UNROLL", pp->nnz_unroll);
    rt_cuda_define_int(defs, "N_BUFFERS", pp->c.n_buffers);
    rt_cuda_define_int(defs, "STAGE_SPLIT", pp->c.stage_split);
    rt_cuda_define_int(defs, "VECTOR", pp->c.vector);
    rt_cuda_define_int(defs, "WARP_ROWS", pp->c.warp_rows);
    rt_cuda_define_int(defs, "LANE_VALUES", pp->c.lane_values);
    rt_cuda_define_int(defs, "SKEW", pp->c.skew);
    rt_cuda_define_int(defs, "SWIZZLE", pp->c.swizzle);
    rt_cuda_define_int(defs, "TILE_INTERLEAVE", pp->c.tile_interleave);
    if (pp->c.tile_interleave) /* the kernel splits blockIdx.x by a constant: no registers */
        rt_cuda_define_int(defs, "NTILES", (in->k + pp->c.register_tile - 1) / pp->c.register_tile);
    if (pp->c.cluster > 1) /* only then: cluster 1 keeps the variants (and cache keys) of before */
        rt_cuda_define_int(defs, "CLUSTER", pp->c.cluster);
    *rq = (rt_cuda_variant_request){
        .source_name = "spmm_tiled_pipe.cu",
        .entry = "rt_spmm_tiled_pipe",
        .defines = defs,
        .block_size = pp->c.block_size,
        .register_tile = pp->c.register_tile,
        .allow_spills = (int)pp->allow_spills,
        .dynamic_shared = pp->dynamic_shared,
        .what = what,
    };
}

static int compile_variant(pipe_state *s, const rt_spmm_inputs *in, const pipe_params *pp,
                           rt_err *err)
{
    rt_cuda_defines defs;
    rt_cuda_variant_request rq;
    pipe_variant(in, pp, s->base.pt.what, &defs, &rq);
    return rt_cuda_prepare_variant(s->base.pt.ctx, &rq, &s->base.variant, err);
}

/* The variant compile_variant would compile, for the compile-ahead hook (rt_spmm_cuda_hooks). */
static int pipe_variant_of(const rt_spmm_inputs *in, const rt_params *p, const rt_device_info *dev,
                           const char *what, rt_cuda_defines *defs, rt_cuda_variant_request *rq,
                           rt_err *err)
{
    pipe_params pp;
    char why[512];
    if (read_params(p, in, &pp, err) != 0)
        return -1;
    if (feasible(dev, &pp, why, sizeof why) != 0)
        return RT_INFEASIBLE;
    pipe_variant(in, &pp, what, defs, rq);
    return 0;
}

/* grid.x: every row block (plan_rows rows of A) stage_split times (the kernel splits its stages
 * between them); with tile_interleave each of those once per register tile, the tiles innermost
 * (grid.y 1), so that a block row's tiles are scheduled together and share its reads of A in L2.
 * With cluster > 1 the row blocks are clusters of that many blocks, the rank innermost of all (a
 * cluster is `cluster` consecutive blocks of grid.x), so grid.x is a multiple of cluster. */
static int split_grid(pipe_state *s, int64_t rows, const rt_tiled_pipe_config *c, rt_err *err)
{
    const int64_t tiles = c->tile_interleave ? s->base.ntiles : 1;
    const int64_t cluster_rows = rt_tiled_pipe_plan_rows(c) * c->cluster;
    const int64_t gx =
        (rows + cluster_rows - 1) / cluster_rows * c->stage_split * tiles * c->cluster;
    if (gx > RT_CUDA_MAX_GRID_X)
        return rt_err_set(err,
                          "%s: %lld blocks of %lld rows with stage_split=%lld, cluster=%lld and "
                          "%lld register tiles along grid.x pass the grid limit 2^31-1",
                          s->base.pt.what, (long long)gx, (long long)rt_tiled_pipe_plan_rows(c),
                          (long long)c->stage_split, (long long)c->cluster, (long long)tiles);
    s->base.cfg.grid[0] = (unsigned)gx;
    if (c->tile_interleave)
        s->base.cfg.grid[1] = 1;
    return 0;
}

/* With cluster > 1: how many clusters of the compiled variant (its __cluster_dims__) the device
 * can hold at once, with the launch's block and shared memory (cuOccupancyMaxActiveClusters; the
 * function's shared-memory limit raised first, as the launch does). None is the rule "the
 * cluster's blocks do not fit one GPC together": RT_INFEASIBLE with the reason in err. */
static int cluster_fits(pipe_state *s, const rt_tiled_pipe_config *c, rt_err *err)
{
    if (c->cluster <= 1)
        return 0;
    const CUfunction fn = (CUfunction)s->base.variant.function;
    const rt_cuda_launch_cfg *cfg = &s->base.cfg;
    CUresult r = cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    (int)cfg->dynamic_shared_bytes);
    CUlaunchAttribute attr = {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
    attr.value.clusterDim.x = (unsigned)c->cluster;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    const CUlaunchConfig lc = {.gridDimX = cfg->grid[0],
                               .gridDimY = cfg->grid[1],
                               .gridDimZ = cfg->grid[2],
                               .blockDimX = cfg->block[0],
                               .blockDimY = cfg->block[1],
                               .blockDimZ = cfg->block[2],
                               .sharedMemBytes = (unsigned)cfg->dynamic_shared_bytes,
                               .attrs = &attr,
                               .numAttrs = 1};
    int clusters = 0;
    if (r == CUDA_SUCCESS)
        r = cuOccupancyMaxActiveClusters(&clusters, fn, &lc);
    if (r != CUDA_SUCCESS) {
        const char *name = "?";
        cuGetErrorName(r, &name);
        return rt_err_set(err, "%s: cuOccupancyMaxActiveClusters for cluster=%lld failed: %s",
                          s->base.pt.what, (long long)c->cluster, name);
    }
    s->max_active_clusters = clusters;
    if (clusters < 1) {
        rt_err_set(err,
                   "cluster=%lld: no cluster of %lld blocks of %u threads and %zu bytes of shared "
                   "memory each fits the device at once (cuOccupancyMaxActiveClusters 0)",
                   (long long)c->cluster, (long long)c->cluster, cfg->block[0],
                   cfg->dynamic_shared_bytes);
        return RT_INFEASIBLE;
    }
    return 0;
}

static int pipe_prepare(void *state, const rt_params *p, rt_err *err)
{
    pipe_state *s = state;
    const rt_spmm_inputs *in = s->base.pt.inputs;
    pipe_params pp;
    if (read_params(p, in, &pp, err) != 0)
        return -1;
    const rt_csr *a = in->a;
    char why[512];
    if (feasible(rt_cuda_ctx_device(s->base.pt.ctx), &pp, why, sizeof why) != 0) {
        rt_err_set(err, "%s", why);
        return RT_INFEASIBLE;
    }
    s->buffsize = pp.buffsize;
    s->stage_split = pp.c.stage_split;
    s->plan_rows = rt_tiled_pipe_plan_rows(&pp.c);
    s->cluster = pp.c.cluster;
    rt_tiled_params tp;
    if (plan_params(&pp, &tp, err) != 0)
        return -1;
    /* Compile first: a variant that spills is rejected before any preprocessing. */
    int rc = compile_variant(s, in, &pp, err);
    if (rc != 0)
        return rc;
    if (rt_spmm_cuda_launch_geometry(&s->base, a->rows, in->k, pp.c.block_size, pp.c.register_tile,
                                     pp.dynamic_shared, &s->base.ntiles, err) != 0 ||
        split_grid(s, a->rows, &pp.c, err) != 0)
        return -1;
    rc = cluster_fits(s, &pp.c, err);
    if (rc != 0)
        return rc;

    /* Preprocessing time = host plan build + upload; the plan checks between them are not part
     * of the method and are not counted. */
    rc = rt_spmm_tiled_dev_prepare(
        s->base.pt.ctx, RT_SPMM_MEMO_TILED_PIPE_PLAN, s->base.pt.what, a, &tp, in->prec,
        pp.c.cluster > 1 ? "a cluster's buffers" : "a buffer", &s->plan, err);
    if (rc != 0)
        return rc;
    rc = rt_spmm_cuda_launch_dense(&s->base, err);
    if (rc != 0)
        return rc;
    if (pp.c.stage_split > 1) {
        /* The parts of a block row add into C: every run starts from zeros (timed). */
        s->base.cfg.zero_first = s->base.dense.d_c;
        s->base.cfg.zero_bytes =
            (size_t)s->base.dense.c_rows * (size_t)s->base.dense.k * s->base.dense.elem;
    }

    rt_spmm_tiled_args_bind(&s->base, &s->plan, pp.buffsize);
    return 0;
}

static int pipe_metrics(void *state, rt_metrics *m, rt_err *err)
{
    (void)err;
    const pipe_state *s = state;
    rt_spmm_tiled_dev_metrics(&s->plan, m);
    rt_cuda_variant_metrics(&s->base.variant, s->base.occupancy, m);
    rt_metrics_add(m, "buffsize", "count", (double)s->buffsize, 1);
    rt_metrics_add(m, "block_rows", "count", (double)s->plan_rows, 1);
    if (s->cluster > 1) /* the plan facts above are then the clusters' */
        rt_metrics_add(m, "max_active_clusters", "count", (double)s->max_active_clusters, 1);
    rt_metrics_add(m, "dynamic_shared_bytes", "bytes", (double)s->base.cfg.dynamic_shared_bytes, 1);
    rt_metrics_add(m, "grid_blocks", "count",
                   (double)s->base.cfg.grid[0] * (double)s->base.cfg.grid[1], 1);
    return 0;
}

static int pipe_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    (void)env;
    const rt_spmm_inputs *in;
    pipe_params pp;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || read_params(p, in, &pp, err) != 0)
        return -1;
    char why[512];
    if (feasible(rt_cuda_ctx_device(self->backend_ctx), &pp, why, sizeof why) != 0)
        return rt_err_set(err, "no traffic model for an infeasible point: %s", why);
    rt_cuda_ctx *ctx = self->backend_ctx;
    rt_tiled_params tp;
    if (plan_params(&pp, &tp, err) != 0)
        return -1;
    const rt_spmm_tiled_summary *sum =
        rt_spmm_tiled_summary_get(ctx, RT_SPMM_MEMO_TILED_PIPE_PLAN, in->a, &tp, self->name, err);
    if (!sum)
        return -1;
    /* As spmm.cuda.tiled: the plan read once, B's referenced rows, C once; shared memory: every
     * map entry staged and every stored entry read, REGISTER wide (with cluster > 1 the cluster
     * plan's: a row shared by the cluster's blocks staged once, and reads of other blocks'
     * buffers through distributed shared memory counted as shared reads). With stage_split > 1 C is
     * also zeroed and read back by the atomic additions: that traffic is the method's own
     * choice, not compulsory, and shows up as lower efficiency. */
    return rt_spmm_tiled_traffic(in, sum, pp.c.register_tile, self->name, t, err);
}

const rt_spmm_cuda_hooks rt_spmm_cuda_tiled_pipe_hooks = {
    pipe_check,    pipe_prepare, sizeof(pipe_state), pipe_metrics,
    pipe_teardown, pipe_traffic, pipe_variant_of};
