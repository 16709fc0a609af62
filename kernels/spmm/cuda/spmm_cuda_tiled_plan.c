#include "spmm_cuda_tiled_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "spmm_cuda_common.h"
#include "spmm_traffic.h"

static int same_params(const rt_tiled_params *x, const rt_tiled_params *y)
{
    return x->block_size == y->block_size && x->buffsize == y->buffsize &&
           x->warp_size == y->warp_size && x->use_ell == y->use_ell &&
           x->index_bytes == y->index_bytes && x->bank_order == y->bank_order &&
           x->bank_lanes == y->bank_lanes;
}

/* The footprints remembered in the context, with the fingerprint of the pattern they are of. */
typedef struct footprint_memo {
    uint64_t fingerprint;
    rt_tiled_footprints f;
    double build_s; /* what building them took */
} footprint_memo;

static void footprint_memo_free(void *data)
{
    footprint_memo *m = data;
    rt_tiled_footprints_free(&m->f);
    free(m);
}

/* A's footprints for blocks of block_size rows: the context's when they are A's (fingerprint and
 * shape), else built now and remembered in place of the last matrix's (which are released first,
 * so two matrices' footprints never sit in host memory together); *reused says which. NULL with
 * err set when they cannot be built. When the memo cannot take them, *own is set: the caller
 * frees them. */
static const footprint_memo *footprints_get(rt_cuda_ctx *ctx, const rt_csr *a, uint64_t fingerprint,
                                            int block_size, footprint_memo **own, int *reused,
                                            rt_err *err)
{
    *own = NULL;
    const footprint_memo *have = rt_cuda_ctx_memo(ctx, RT_SPMM_MEMO_TILED_FOOTPRINTS);
    if (have && have->fingerprint == fingerprint && have->f.rows == a->rows &&
        have->f.cols == a->cols && have->f.nnz == a->nnz && have->f.block_size == block_size) {
        *reused = 1;
        return have;
    }
    *reused = 0;
    rt_err ignored;
    if (have)
        (void)rt_cuda_ctx_set_memo(ctx, RT_SPMM_MEMO_TILED_FOOTPRINTS, NULL, NULL, &ignored);
    footprint_memo *m = calloc(1, sizeof *m);
    if (!m) {
        rt_err_set(err, "out of host memory for the tiled plan's footprints");
        return NULL;
    }
    m->fingerprint = fingerprint;
    const double t0 = rt_clock_now();
    if (rt_tiled_footprints_build(a, block_size, &m->f, err) != 0) {
        free(m);
        return NULL;
    }
    m->build_s = rt_clock_now() - t0;
    if (rt_cuda_ctx_set_memo(ctx, RT_SPMM_MEMO_TILED_FOOTPRINTS, m, footprint_memo_free,
                             &ignored) != 0)
        *own = m; /* only a cache: this point uses them and frees them */
    return m;
}

/* A's plan under tp, from the footprints the context remembers (built first when they are not
 * A's): rt_tiled_plan_build's plan. *footprints_s (may be NULL): what building the footprints
 * took for an earlier point when they were reused, 0 when they were built now. */
static int plan_build(rt_cuda_ctx *ctx, const rt_csr *a, uint64_t fingerprint,
                      const rt_tiled_params *tp, rt_tiled_plan *plan, double *footprints_s,
                      rt_err *err)
{
    memset(plan, 0, sizeof *plan);
    footprint_memo *own = NULL;
    int reused = 0;
    const footprint_memo *fm =
        footprints_get(ctx, a, fingerprint, tp->block_size, &own, &reused, err);
    if (!fm)
        return -1;
    if (footprints_s)
        *footprints_s = reused ? fm->build_s : 0.0;
    const int rc = rt_tiled_plan_build_with(a, tp, &fm->f, plan, err);
    if (own)
        footprint_memo_free(own);
    return rc;
}

static void remember_summary(rt_cuda_ctx *ctx, const char *memo_key, const rt_csr *a,
                             uint64_t fingerprint, const rt_tiled_plan *plan)
{
    rt_spmm_tiled_summary *sum = malloc(sizeof *sum);
    if (!sum)
        return; /* only a cache: the traffic model rebuilds the plan if it must */
    *sum = (rt_spmm_tiled_summary){.fingerprint = fingerprint,
                                   .rows = a->rows,
                                   .cols = a->cols,
                                   .nnz = a->nnz,
                                   .p = plan->p,
                                   .nblocks = plan->nblocks,
                                   .nstages = plan->nstages,
                                   .nmap = plan->nmap,
                                   .stored = plan->stored};
    rt_err ignored;
    if (rt_cuda_ctx_set_memo(ctx, memo_key, sum, free, &ignored) != 0)
        free(sum); /* only a cache: the next call builds the plan again */
}

