/* spdnn.cuda.fused: see spdnn_cuda.h. Host side of src/spdnn_fused.cu: one Tiled SpMM plan per
 * layer (over W_l^T), built and uploaded at setup; per execution the layers run back to back with
 * the live features compacted in between. */
#include "spdnn_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_cuda_nvrtc.h"
#include "spdnn_cuda_common.h"
#include "spdnn_cuda_catalog.h"
#include "rt_cuda_variant.h"
#include "spmm_tiled.h"

#define FUSED_WARP_SIZE 32
#define FUSED_KIND      RT_SPDNN_CUDA_KIND_FUSED

typedef struct fused_params {
    int64_t block_size, shared_kib, register_tile, min_blocks, index_bytes, allow_spills;
    int64_t nnz_unroll; /* loads of W^T in flight per thread */
    int64_t n_buffers;  /* stage buffers (cp.async staging above 1) */
    int use_ell;
    int slot_major;        /* stage_layout: 0 feature, 1 slot, 2 slot_xor */
    int bank_order;        /* nnz_order = banks */
    int64_t buffsize;      /* staged input neurons per stage (per buffer) */
    size_t dynamic_shared; /* register_tile ints (source rows) + n_buffers * buffsize *
                              register_tile floats */
} fused_params;

/* One layer's plan on the device. */
typedef struct fused_layer {
    void *d_displ, *d_index, *d_value, *d_buffdispl, *d_mapdispl, *d_map;
} fused_layer;

typedef struct fused_state {
    rt_cuda_point pt;          /* context, inputs, kernel and point for messages */
    const rt_spdnn_inputs *in; /* pt.inputs */
    fused_params fp;
    rt_spdnn_cuda_pipe pipe;
    fused_layer *layer; /* in->layers entries */
    rt_cuda_variant variant;
    unsigned grid_x;
    double occupancy;
    double preprocess_s;
    /* Plan facts over all layers. */
    double stored, nstages, nblocks, staged, max_stages;
} fused_state;

static int read_params(const rt_params *p, fused_params *fp, rt_err *err)
{
    char staging[16], layout[16], order[16];
    if (rt_spdnn_cuda_param_int(p, FUSED_KIND, "block_size", &fp->block_size, err) != 0 ||
        rt_spdnn_cuda_param_int(p, FUSED_KIND, "shared_kib", &fp->shared_kib, err) != 0 ||
        rt_spdnn_cuda_param_int(p, FUSED_KIND, "register_tile", &fp->register_tile, err) != 0 ||
        rt_spdnn_cuda_param_int(p, FUSED_KIND, "min_blocks", &fp->min_blocks, err) != 0 ||
        rt_spdnn_cuda_param_int(p, FUSED_KIND, "index_bytes", &fp->index_bytes, err) != 0 ||
        rt_spdnn_cuda_param_int(p, FUSED_KIND, "nnz_unroll", &fp->nnz_unroll, err) != 0 ||
        rt_spdnn_cuda_param_int(p, FUSED_KIND, "allow_spills", &fp->allow_spills, err) != 0 ||
        rt_spdnn_cuda_param_int(p, FUSED_KIND, "n_buffers", &fp->n_buffers, err) != 0 ||
        rt_spdnn_cuda_param_str(p, FUSED_KIND, "staging", staging, sizeof staging, err) != 0 ||
        rt_spdnn_cuda_param_str(p, FUSED_KIND, "stage_layout", layout, sizeof layout, err) != 0 ||
        rt_spdnn_cuda_param_str(p, FUSED_KIND, "nnz_order", order, sizeof order, err) != 0)
        return -1;
    fp->bank_order = strcmp(order, "banks") == 0;
    fp->use_ell = strcmp(staging, "ell") == 0;
    fp->slot_major = strcmp(layout, "slot_xor") == 0 ? 2 : strcmp(layout, "slot") == 0;
    /* The tile's REGISTER source-row numbers sit in front of the staging buffers, inside the
     * shared_kib budget; the rest holds n_buffers buffers of buffsize input neurons of
     * REGISTER features. */
    const int64_t budget = fp->shared_kib * 1024 - fp->register_tile * 4;
    const int64_t buffers = fp->n_buffers > 0 ? fp->n_buffers : 1;
    fp->buffsize = budget > 0 ? budget / (buffers * fp->register_tile * 4) : 0;
    fp->dynamic_shared = (size_t)fp->register_tile * 4 +
                         (size_t)buffers * (size_t)fp->buffsize * (size_t)fp->register_tile * 4;
    return 0;
}

