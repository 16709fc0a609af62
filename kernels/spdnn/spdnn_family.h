/* spdnn_family: the "spdnn" problem, sparse deep neural network inference as in the
 * MIT/IEEE/Amazon Graph Challenge (and Hidayetoglu et al.'s SpDNN, thesis proposal sections
 * 2.3-2.5, Fig. 2(b)), shared by every spdnn kernel (CPU and CUDA).
 *
 * The computation. Features are the rows of Y_0 (features x neurons). Each of the `layers` layers
 * maps the surviving features through
 *     Y_{l+1} = min(max(Y_l W_l + b, 0), 32)          (ReLU clamped at 32, RT_SPDNN_YMAX)
 * with the Graph Challenge bias b of the width (rt_sparse_dnn_bias: -0.3, -0.35, -0.4, -0.45 for
 * 1024, 4096, 16384, 65536 neurons). A feature whose row becomes all zero is dead for good: with
 * b < 0 a zero row maps to max(b, 0) = 0 at every later layer, so kernels compact dead features
 * out between layers and never compute them again. The "categories" are the features whose
 * row is nonzero after the last layer: the Graph Challenge's answer.
 *
 * How the config maps onto it. The runner hands a family one matrix per config matrix entry; for
 * spdnn that matrix is LAYER 0 of the network, W_0 (square, neurons x neurons; normally
 * `generator: sparse_dnn`, whose default layer index is 0). Layers 1 .. layers-1 are generated
 * by the same sparse_dnn generator with layer = l and seed = `network_seed`, so a config matrix
 * {generator: sparse_dnn, neurons: N, seed: S} with problem network_seed = S is exactly the
 * generator's network (layers 0 .. L-1 of seed S). Problem parameters:
 *   layers          int  1..100000     layers of the network                    (default 120)
 *   features        int  1..10000000   input feature vectors (the challenge: 60000) (default 1000)
 *   feature_density real 0..1          mean probability that a neuron of an input feature is
 *                                      active (value 1, as the challenge's binarised images);
 *                                      each feature draws its own in [d/2, 3d/2]  (default 0.3)
 *   seed            int                seed of the input features                (default 1)
 *   network_seed    int                seed of layers 1.. (sparse_dnn `seed`)    (default 1)
 * Feature f's density and active neurons are drawn from its own rt_rng stream of `seed`, so a
 * feature does not depend on how features are split over ranks.
 *
 * MPI: batch parallelism, as the challenge runs. Every rank holds the whole network (the family
 * sets wants_whole_matrix) and infers a contiguous block of the features: rank r of R takes
 * [features * r / R, features * (r+1) / R). make_inputs reads r and R from the job that measures
 * the point (rt_job.h: a rank measuring whole points alone is rank 0 of 1 and infers every
 * feature). Ranks never communicate: features are independent.
 *
 * Output convention (3 values per local feature f, in feature order):
 *   out[3f]   = sum_i Y_L[f][i]                     (row sum)
 *   out[3f+1] = sum_i (i + 1) / neurons * Y_L[f][i] (position-weighted sum: catches permuted or
 *                                                    shifted neurons that a plain sum misses)
 *   out[3f+2] = 32 * neurons if f is a category, else 0
 * Every value is >= 0 (no cancellation). The category indicator is as large as the largest
 * possible row sum, so that ONE category that differs from the reference moves the normwise
 * relative error by at least 1 / sqrt(3 * features) (see rt_spdnn_tolerance_for): the gate then
 * demands the surviving categories to match exactly, as the challenge does.
 *
 * Reference: computed in double in make_inputs (batches of 8 features of similar input
 * density, each feature until it dies, gathering over W_l^T; every neuron's terms are added in
 * increasing j from +0.0, the order of the dense naive model in tests/spdnn, which it matches bit
 * for bit), so that the inputs also carry the per-layer counts of live features that traffic
 * models need.
 *
 * Rates: flops = 2 * features * sum_l nnz(W_l) per execution and nonzeros = features * sum_l
 * nnz(W_l): the Graph Challenge's nominal "edges" rate (edges/s), whatever compaction saves.
 * Traffic models use the real live counts instead (rt_spdnn_traffic), so a bound is never
 * above what compaction allows. */
#ifndef SPDNN_FAMILY_H
#define SPDNN_FAMILY_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_params.h"
#include "rt_registry.h"
#include "rt_stop.h"

/* The clamp of the Graph Challenge's ReLU. */
#define RT_SPDNN_YMAX 32.0
/* Values per feature in the output (see above). */
#define RT_SPDNN_OUT_PER_FEATURE 3

