#include "spmm_cuda_tiled_tma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmm_cuda_common.h"
#include "spmm_cuda_tiled_plan.h"
#include "spmm_tiled.h"
#include "spmm_tiled_tma_rules.h"

/* The device source's WARP_SIZE: ELL slices are one warp of rows. */
#define TMA_WARP_SIZE 32

typedef struct tma_params {
    rt_tiled_tma_config c; /* what the feasibility rules read */
    int64_t nnz_unroll, allow_spills;
    rt_tiled_tma_layout layout;
} tma_params;

typedef struct tma_state {
    rt_spmm_cuda_launch base; /* first: the shared hooks take the state as this */
    rt_spmm_tiled_dev plan;
    rt_tiled_tma_layout layout;
} tma_state;

static int read_params(const rt_params *p, const rt_spmm_inputs *in, tma_params *tp, rt_err *err)
{
    const int kind = RT_SPMM_CUDA_KIND_TILED_TMA;
    char staging[16], c_store[16];
    memset(tp, 0, sizeof *tp);
    rt_tiled_tma_config *c = &tp->c;
    if (rt_spmm_cuda_param_int(p, kind, "block_size", &c->block_size, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "buffer_kib", &c->buffer_kib, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "n_buffers", &c->n_buffers, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "producer", &c->producer, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "blocks_per_sm", &c->blocks_per_sm, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "register_tile", &c->register_tile, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "merge_runs", &c->merge_runs, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "skew", &c->skew, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "tile_interleave", &c->tile_interleave, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "index_bytes", &c->index_bytes, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "nnz_unroll", &tp->nnz_unroll, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "allow_spills", &tp->allow_spills, err) != 0 ||
        rt_spmm_cuda_param_str(p, kind, "staging", staging, sizeof staging, err) != 0 ||
        rt_spmm_cuda_param_str(p, kind, "c_store", c_store, sizeof c_store, err) != 0)
        return -1;
    c->use_ell = strcmp(staging, "ell") == 0;
    c->c_bulk = strcmp(c_store, "bulk") == 0;
    c->k = in->k;
    c->elem = rt_precision_bytes(in->prec);
    c->row_major = in->layout == RT_ROW_MAJOR;
    tp->layout = rt_tiled_tma_layout_of(c);
    return 0;
}

static int feasible(const rt_device_info *dev, const tma_params *tp, char *why, size_t whylen)
{
    const int rc = rt_tiled_tma_feasible(&tp->c, dev, why, whylen);
    if (rc != 0)
        return rc;
    return rt_cuda_check_launch(dev, tp->layout.threads, tp->c.blocks_per_sm, why, whylen);
}

static int tma_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    (void)env;
    const rt_spmm_inputs *in;
    tma_params tp;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || read_params(p, in, &tp, err) != 0)
        return -1;
    return feasible(rt_cuda_ctx_device(self->backend_ctx), &tp, why, whylen);
}

static void tma_teardown(void *state)
{
    tma_state *s = state;
    if (s) {
        rt_spmm_tiled_dev_free(s->base.pt.ctx, &s->plan);
        rt_spmm_cuda_launch_free(&s->base, NULL, 0);
    }
}

/* Listing 1's plan for block_size consumer rows (the producer warp owns no row). */
static rt_tiled_params plan_params(const tma_params *tp)
{
    rt_tiled_params p = {.block_size = (int)tp->c.block_size,
                         .buffsize = tp->layout.buffsize,
                         .warp_size = TMA_WARP_SIZE,
                         .use_ell = tp->c.use_ell,
                         .index_bytes = (int)tp->c.index_bytes,
                         .bank_order = 0,
                         .bank_lanes = 0};
    return p;
}

/* ---------------------------------------------------------------------------------------------
 * Setup */

/* The variant of these parameters: its defines in *defs (which rq points at) and the request; the
 * set-up compiles it and the compile-ahead hook queues it. */
static void tma_variant(const rt_spmm_inputs *in, const tma_params *tp, const char *what,
                        rt_cuda_defines *defs, rt_cuda_variant_request *rq)
{
    /* BLOCK_SIZE is the consumers; the kernel adds the producer warp (THREADS). */
    rt_spmm_cuda_defines(defs, in, tp->c.block_size, tp->c.register_tile, tp->c.blocks_per_sm);
    rt_cuda_define_int(defs, "STAGING_ELL", tp->c.use_ell);
    rt_cuda_define_int(defs, "INDEX_BYTES", tp->c.index_bytes);
    rt_cuda_define_int(defs, "NNZ_UNROLL", tp->nnz_unroll);
    rt_cuda_define_int(defs, "N_BUFFERS", tp->c.n_buffers);
    rt_cuda_define_int(defs, "PRODUCER", tp->c.producer);
    rt_cuda_define_int(defs, "MERGE_RUNS", tp->c.merge_runs);
    rt_cuda_define_int(defs, "SKEW", tp->c.skew);
    rt_cuda_define_int(defs, "C_BULK", tp->c.c_bulk);
    rt_cuda_define_int(defs, "TILE_INTERLEAVE", tp->c.tile_interleave);
    if (tp->c.tile_interleave)
        rt_cuda_define_int(defs, "NTILES", (in->k + tp->c.register_tile - 1) / tp->c.register_tile);
    *rq = (rt_cuda_variant_request){
        .source_name = "spmm_tiled_tma.cu",
        .entry = "rt_spmm_tiled_tma",
        .defines = defs,
        .block_size = tp->layout.threads,
        .register_tile = tp->c.register_tile,
        .allow_spills = (int)tp->allow_spills,
        .dynamic_shared = tp->layout.total,
        .what = what,
    };
}