static const rt_spmm_tiled_summary *find_summary(const rt_cuda_ctx *ctx, const char *memo_key,
                                                 const rt_csr *a, uint64_t fingerprint,
                                                 const rt_tiled_params *tp)
{
    const rt_spmm_tiled_summary *sum = rt_cuda_ctx_memo(ctx, memo_key);
    if (sum && sum->fingerprint == fingerprint && sum->rows == a->rows && sum->cols == a->cols &&
        sum->nnz == a->nnz && same_params(&sum->p, tp))
        return sum;
    return NULL;
}

/* Everything the device code assumes of a plan beyond rt_tiled_plan_verify. */
static int plan_fits_kernel(const rt_tiled_plan *plan, const rt_tiled_params *tp,
                            const char *holder, char *why, size_t whylen)
{
    const int64_t warps = tp->block_size / tp->warp_size;
    if (plan->p.use_ell && plan->warps_per_block != warps) {
        snprintf(why, whylen, "plan has %lld warps per block, the kernel %lld",
                 (long long)plan->warps_per_block, (long long)warps);
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
            snprintf(why, whylen, "stage %lld stages %lld rows of B, %s holds %lld", (long long)st,
                     (long long)(plan->mapdispl[st + 1] - plan->mapdispl[st]), holder,
                     (long long)tp->buffsize);
            return 0;
        }
    return 1;
}

static int upload(rt_cuda_ctx *ctx, const char *kernel, const char *array, const void *host,
                  size_t bytes, void **dev, rt_err *err)
{
    char what[900];
    snprintf(what, sizeof what, "%s of %s", array, kernel);
    return rt_cuda_upload_new(ctx, host, bytes, dev, what, err);
}

static int upload_plan(rt_cuda_ctx *ctx, const char *kernel, const rt_tiled_plan *plan,
                       rt_precision prec, rt_spmm_tiled_dev *dev, rt_err *err)
{
    const int64_t displ_n = plan->p.use_ell ? plan->nstages * plan->warps_per_block + 1
                                            : plan->nstages * plan->p.block_size + 1;
    const int64_t *displ = plan->p.use_ell ? plan->displ : plan->rowdispl;
    if (!displ)
        return rt_err_set(err, "%s: the plan has no %s ranges", kernel,
                          plan->p.use_ell ? "ELL (displ)" : "CSR (rowdispl)");
    const void *index =
        plan->p.index_bytes == 2 ? (const void *)plan->index16 : (const void *)plan->index32;
    if (!index && plan->stored > 0)
        return rt_err_set(err, "%s: the plan has no %d-byte indices", kernel, plan->p.index_bytes);
    char what[900];
    snprintf(what, sizeof what, "values of %s", kernel);
    if (upload(ctx, kernel, "stage ranges", displ, (size_t)displ_n * sizeof(int64_t), &dev->d_displ,
               err) != 0 ||
        upload(ctx, kernel, "shared-memory indices", index,
               (size_t)plan->stored * (size_t)plan->p.index_bytes, &dev->d_index, err) != 0 ||
        rt_cuda_upload_values(ctx, plan->value, plan->stored, prec, &dev->d_value, what, err) !=
            0 ||
        upload(ctx, kernel, "buffdispl", plan->buffdispl,
               (size_t)(plan->nblocks + 1) * sizeof(int64_t), &dev->d_buffdispl, err) != 0 ||
        upload(ctx, kernel, "mapdispl", plan->mapdispl,
               (size_t)(plan->nstages + 1) * sizeof(int64_t), &dev->d_mapdispl, err) != 0)
        return -1;
    return upload(ctx, kernel, "map", plan->map, (size_t)plan->nmap * sizeof(int32_t), &dev->d_map,
                  err);
}

