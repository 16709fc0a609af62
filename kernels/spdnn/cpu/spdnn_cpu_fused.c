#include "spdnn_cpu_fused.h"

#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cpu_kernel.h"
#include "rt_clock.h"
#include "rt_schema.h"
#include "rt_memcheck.h"
#include "rt_tables.h"
#include "spdnn_family.h"
#include "rt_cpu_threads.h"

#define FUSED_TILE_MAX 64

static const rt_param_schema fused_params[] = {
    RT_PARAM_INT("feature_tile", "1..64", "16",
                 "features computed together per row of W^T (each row read once per tile)"),
    RT_CPU_PARAM_THREADS,
};
#define FUSED_N_PARAMS ((int)(sizeof fused_params / sizeof fused_params[0]))

typedef struct fused_state {
    const rt_spdnn_inputs *in;
    int64_t n, nf, tile;
    int team, team_started;
    float bias;
    rt_csr *wt;     /* W_l^T: rowptr and colidx (its double values are freed after conversion) */
    float **val;    /* W_l^T's values in fp32 */
    float *y0;      /* the rank's input features, feature-major */
    float *buf[2];  /* layer outputs, alternating */
    int32_t *ident; /* 0 .. nf-1: layer 0's list and ids */
    int32_t *list[2], *ids[2];
    unsigned char *active;
    float *stage; /* per thread: the tile's input rows, neuron-major (n x tile) */
    /* What the last execution left: the live features that entered the last layer run. */
    int64_t final_count;
    const float *final_y;
    const int32_t *final_ids;
    int64_t layers_run, feature_layers;
    double setup_s;
} fused_state;

static void fused_teardown(void *state)
{
    fused_state *s = state;
    if (!s)
        return;
    if (s->wt)
        for (int64_t l = 0; l < s->in->layers; ++l)
            rt_csr_free(&s->wt[l]);
    if (s->val)
        for (int64_t l = 0; l < s->in->layers; ++l)
            free(s->val[l]);
    free(s->wt);
    free(s->val);
    free(s->y0);
    free(s->buf[0]);
    free(s->buf[1]);
    free(s->ident);
    free(s->list[0]);
    free(s->list[1]);
    free(s->ids[0]);
    free(s->ids[1]);
    free(s->active);
    free(s->stage);
    free(s);
}

static int read_params(const rt_kernel_desc *self, const rt_params *p, const rt_kernel_env *env,
                       int64_t *tile, int *team, char *why, size_t whylen, rt_err *err)
{
    int64_t threads = 0;
    if (rt_schema_int(fused_params, FUSED_N_PARAMS, self->name, p, "feature_tile", tile, err) !=
            0 ||
        rt_schema_int(fused_params, FUSED_N_PARAMS, self->name, p, "threads", &threads, err) != 0)
        return -1;
    return rt_cpu_resolve_threads(threads, env, team, why, whylen);
}

static int fused_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_spdnn_inputs *in;
    int64_t tile;
    int team;
    if (rt_spdnn_inputs_check(inputs, &in, err) != 0)
        return -1;
    return read_params(self, p, env, &tile, &team, why, whylen, err);
}

