#include "spdnn_family.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_gen_sparse_dnn.h"
#include "rt_generators.h"
#include "rt_schema.h"
#include "rt_memcheck.h"
#include "rt_rng.h"
#include "rt_sort.h"
#include "rt_tables.h"

#define SPDNN_LAYERS_MAX   100000
#define SPDNN_FEATURES_MAX 10000000

/* Feature streams live far above any layer index (the sparse_dnn generator uses stream = layer,
 * at most 10^6), so features and layers never draw the same sequence even when seed and
 * network_seed are equal. */
#define SPDNN_FEATURE_STREAM_BASE (UINT64_C(1) << 48)

static const rt_param_schema spdnn_problem_params[] = {
    RT_PARAM_INT("layers", "1..100000", "120", "layers of the network (the challenge: 120)"),
    RT_PARAM_INT("features", "1..10000000", "1000",
                 "input feature vectors, split over MPI ranks (the challenge: 60000)"),
    RT_PARAM_REAL("feature_density", "0..1", "0.3",
                  "mean probability that a neuron of an input feature is active (value 1); each "
                  "feature's own is uniform in [d/2, 3d/2]"),
    RT_PARAM_INT("seed", "", "1", "seed of the input features"),
    RT_PARAM_INT("network_seed", "", "1",
                 "seed of layers 1.. (sparse_dnn seed; the config matrix is layer 0)"),
};
#define SPDNN_N_PROBLEM_PARAMS ((int)(sizeof spdnn_problem_params / sizeof spdnn_problem_params[0]))

/* ---------------------------------------------------------------------------------------------
 * Tolerance.
 *
 * What the gate compares: per feature a row sum, a position-weighted row sum (both of values in
 * [0, 32], so no cancellation) and a category indicator S = 32 * neurons (see the header).
 *
 * Categories. ||ref||^2 = sum_f (sum_f^2 + wsum_f^2 + cat_f S^2) <= 3 * ncat * S^2 (each sum is at
 * most S), so one category that differs changes the error by S and the relative error by at
 * least 1 / sqrt(3 * ncat) >= 1 / sqrt(3 * features); with no category in the reference ||ref||
 * is 0 and the gate compares the absolute error, S >= 32768. The tolerance is capped at half that
 * bound, so no tolerance lets a category differ.
 *
 * Values (fp32 kernels against the double reference). Weights are 1/16 (exact in fp32) and the
 * inputs 0/1, so the first layer's sums are exact; rounding enters through the fp32 bias (-0.3
 * is not a binary fraction) and the fp32 accumulation of 32 non-negative terms per neuron
 * (relative error at most about 32 u, u = 2^-24). The clamped ReLU is what keeps this bounded
 * over 120 layers: a neuron whose pre-activation is clearly below 0 or above 32 is exactly 0 or
 * exactly 32 in both precisions, so its error is reset; only neurons inside (0, 32) carry error
 * on, amplified per layer by at most the column sum of W (about 2, the network's gain). With a
 * gain of about 2 around the unstable point -b / (gain - 1), a neuron leaves (0, 32) within a
 * few layers, so surviving features saturate and the rows are mostly exact 0s and 32s. Measured
 * with the fp32 CPU kernel on 120-layer networks of 1024 and 4096 neurons (densities 0.25 to
 * 0.38, 200 to 500 features, a third to all of them surviving): normwise error about 2e-11, no
 * category different (tests/spdnn print the error of their cases). 1e-4 leaves orders of
 * magnitude for other summation orders (cuSPARSE, FMA contraction on GPUs), while a wrong bias
 * (tested), a missing clamp, a dropped or doubled term or a permuted neuron moves the sums by far
 * more. */
double rt_spdnn_tolerance_for(int64_t features_total)
{
    const double values = 1e-4;
    const double n = features_total > 1 ? (double)features_total : 1.0;
    const double category = 0.5 / sqrt(3.0 * n);
    return values < category ? values : category;
}

/* ---------------------------------------------------------------------------------------------
 * Inputs */

void rt_spdnn_inputs_destroy(rt_spdnn_inputs *in)
{
    if (!in)
        return;
    if (in->owned)
        for (int64_t l = 0; l + 1 < in->layers; ++l)
            rt_csr_free(&in->owned[l]);
    free(in->owned);
    free(in->layer);
    free(in->feat_ptr);
    free(in->feat_idx);
    free(in->reference);
    free(in->live);
    free(in);
}

/* Layers 1.. in parallel: each is a pure function of (neurons, l, network_seed). The failure of
 * the lowest layer is the one reported, so the message does not depend on scheduling. */