typedef struct rt_spdnn_inputs {
    int64_t neurons;
    int64_t layers;
    int64_t features;       /* this rank's features */
    int64_t features_total; /* over all ranks (the problem parameter) */
    int64_t feature0;       /* global index of this rank's first feature */
    double feature_density;
    uint64_t seed;
    uint64_t network_seed;
    double bias;          /* the Graph Challenge bias of this width */
    const rt_csr **layer; /* W_0 .. W_{L-1}, each neurons x neurons; W_0 is borrowed */
    rt_csr *owned;        /* storage of W_1 .. W_{L-1} (layers - 1 entries) */
    int64_t nnz_total;    /* sum over layers of nnz(W_l) */
    /* Y_0 of this rank: feature f's active neurons (value 1) are
     * feat_idx[feat_ptr[f] .. feat_ptr[f+1]), increasing. */
    int64_t *feat_ptr;
    int32_t *feat_idx;
    /* What the double-precision reference found. */
    double *reference; /* RT_SPDNN_OUT_PER_FEATURE * features values */
    int64_t *live;     /* layers + 1 entries: live[l] = features entering layer l (live[0] =
                          features), live[layers] = categories */
    int64_t categories;
    double reference_s; /* seconds the reference took */
} rt_spdnn_inputs;

/* The family descriptor (static, immutable). */
const rt_family_desc *rt_spdnn_family(void);

/* Builds the network from layer 0 (a square matrix of a Graph Challenge width), this rank's
 * features (rank of nranks) and the double-precision reference. Fails with a message naming the
 * parameter or the layer on a non-square or wrongly sized layer 0, out-of-range parameters, or
 * memory the host does not have. */
int rt_spdnn_inputs_create(const rt_csr *layer0, int64_t layers, int64_t features,
                           double feature_density, uint64_t seed, uint64_t network_seed, int rank,
                           int nranks, rt_spdnn_inputs **out, rt_err *err);
/* The same, polling stop between layers generated and between batches of the reference: when it
 * asks, what was built is freed and the call fails with a message saying it stopped (*out NULL). */
int rt_spdnn_inputs_create_until(const rt_csr *layer0, int64_t layers, int64_t features,
                                 double feature_density, uint64_t seed, uint64_t network_seed,
                                 int rank, int nranks, const rt_stop *stop, rt_spdnn_inputs **out,
                                 rt_err *err);
void rt_spdnn_inputs_destroy(rt_spdnn_inputs *in);

/* Tolerance on the normwise relative error of the output for fp32 kernels on a problem with
 * features_total features (see spdnn_family.c for why). */
double rt_spdnn_tolerance_for(int64_t features_total);

/* ---- Helpers for kernels ----------------------------------------------------------------- */

/* W^T of a layer as CSR (row i = the inputs j feeding neuron i, in increasing j), the gather
 * form every kernel computes: y_out[i] = sum_j W^T[i][j] y_in[j]. */
int rt_spdnn_transpose(const rt_csr *w, rt_csr *wt, rt_err *err);

/* Y_0 of the rank as a dense features x neurons array of floats, row f = feature f (one row per
 * feature, "feature-major"). Returns NULL with err filled when memory is short; free() it. */
float *rt_spdnn_dense_features(const rt_spdnn_inputs *in, rt_err *err);

/* Writes the output (see the convention above) from the final state of a kernel: `count` live
 * features entering the last layer, their rows `y` (count x neurons, row q at y + q * ldy),
 * their original local feature index ids[q], and whether each is still active after the last
 * layer. Every other feature gets zeros. Fails on an id outside 0..features-1 or an id seen
 * twice (a broken compaction), naming it. */
int rt_spdnn_write_output(const rt_spdnn_inputs *in, int64_t count, const float *y, int64_t ldy,
                          const int32_t *ids, const unsigned char *active, double *out,
                          rt_err *err);

/* The lower bound on one inference's traffic, from the reference's live counts: flops = 2 *
 * sum_l nnz(W_l) * live[l]. Per layer the weights (nnz * (value_bytes + index_bytes)) and the
 * live features in and out (2 * live[l] * neurons * 4 bytes) must pass through the cache level
 * closest to memory at least once; of it, all that exceeds `cache_bytes` (the L2 of a GPU, the
 * last-level cache of a CPU; 0: unknown) must also come from DRAM. with_l2 = 1 puts the whole
 * volume at RT_LEVEL_L2 (GPUs: every global access goes through the L2, and each layer is a new
 * kernel, so nothing is served from L1 across layers); 0 leaves L2 unmodelled (CPU machines
 * have no L2 ceiling). */
void rt_spdnn_traffic(const rt_spdnn_inputs *in, double value_bytes, double index_bytes,
                      double cache_bytes, int with_l2, rt_traffic *t);

/* Checks that inputs are spdnn inputs in a usable state (kernels call it first). */
int rt_spdnn_inputs_check(const void *inputs, const rt_spdnn_inputs **out, rt_err *err);

#endif