static int feasible(const rt_device_info *dev, const fused_params *fp, char *why, size_t whylen)
{
    const int64_t shared_bytes = fp->shared_kib * 1024;
    if (dev && shared_bytes > dev->max_shared_per_block_optin) {
        snprintf(why, whylen,
                 "shared_kib=%lld (%lld bytes) exceeds the device's opt-in limit of %lld bytes "
                 "of shared memory per block",
                 (long long)fp->shared_kib, (long long)shared_bytes,
                 (long long)dev->max_shared_per_block_optin);
        return RT_INFEASIBLE;
    }
    if (fp->block_size % FUSED_WARP_SIZE != 0) {
        snprintf(why, whylen,
                 "block_size must be a multiple of %d (warp votes, ELL slices), not "
                 "%lld",
                 FUSED_WARP_SIZE, (long long)fp->block_size);
        return RT_INFEASIBLE;
    }
    if (fp->buffsize < 1) {
        snprintf(why, whylen,
                 "shared_kib=%lld holds no staged neuron of register_tile=%lld features "
                 "(buffsize 0)",
                 (long long)fp->shared_kib, (long long)fp->register_tile);
        return RT_INFEASIBLE;
    }
    if (fp->slot_major && fp->register_tile % 4 != 0) {
        snprintf(why, whylen,
                 "stage_layout=slot reads a staged slot's features 4 at a time: register_tile "
                 "must be a multiple of 4, not %lld",
                 (long long)fp->register_tile);
        return RT_INFEASIBLE;
    }
    const int64_t chunks = fp->register_tile / 4;
    if (fp->slot_major == 2 && (chunks & (chunks - 1)) != 0) {
        snprintf(why, whylen,
                 "stage_layout=slot_xor swizzles a slot's 16-byte chunks by XOR: register_tile "
                 "must be 4, 8, 16, 32 or 64, not %lld",
                 (long long)fp->register_tile);
        return RT_INFEASIBLE;
    }
    if (fp->bank_order && (!fp->use_ell || fp->slot_major == 1)) {
        snprintf(why, whylen,
                 "nnz_order=banks orders ELL steps by the banks of feature rows (slot mod 32) "
                 "or of slot_xor rows (slot mod 8 per quarter-warp): it needs staging=ell and "
                 "stage_layout feature or slot_xor");
        return RT_INFEASIBLE;
    }
    if (fp->n_buffers > 1 && dev && dev->cc_major < 8) {
        snprintf(why, whylen,
                 "n_buffers=%lld stages with cp.async, which needs compute capability 8.0; the "
                 "device has %d.%d",
                 (long long)fp->n_buffers, dev->cc_major, dev->cc_minor);
        return RT_INFEASIBLE;
    }
    if (fp->index_bytes == 2 && fp->buffsize > 65536) {
        snprintf(why, whylen, "index_bytes=2 addresses 65536 shared slots, buffsize is %lld",
                 (long long)fp->buffsize);
        return RT_INFEASIBLE;
    }
    return rt_cuda_check_launch(dev, fp->block_size, fp->min_blocks, why, whylen);
}

static int fused_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_spdnn_inputs *in;
    fused_params fp;
    if (rt_spdnn_cuda_inputs(inputs, &in, err) != 0 || read_params(p, &fp, err) != 0)
        return -1;
    return feasible(rt_cuda_ctx_device(self->backend_ctx), &fp, why, whylen);
}