static int generate_layers(rt_spdnn_inputs *in, const rt_stop *stop, rt_err *err)
{
    int64_t failed = in->layers;
    int stopped = 0;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t l = 1; l < in->layers; ++l) {
        if (rt_stop_requested(stop)) {
#pragma omp atomic write
            stopped = 1;
            continue;
        }
        rt_err local;
        rt_err_clear(&local);
        rt_params args;
        rt_params_init(&args);
        int rc = rt_params_set(&args, "neurons", rt_value_int(in->neurons), &local);
        if (rc == 0)
            rc = rt_params_set(&args, "layer", rt_value_int(l), &local);
        if (rc == 0)
            rc = rt_params_set(&args, "seed", rt_value_int((int64_t)in->network_seed), &local);
        if (rc == 0)
            rc = rt_matrix_build("sparse_dnn", &args, NULL, NULL, &in->owned[l - 1], &local);
        if (rc != 0) {
#pragma omp critical(spdnn_layer_error)
            if (l < failed) {
                failed = l;
                if (err)
                    *err = local;
            }
        }
    }
    if (failed < in->layers)
        return rt_err_prefix(err,
                             "spdnn: generating layer %" PRId64 " (sparse_dnn, %" PRId64
                             " neurons, network_seed %" PRIu64 ")",
                             failed, in->neurons, in->network_seed);
    if (stopped)
        return rt_err_set(err, "spdnn: stopped on request while generating the %" PRId64 " layers",
                          in->layers);
    for (int64_t l = 1; l < in->layers; ++l) {
        in->layer[l] = &in->owned[l - 1];
        in->nnz_total += in->owned[l - 1].nnz;
    }
    return 0;
}

/* Feature f (global index g) draws its own density uniformly in [d/2, 3d/2] (at most 1), then
 * each neuron is active with that probability, all from the feature's own stream; the count pass
 * and the fill pass draw the same sequence. Why a spread: with one density for all, every
 * feature has the same statistics and the network (a gain of about 2 per layer around an
 * unstable point) keeps all of them or none; spread densities give the mix of features that die
 * early and features that survive all layers that compaction is about, as images with little and
 * much ink do in the challenge. */
static int64_t feature_draw(const rt_spdnn_inputs *in, int64_t g, int32_t *idx)
{
    rt_rng rng;
    rt_rng_seed(&rng, in->seed, SPDNN_FEATURE_STREAM_BASE + (uint64_t)g);
    double density = in->feature_density * (0.5 + rt_rng_uniform(&rng));
    if (density > 1.0)
        density = 1.0;
    int64_t count = 0;
    for (int64_t i = 0; i < in->neurons; ++i)
        if (rt_rng_uniform(&rng) < density) {
            if (idx)
                idx[count] = (int32_t)i;
            ++count;
        }
    return count;
}

static int generate_features(rt_spdnn_inputs *in, rt_err *err)
{
    const int64_t nf = in->features;
    in->feat_ptr = calloc((size_t)nf + 1, sizeof *in->feat_ptr);
    if (!in->feat_ptr)
        return rt_err_set(err, "spdnn: out of memory for %" PRId64 " feature offsets", nf);
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t f = 0; f < nf; ++f)
        in->feat_ptr[f + 1] = feature_draw(in, in->feature0 + f, NULL);
    for (int64_t f = 0; f < nf; ++f)
        in->feat_ptr[f + 1] += in->feat_ptr[f];
    const int64_t total = in->feat_ptr[nf];
    in->feat_idx = malloc((size_t)(total > 0 ? total : 1) * sizeof *in->feat_idx);
    if (!in->feat_idx)
        return rt_err_set(err, "spdnn: out of memory for %" PRId64 " active input neurons", total);
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t f = 0; f < nf; ++f)
        feature_draw(in, in->feature0 + f, in->feat_idx + in->feat_ptr[f]);
    return 0;
}

/* The reference runs features in batches of REF_BATCH through the network, in double, in the
 * gather form z[c] = sum_j y[j] * W_l[j][c] over column c of W_l, read from W_l's transpose.
 * Within a batch, neuron j's values of all features are adjacent, so one read of row j of Y
 * serves the whole batch (a fixed-width inner loop the compiler vectorises), and Y's rows are
 * only read: the batch's Y (neurons x REF_BATCH doubles, 1 MiB at 16384 neurons) stays in the
 * cache that scattering into Z's rows thrashed. The transpose lists column c's rows j in
 * increasing order, so each feature's sum is the one the scatter form (and the feature alone)
 * computes: terms added in increasing j, starting from +0.0; a zero y[j] adds +0.0, which
 * changes nothing. Features that die leave the batch at once (the survivors' columns move down),
 * as they would leave a kernel's live set. */