int rt_spmm_tiled_dev_prepare(rt_cuda_ctx *ctx, const char *memo_key, const char *what,
                              const rt_csr *a, const rt_tiled_params *tp, rt_precision prec,
                              const char *holder, rt_spmm_tiled_dev *dev, rt_err *err)
{
    rt_metrics_init(&dev->plan_metrics);
    rt_tiled_plan plan;
    const uint64_t fingerprint = rt_tiled_pattern_fingerprint(a);
    /* The footprints are built once per matrix; preprocess_s counts their build (as measured then)
     * in every point's preprocessing, which is what the method costs a point on its own. */
    double footprints_s = 0.0;
    const double t0 = rt_clock_now();
    if (plan_build(ctx, a, fingerprint, tp, &plan, &footprints_s, err) != 0) {
        rt_tiled_plan_free(&plan);
        return rt_err_prefix(err, "%s: building the tiled plan", what);
    }
    const double t_build = rt_clock_now() - t0 + footprints_s;
    if (rt_tiled_plan_verify(&plan, a, err) != 0) {
        rt_tiled_plan_free(&plan);
        return rt_err_prefix(err, "%s: the tiled plan is inconsistent", what);
    }
    char why[512];
    if (!plan_fits_kernel(&plan, tp, holder, why, sizeof why)) {
        rt_tiled_plan_free(&plan);
        return rt_err_set(err, "%s: %s", what, why);
    }
    const double t1 = rt_clock_now();
    const int rc = upload_plan(ctx, what, &plan, prec, dev, err);
    dev->preprocess_s = t_build + (rt_clock_now() - t1);
    rt_tiled_plan_metrics(&plan, &dev->plan_metrics);
    rt_metrics_add(&dev->plan_metrics, "stages_per_block", "count",
                   plan.nblocks > 0 ? (double)plan.nstages / (double)plan.nblocks : 0.0, 1);
    remember_summary(ctx, memo_key, a, fingerprint, &plan);
    rt_tiled_plan_free(&plan);
    return rc;
}

void rt_spmm_tiled_dev_free(rt_cuda_ctx *ctx, rt_spmm_tiled_dev *dev)
{
    void *buffers[] = {dev->d_displ,     dev->d_index,    dev->d_value,
                       dev->d_buffdispl, dev->d_mapdispl, dev->d_map};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
        rt_cuda_free(ctx, buffers[i]);
    dev->d_displ = dev->d_index = dev->d_value = NULL;
    dev->d_buffdispl = dev->d_mapdispl = dev->d_map = NULL;
}

void rt_spmm_tiled_dev_metrics(const rt_spmm_tiled_dev *dev, rt_metrics *m)
{
    for (int i = 0; i < dev->plan_metrics.n; ++i) {
        const rt_metric *pm = &dev->plan_metrics.item[i];
        rt_metrics_add(m, pm->name, pm->unit, pm->value, pm->deterministic);
    }
    rt_metrics_add(m, "preprocess_s", "s", dev->preprocess_s, 0);
}

const rt_spmm_tiled_summary *rt_spmm_tiled_summary_get(rt_cuda_ctx *ctx, const char *memo_key,
                                                       const rt_csr *a, const rt_tiled_params *tp,
                                                       const char *what, rt_err *err)
{
    const uint64_t fp = rt_tiled_pattern_fingerprint(a);
    const rt_spmm_tiled_summary *sum = find_summary(ctx, memo_key, a, fp, tp);
    if (sum)
        return sum;
    rt_tiled_plan plan;
    if (plan_build(ctx, a, fp, tp, &plan, NULL, err) != 0) {
        rt_tiled_plan_free(&plan);
        rt_err_prefix(err, "traffic model of %s", what);
        return NULL;
    }
    remember_summary(ctx, memo_key, a, fp, &plan);
    rt_tiled_plan_free(&plan);
    sum = find_summary(ctx, memo_key, a, fp, tp);
    if (!sum)
        rt_err_set(err, "traffic model of %s: out of memory", what);
    return sum;
}

int rt_spmm_tiled_traffic(const rt_spmm_inputs *in, const rt_spmm_tiled_summary *sum,
                          int64_t register_tile, const char *what, rt_traffic *t, rt_err *err)
{
    const size_t elem = rt_precision_bytes(in->prec);
    const double a_bytes =
        rt_spmm_tiled_plan_bytes(&sum->p, sum->nblocks, sum->nstages, sum->nmap, sum->stored, elem);
    const int64_t ntiles = (in->k + register_tile - 1) / register_tile;
    const double shared =
        rt_spmm_tiled_shared_bytes(sum->nmap, sum->stored, ntiles * register_tile, elem);
    if (rt_spmm_cuda_traffic(in, a_bytes, what, t, err) != 0)
        return -1;
    t->bytes[RT_LEVEL_SHARED] = shared;
    return 0;
}

void rt_spmm_tiled_args_bind(rt_spmm_cuda_launch *l, const rt_spmm_tiled_dev *plan,
                             int64_t buffsize)
{
    const rt_spmm_inputs *in = l->pt.inputs;
    /* (C, B, displ, index, value, nrows, ncols, K, ntiles, buffdispl, mapdispl, map, buffsize) */
    l->args = rt_cuda_args_set(&l->kargs, "pppppLLiipppi", l->dense.d_c, l->dense.d_b,
                               plan->d_displ, plan->d_index, plan->d_value, (long long)in->a->rows,
                               (long long)in->a->cols, (int)in->k, l->ntiles, plan->d_buffdispl,
                               plan->d_mapdispl, plan->d_map, (int)buffsize);
}
