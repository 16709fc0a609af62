#include "spmm_cuda_tiled.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_strutil.h"
#include "spmm_cuda_common.h"
#include "spmm_tiled.h"
#include "spmm_traffic.h"

/* The device source's WARP_SIZE: ELL slices are one warp of rows. */
#define TILED_WARP_SIZE 32

typedef struct tiled_params {
    int64_t block_size, shared_kib, register_tile, min_blocks, index_bytes, allow_spills;
    int64_t nnz_unroll;
    int use_ell;
    int64_t buffsize;      /* staged B rows per stage */
    size_t dynamic_shared; /* buffsize * register_tile * sizeof(value) */
} tiled_params;

/* What the traffic model needs of a plan, remembered per context so that the traffic hook does
 * not rebuild the plan that setup just built (or the other way round). */
typedef struct plan_summary {
    uint64_t fingerprint; /* of A's pattern: a matrix at a reused address is not mistaken */
    int64_t rows, cols, nnz;
    rt_tiled_params p;
    int64_t nblocks, nstages, nmap, stored;
} plan_summary;

typedef struct tiled_state {
    rt_spmm_cuda_launch base; /* first: the shared hooks take the state as this */
    void *d_displ, *d_index, *d_value, *d_buffdispl, *d_mapdispl, *d_map;
    double preprocess_s;
    int64_t buffsize;
    rt_metrics plan_metrics;
    void *arg_c, *arg_b, *arg_displ, *arg_index, *arg_value, *arg_buffdispl, *arg_mapdispl,
        *arg_map;
    long long arg_nrows, arg_ncols;
    int arg_k, arg_ntiles, arg_buffsize;
    void *args[13];
} tiled_state;

static int read_params(const rt_params *p, const rt_spmm_inputs *in, tiled_params *tp, rt_err *err)
{
    const int kind = RT_SPMM_CUDA_KIND_TILED;
    char staging[16];
    if (rt_spmm_cuda_param_int(p, kind, "block_size", &tp->block_size, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "shared_kib", &tp->shared_kib, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "register_tile", &tp->register_tile, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "min_blocks", &tp->min_blocks, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "index_bytes", &tp->index_bytes, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "allow_spills", &tp->allow_spills, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "nnz_unroll", &tp->nnz_unroll, err) != 0 ||
        rt_spmm_cuda_param_str(p, kind, "staging", staging, sizeof staging, err) != 0)
        return -1;
    tp->use_ell = strcmp(staging, "ell") == 0;
    const size_t elem = rt_precision_bytes(in->prec);
    /* The paper's buffsize: the shared-memory budget split over REGISTER columns of B. */
    tp->buffsize = tp->shared_kib * 1024 / (tp->register_tile * (int64_t)elem);
    tp->dynamic_shared = (size_t)tp->buffsize * (size_t)tp->register_tile * elem;
    return 0;
}

static int feasible(const rt_device_info *dev, const rt_spmm_inputs *in, const tiled_params *tp,
                    char *why, size_t whylen)
{
    const int64_t shared_bytes = tp->shared_kib * 1024;
    if (dev && shared_bytes > dev->max_shared_per_block_optin) {
        snprintf(why, whylen,
                 "shared_kib=%lld (%lld bytes) exceeds the device's opt-in limit of %lld bytes "
                 "of shared memory per block",
                 (long long)tp->shared_kib, (long long)shared_bytes,
                 (long long)dev->max_shared_per_block_optin);
        return RT_INFEASIBLE;
    }
    if (tp->use_ell && tp->block_size % TILED_WARP_SIZE != 0) {
        snprintf(why, whylen, "staging=ell needs block_size to be a multiple of %d, not %lld",
                 TILED_WARP_SIZE, (long long)tp->block_size);
        return RT_INFEASIBLE;
    }
    if (tp->buffsize < 1) {
        snprintf(why, whylen,
                 "shared_kib=%lld holds no staged row of register_tile=%lld %s values "
                 "(buffsize 0)",
                 (long long)tp->shared_kib, (long long)tp->register_tile,
                 rt_precision_name(in->prec));
        return RT_INFEASIBLE;
    }
    if (tp->index_bytes == 2 && tp->buffsize > 65536) {
        snprintf(why, whylen, "index_bytes=2 addresses 65536 shared slots, buffsize is %lld",
                 (long long)tp->buffsize);
        return RT_INFEASIBLE;
    }
    return rt_cuda_check_launch(dev, tp->block_size, tp->min_blocks, why, whylen);
}

static int tiled_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_spmm_inputs *in;
    tiled_params tp;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || read_params(p, in, &tp, err) != 0)
        return -1;
    return feasible(rt_cuda_ctx_device(self->backend_ctx), in, &tp, why, whylen);
}