#define REF_BATCH 8

typedef struct ref_batch {
    double *y, *z;         /* n x REF_BATCH each: neuron j of slot k at [j * REF_BATCH + k] */
    int64_t id[REF_BATCH]; /* local feature of each slot */
} ref_batch;

/* W^T of every layer, built once and shared read-only by the reference's threads. */
typedef struct ref_network {
    int64_t layers;
    rt_csr *wt; /* wt[l] = W_l^T: row c lists the rows j of W_l's column c, increasing */
} ref_network;

static void ref_network_free(ref_network *net)
{
    if (net->wt)
        for (int64_t l = 0; l < net->layers; ++l)
            rt_csr_free(&net->wt[l]);
    free(net->wt);
    net->wt = NULL;
}

static int ref_network_build(const rt_spdnn_inputs *in, ref_network *net, rt_err *err)
{
    net->layers = in->layers;
    net->wt = calloc((size_t)in->layers, sizeof *net->wt);
    if (!net->wt)
        return rt_err_set(err,
                          "spdnn: out of memory for the reference's %" PRId64 " transposed layers",
                          in->layers);
    int64_t failed = in->layers;
    rt_err first;
    rt_err_clear(&first);
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t l = 0; l < in->layers; ++l) {
        rt_err local;
        rt_err_clear(&local);
        if (rt_spdnn_transpose(in->layer[l], &net->wt[l], &local) != 0) {
#pragma omp critical(spdnn_transpose_error)
            if (l < failed) {
                failed = l;
                first = local;
            }
        }
    }
    if (failed < in->layers) {
        if (err)
            *err = first;
        ref_network_free(net);
        return rt_err_prefix(err, "spdnn: layer %" PRId64 " of the reference", failed);
    }
    return 0;
}

/* Output of the features in slots [0, count) that survived every layer. */
static void reference_survivors(rt_spdnn_inputs *in, const ref_batch *b, int count,
                                int64_t *entered, unsigned char *category)
{
    const int64_t n = in->neurons;
    for (int k = 0; k < count; ++k) {
        double sum = 0.0, wsum = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            const double v = b->y[i * REF_BATCH + k];
            sum += v;
            wsum += (double)(i + 1) / (double)n * v;
        }
        const int64_t f = b->id[k];
        double *o = in->reference + f * RT_SPDNN_OUT_PER_FEATURE;
        o[0] = sum;
        o[1] = wsum;
        o[2] = RT_SPDNN_YMAX * (double)n;
        entered[f] = in->layers;
        category[f] = 1;
    }
}

/* Columns [c0, c0 + cols) of Z = Y W for the batch, REF_COLS of them interleaved: one column's
 * sum is a chain of dependent additions, so several columns' chains in flight keep the floating
 * point units busy. Each column still adds its terms in increasing j: the steps all columns have
 * run interleaved, each column's remaining terms after them. */
#define REF_COLS 4

static void gather_columns(const rt_csr *wt, const double *restrict y, int64_t c0, int cols,
                           double acc[REF_COLS][REF_BATCH])
{
    int64_t common = INT64_MAX;
    for (int i = 0; i < cols; ++i) {
        const int64_t len = wt->rowptr[c0 + i + 1] - wt->rowptr[c0 + i];
        common = len < common ? len : common;
    }
    if (cols == REF_COLS)
        for (int64_t t = 0; t < common; ++t)
            for (int i = 0; i < REF_COLS; ++i) {
                const int64_t e = wt->rowptr[c0 + i] + t;
                const double *yj = y + (int64_t)wt->colidx[e] * REF_BATCH;
                const double wv = wt->val[e];
                for (int k = 0; k < REF_BATCH; ++k)
                    acc[i][k] += yj[k] * wv;
            }
    else
        common = 0;
    for (int i = 0; i < cols; ++i)
        for (int64_t e = wt->rowptr[c0 + i] + common; e < wt->rowptr[c0 + i + 1]; ++e) {
            const double *yj = y + (int64_t)wt->colidx[e] * REF_BATCH;
            const double wv = wt->val[e];
            for (int k = 0; k < REF_BATCH; ++k)
                acc[i][k] += yj[k] * wv;
        }
}

/* Features ids[0 .. count) through the network. Dead features keep the zeros their output
 * entries start with; entered[f] = the layers feature f entered. */