static int prepare(fused_state *s, rt_err *err)
{
    const rt_spdnn_inputs *in = s->in;
    const int64_t nf = s->nf, n = s->n;
    const double rows_bytes = 3.0 * (double)nf * (double)n * sizeof(float);
    if (rt_memcheck_fits(rows_bytes, "spdnn.cpu.fused's feature rows (input and two layers)",
                         err) != 0)
        return -1;
    s->wt = calloc((size_t)in->layers, sizeof *s->wt);
    s->val = calloc((size_t)in->layers, sizeof *s->val);
    if (!s->wt || !s->val)
        return rt_err_set(err, "out of memory for %" PRId64 " transposed layers", in->layers);
    for (int64_t l = 0; l < in->layers; ++l) {
        if (rt_spdnn_transpose(in->layer[l], &s->wt[l], err) != 0)
            return rt_err_prefix(err, "layer %" PRId64, l);
        s->val[l] = malloc((size_t)(s->wt[l].nnz > 0 ? s->wt[l].nnz : 1) * sizeof(float));
        if (!s->val[l])
            return rt_err_set(err, "out of memory for layer %" PRId64 "'s fp32 weights", l);
        for (int64_t e = 0; e < s->wt[l].nnz; ++e)
            s->val[l][e] = (float)s->wt[l].val[e];
        free(s->wt[l].val); /* only the fp32 copy is read */
        s->wt[l].val = NULL;
    }
    s->y0 = rt_spdnn_dense_features(in, err);
    if (!s->y0)
        return -1;
    const size_t rows = (size_t)(nf > 0 ? nf : 1) * (size_t)n;
    const size_t count = (size_t)(nf > 0 ? nf : 1);
    s->buf[0] = malloc(rows * sizeof(float));
    s->buf[1] = malloc(rows * sizeof(float));
    s->ident = malloc(count * sizeof(int32_t));
    s->list[0] = malloc(count * sizeof(int32_t));
    s->list[1] = malloc(count * sizeof(int32_t));
    s->ids[0] = malloc(count * sizeof(int32_t));
    s->ids[1] = malloc(count * sizeof(int32_t));
    s->active = calloc(count, 1);
    if (!s->buf[0] || !s->buf[1] || !s->ident || !s->list[0] || !s->list[1] || !s->ids[0] ||
        !s->ids[1] || !s->active)
        return rt_err_set(
            err, "out of memory for the feature rows of %" PRId64 " features x %" PRId64 " neurons",
            nf, n);
    for (int64_t f = 0; f < nf; ++f)
        s->ident[f] = (int32_t)f;
    s->stage = malloc((size_t)s->team * (size_t)n * (size_t)s->tile * sizeof(float));
    if (!s->stage)
        return rt_err_set(
            err, "out of memory for %d staging buffers of %" PRId64 " x %" PRId64 " floats",
            s->team, n, s->tile);
    return 0;
}

static int fused_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, void **state, rt_err *err)
{
    *state = NULL;
    const rt_spdnn_inputs *in;
    if (rt_spdnn_inputs_check(inputs, &in, err) != 0)
        return -1;
    fused_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    s->in = in;
    s->n = in->neurons;
    s->nf = in->features;
    s->bias = (float)in->bias;
    char why[256] = "";
    const int rc = read_params(self, p, env, &s->tile, &s->team, why, sizeof why, err);
    if (rc != 0) {
        free(s);
        if (rc == RT_INFEASIBLE)
            rt_err_set(err, "%s", why);
        return rc;
    }
    const double t0 = rt_clock_now();
    if (prepare(s, err) != 0) {
        fused_teardown(s);
        return rt_err_prefix(err, "%s", self->name);
    }
    s->setup_s = rt_clock_now() - t0;
    s->team_started = rt_cpu_team_size(s->team);
    *state = s;
    return 0;
}

/* One layer for `live` features: the inputs of live feature q are row list[q] of in_y, its
 * outputs row q of out_y; active[q] says whether anything of it survived the ReLU. As the GPU
 * kernel stages a tile's inputs in shared memory, each thread first copies its tile's input rows
 * into its own buffer, neuron-major (the tile's values of input neuron j adjacent), so that the
 * accumulation over a row of W^T reads contiguous memory and vectorises over the tile; unused
 * slots of a last, partial tile are zeros and are never stored. Each output sums its terms in
 * W^T's row order, whatever the tile. */
static void layer_pass(const fused_state *s, int64_t l, const float *in_y, const int32_t *list,
                       int64_t live, float *out_y)
{
    const int64_t n = s->n, tile = s->tile;
    const int64_t *rowptr = s->wt[l].rowptr;
    const int32_t *colidx = s->wt[l].colidx;
    const float *val = s->val[l];
    const float bias = s->bias;
    const float ymax = (float)RT_SPDNN_YMAX;
    unsigned char *active = s->active;
    const int64_t ntiles = (live + tile - 1) / tile;
#pragma omp parallel num_threads(s->team)
    {
        float *stage = s->stage + (size_t)omp_get_thread_num() * (size_t)n * (size_t)tile;
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < ntiles; ++t) {
            const int64_t q0 = t * tile;
            const int64_t cnt = live - q0 < tile ? live - q0 : tile;
            for (int64_t k = 0; k < tile; ++k) {
                const float *src = k < cnt ? in_y + (int64_t)list[q0 + k] * n : NULL;
                for (int64_t j = 0; j < n; ++j)
                    stage[j * tile + k] = src ? src[j] : 0.0f;
            }
            float acc[FUSED_TILE_MAX];
            unsigned char any[FUSED_TILE_MAX];
            for (int64_t k = 0; k < tile; ++k)
                any[k] = 0;
            for (int64_t i = 0; i < n; ++i) {
                for (int64_t k = 0; k < tile; ++k)
                    acc[k] = 0.0f;
                for (int64_t e = rowptr[i]; e < rowptr[i + 1]; ++e) {
                    const float *sj = stage + (int64_t)colidx[e] * tile;
                    const float w = val[e];
#pragma omp simd
                    for (int64_t k = 0; k < tile; ++k)
                        acc[k] += w * sj[k];
                }
                for (int64_t k = 0; k < cnt; ++k) {
                    /* Comparisons rather than fmaxf/fminf: a NaN must stay NaN and fail the
                     * gate. */
                    float v = acc[k] + bias;
                    v = v < 0.0f ? 0.0f : (v > ymax ? ymax : v);
                    out_y[(q0 + k) * n + i] = v;
                    any[k] |= (unsigned char)(v > 0.0f);
                }
            }
            for (int64_t k = 0; k < cnt; ++k)
                active[q0 + k] = any[k];
        }
    }
}