static void tiled_teardown(void *state)
{
    tiled_state *s = state;
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
        rt_hash64(a->rowptr, (size_t)(a->rows + 1) * sizeof(int64_t), 0x1f83d9abfb41bd6bULL);
    if (a->nnz > 0)
        h = rt_hash64(a->colidx, (size_t)a->nnz * sizeof(int32_t), h);
    return h;
}

static rt_tiled_params plan_params(const tiled_params *tp)
{
    rt_tiled_params pp = {.block_size = (int)tp->block_size,
                          .buffsize = tp->buffsize,
                          .warp_size = TILED_WARP_SIZE,
                          .use_ell = tp->use_ell,
                          .index_bytes = (int)tp->index_bytes};
    return pp;
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
    plan_summary *sum = malloc(sizeof *sum);
    if (!sum)
        return; /* only a cache: the traffic hook rebuilds the plan if it must */
    sum->fingerprint = fingerprint;
    sum->rows = a->rows;
    sum->cols = a->cols;
    sum->nnz = a->nnz;
    sum->p = plan->p;
    sum->nblocks = plan->nblocks;
    sum->nstages = plan->nstages;
    sum->nmap = plan->nmap;
    sum->stored = plan->stored;
    rt_cuda_ctx_set_memo(ctx, RT_CUDA_MEMO_TILED_PLAN, sum, free);
}