static void reference_batch(rt_spdnn_inputs *in, const ref_network *net, const int64_t *ids,
                            int count, ref_batch *b, int64_t *entered, unsigned char *category)
{
    const int64_t n = in->neurons;
    for (int64_t i = 0; i < n * REF_BATCH; ++i)
        b->y[i] = 0.0;
    for (int k = 0; k < count; ++k) {
        const int64_t f = ids[k];
        b->id[k] = f;
        for (int64_t e = in->feat_ptr[f]; e < in->feat_ptr[f + 1]; ++e)
            b->y[(int64_t)in->feat_idx[e] * REF_BATCH + k] = 1.0;
    }
    for (int64_t l = 0; l < in->layers && count > 0; ++l) {
        const rt_csr *wt = &net->wt[l];
        const double *restrict y = b->y;
        double *restrict z = b->z;
        int alive[REF_BATCH] = {0};
        for (int64_t c0 = 0; c0 < n; c0 += REF_COLS) {
            const int cols = (int)(n - c0 < REF_COLS ? n - c0 : REF_COLS);
            double acc[REF_COLS][REF_BATCH] = {{0.0}};
            gather_columns(wt, y, c0, cols, acc);
            for (int i = 0; i < cols; ++i)
                for (int k = 0; k < REF_BATCH; ++k) {
                    double v = acc[i][k] + in->bias;
                    v = v < 0.0 ? 0.0 : (v > RT_SPDNN_YMAX ? RT_SPDNN_YMAX : v);
                    z[(c0 + i) * REF_BATCH + k] = v;
                    alive[k] |= v > 0.0;
                }
        }
        double *const swap = b->y;
        b->y = b->z;
        b->z = swap;
        /* The dead leave (they entered l + 1 layers); survivors move down. Slots are
         * independent columns of the batch, so what stays in a freed slot is never read. */
        double *restrict yn = b->y;
        int kept = 0;
        for (int k = 0; k < count; ++k) {
            if (!alive[k]) {
                entered[b->id[k]] = l + 1;
                continue;
            }
            if (kept != k) {
                for (int64_t i = 0; i < n; ++i)
                    yn[i * REF_BATCH + kept] = yn[i * REF_BATCH + k];
                b->id[kept] = b->id[k];
            }
            ++kept;
        }
        count = kept;
    }
    reference_survivors(in, b, count, entered, category);
}

/* The features in decreasing order of active inputs (ties: increasing index). A batch runs as
 * long as one of its features lives, so a batch that mixes a survivor with features that die
 * early computes the dead ones' slots for all layers; survival follows the input density (see
 * feature_draw), so neighbours in this order tend to die, or survive, together. A feature's
 * result does not depend on its batch. */
static int64_t *features_by_density(const rt_spdnn_inputs *in, rt_err *err)
{
    const int64_t nf = in->features;
    int64_t *order = malloc((size_t)(nf > 0 ? nf : 1) * sizeof *order);
    uint64_t *key = malloc((size_t)(nf > 0 ? nf : 1) * sizeof *key);
    if (!order || !key) {
        free(order);
        free(key);
        rt_err_set(err, "spdnn: out of memory ordering %" PRId64 " features", nf);
        return NULL;
    }
    for (int64_t f = 0; f < nf; ++f)
        key[f] = UINT64_MAX - (uint64_t)(in->feat_ptr[f + 1] - in->feat_ptr[f]);
    const int rc = rt_sort_order_by_key(key, nf, order, err);
    free(key);
    if (rc != 0) {
        free(order);
        return NULL;
    }
    return order;
}