static void fused_teardown(void *state)
{
    fused_state *s = state;
    if (!s)
        return;
    if (s->layer)
        for (int64_t l = 0; l < s->in->layers; ++l) {
            fused_layer *fl = &s->layer[l];
            void *buffers[] = {fl->d_displ,     fl->d_index,    fl->d_value,
                               fl->d_buffdispl, fl->d_mapdispl, fl->d_map};
            for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
                rt_cuda_free(s->pt.ctx, buffers[i]);
        }
    free(s->layer);
    rt_spdnn_cuda_pipe_free(&s->pipe);
    free(s);
}

static int compile_variant(fused_state *s, rt_err *err)
{
    const fused_params *fp = &s->fp;
    rt_cuda_defines defs;
    rt_cuda_defines_init(&defs);
    rt_cuda_define_int(&defs, "BLOCK_SIZE", fp->block_size);
    rt_cuda_define_int(&defs, "REGISTER", fp->register_tile);
    rt_cuda_define_int(&defs, "MIN_BLOCKS", fp->min_blocks);
    rt_cuda_define_int(&defs, "STAGING_ELL", fp->use_ell);
    rt_cuda_define_int(&defs, "INDEX_BYTES", fp->index_bytes);
    rt_cuda_define_int(&defs, "NNZ_UNROLL", fp->nnz_unroll);
    rt_cuda_define_int(&defs, "SLOT_MAJOR", fp->slot_major);
    rt_cuda_define_int(&defs, "N_BUFFERS", fp->n_buffers);
    const rt_cuda_variant_request rq = {
        .source_name = "spdnn_fused.cu",
        .entry = "rt_spdnn_fused",
        .defines = &defs,
        .block_size = fp->block_size,
        .register_tile = fp->register_tile,
        .allow_spills = (int)fp->allow_spills,
        .dynamic_shared = fp->dynamic_shared,
        .what = s->pt.what,
    };
    return rt_cuda_prepare_variant(s->pt.ctx, &rq, &s->variant, err);
}

/* What the device kernel assumes of a plan beyond rt_tiled_plan_verify. */
static int plan_fits_kernel(const rt_tiled_plan *plan, const fused_params *fp, char *why,
                            size_t whylen)
{
    if (plan->p.use_ell && plan->warps_per_block != fp->block_size / FUSED_WARP_SIZE) {
        snprintf(why, whylen, "plan has %lld warps per block, the kernel %lld",
                 (long long)plan->warps_per_block, (long long)(fp->block_size / FUSED_WARP_SIZE));
        return 0;
    }
    if (plan->p.index_bytes != fp->index_bytes || plan->p.buffsize != fp->buffsize) {
        snprintf(why, whylen,
                 "plan built for index_bytes=%d, buffsize=%lld; the kernel uses "
                 "%lld, %lld",
                 plan->p.index_bytes, (long long)plan->p.buffsize, (long long)fp->index_bytes,
                 (long long)fp->buffsize);
        return 0;
    }
    /* The kernel counts a stage's staged neurons and a slice's entries in int. */
    for (int64_t st = 0; st < plan->nstages; ++st)
        if (plan->mapdispl[st + 1] - plan->mapdispl[st] > 2147483647LL) {
            snprintf(why, whylen, "stage %lld stages more than 2^31-1 neurons", (long long)st);
            return 0;
        }
    return 1;
}

