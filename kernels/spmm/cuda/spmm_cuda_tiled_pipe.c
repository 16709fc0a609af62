#include "spmm_cuda_tiled_pipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_strutil.h"
#include "spmm_cuda_common.h"
#include "spmm_tiled.h"
#include "spmm_tiled_pipe_rules.h"
#include "spmm_traffic.h"

/* The device source's WARP_SIZE: ELL slices are one warp of rows. */
#define PIPE_WARP_SIZE 32

typedef struct pipe_params {
    rt_tiled_pipe_config c; /* what the feasibility rules read */
    int64_t nnz_unroll, allow_spills;
    int64_t buffsize;      /* staged B rows per buffer */
    size_t dynamic_shared; /* n_buffers * buffsize * register_tile * sizeof(value) */
} pipe_params;

/* What the traffic model needs of a plan, remembered per context (the plan of the last point
 * set up) so that the traffic hook of the same point does not rebuild it. */
typedef struct pipe_summary {
    uint64_t fingerprint; /* of A's pattern */
    int64_t rows, cols, nnz;
    rt_tiled_params p;
    int64_t nblocks, nstages, nmap, stored;
} pipe_summary;

typedef struct pipe_state {
    rt_spmm_cuda_launch base; /* first: the shared hooks take the state as this */
    void *d_displ, *d_index, *d_value, *d_buffdispl, *d_mapdispl, *d_map;
    double preprocess_s;
    int64_t buffsize, stage_split;
    rt_metrics plan_metrics;
    void *arg_c, *arg_b, *arg_displ, *arg_index, *arg_value, *arg_buffdispl, *arg_mapdispl,
        *arg_map;
    long long arg_nrows, arg_ncols;
    int arg_k, arg_ntiles, arg_buffsize;
    void *args[13];
} pipe_state;

static int read_params(const rt_params *p, const rt_spmm_inputs *in, pipe_params *pp, rt_err *err)
{
    const int kind = RT_SPMM_CUDA_KIND_TILED_PIPE;
    char staging[16];
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
        rt_spmm_cuda_param_int(p, kind, "nnz_unroll", &pp->nnz_unroll, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "allow_spills", &pp->allow_spills, err) != 0 ||
        rt_spmm_cuda_param_str(p, kind, "staging", staging, sizeof staging, err) != 0)
        return -1;
    c->use_ell = strcmp(staging, "ell") == 0;
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
    if (!s)
        return;
    rt_spmm_cuda_dense_free(&s->base.dense);
    void *buffers[] = {s->d_displ, s->d_index, s->d_value, s->d_buffdispl, s->d_mapdispl, s->d_map};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
        rt_cuda_free(s->base.ctx, buffers[i]);
    free(s);
}

/* ---------------------------------------------------------------------------------------------
 * Plan summaries */

static uint64_t pattern_fingerprint(const rt_csr *a)
{
    uint64_t h =
        rt_hash64(a->rowptr, (size_t)(a->rows + 1) * sizeof(int64_t), 0x6a09e667f3bcc909ULL);
    if (a->nnz > 0)
        h = rt_hash64(a->colidx, (size_t)a->nnz * sizeof(int32_t), h);
    return h;
}

/* The plan is Listing 1's (kernels/shared/spmm_tiled.h) with one buffer's slots per stage. */
static rt_tiled_params plan_params(const pipe_params *pp)
{
    rt_tiled_params tp = {.block_size = (int)pp->c.block_size,
                          .buffsize = pp->buffsize,
                          .warp_size = PIPE_WARP_SIZE,
                          .use_ell = pp->c.use_ell,
                          .index_bytes = (int)pp->c.index_bytes};
    return tp;
}

static int same_params(const rt_tiled_params *x, const rt_tiled_params *y)
{
    return x->block_size == y->block_size && x->buffsize == y->buffsize &&
           x->warp_size == y->warp_size && x->use_ell == y->use_ell &&
           x->index_bytes == y->index_bytes;
}

static void remember_summary(rt_cuda_ctx *ctx, const rt_csr *a, uint64_t fingerprint,
                             const rt_tiled_plan *plan)
{
    pipe_summary *sum = malloc(sizeof *sum);
    if (!sum)
        return; /* only a cache: the traffic hook rebuilds the plan if it must */
    *sum = (pipe_summary){.fingerprint = fingerprint,
                          .rows = a->rows,
                          .cols = a->cols,
                          .nnz = a->nnz,
                          .p = plan->p,
                          .nblocks = plan->nblocks,
                          .nstages = plan->nstages,
                          .nmap = plan->nmap,
                          .stored = plan->stored};
    rt_cuda_ctx_set_memo(ctx, RT_CUDA_MEMO_TILED_PIPE_PLAN, sum, free);
}