static int compute_reference(rt_spdnn_inputs *in, const rt_stop *stop, rt_err *err)
{
    const int64_t nf = in->features, n = in->neurons, nl = in->layers;
    in->reference =
        calloc((size_t)(nf > 0 ? nf : 1) * RT_SPDNN_OUT_PER_FEATURE, sizeof *in->reference);
    in->live = calloc((size_t)nl + 1, sizeof *in->live);
    int64_t *entered = calloc((size_t)(nf > 0 ? nf : 1), sizeof *entered);
    unsigned char *category = calloc((size_t)(nf > 0 ? nf : 1), 1);
    int64_t *order = NULL;
    ref_network net = {0};
    int rc = -1;
    if (!in->reference || !in->live || !entered || !category) {
        rt_err_set(err, "spdnn: out of memory for the reference of %" PRId64 " features", nf);
        goto done;
    }
    const double t0 = rt_clock_now();
    order = features_by_density(in, err);
    if (!order || ref_network_build(in, &net, err) != 0)
        goto done;
    const int64_t nbatches = (nf + REF_BATCH - 1) / REF_BATCH;
    int failed = 0, stopped = 0;
#pragma omp parallel
    {
        ref_batch b;
        b.y = malloc((size_t)n * REF_BATCH * sizeof *b.y);
        b.z = malloc((size_t)n * REF_BATCH * sizeof *b.z);
        if (!b.y || !b.z) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < nbatches; ++t) {
            if (!b.y || !b.z)
                continue;
            if (rt_stop_requested(stop)) {
#pragma omp atomic write
                stopped = 1;
                continue;
            }
            const int64_t first = t * REF_BATCH;
            const int count = (int)(nf - first < REF_BATCH ? nf - first : REF_BATCH);
            reference_batch(in, &net, order + first, count, &b, entered, category);
        }
        free(b.y);
        free(b.z);
    }
    if (failed) {
        rt_err_set(err,
                   "spdnn: out of memory for the reference's per-thread rows (%" PRId64 " neurons)",
                   n);
        goto done;
    }
    if (stopped) {
        rt_err_set(
            err, "spdnn: stopped on request while computing the reference of %" PRId64 " features",
            nf);
        goto done;
    }
    /* live[l] = features that entered layer l; live[layers] = categories. */
    for (int64_t f = 0; f < nf; ++f) {
        for (int64_t l = 0; l < entered[f]; ++l)
            in->live[l]++;
        if (category[f]) {
            in->live[nl]++;
            in->categories++;
        }
    }
    in->reference_s = rt_clock_now() - t0;
    rc = 0;
done:
    ref_network_free(&net);
    free(order);
    free(entered);
    free(category);
    return rc;
}

int rt_spdnn_inputs_create(const rt_csr *layer0, int64_t layers, int64_t features,
                           double feature_density, uint64_t seed, uint64_t network_seed, int rank,
                           int nranks, rt_spdnn_inputs **out, rt_err *err)
{
    return rt_spdnn_inputs_create_until(layer0, layers, features, feature_density, seed,
                                        network_seed, rank, nranks, NULL, out, err);
}

int rt_spdnn_inputs_create_until(const rt_csr *layer0, int64_t layers, int64_t features,
                                 double feature_density, uint64_t seed, uint64_t network_seed,
                                 int rank, int nranks, const rt_stop *stop, rt_spdnn_inputs **out,
                                 rt_err *err)
{
    *out = NULL;
    if (!layer0)
        return rt_err_set(err, "spdnn: no layer-0 matrix given");
    if (layer0->rows != layer0->cols)
        return rt_err_set(err,
                          "spdnn: the matrix is layer 0 of the network and must be square "
                          "(neurons x neurons), not %" PRId64 " x %" PRId64,
                          layer0->rows, layer0->cols);
    const double bias = rt_sparse_dnn_bias(layer0->rows);
    if (isnan(bias))
        return rt_err_set(err,
                          "spdnn: layer 0 has %" PRId64 " neurons; the Graph Challenge bias "
                          "is defined for 1024, 4096, 16384 and 65536 only (use generator "
                          "sparse_dnn)",
                          layer0->rows);
    if (layers < 1 || layers > SPDNN_LAYERS_MAX)
        return rt_err_set(err, "spdnn: layers = %" PRId64 " is outside 1..%d", layers,
                          SPDNN_LAYERS_MAX);
    if (features < 1 || features > SPDNN_FEATURES_MAX)
        return rt_err_set(err, "spdnn: features = %" PRId64 " is outside 1..%d", features,
                          SPDNN_FEATURES_MAX);
    if (!(feature_density >= 0.0 && feature_density <= 1.0))
        return rt_err_set(err, "spdnn: feature_density = %g is outside 0..1", feature_density);
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return rt_err_set(err, "spdnn: rank %d of %d does not exist", rank, nranks);
    /* Kernels index features with layer 0's column indices without checks. */
    if (rt_csr_validate(layer0, err) != 0)
        return rt_err_prefix(err, "spdnn: layer 0 is malformed");

    const int64_t f0 = features * rank / nranks, f1 = features * (rank + 1) / nranks;
    const double n = (double)layer0->rows;
    /* The network (12 bytes per nonzero), its transpose while the reference runs (as much
     * again) and the reference's outputs; the two per-thread rows are small. */
    const double bytes = (double)layers * (double)layer0->nnz * 24.0 +
                         (double)(f1 - f0) * (n * feature_density * 4.0 + 48.0);
    if (rt_memcheck_fits(bytes, "the spdnn network and features", err) != 0)
        return -1;

    rt_spdnn_inputs *in = calloc(1, sizeof *in);
    if (!in)
        return rt_err_set(err, "spdnn: out of memory allocating inputs");
    in->neurons = layer0->rows;
    in->layers = layers;
    in->features = f1 - f0;
    in->features_total = features;
    in->feature0 = f0;
    in->feature_density = feature_density;
    in->seed = seed;
    in->network_seed = network_seed;
    in->bias = bias;
    in->layer = calloc((size_t)layers, sizeof *in->layer);
    in->owned = calloc((size_t)layers, sizeof *in->owned);
    if (!in->layer || !in->owned) {
        rt_spdnn_inputs_destroy(in);
        return rt_err_set(err, "spdnn: out of memory for %" PRId64 " layers", layers);
    }
    in->layer[0] = layer0;
    in->nnz_total = layer0->nnz;
    if (generate_layers(in, stop, err) != 0 || generate_features(in, err) != 0 ||
        compute_reference(in, stop, err) != 0) {
        rt_spdnn_inputs_destroy(in);
        return -1;
    }
    *out = in;
    return 0;
}