static int upload_layer(fused_state *s, int64_t l, const rt_tiled_plan *plan, rt_err *err)
{
    fused_layer *fl = &s->layer[l];
    char what[900];
    const int64_t displ_n = plan->p.use_ell ? plan->nstages * plan->warps_per_block + 1
                                            : plan->nstages * plan->p.block_size + 1;
    const int64_t *displ = plan->p.use_ell ? plan->displ : plan->rowdispl;
    if (!displ)
        return rt_err_set(err, "%s: layer %lld's plan has no stage ranges", s->pt.what,
                          (long long)l);
    snprintf(what, sizeof what, "layer %lld stage ranges of %s", (long long)l, s->pt.what);
    int rc = rt_cuda_upload_new(s->pt.ctx, displ, (size_t)displ_n * sizeof(int64_t), &fl->d_displ,
                                what, err);
    if (rc != 0)
        return rc;
    const void *index =
        plan->p.index_bytes == 2 ? (const void *)plan->index16 : (const void *)plan->index32;
    if (!index && plan->stored > 0)
        return rt_err_set(err, "%s: layer %lld's plan has no %d-byte indices", s->pt.what,
                          (long long)l, plan->p.index_bytes);
    snprintf(what, sizeof what, "layer %lld shared-memory indices of %s", (long long)l, s->pt.what);
    rc = rt_cuda_upload_new(s->pt.ctx, index, (size_t)plan->stored * (size_t)plan->p.index_bytes,
                            &fl->d_index, what, err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "layer %lld weights of %s", (long long)l, s->pt.what);
    rc = rt_cuda_upload_values(s->pt.ctx, plan->value, plan->stored, RT_FP32, &fl->d_value, what,
                               err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "layer %lld buffdispl of %s", (long long)l, s->pt.what);
    rc = rt_cuda_upload_new(s->pt.ctx, plan->buffdispl,
                            (size_t)(plan->nblocks + 1) * sizeof(int64_t), &fl->d_buffdispl, what,
                            err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "layer %lld mapdispl of %s", (long long)l, s->pt.what);
    rc =
        rt_cuda_upload_new(s->pt.ctx, plan->mapdispl, (size_t)(plan->nstages + 1) * sizeof(int64_t),
                           &fl->d_mapdispl, what, err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "layer %lld map of %s", (long long)l, s->pt.what);
    return rt_cuda_upload_new(s->pt.ctx, plan->map, (size_t)plan->nmap * sizeof(int32_t),
                              &fl->d_map, what, err);
}

/* Layer l's transpose, plan and checks: a pure function of the layer, so layers build in
 * parallel. Returns 0, or -1 with err filled. */
static int plan_layer(const fused_state *s, const rt_tiled_params *pp, int64_t l,
                      rt_tiled_plan *plan, rt_err *err)
{
    rt_csr wt;
    memset(plan, 0, sizeof *plan);
    if (rt_spdnn_transpose(s->in->layer[l], &wt, err) != 0)
        return rt_err_prefix(err, "%s: layer %lld", s->pt.what, (long long)l);
    if (rt_tiled_plan_build(&wt, pp, plan, err) != 0) {
        rt_csr_free(&wt);
        return rt_err_prefix(err, "%s: building layer %lld's tiled plan", s->pt.what, (long long)l);
    }
    if (rt_tiled_plan_verify(plan, &wt, err) != 0) {
        rt_csr_free(&wt);
        return rt_err_prefix(err, "%s: layer %lld's tiled plan is inconsistent", s->pt.what,
                             (long long)l);
    }
    rt_csr_free(&wt);
    char why[512];
    if (!plan_fits_kernel(plan, &s->fp, why, sizeof why))
        return rt_err_set(err, "%s: layer %lld: %s", s->pt.what, (long long)l, why);
    return 0;
}

/* Layers per parallel round: the plans of a round are held at once (about 10 bytes per nonzero
 * of a layer each), so memory stays bounded while every core builds one. */
#define FUSED_PLAN_ROUND 16

/* Transposes, plans, checks and uploads every layer: a round of layers planned in parallel, then
 * uploaded in order. The lowest failing layer is the one reported. */