static const pipe_summary *find_summary(const rt_cuda_ctx *ctx, const rt_csr *a,
                                        uint64_t fingerprint, const rt_tiled_params *tp)
{
    const pipe_summary *sum = rt_cuda_ctx_memo(ctx, RT_CUDA_MEMO_TILED_PIPE_PLAN);
    if (sum && sum->fingerprint == fingerprint && sum->rows == a->rows && sum->cols == a->cols &&
        sum->nnz == a->nnz && same_params(&sum->p, tp))
        return sum;
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Setup */

static int upload_plan(pipe_state *s, const rt_tiled_plan *plan, rt_precision prec, rt_err *err)
{
    char what[900];
    const int64_t displ_n = plan->p.use_ell ? plan->nstages * plan->warps_per_block + 1
                                            : plan->nstages * plan->p.block_size + 1;
    const int64_t *displ = plan->p.use_ell ? plan->displ : plan->rowdispl;
    if (!displ)
        return rt_err_set(err, "%s: the plan has no %s ranges", s->base.what,
                          plan->p.use_ell ? "ELL (displ)" : "CSR (rowdispl)");
    snprintf(what, sizeof what, "stage ranges of %s", s->base.what);
    int rc = rt_cuda_upload_new(s->base.ctx, displ, (size_t)displ_n * sizeof(int64_t), &s->d_displ,
                                what, err);
    if (rc != 0)
        return rc;
    const void *index =
        plan->p.index_bytes == 2 ? (const void *)plan->index16 : (const void *)plan->index32;
    if (!index && plan->stored > 0)
        return rt_err_set(err, "%s: the plan has no %d-byte indices", s->base.what,
                          plan->p.index_bytes);
    snprintf(what, sizeof what, "shared-memory indices of %s", s->base.what);
    rc = rt_cuda_upload_new(s->base.ctx, index, (size_t)plan->stored * (size_t)plan->p.index_bytes,
                            &s->d_index, what, err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "values of %s", s->base.what);
    rc =
        rt_cuda_upload_values(s->base.ctx, plan->value, plan->stored, prec, &s->d_value, what, err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "buffdispl of %s", s->base.what);
    rc = rt_cuda_upload_new(s->base.ctx, plan->buffdispl,
                            (size_t)(plan->nblocks + 1) * sizeof(int64_t), &s->d_buffdispl, what,
                            err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "mapdispl of %s", s->base.what);
    rc = rt_cuda_upload_new(s->base.ctx, plan->mapdispl,
                            (size_t)(plan->nstages + 1) * sizeof(int64_t), &s->d_mapdispl, what,
                            err);
    if (rc != 0)
        return rc;
    snprintf(what, sizeof what, "map of %s", s->base.what);
    return rt_cuda_upload_new(s->base.ctx, plan->map, (size_t)plan->nmap * sizeof(int32_t),
                              &s->d_map, what, err);
}

/* Everything the device kernel assumes of a plan beyond rt_tiled_plan_verify. */
static int plan_fits_kernel(const rt_tiled_plan *plan, const pipe_params *pp, char *why,
                            size_t whylen)
{
    if (plan->p.use_ell && plan->warps_per_block != pp->c.block_size / PIPE_WARP_SIZE) {
        snprintf(why, whylen, "plan has %lld warps per block, the kernel %lld",
                 (long long)plan->warps_per_block, (long long)(pp->c.block_size / PIPE_WARP_SIZE));
        return 0;
    }
    if (!plan->buffdispl || !plan->mapdispl || (plan->nmap > 0 && !plan->map)) {
        snprintf(why, whylen, "plan lacks buffdispl, mapdispl or map");
        return 0;
    }
    if (plan->nmap != plan->mapdispl[plan->nstages] ||
        plan->buffdispl[plan->nblocks] != plan->nstages) {
        snprintf(why, whylen, "plan totals disagree (nmap %lld, stages %lld)",
                 (long long)plan->nmap, (long long)plan->nstages);
        return 0;
    }
    for (int64_t st = 0; st < plan->nstages; ++st)
        if (plan->mapdispl[st + 1] - plan->mapdispl[st] > pp->buffsize) {
            snprintf(why, whylen, "stage %lld stages %lld rows of B, a buffer holds %lld",
                     (long long)st, (long long)(plan->mapdispl[st + 1] - plan->mapdispl[st]),
                     (long long)pp->buffsize);
            return 0;
        }
    return 1;
}

static int compile_variant(pipe_state *s, const rt_spmm_inputs *in, const pipe_params *pp,
                           rt_err *err)
{
    rt_cuda_defines defs;
    rt_spmm_cuda_defines(&defs, in, pp->c.block_size, pp->c.register_tile, pp->c.blocks_per_sm);
    rt_cuda_define_int(&defs, "STAGING_ELL", pp->c.use_ell);
    rt_cuda_define_int(&defs, "INDEX_BYTES", pp->c.index_bytes);
    rt_cuda_define_int(&defs, "NNZ_UNROLL", pp->nnz_unroll);
    rt_cuda_define_int(&defs, "N_BUFFERS", pp->c.n_buffers);
    rt_cuda_define_int(&defs, "STAGE_SPLIT", pp->c.stage_split);
    rt_cuda_define_int(&defs, "VECTOR", pp->c.vector);
    const rt_cuda_variant_request rq = {
        .source_name = "spmm_tiled_pipe.cu",
        .entry = "rt_spmm_tiled_pipe",
        .defines = &defs,
        .block_size = pp->c.block_size,
        .register_tile = pp->c.register_tile,
        .allow_spills = (int)pp->allow_spills,
        .dynamic_shared = pp->dynamic_shared,
        .what = s->base.what,
    };
    return rt_cuda_prepare_variant(s->base.ctx, &rq, &s->base.variant, err);
}

/* grid.x: every row block stage_split times (the kernel splits its stages between them). */
static int split_grid(pipe_state *s, int64_t stage_split, rt_err *err)
{
    const int64_t gx = (int64_t)s->base.cfg.grid[0] * stage_split;
    if (gx > RT_CUDA_MAX_GRID_X)
        return rt_err_set(err, "%s: %lld blocks with stage_split=%lld pass the grid limit 2^31-1",
                          s->base.what, (long long)gx, (long long)stage_split);
    s->base.cfg.grid[0] = (unsigned)gx;
    return 0;
}

static int pipe_prepare(void *state, const rt_spmm_inputs *in, const rt_params *p, rt_err *err)
{
    pipe_state *s = state;
    pipe_params pp;
    if (read_params(p, in, &pp, err) != 0)
        return -1;
    const rt_csr *a = in->a;
    char why[512];
    if (feasible(rt_cuda_ctx_device(s->base.ctx), &pp, why, sizeof why) != 0) {
        rt_err_set(err, "%s", why);
        return RT_INFEASIBLE;
    }
    s->buffsize = pp.buffsize;
    s->stage_split = pp.c.stage_split;
    /* Compile first: a variant that spills is rejected before any preprocessing. */
    int rc = compile_variant(s, in, &pp, err);
    if (rc != 0)
        return rc;
    if (rt_spmm_cuda_launch_geometry(&s->base, a->rows, in->k, pp.c.block_size, pp.c.register_tile,
                                     pp.dynamic_shared, &s->arg_ntiles, err) != 0 ||
        split_grid(s, pp.c.stage_split, err) != 0)
        return -1;

    /* Preprocessing time = host plan build + upload (the plan check is not counted). */
    const rt_tiled_params tp = plan_params(&pp);
    rt_tiled_plan plan;
    const double t0 = rt_clock_now();
    if (rt_tiled_plan_build(a, &tp, &plan, err) != 0) {
        rt_tiled_plan_free(&plan);
        return rt_err_prefix(err, "%s: building the tiled plan", s->base.what);
    }
    const double t_build = rt_clock_now() - t0;
    if (rt_tiled_plan_verify(&plan, a, err) != 0) {
        rt_tiled_plan_free(&plan);
        return rt_err_prefix(err, "%s: the tiled plan is inconsistent", s->base.what);
    }
    if (!plan_fits_kernel(&plan, &pp, why, sizeof why)) {
        rt_tiled_plan_free(&plan);
        return rt_err_set(err, "%s: %s", s->base.what, why);
    }
    const double t1 = rt_clock_now();
    rc = upload_plan(s, &plan, in->prec, err);
    const double t_upload = rt_clock_now() - t1;
    s->preprocess_s = t_build + t_upload;
    rt_metrics_init(&s->plan_metrics);
    rt_tiled_plan_metrics(&plan, &s->plan_metrics);
    rt_metrics_add(&s->plan_metrics, "stages_per_block", "count",
                   plan.nblocks > 0 ? (double)plan.nstages / (double)plan.nblocks : 0.0, 1);
    remember_summary(s->base.ctx, a, pattern_fingerprint(a), &plan);
    rt_tiled_plan_free(&plan);
    if (rc != 0)
        return rc;
    rc = rt_spmm_cuda_dense_setup(&s->base.dense, s->base.ctx, in, a->cols, a->rows, s->base.what,
                                  err);
    if (rc != 0)
        return rc;
    if (pp.c.stage_split > 1) {
        /* The parts of a block row add into C: every run starts from zeros (timed). */
        s->base.cfg.zero_first = s->base.dense.d_c;
        s->base.cfg.zero_bytes =
            (size_t)s->base.dense.c_rows * (size_t)s->base.dense.k * s->base.dense.elem;
    }

    s->arg_c = s->base.dense.d_c;
    s->arg_b = s->base.dense.d_b;
    s->arg_displ = s->d_displ;
    s->arg_index = s->d_index;
    s->arg_value = s->d_value;
    s->arg_buffdispl = s->d_buffdispl;
    s->arg_mapdispl = s->d_mapdispl;
    s->arg_map = s->d_map;
    s->arg_nrows = a->rows;
    s->arg_ncols = a->cols;
    s->arg_k = (int)in->k;
    s->arg_buffsize = (int)pp.buffsize;
    void *args[13] = {&s->arg_c,       &s->arg_b,         &s->arg_displ,    &s->arg_index,
                      &s->arg_value,   &s->arg_nrows,     &s->arg_ncols,    &s->arg_k,
                      &s->arg_ntiles,  &s->arg_buffdispl, &s->arg_mapdispl, &s->arg_map,
                      &s->arg_buffsize};
    memcpy(s->args, args, sizeof args);
    s->base.args = s->args;
    return 0;
}

static int pipe_metrics(void *state, rt_metrics *m, rt_err *err)
{
    (void)err;
    const pipe_state *s = state;
    for (int i = 0; i < s->plan_metrics.n; ++i) {
        const rt_metric *pm = &s->plan_metrics.item[i];
        rt_metrics_add(m, pm->name, pm->unit, pm->value, pm->deterministic);
    }
    rt_cuda_variant_metrics(&s->base.variant, s->base.occupancy, m);
    rt_metrics_add(m, "preprocess_s", "s", s->preprocess_s, 0);
    rt_metrics_add(m, "buffsize", "count", (double)s->buffsize, 1);
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
    const rt_tiled_params tp = plan_params(&pp);
    const uint64_t fp = pattern_fingerprint(in->a);
    const pipe_summary *sum = find_summary(ctx, in->a, fp, &tp);
    if (!sum) {
        rt_tiled_plan plan;
        if (rt_tiled_plan_build(in->a, &tp, &plan, err) != 0) {
            rt_tiled_plan_free(&plan);
            return rt_err_prefix(err, "traffic model of %s", self->name);
        }
        remember_summary(ctx, in->a, fp, &plan);
        rt_tiled_plan_free(&plan);
        sum = find_summary(ctx, in->a, fp, &tp);
        if (!sum)
            return rt_err_set(err, "traffic model of %s: out of memory", self->name);
    }
    /* As spmm.cuda.tiled: the plan read once, B's referenced rows, C once; shared memory: every
     * map entry staged and every stored entry read, REGISTER wide. With stage_split > 1 C is
     * also zeroed and read back by the atomic additions: that traffic is the method's own
     * choice, not compulsory, and shows up as lower efficiency. */
    const size_t elem = rt_precision_bytes(in->prec);
    const double a_bytes =
        rt_spmm_tiled_plan_bytes(&sum->p, sum->nblocks, sum->nstages, sum->nmap, sum->stored, elem);
    const int64_t ntiles = (in->k + pp.c.register_tile - 1) / pp.c.register_tile;
    const double shared =
        rt_spmm_tiled_shared_bytes(sum->nmap, sum->stored, ntiles * pp.c.register_tile, elem);
    if (rt_spmm_cuda_traffic(in, a_bytes, self->name, t, err) != 0)
        return -1;
    t->bytes[RT_LEVEL_SHARED] = shared;
    return 0;
}

static int pipe_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, void **state, rt_err *err)
{
    (void)env;
    return rt_spmm_cuda_launch_setup(self, inputs, p, sizeof(pipe_state), pipe_prepare,
                                     pipe_teardown, state, err);
}

void rt_spmm_cuda_tiled_pipe_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    rt_cuda_catalog_describe(rt_spmm_cuda_catalog_at(RT_SPMM_CUDA_KIND_TILED_PIPE), d);
    d->check = pipe_check;
    d->setup = pipe_setup;
    d->run = rt_spmm_cuda_launch_run;
    d->output = rt_spmm_cuda_launch_output;
    d->metrics = pipe_metrics;
    d->flush = rt_spmm_cuda_launch_flush;
    d->teardown = pipe_teardown;
    d->traffic = pipe_traffic;
    d->backend_ctx = ctx;
}