int rt_spdnn_inputs_check(const void *inputs, const rt_spdnn_inputs **out, rt_err *err)
{
    const rt_spdnn_inputs *in = inputs;
    *out = NULL;
    if (!in || !in->layer || !in->layer[0] || !in->feat_ptr || !in->reference || !in->live)
        return rt_err_set(err, "spdnn kernel called without spdnn inputs");
    if (in->neurons < 1 || in->layers < 1 || in->features < 0)
        return rt_err_set(
            err, "spdnn inputs: %" PRId64 " neurons, %" PRId64 " layers, %" PRId64 " features",
            in->neurons, in->layers, in->features);
    for (int64_t l = 0; l < in->layers; ++l) {
        const rt_csr *w = in->layer[l];
        if (!w || w->rows != in->neurons || w->cols != in->neurons || !w->rowptr)
            return rt_err_set(
                err, "spdnn inputs: layer %" PRId64 " is missing or not %" PRId64 " x %" PRId64, l,
                in->neurons, in->neurons);
    }
    *out = in;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Family hooks */

static int read_real(const rt_params *p, const char *name, double *out, rt_err *err)
{
    const rt_param_schema *s = NULL;
    for (int i = 0; i < SPDNN_N_PROBLEM_PARAMS; ++i)
        if (strcmp(spdnn_problem_params[i].name, name) == 0)
            s = &spdnn_problem_params[i];
    if (!s)
        return rt_err_set(err, "spdnn problem: internal error: no parameter '%s'", name);
    rt_value v;
    const rt_value *given = p ? rt_params_get(p, name) : NULL;
    if (given)
        v = *given;
    else if (rt_param_default(s, &v, err) != 0)
        return rt_err_prefix(err, "spdnn problem");
    char why[256];
    if (rt_param_check(s, &v, why, sizeof why) != 0)
        return rt_err_set(err, "spdnn problem: %s", why);
    *out = rt_value_as_double(&v);
    return 0;
}

static int spdnn_make_inputs_until(const rt_csr *a, const rt_params *problem, const rt_job *job,
                                   const rt_stop *stop, void **inputs, rt_err *err)
{
    const char *owner = "spdnn problem";
    int64_t layers = 0, features = 0, seed = 0, network_seed = 0;
    double density = 0.0;
    if (rt_schema_int(spdnn_problem_params, SPDNN_N_PROBLEM_PARAMS, owner, problem, "layers",
                      &layers, err) != 0 ||
        rt_schema_int(spdnn_problem_params, SPDNN_N_PROBLEM_PARAMS, owner, problem, "features",
                      &features, err) != 0 ||
        rt_schema_int(spdnn_problem_params, SPDNN_N_PROBLEM_PARAMS, owner, problem, "seed", &seed,
                      err) != 0 ||
        rt_schema_int(spdnn_problem_params, SPDNN_N_PROBLEM_PARAMS, owner, problem, "network_seed",
                      &network_seed, err) != 0 ||
        read_real(problem, "feature_density", &density, err) != 0 ||
        rt_job_check(job, owner, err) != 0)
        return -1;
    rt_spdnn_inputs *in = NULL;
    if (rt_spdnn_inputs_create_until(a, layers, features, density, (uint64_t)seed,
                                     (uint64_t)network_seed, job->rank, job->nranks, stop, &in,
                                     err) != 0)
        return -1;
    *inputs = in;
    return 0;
}

static int spdnn_make_inputs(const rt_csr *a, const rt_params *problem, const rt_job *job,
                             void **inputs, rt_err *err)
{
    return spdnn_make_inputs_until(a, problem, job, NULL, inputs, err);
}

static void spdnn_free_inputs(void *inputs)
{
    rt_spdnn_inputs_destroy(inputs);
}

static int64_t spdnn_output_elems(const void *inputs)
{
    const rt_spdnn_inputs *in = inputs;
    return in->features * RT_SPDNN_OUT_PER_FEATURE;
}

static double spdnn_tolerance(const void *inputs)
{
    const rt_spdnn_inputs *in = inputs;
    return rt_spdnn_tolerance_for(in->features_total);
}

static int spdnn_reference(const void *inputs, double *out, rt_err *err)
{
    const rt_spdnn_inputs *in = inputs;
    if (!in || !out || !in->reference)
        return rt_err_set(err, "spdnn reference: no inputs or output buffer");
    memcpy(out, in->reference, (size_t)in->features * RT_SPDNN_OUT_PER_FEATURE * sizeof *out);
    return 0;
}

static double spdnn_flops(const void *inputs)
{
    const rt_spdnn_inputs *in = inputs;
    return 2.0 * (double)in->features * (double)in->nnz_total;
}

static double spdnn_nonzeros(const void *inputs)
{
    const rt_spdnn_inputs *in = inputs;
    return (double)in->features * (double)in->nnz_total;
}

/* What make_inputs builds (the network: 12 bytes per nonzero of every layer; this rank's share of
 * the features: 4 bytes per active neuron; the reference outputs), the kernel's output (doubles,
 * as the gate compares them) and, on a device, the network (fp32 values, 32-bit indices) and the
 * features. The feature maps a kernel keeps between layers are its own workspace, not counted:
 * the estimate is a lower bound. */
static int spdnn_footprint(const rt_csr *a, const rt_params *problem, const rt_job *job,
                           rt_footprint *out, rt_err *err)
{
    const char *owner = "spdnn problem";
    int64_t layers = 0, features = 0;
    double density = 0.0;
    if (rt_schema_int(spdnn_problem_params, SPDNN_N_PROBLEM_PARAMS, owner, problem, "layers",
                      &layers, err) != 0 ||
        rt_schema_int(spdnn_problem_params, SPDNN_N_PROBLEM_PARAMS, owner, problem, "features",
                      &features, err) != 0 ||
        read_real(problem, "feature_density", &density, err) != 0 ||
        rt_job_check(job, owner, err) != 0)
        return -1;
    const int rank = job->rank, nranks = job->nranks;
    const int64_t share = features * (rank + 1) / nranks - features * rank / nranks;
    const int64_t active = (int64_t)((double)share * (double)a->rows * density);
    const int64_t outputs = share * RT_SPDNN_OUT_PER_FEATURE;
    const int64_t network = layers * a->nnz * 12;
    out->input_bytes = network + active * 4 + (share + 1) * 8 + outputs * 8;
    out->output_elems = outputs;
    out->output_bytes = outputs * 8;
    out->operand_bytes = layers * (a->nnz * 8 + (a->rows + 1) * 4) + active * 4 + (share + 1) * 8;
    return 0;
}

static const rt_family_desc spdnn_family_desc = {
    .name = "spdnn",
    .summary = "sparse DNN inference (Graph Challenge): Y = min(max(Y W_l + b, 0), 32) over "
               "all layers, dead features compacted out",
    .problem_params = spdnn_problem_params,
    .n_problem_params = SPDNN_N_PROBLEM_PARAMS,
    .make_inputs = spdnn_make_inputs,
    .make_inputs_until = spdnn_make_inputs_until,
    .free_inputs = spdnn_free_inputs,
    .output_elems = spdnn_output_elems,
    .tolerance = spdnn_tolerance,
    .reference = spdnn_reference,
    .footprint = spdnn_footprint,
    .flops = spdnn_flops,
    .nonzeros = spdnn_nonzeros,
    /* Batch parallelism: every rank needs the whole network, and splits the features. */
    .wants_whole_matrix = 1,
};

const rt_family_desc *rt_spdnn_family(void)
{
    return &spdnn_family_desc;
}

/* ---------------------------------------------------------------------------------------------
 * Kernel helpers */

int rt_spdnn_transpose(const rt_csr *w, rt_csr *wt, rt_err *err)
{
    memset(wt, 0, sizeof *wt);
    if (rt_csr_alloc(wt, w->cols, w->rows, w->nnz, err) != 0)
        return rt_err_prefix(err, "spdnn: transposing a layer");
    for (int64_t e = 0; e < w->nnz; ++e)
        wt->rowptr[w->colidx[e] + 1]++;
    for (int64_t i = 0; i < w->cols; ++i)
        wt->rowptr[i + 1] += wt->rowptr[i];
    int64_t *next = malloc((size_t)(w->cols > 0 ? w->cols : 1) * sizeof *next);
    if (!next) {
        rt_csr_free(wt);
        return rt_err_set(err, "spdnn: out of memory transposing a layer");
    }
    memcpy(next, wt->rowptr, (size_t)w->cols * sizeof *next);
    /* Rows of W in increasing order: every row of W^T lists its columns increasing. */
    for (int64_t j = 0; j < w->rows; ++j)
        for (int64_t e = w->rowptr[j]; e < w->rowptr[j + 1]; ++e) {
            const int64_t at = next[w->colidx[e]]++;
            wt->colidx[at] = (int32_t)j;
            wt->val[at] = w->val[e];
        }
    free(next);
    return 0;
}

float *rt_spdnn_dense_features(const rt_spdnn_inputs *in, rt_err *err)
{
    const double bytes = (double)in->features * (double)in->neurons * sizeof(float);
    if (rt_memcheck_fits(bytes, "the dense input features", err) != 0)
        return NULL;
    float *y =
        calloc((size_t)(in->features > 0 ? in->features : 1) * (size_t)in->neurons, sizeof *y);
    if (!y) {
        rt_err_set(err, "spdnn: out of memory for the dense input features (%.1f MiB)",
                   bytes / 1048576.0);
        return NULL;
    }
    for (int64_t f = 0; f < in->features; ++f)
        for (int64_t e = in->feat_ptr[f]; e < in->feat_ptr[f + 1]; ++e)
            y[f * in->neurons + in->feat_idx[e]] = 1.0f;
    return y;
}

int rt_spdnn_write_output(const rt_spdnn_inputs *in, int64_t count, const float *y, int64_t ldy,
                          const int32_t *ids, const unsigned char *active, double *out, rt_err *err)
{
    const int64_t nf = in->features, n = in->neurons;
    for (int64_t i = 0; i < nf * RT_SPDNN_OUT_PER_FEATURE; ++i)
        out[i] = 0.0;
    if (count < 0 || count > nf)
        return rt_err_set(err, "spdnn output: %" PRId64 " live features, the rank has %" PRId64,
                          count, nf);
    /* A feature written twice would hide a lost one: mark the written ones. */
    unsigned char *seen = calloc((size_t)(nf > 0 ? nf : 1), 1);
    if (!seen)
        return rt_err_set(err, "spdnn output: out of memory");
    for (int64_t q = 0; q < count; ++q) {
        const int64_t f = ids[q];
        if (f < 0 || f >= nf || seen[f]) {
            free(seen);
            return rt_err_set(err, "spdnn output: live feature %" PRId64 " has id %" PRId64 " (%s)",
                              q, f, (f < 0 || f >= nf) ? "out of range" : "seen twice");
        }
        seen[f] = 1;
        const float *row = y + q * ldy;
        double sum = 0.0, wsum = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            sum += (double)row[i];
            wsum += (double)(i + 1) / (double)n * (double)row[i];
        }
        double *o = out + f * RT_SPDNN_OUT_PER_FEATURE;
        o[0] = sum;
        o[1] = wsum;
        o[2] = active[q] ? RT_SPDNN_YMAX * (double)n : 0.0;
    }
    free(seen);
    return 0;
}

void rt_spdnn_traffic(const rt_spdnn_inputs *in, double value_bytes, double index_bytes,
                      double cache_bytes, int with_l2, rt_traffic *t)
{
    memset(t, 0, sizeof *t);
    const double n = (double)in->neurons;
    double through = 0.0, dram = 0.0;
    for (int64_t l = 0; l < in->layers; ++l) {
        const double live = (double)in->live[l];
        if (live <= 0.0)
            break; /* every feature is dead: kernels stop */
        const double w = (double)in->layer[l]->nnz * (value_bytes + index_bytes);
        const double y = 2.0 * live * n * 4.0;
        t->flops += 2.0 * (double)in->layer[l]->nnz * live;
        through += w + y;
        /* At a layer's start the cache holds at most cache_bytes of what it reads. */
        const double reads = w + live * n * 4.0;
        if (cache_bytes > 0.0 && reads > cache_bytes)
            dram += reads - cache_bytes;
    }
    t->bytes[RT_LEVEL_DRAM] = dram;
    if (with_l2)
        t->bytes[RT_LEVEL_L2] = through;
}