static int fused_run(void *state, double *seconds, rt_err *err)
{
    fused_state *s = state;
    const int64_t layers = s->in->layers;
    int64_t live = s->nf;
    const float *in_y = s->y0;
    const int32_t *list = s->ident, *ids = s->ident;
    float *out_y = NULL;
    s->layers_run = 0;
    s->feature_layers = 0;
    for (int64_t l = 0; l < layers && live > 0; ++l) {
        out_y = s->buf[l % 2];
        layer_pass(s, l, in_y, list, live, out_y);
        s->layers_run = l + 1;
        s->feature_layers += live;
        if (l == layers - 1)
            break;
        /* Compaction, in order: the survivors' rows and original ids for the next layer. */
        int32_t *next_list = s->list[l % 2], *next_ids = s->ids[l % 2];
        int64_t kept = 0;
        for (int64_t q = 0; q < live; ++q)
            if (s->active[q]) {
                next_list[kept] = (int32_t)q;
                next_ids[kept] = ids[q];
                ++kept;
            }
        in_y = out_y;
        list = next_list;
        ids = next_ids;
        live = kept;
    }
    /* Every feature died before the last layer: nothing is left to report. */
    s->final_count = s->layers_run == layers ? live : 0;
    s->final_y = out_y;
    s->final_ids = ids;
    *seconds = -1.0; /* the runner's wall clock times host kernels */
    return 0;
}

static int fused_output(void *state, double *out, rt_err *err)
{
    const fused_state *s = state;
    return rt_spdnn_write_output(s->in, s->final_count, s->final_y, s->n, s->final_ids, s->active,
                                 out, err);
}

static int fused_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const fused_state *s = state;
    int64_t categories = 0;
    for (int64_t q = 0; q < s->final_count; ++q)
        categories += s->active[q] != 0;
    rt_metrics_add(m, "categories", "count", (double)categories, 1);
    rt_metrics_add(m, "layers_run", "count", (double)s->layers_run, 1);
    rt_metrics_add(m, "feature_layers", "count", (double)s->feature_layers, 1);
    /* The team depends on the machine when threads = 0, so it is not a deterministic fact. */
    rt_metrics_add(m, "threads", "count", (double)s->team_started, 0);
    rt_metrics_add(m, "setup_s", "s", s->setup_s, 0);
    return 0;
}

static int fused_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spdnn_inputs *in;
    if (rt_spdnn_inputs_check(inputs, &in, err) != 0)
        return -1;
    const double cache = (env && env->device) ? (double)env->device->l2_bytes : 0.0;
    /* fp32 weights and 4-byte column indices; the host machine files model DRAM only. */
    rt_spdnn_traffic(in, 4.0, 4.0, cache, 0, t);
    return 0;
}

static const rt_kernel_desc fused_desc =
    RT_CPU_KERNEL("spdnn.cpu.fused", "spdnn",
                  "sparse DNN inference, OpenMP: fused SpMM + bias + clamped ReLU per layer, dead "
                  "features compacted out",
                  fused_params, fused_check, fused_setup, fused_run, fused_output, fused_metrics,
                  fused_teardown, fused_traffic);

const rt_kernel_desc *rt_spdnn_cpu_fused_kernel(void)
{
    return &fused_desc;
}