static const plan_summary *find_summary(const rt_cuda_ctx *ctx, const rt_csr *a,
                                        uint64_t fingerprint, const rt_tiled_params *pp)
{
    const plan_summary *sum = rt_cuda_ctx_memo(ctx, RT_CUDA_MEMO_TILED_PLAN);
    if (sum && sum->fingerprint == fingerprint && sum->rows == a->rows && sum->cols == a->cols &&
        sum->nnz == a->nnz && same_params(&sum->p, pp))
        return sum;
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Setup */

static int upload_plan(tiled_state *s, const rt_tiled_plan *plan, rt_precision prec, rt_err *err)
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
static int plan_fits_kernel(const rt_tiled_plan *plan, const tiled_params *tp, char *why,
                            size_t whylen)
{
    if (plan->p.use_ell && plan->warps_per_block != tp->block_size / TILED_WARP_SIZE) {
        snprintf(why, whylen, "plan has %lld warps per block, the kernel %lld",
                 (long long)plan->warps_per_block, (long long)(tp->block_size / TILED_WARP_SIZE));
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
        if (plan->mapdispl[st + 1] - plan->mapdispl[st] > tp->buffsize) {
            snprintf(why, whylen, "stage %lld stages %lld rows of B, shared memory holds %lld",
                     (long long)st, (long long)(plan->mapdispl[st + 1] - plan->mapdispl[st]),
                     (long long)tp->buffsize);
            return 0;
        }
    return 1;
}

static int compile_variant(tiled_state *s, const rt_spmm_inputs *in, const tiled_params *tp,
                           rt_err *err)
{
    rt_cuda_defines defs;
    rt_spmm_cuda_defines(&defs, in, tp->block_size, tp->register_tile, tp->min_blocks);
    rt_cuda_define_int(&defs, "STAGING_ELL", tp->use_ell);
    rt_cuda_define_int(&defs, "INDEX_BYTES", tp->index_bytes);
    rt_cuda_define_int(&defs, "NNZ_UNROLL", tp->nnz_unroll);
    const rt_cuda_variant_request rq = {
        .source_name = "spmm_tiled.cu",
        .entry = "rt_spmm_tiled",
        .defines = &defs,
        .block_size = tp->block_size,
        .register_tile = tp->register_tile,
        .allow_spills = (int)tp->allow_spills,
        .dynamic_shared = tp->dynamic_shared,
        .what = s->base.what,
    };
    return rt_cuda_prepare_variant(s->base.ctx, &rq, &s->base.variant, err);
}

static int tiled_prepare(void *state, const rt_spmm_inputs *in, const rt_params *p, rt_err *err)
{
    tiled_state *s = state;
    tiled_params tp;
    if (read_params(p, in, &tp, err) != 0)
        return -1;
    const rt_csr *a = in->a;
    char why[512];
    if (feasible(rt_cuda_ctx_device(s->base.ctx), in, &tp, why, sizeof why) != 0) {
        rt_err_set(err, "%s", why);
        return RT_INFEASIBLE;
    }
    s->buffsize = tp.buffsize;
    /* Compile first: a variant that spills is rejected before any preprocessing. */
    int rc = compile_variant(s, in, &tp, err);
    if (rc != 0)
        return rc;
    if (rt_spmm_cuda_launch_geometry(&s->base, a->rows, in->k, tp.block_size, tp.register_tile,
                                     tp.dynamic_shared, &s->arg_ntiles, err) != 0)
        return -1;

    /* Preprocessing time = host plan build + upload; the plan check between them is not part of
     * the method and is not counted. */
    const rt_tiled_params pp = plan_params(&tp);
    rt_tiled_plan plan;
    const double t0 = rt_clock_now();
    if (rt_tiled_plan_build(a, &pp, &plan, err) != 0) {
        rt_tiled_plan_free(&plan);
        return rt_err_prefix(err, "%s: building the tiled plan", s->base.what);
    }
    const double t_build = rt_clock_now() - t0;
    if (rt_tiled_plan_verify(&plan, a, err) != 0) {
        rt_tiled_plan_free(&plan);
        return rt_err_prefix(err, "%s: the tiled plan is inconsistent", s->base.what);
    }
    if (!plan_fits_kernel(&plan, &tp, why, sizeof why)) {
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
    s->arg_buffsize = (int)tp.buffsize;
    void *args[13] = {&s->arg_c,       &s->arg_b,         &s->arg_displ,    &s->arg_index,
                      &s->arg_value,   &s->arg_nrows,     &s->arg_ncols,    &s->arg_k,
                      &s->arg_ntiles,  &s->arg_buffdispl, &s->arg_mapdispl, &s->arg_map,
                      &s->arg_buffsize};
    memcpy(s->args, args, sizeof args);
    s->base.args = s->args;
    return 0;
}

static int tiled_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const tiled_state *s = state;
    for (int i = 0; i < s->plan_metrics.n; ++i) {
        const rt_metric *pm = &s->plan_metrics.item[i];
        rt_metrics_add(m, pm->name, pm->unit, pm->value, pm->deterministic);
    }
    rt_cuda_variant_metrics(&s->base.variant, s->base.occupancy, m);
    rt_metrics_add(m, "preprocess_s", "s", s->preprocess_s, 0);
    rt_metrics_add(m, "buffsize", "count", (double)s->buffsize, 1);
    rt_metrics_add(m, "dynamic_shared_bytes", "bytes", (double)s->base.cfg.dynamic_shared_bytes, 1);
    return 0;
}

static int tiled_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spmm_inputs *in;
    tiled_params tp;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0 || read_params(p, in, &tp, err) != 0)
        return -1;
    char why[512];
    if (feasible(rt_cuda_ctx_device(self->backend_ctx), in, &tp, why, sizeof why) != 0)
        return rt_err_set(err, "no traffic model for an infeasible point: %s", why);
    rt_cuda_ctx *ctx = self->backend_ctx;
    const rt_tiled_params pp = plan_params(&tp);
    const uint64_t fp = pattern_fingerprint(in->a);
    const plan_summary *sum = find_summary(ctx, in->a, fp, &pp);
    if (!sum) {
        rt_tiled_plan plan;
        if (rt_tiled_plan_build(in->a, &pp, &plan, err) != 0) {
            rt_tiled_plan_free(&plan);
            return rt_err_prefix(err, "traffic model of %s", self->name);
        }
        remember_summary(ctx, in->a, fp, &plan);
        rt_tiled_plan_free(&plan);
        sum = find_summary(ctx, in->a, fp, &pp);
        if (!sum)
            return rt_err_set(err, "traffic model of %s: out of memory", self->name);
    }
    /* DRAM and L2: the plan read once (rt_spmm_tiled_plan_bytes), B's referenced rows, C.
     * Shared (kernel model): every block stages each of its map entries and reads each stored
     * entry, padding included, for whole register tiles: the last tile of K is staged and read
     * REGISTER wide (zeros past K), so K counts as ntiles * register_tile values. */
    const size_t elem = rt_precision_bytes(in->prec);
    const double a_bytes =
        rt_spmm_tiled_plan_bytes(&sum->p, sum->nblocks, sum->nstages, sum->nmap, sum->stored, elem);
    const int64_t ntiles = (in->k + tp.register_tile - 1) / tp.register_tile;
    const double shared =
        rt_spmm_tiled_shared_bytes(sum->nmap, sum->stored, ntiles * tp.register_tile, elem);
    if (rt_spmm_cuda_traffic(in, a_bytes, self->name, t, err) != 0)
        return -1;
    t->bytes[RT_LEVEL_SHARED] = shared;
    return 0;
}

static int tiled_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, void **state, rt_err *err)
{
    return rt_spmm_cuda_launch_setup(self, inputs, p, sizeof(tiled_state), tiled_prepare,
                                     tiled_teardown, state, err);
}

void rt_spmm_cuda_tiled_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    rt_cuda_catalog_describe(rt_spmm_cuda_catalog_at(RT_SPMM_CUDA_KIND_TILED), d);
    d->check = tiled_check;
    d->setup = tiled_setup;
    d->run = rt_spmm_cuda_launch_run;
    d->output = rt_spmm_cuda_launch_output;
    d->metrics = tiled_metrics;
    d->flush = rt_spmm_cuda_launch_flush;
    d->teardown = tiled_teardown;
    d->traffic = tiled_traffic;
    d->backend_ctx = ctx;
}