static int compile_variant(tma_state *s, const rt_spmm_inputs *in, const tma_params *tp,
                           rt_err *err)
{
    rt_cuda_defines defs;
    rt_cuda_variant_request rq;
    tma_variant(in, tp, s->base.pt.what, &defs, &rq);
    return rt_cuda_prepare_variant(s->base.pt.ctx, &rq, &s->base.variant, err);
}

/* The variant compile_variant would compile, for the compile-ahead hook (rt_spmm_cuda_hooks). */
static int tma_variant_of(const rt_spmm_inputs *in, const rt_params *p, const rt_device_info *dev,
                          const char *what, rt_cuda_defines *defs, rt_cuda_variant_request *rq,
                          rt_err *err)
{
    tma_params tp;
    char why[512];
    if (read_params(p, in, &tp, err) != 0)
        return -1;
    if (feasible(dev, &tp, why, sizeof why) != 0)
        return RT_INFEASIBLE;
    tma_variant(in, &tp, what, defs, rq);
    return 0;
}

/* grid.x: one block per row block, times the register tiles with tile_interleave (grid.y 1). */
static int tma_grid(tma_state *s, int64_t rows, const tma_params *tp, rt_err *err)
{
    const int64_t tiles = tp->c.tile_interleave ? s->base.ntiles : 1;
    const int64_t gx = (rows + tp->c.block_size - 1) / tp->c.block_size * tiles;
    if (gx > RT_CUDA_MAX_GRID_X)
        return rt_err_set(err,
                          "%s: %lld blocks with %lld register tiles along grid.x pass the grid "
                          "limit 2^31-1",
                          s->base.pt.what, (long long)gx, (long long)tiles);
    s->base.cfg.grid[0] = (unsigned)gx;
    if (tp->c.tile_interleave)
        s->base.cfg.grid[1] = 1;
    return 0;
}

static int tma_prepare(void *state, const rt_params *p, rt_err *err)
{
    tma_state *s = state;
    const rt_spmm_inputs *in = s->base.pt.inputs;
    tma_params tp;
    if (read_params(p, in, &tp, err) != 0)
        return -1;
    const rt_csr *a = in->a;
    char why[512];
    if (feasible(rt_cuda_ctx_device(s->base.pt.ctx), &tp, why, sizeof why) != 0) {
        rt_err_set(err, "%s", why);
        return RT_INFEASIBLE;
    }
    s->layout = tp.layout;
    /* Compile first: a variant that spills is rejected before any preprocessing. */
    int rc = compile_variant(s, in, &tp, err);
    if (rc != 0)
        return rc;
    /* The geometry over consumer rows, then the block of consumers + producer. */
    if (rt_spmm_cuda_launch_geometry(&s->base, a->rows, in->k, tp.layout.threads,
                                     tp.c.register_tile, tp.layout.total, &s->base.ntiles,
                                     err) != 0 ||
        tma_grid(s, a->rows, &tp, err) != 0)
        return -1;

    const rt_tiled_params plan = plan_params(&tp);
    rc = rt_spmm_tiled_dev_prepare(s->base.pt.ctx, RT_SPMM_MEMO_TILED_TMA_PLAN, s->base.pt.what, a,
                                   &plan, in->prec, "a stage buffer", &s->plan, err);
    if (rc != 0)
        return rc;
    rc = rt_spmm_cuda_launch_dense(&s->base, err);
    if (rc != 0)
        return rc;
    rt_spmm_tiled_args_bind(&s->base, &s->plan, tp.layout.buffsize);
    return 0;
}

static int tma_metrics(void *state, rt_metrics *m, rt_err *err)
{
    (void)err;
    const tma_state *s = state;
    rt_spmm_tiled_dev_metrics(&s->plan, m);
    rt_cuda_variant_metrics(&s->base.variant, s->base.occupancy, m);
    rt_metrics_add(m, "buffsize", "count", (double)s->layout.buffsize, 1);
    rt_metrics_add(m, "block_threads", "count", (double)s->layout.threads, 1);
    rt_metrics_add(m, "dynamic_shared_bytes", "bytes", (double)s->base.cfg.dynamic_shared_bytes, 1);
    rt_metrics_add(m, "grid_blocks", "count",
                   (double)s->base.cfg.grid[0] * (double)s->base.cfg.grid[1], 1);
    return 0;
}

static int tma_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    (void)env;
    const rt_spmm_inputs *in;
    tma_params tp;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || read_params(p, in, &tp, err) != 0)
        return -1;
    char why[512];
    if (feasible(rt_cuda_ctx_device(self->backend_ctx), &tp, why, sizeof why) != 0)
        return rt_err_set(err, "no traffic model for an infeasible point: %s", why);
    rt_cuda_ctx *ctx = self->backend_ctx;
    const rt_tiled_params plan = plan_params(&tp);
    const rt_spmm_tiled_summary *sum =
        rt_spmm_tiled_summary_get(ctx, RT_SPMM_MEMO_TILED_TMA_PLAN, in->a, &plan, self->name, err);
    if (!sum)
        return -1;
    /* As spmm.cuda.tiled: the plan once, B's referenced rows, C once; shared memory: every map
     * entry staged and every stored entry read, register_tile wide. The bulk stores of C through
     * shared memory (c_store bulk) are the method's own traffic, not compulsory. */
    return rt_spmm_tiled_traffic(in, sum, tp.c.register_tile, self->name, t, err);
}

const rt_spmm_cuda_hooks rt_spmm_cuda_tiled_tma_hooks = {
    tma_check,    tma_prepare, sizeof(tma_state), tma_metrics,
    tma_teardown, tma_traffic, tma_variant_of};