static int build_layers(fused_state *s, rt_err *err)
{
    const rt_spdnn_inputs *in = s->in;
    const rt_tiled_params pp = {.block_size = (int)s->fp.block_size,
                                .buffsize = s->fp.buffsize,
                                .warp_size = FUSED_WARP_SIZE,
                                .use_ell = s->fp.use_ell,
                                .index_bytes = (int)s->fp.index_bytes,
                                .bank_order = s->fp.bank_order,
                                .bank_lanes = s->fp.slot_major == 2 ? 8 : 0};
    rt_tiled_plan plan[FUSED_PLAN_ROUND];
    rt_err plan_err[FUSED_PLAN_ROUND];
    int plan_rc[FUSED_PLAN_ROUND];
    for (int64_t l0 = 0; l0 < in->layers; l0 += FUSED_PLAN_ROUND) {
        const int round =
            (int)(in->layers - l0 < FUSED_PLAN_ROUND ? in->layers - l0 : FUSED_PLAN_ROUND);
#pragma omp parallel for schedule(dynamic, 1)
        for (int i = 0; i < round; ++i) {
            rt_err_clear(&plan_err[i]);
            plan_rc[i] = plan_layer(s, &pp, l0 + i, &plan[i], &plan_err[i]);
        }
        int rc = 0;
        for (int i = 0; i < round; ++i) {
            if (rc == 0 && plan_rc[i] != 0) {
                if (err)
                    *err = plan_err[i];
                rc = -1;
            }
            if (rc == 0) {
                s->stored += (double)plan[i].stored;
                s->nstages += (double)plan[i].nstages;
                s->nblocks += (double)plan[i].nblocks;
                s->staged += (double)plan[i].nmap;
                if ((double)plan[i].max_stages > s->max_stages)
                    s->max_stages = (double)plan[i].max_stages;
                rc = upload_layer(s, l0 + i, &plan[i], err);
            }
            rt_tiled_plan_free(&plan[i]);
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int fused_prepare(void *state, const rt_params *p, rt_err *err)
{
    fused_state *s = state;
    s->in = s->pt.inputs;
    if (read_params(p, &s->fp, err) != 0)
        return -1;
    char why[512];
    if (feasible(rt_cuda_ctx_device(s->pt.ctx), &s->fp, why, sizeof why) != 0) {
        rt_err_set(err, "%s", why);
        return RT_INFEASIBLE;
    }
    /* Compile first: a variant that spills is rejected before any preprocessing. */
    int rc = compile_variant(s, err);
    if (rc != 0)
        return rc;
    const int64_t gx = (s->in->neurons + s->fp.block_size - 1) / s->fp.block_size;
    if (gx > RT_CUDA_MAX_GRID_X)
        return rt_err_set(err, "%s: %lld blocks of neurons exceed the grid", s->pt.what,
                          (long long)gx);
    s->grid_x = (unsigned)gx;
    if (rt_cuda_occupancy(s->pt.ctx, &s->variant, (int)s->fp.block_size, s->fp.dynamic_shared,
                          &s->occupancy, err) != 0)
        return rt_err_prefix(err, "%s", s->pt.what);
    s->layer = calloc((size_t)s->in->layers, sizeof *s->layer);
    if (!s->layer)
        return rt_err_set(err, "%s: out of memory for %lld layers", s->pt.what,
                          (long long)s->in->layers);
    /* Preprocessing = transposes, plans and uploads of every layer (the plan checks included:
     * they are a small part, and setup is not timed as inference). */
    const double t0 = rt_clock_now();
    rc = build_layers(s, err);
    s->preprocess_s = rt_clock_now() - t0;
    if (rc != 0)
        return rc;
    return rt_spdnn_cuda_pipe_setup(&s->pipe, s->pt.ctx, s->in, 0, s->pt.what, err);
}

static int fused_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, void **state, rt_err *err)
{
    return rt_cuda_point_setup(self, &rt_spdnn_cuda_point, inputs, p, sizeof(fused_state),
                               fused_prepare, fused_teardown, state, err);
}

/* Enqueues layer l for `live` features read through `list` from in_y into out_y. */
static int launch_layer(void *state, int64_t l, const float *in_y, const int *list, int64_t live,
                        float *out_y, rt_err *err)
{
    fused_state *s = state;
    const fused_layer *fl = &s->layer[l];
    const int64_t ntiles = (live + s->fp.register_tile - 1) / s->fp.register_tile;
    const unsigned grid[3] = {
        s->grid_x,
        (unsigned)(ntiles < (int64_t)RT_CUDA_MAX_GRID_Y ? ntiles : (int64_t)RT_CUDA_MAX_GRID_Y), 1};
    const unsigned block[3] = {(unsigned)s->fp.block_size, 1, 1};
    float *a_out = out_y;
    const float *a_in = in_y;
    const int *a_list = list;
    int a_live = (int)live, a_ntiles = (int)ntiles, a_buffsize = (int)s->fp.buffsize;
    long long a_neurons = s->in->neurons;
    const void *a_displ = fl->d_displ, *a_index = fl->d_index, *a_value = fl->d_value,
               *a_buffdispl = fl->d_buffdispl, *a_mapdispl = fl->d_mapdispl, *a_map = fl->d_map;
    float a_bias = (float)s->in->bias;
    int *a_active = s->pipe.d_active;
    void *args[15] = {&a_out,      &a_in,    &a_list,     &a_live,  &a_ntiles,
                      &a_neurons,  &a_displ, &a_index,    &a_value, &a_buffdispl,
                      &a_mapdispl, &a_map,   &a_buffsize, &a_bias,  &a_active};
    if (rt_spdnn_cuda_clear_flags(&s->pipe, live, err) != 0)
        return -1;
    return rt_cuda_point_launch(s->pt.ctx, &s->variant, grid, block, s->fp.dynamic_shared, args,
                                s->pt.what, err);
}

static int fused_run(void *state, double *seconds, rt_err *err)
{
    fused_state *s = state;
    return rt_spdnn_cuda_pipe_run(&s->pipe, s->pt.ctx, s->in->layers, launch_layer, NULL, s,
                                  seconds, s->pt.what, err);
}

static int fused_output(void *state, double *out, rt_err *err)
{
    const fused_state *s = state;
    return rt_spdnn_cuda_pipe_output(&s->pipe, out, err);
}

static int fused_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const fused_state *s = state;
    rt_spdnn_cuda_pipe_metrics(&s->pipe, m, err);
    const double nnz = (double)s->in->nnz_total;
    rt_metrics_add(m, "padding_overhead", "ratio", nnz > 0 ? s->stored / nnz - 1.0 : 0.0, 1);
    rt_metrics_add(m, "stages", "count", s->nstages, 1);
    rt_metrics_add(m, "stages_per_block", "count", s->nblocks > 0 ? s->nstages / s->nblocks : 0.0,
                   1);
    rt_metrics_add(m, "stages_per_block_max", "count", s->max_stages, 1);
    rt_metrics_add(m, "reuse_factor", "ratio", s->staged > 0 ? nnz / s->staged : 0.0, 1);
    rt_cuda_variant_metrics(&s->variant, s->occupancy, m);
    rt_metrics_add(m, "preprocess_s", "s", s->preprocess_s, 0);
    rt_metrics_add(m, "buffsize", "count", (double)s->fp.buffsize, 1);
    rt_metrics_add(m, "dynamic_shared_bytes", "bytes", (double)s->fp.dynamic_shared, 1);
    return 0;
}

static int fused_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spdnn_inputs *in;
    fused_params fp;
    if (rt_spdnn_cuda_inputs(inputs, &in, err) != 0 || read_params(p, &fp, err) != 0)
        return -1;
    const rt_device_info *dev = rt_cuda_ctx_device(self->backend_ctx);
    /* fp32 weights with the plan's shared-memory indices (padding is not compulsory). */
    rt_spdnn_traffic(in, 4.0, (double)fp.index_bytes, (double)dev->l2_bytes, 1, t);
    return 0;
}

void rt_spdnn_cuda_fused_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {fused_check,    fused_setup,   fused_run,
                                              fused_output,   fused_metrics, rt_cuda_point_flush,
                                              fused_teardown, fused_traffic};
    rt_cuda_point_describe(d, rt_spdnn_cuda_catalog_at(FUSED_KIND), &hooks, ctx);
}
