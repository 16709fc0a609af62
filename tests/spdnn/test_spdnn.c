/* The spdnn family and its CPU kernel: the double-precision reference against a naive model that
 * shares no code with it (dense weights, every feature through every layer, no compaction), the
 * CPU kernel through the verification gate, compaction (a feature that dies stays dead, the live
 * counts, categories), edge cases (every feature dies, none dies), the MPI feature split, the
 * errors, the gate catching wrong results, and the CUDA catalog entries of the family. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_generators.h"
#include "rt_kernels.h"
#include "rt_registry.h"
#include "rt_test.h"
#include "spdnn_cpu_fused.h"
#include "spdnn_family.h"
#include "rt_cuda_unavailable.h"
#include "spdnn_cuda_catalog.h"
#include "spmm_cuda_catalog.h"
#include "spmm_family.h"

static int make_layer0(int64_t neurons, rt_csr *w, rt_err *err)
{
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "neurons", rt_value_int(neurons), err);
    rt_params_set(&args, "layer", rt_value_int(0), err);
    rt_params_set(&args, "seed", rt_value_int(1), err);
    return rt_matrix_build("sparse_dnn", &args, NULL, NULL, w, err);
}

/* ||a - b|| / ||b|| (||a - b|| when b is 0); INFINITY for a non-finite a. */
static double rel_error(const double *a, const double *b, int64_t n)
{
    double d2 = 0.0, r2 = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        if (!isfinite(a[i]))
            return INFINITY;
        d2 += (a[i] - b[i]) * (a[i] - b[i]);
        r2 += b[i] * b[i];
    }
    return r2 > 0.0 ? sqrt(d2 / r2) : sqrt(d2);
}

/* ---------------------------------------------------------------------------------------------
 * The naive model: dense W_l (from the CSR entries), y <- clamp(y W_l + b) for every feature and
 * every layer, dead or not. Fills out (3 per feature), live (layers + 1) and reports through
 * *resurrected whether any feature with an all-zero row ever became nonzero again. */
static void naive_model(const rt_spdnn_inputs *in, double *out, int64_t *live, int *resurrected)
{
    const int64_t n = in->neurons, nl = in->layers;
    double **w = calloc((size_t)nl, sizeof *w);
    for (int64_t l = 0; l < nl; ++l) {
        const rt_csr *m = in->layer[l];
        w[l] = calloc((size_t)(n * n), sizeof **w);
        for (int64_t r = 0; r < n; ++r)
            for (int64_t e = m->rowptr[r]; e < m->rowptr[r + 1]; ++e)
                w[l][r * n + m->colidx[e]] = m->val[e];
    }
    double *y = malloc((size_t)n * sizeof *y), *z = malloc((size_t)n * sizeof *z);
    for (int64_t l = 0; l <= nl; ++l)
        live[l] = 0;
    *resurrected = 0;
    for (int64_t f = 0; f < in->features; ++f) {
        for (int64_t i = 0; i < n; ++i)
            y[i] = 0.0;
        for (int64_t e = in->feat_ptr[f]; e < in->feat_ptr[f + 1]; ++e)
            y[in->feat_idx[e]] = 1.0;
        int dead = 0;
        for (int64_t l = 0; l < nl; ++l) {
            if (!dead)
                live[l]++;
            for (int64_t i = 0; i < n; ++i)
                z[i] = 0.0;
            for (int64_t j = 0; j < n; ++j)
                if (y[j] != 0.0)
                    for (int64_t i = 0; i < n; ++i)
                        z[i] += y[j] * w[l][j * n + i];
            int any = 0;
            for (int64_t i = 0; i < n; ++i) {
                const double s = z[i];
                z[i] = fmin(fmax(s + in->bias, 0.0), 32.0);
                any |= z[i] > 0.0;
            }
            memcpy(y, z, (size_t)n * sizeof *y);
            if (dead && any)
                *resurrected = 1;
            dead = dead || !any;
        }
        double sum = 0.0, wsum = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            sum += y[i];
            wsum += (double)(i + 1) / (double)n * y[i];
        }
        out[3 * f] = sum;
        out[3 * f + 1] = wsum;
        out[3 * f + 2] = dead ? 0.0 : 32.0 * (double)n;
        if (!dead)
            live[nl]++;
    }
    for (int64_t l = 0; l < nl; ++l)
        free(w[l]);
    free(w);
    free(y);
    free(z);
}

static void test_reference_against_naive(void)
{
    rt_err err;
    rt_csr w0;
    RT_CHECK_MSG(make_layer0(1024, &w0, &err) == 0, "%s", err.msg);
    rt_spdnn_inputs *in = NULL;
    RT_CHECK_MSG(rt_spdnn_inputs_create(&w0, 3, 48, 0.3, 7, 1, 0, 1, &in, &err) == 0, "%s",
                 err.msg);
    if (!in)
        return;
    /* Layers 1.. come from the generator with layer = l: regenerate one and compare. */
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "neurons", rt_value_int(1024), &err);
    rt_params_set(&args, "layer", rt_value_int(2), &err);
    rt_params_set(&args, "seed", rt_value_int(1), &err);
    rt_csr w2;
    RT_CHECK(rt_matrix_build("sparse_dnn", &args, NULL, NULL, &w2, &err) == 0);
    RT_CHECK(in->layer[2]->nnz == w2.nnz &&
             memcmp(in->layer[2]->colidx, w2.colidx, (size_t)w2.nnz * sizeof(int32_t)) == 0);
    RT_CHECK(in->layer[0] == &w0 && in->nnz_total == 3 * w0.nnz);
    RT_CHECK(fabs(in->bias + 0.3) < 1e-15);
    rt_csr_free(&w2);

    double *naive = calloc((size_t)in->features * 3, sizeof *naive);
    int64_t live[4];
    int resurrected = 1;
    naive_model(in, naive, live, &resurrected);
    /* The compaction premise: with b < 0 a dead feature never comes back. */
    RT_CHECK(resurrected == 0);
    const double e = rel_error(in->reference, naive, in->features * 3);
    RT_CHECK_MSG(e < 1e-12, "reference vs naive model: %.3g", e);
    /* Both add each neuron's terms in increasing j from +0.0 (the naive model's extra terms are
     * +0.0), the reference whatever batch a feature lands in: the results agree bit for bit. */
    RT_CHECK_MSG(memcmp(in->reference, naive, (size_t)in->features * 3 * sizeof *naive) == 0,
                 "reference and naive model differ in the last bits (error %.3g)", e);
    for (int64_t f = 0; f < in->features; ++f)
        RT_CHECK_MSG(in->reference[3 * f + 2] == naive[3 * f + 2], "category of feature %lld",
                     (long long)f);
    for (int l = 0; l <= 3; ++l)
        RT_CHECK_MSG(in->live[l] == live[l], "live[%d] = %lld, naive %lld", l,
                     (long long)in->live[l], (long long)live[l]);
    RT_CHECK(in->categories == live[3]);
    /* The case must exercise compaction both ways: some features die, some survive. */
    RT_CHECK_MSG(in->categories > 0 && in->categories < in->features,
                 "%lld categories of %lld features", (long long)in->categories,
                 (long long)in->features);
    for (int l = 0; l < 3; ++l)
        RT_CHECK(in->live[l + 1] <= in->live[l]);
    printf("reference: 1024 neurons, 3 layers, 48 features: live %lld %lld %lld, %lld "
           "categories, error vs naive %.2g\n",
           (long long)in->live[0], (long long)in->live[1], (long long)in->live[2],
           (long long)in->categories, e);
    free(naive);
    rt_spdnn_inputs_destroy(in);
    rt_csr_free(&w0);
}

/* ---------------------------------------------------------------------------------------------
 * The CPU kernel */

typedef struct run_result {
    double rel;
    double categories, layers_run, feature_layers;
    int categories_exact;
    double *out;
} run_result;

static int run_cpu(const rt_spdnn_inputs *in, const double *reference, int64_t tile,
                   int64_t threads, run_result *r, rt_err *err)
{
    memset(r, 0, sizeof *r);
    const rt_kernel_desc *k = rt_spdnn_cpu_fused_kernel();
    rt_params p;
    rt_params_init(&p);
    rt_params_set(&p, "feature_tile", rt_value_int(tile), err);
    rt_params_set(&p, "threads", rt_value_int(threads), err);
    void *state = NULL;
    if (k->setup(k, in, &p, NULL, &state, err) != 0)
        return -1;
    const int64_t n = in->features * RT_SPDNN_OUT_PER_FEATURE;
    r->out = malloc((size_t)(n > 0 ? n : 1) * sizeof *r->out);
    for (int64_t i = 0; i < n; ++i)
        r->out[i] = NAN;
    double sec = 0;
    /* Twice: the second execution must start from the inputs again, not from the first's end. */
    int rc = k->run(state, &sec, err);
    if (rc == 0)
        rc = k->run(state, &sec, err);
    if (rc == 0)
        rc = k->output(state, r->out, err);
    rt_metrics m;
    rt_metrics_init(&m);
    if (rc == 0)
        rc = k->metrics(state, &m, err);
    k->teardown(state);
    if (rc != 0)
        return -1;
    r->rel = rel_error(r->out, reference, n);
    r->categories = rt_metrics_get(&m, "categories")->value;
    r->layers_run = rt_metrics_get(&m, "layers_run")->value;
    r->feature_layers = rt_metrics_get(&m, "feature_layers")->value;
    r->categories_exact = 1;
    for (int64_t f = 0; f < in->features; ++f)
        if (r->out[3 * f + 2] != reference[3 * f + 2])
            r->categories_exact = 0;
    return 0;
}

static double live_sum(const rt_spdnn_inputs *in)
{
    double s = 0.0;
    for (int64_t l = 0; l < in->layers; ++l)
        s += (double)in->live[l];
    return s;
}

static void test_cpu_kernel(void)
{
    rt_err err;
    rt_csr w0;
    RT_CHECK(make_layer0(1024, &w0, &err) == 0);
    rt_spdnn_inputs *in = NULL;
    RT_CHECK_MSG(rt_spdnn_inputs_create(&w0, 4, 64, 0.3, 1, 1, 0, 1, &in, &err) == 0, "%s",
                 err.msg);
    if (!in)
        return;
    const double tol = rt_spdnn_tolerance_for(in->features_total);
    RT_CHECK(in->categories > 0 && in->categories < in->features);
    const int64_t tiles[] = {1, 3, 8, 64};
    const int64_t threads[] = {1, 2};
    for (int t = 0; t < 4; ++t)
        for (int h = 0; h < 2; ++h) {
            run_result r;
            RT_CHECK_MSG(run_cpu(in, in->reference, tiles[t], threads[h], &r, &err) == 0, "%s",
                         err.msg);
            RT_CHECK_MSG(r.rel <= tol, "feature_tile %lld threads %lld: error %.3g > %.3g",
                         (long long)tiles[t], (long long)threads[h], r.rel, tol);
            RT_CHECK(r.categories_exact);
            RT_CHECK(r.categories == (double)in->categories);
            RT_CHECK(r.layers_run == 4 && r.feature_layers == live_sum(in));
            if (t == 2 && h == 1)
                printf("cpu kernel: 1024 neurons, 4 layers, 64 features: error %.2g (tolerance "
                       "%.2g), %g categories\n",
                       r.rel, tol, r.categories);
            free(r.out);
        }

    /* The gate can fail: a wrong bias (-0.25 for -0.3), computed by the real kernel. */
    rt_spdnn_inputs wrong = *in;
    wrong.bias = -0.25;
    run_result r;
    RT_CHECK(run_cpu(&wrong, in->reference, 8, 2, &r, &err) == 0);
    RT_CHECK_MSG(r.rel > tol, "a wrong bias passed the gate (%.3g)", r.rel);
    free(r.out);
    /* ... and one category lost or invented, whatever its row sums, always fails. */
    RT_CHECK(run_cpu(in, in->reference, 8, 2, &r, &err) == 0);
    for (int64_t f = 0; f < in->features; ++f)
        if (r.out[3 * f + 2] > 0.0) {
            r.out[3 * f + 2] = 0.0;
            break;
        }
    RT_CHECK(rel_error(r.out, in->reference, in->features * 3) > tol);
    free(r.out);
    RT_CHECK(run_cpu(in, in->reference, 8, 2, &r, &err) == 0);
    for (int64_t f = 0; f < in->features; ++f)
        if (r.out[3 * f + 2] == 0.0) {
            r.out[3 * f + 2] = 32.0 * 1024.0;
            break;
        }
    RT_CHECK(rel_error(r.out, in->reference, in->features * 3) > tol);
    free(r.out);

    /* Feasibility: threads far beyond the cores is infeasible, not an error. */
    const rt_kernel_desc *k = rt_spdnn_cpu_fused_kernel();
    rt_params p;
    rt_params_init(&p);
    rt_params_set(&p, "threads", rt_value_int(1024), &err);
    char why[256] = "";
    RT_CHECK(k->check(k, in, &p, NULL, why, sizeof why, &err) == RT_INFEASIBLE &&
             rt_test_contains(why, "oversubscribes"));
    rt_params_set(&p, "threads", rt_value_int(1), &err);
    rt_params_set(&p, "feature_tile", rt_value_int(65), &err);
    void *state = NULL;
    RT_CHECK(k->setup(k, in, &p, NULL, &state, &err) != 0 && state == NULL &&
             rt_test_contains(err.msg, "feature_tile"));
    RT_CHECK(k->setup(k, NULL, &p, NULL, &state, &err) != 0 && rt_test_contains(err.msg, "spdnn"));

    /* Traffic: what compaction leaves, through the cache or from DRAM. */
    rt_traffic t;
    rt_kernel_env env = {0};
    RT_CHECK(k->traffic(k, in, NULL, &env, &t, &err) == 0);
    double flops = 0.0;
    for (int l = 0; l < 4; ++l)
        flops += 2.0 * (double)in->layer[l]->nnz * (double)in->live[l];
    RT_CHECK(fabs(t.flops - flops) < 1e-6 * flops && t.bytes[RT_LEVEL_L2] == 0.0);
    rt_spdnn_traffic(in, 4.0, 4.0, 1e12, 1, &t);
    RT_CHECK(t.bytes[RT_LEVEL_DRAM] == 0.0 && t.bytes[RT_LEVEL_L2] > 0.0);
    rt_spdnn_traffic(in, 4.0, 4.0, 1024.0, 1, &t);
    RT_CHECK(t.bytes[RT_LEVEL_DRAM] > 0.0 && t.bytes[RT_LEVEL_DRAM] < t.bytes[RT_LEVEL_L2]);
    rt_spdnn_inputs_destroy(in);
    rt_csr_free(&w0);
}

/* Every feature dies (no active input: the first layer maps them to max(b, 0) = 0), and none
 * dies (dense inputs saturate). */
static void test_edge_cases(void)
{
    rt_err err;
    rt_csr w0;
    RT_CHECK(make_layer0(1024, &w0, &err) == 0);
    rt_spdnn_inputs *in = NULL;
    RT_CHECK_MSG(rt_spdnn_inputs_create(&w0, 5, 20, 0.0, 1, 1, 0, 1, &in, &err) == 0, "%s",
                 err.msg);
    if (in) {
        RT_CHECK(in->categories == 0 && in->live[0] == 20 && in->live[1] == 0);
        run_result r;
        RT_CHECK_MSG(run_cpu(in, in->reference, 8, 2, &r, &err) == 0, "%s", err.msg);
        RT_CHECK(r.rel == 0.0 && r.categories == 0 && r.layers_run == 1 && r.feature_layers == 20);
        free(r.out);
        rt_spdnn_inputs_destroy(in);
    }
    /* Sparse inputs that die a few layers in: the kernel stops when nothing is left. */
    RT_CHECK(rt_spdnn_inputs_create(&w0, 12, 20, 0.08, 1, 1, 0, 1, &in, &err) == 0);
    if (in) {
        RT_CHECK(in->categories == 0 && in->live[11] == 0);
        run_result r;
        RT_CHECK(run_cpu(in, in->reference, 4, 2, &r, &err) == 0);
        RT_CHECK(r.rel == 0.0 && r.categories == 0 && r.layers_run < 12 &&
                 r.feature_layers == live_sum(in));
        free(r.out);
        rt_spdnn_inputs_destroy(in);
    }
    RT_CHECK(rt_spdnn_inputs_create(&w0, 5, 20, 0.8, 1, 1, 0, 1, &in, &err) == 0);
    if (in) {
        RT_CHECK_MSG(in->categories == 20 && in->live[4] == 20, "%lld categories",
                     (long long)in->categories);
        run_result r;
        RT_CHECK(run_cpu(in, in->reference, 8, 2, &r, &err) == 0);
        RT_CHECK(r.rel <= rt_spdnn_tolerance_for(20) && r.categories_exact && r.categories == 20 &&
                 r.feature_layers == 100);
        free(r.out);
        rt_spdnn_inputs_destroy(in);
    }
    /* One layer: the first layer's output is the answer. */
    RT_CHECK(rt_spdnn_inputs_create(&w0, 1, 10, 0.3, 1, 1, 0, 1, &in, &err) == 0);
    if (in) {
        run_result r;
        RT_CHECK(run_cpu(in, in->reference, 8, 1, &r, &err) == 0);
        RT_CHECK(r.rel <= rt_spdnn_tolerance_for(10) && r.categories_exact && r.layers_run == 1);
        free(r.out);
        rt_spdnn_inputs_destroy(in);
    }
    rt_csr_free(&w0);
}

/* ---------------------------------------------------------------------------------------------
 * MPI split, the family descriptor, errors */

static void test_split_and_family(void)
{
    const rt_job alone = rt_job_alone(); /* one process: the whole problem */
    rt_err err;
    rt_csr w0;
    RT_CHECK(make_layer0(1024, &w0, &err) == 0);
    rt_spdnn_inputs *whole = NULL;
    RT_CHECK(rt_spdnn_inputs_create(&w0, 3, 31, 0.3, 5, 2, 0, 1, &whole, &err) == 0);
    if (!whole)
        return;
    int64_t next = 0, cats = 0;
    for (int r = 0; r < 3; ++r) {
        rt_spdnn_inputs *part = NULL;
        RT_CHECK(rt_spdnn_inputs_create(&w0, 3, 31, 0.3, 5, 2, r, 3, &part, &err) == 0);
        if (!part)
            continue;
        RT_CHECK(part->feature0 == next && part->features_total == 31);
        RT_CHECK(memcmp(part->reference, whole->reference + 3 * next,
                        (size_t)part->features * 3 * sizeof(double)) == 0);
        next += part->features;
        cats += part->categories;
        rt_spdnn_inputs_destroy(part);
    }
    RT_CHECK(next == 31 && cats == whole->categories);

    const rt_family_desc *fam = rt_spdnn_family();
    RT_CHECK(strcmp(fam->name, "spdnn") == 0 && fam->wants_whole_matrix == 1);
    RT_CHECK(fam->output_elems(whole) == 93);
    RT_CHECK(fam->flops(whole) == 2.0 * 31.0 * (double)whole->nnz_total);
    RT_CHECK(fam->nonzeros(whole) == 31.0 * (double)whole->nnz_total);
    const double tol = fam->tolerance(whole);
    RT_CHECK(tol > 0.0 && tol <= 0.5 / sqrt(3.0 * 31.0));
    RT_CHECK(rt_spdnn_tolerance_for(10000000) <= 0.5 / sqrt(3.0e7));
    double *ref = malloc(93 * sizeof *ref);
    RT_CHECK(fam->reference(whole, ref, &err) == 0 && memcmp(ref, whole->reference, 93 * 8) == 0);
    free(ref);
    rt_spdnn_inputs_destroy(whole);

    /* Through make_inputs (no MPI here: rank 0 of 1), with problem parameters. */
    rt_params prob;
    rt_params_init(&prob);
    rt_params_set(&prob, "layers", rt_value_int(2), &err);
    rt_params_set(&prob, "features", rt_value_int(9), &err);
    rt_params_set(&prob, "feature_density", rt_value_int(0), &err); /* an integral real */
    void *inputs = NULL;
    RT_CHECK_MSG(fam->make_inputs(&w0, &prob, &alone, &inputs, &err) == 0, "%s", err.msg);
    if (inputs) {
        const rt_spdnn_inputs *in = inputs;
        RT_CHECK(in->layers == 2 && in->features == 9 && in->feature_density == 0.0);
        /* Density 0: no neuron of any feature is active, and nothing survives. */
        RT_CHECK(in->feat_ptr[9] == 0 && in->categories == 0);
        fam->free_inputs(inputs);
    }
    /* Each feature's own density lies in [d/2, 3d/2]: with d = 1, at least half its neurons
     * are active on average and never none. */
    rt_params_set(&prob, "feature_density", rt_value_real(1.0), &err);
    RT_CHECK(fam->make_inputs(&w0, &prob, &alone, &inputs, &err) == 0);
    if (inputs) {
        const rt_spdnn_inputs *in = inputs;
        for (int f = 0; f < 9; ++f) {
            const int64_t active = in->feat_ptr[f + 1] - in->feat_ptr[f];
            RT_CHECK_MSG(active > 400 && active <= 1024, "feature %d: %lld active", f,
                         (long long)active);
        }
        fam->free_inputs(inputs);
    }
    rt_params_set(&prob, "features", rt_value_int(0), &err);
    RT_CHECK(fam->make_inputs(&w0, &prob, &alone, &inputs, &err) != 0 &&
             rt_test_contains(err.msg, "features"));
    rt_params_set(&prob, "features", rt_value_int(9), &err);
    rt_params_set(&prob, "feature_density", rt_value_real(1.5), &err);
    RT_CHECK(fam->make_inputs(&w0, &prob, &alone, &inputs, &err) != 0 &&
             rt_test_contains(err.msg, "feature_density"));
    rt_csr_free(&w0);
}

static void test_errors(void)
{
    rt_err err;
    rt_spdnn_inputs *in = NULL;
    rt_csr w0;
    RT_CHECK(make_layer0(1024, &w0, &err) == 0);
    RT_CHECK(rt_spdnn_inputs_create(NULL, 2, 4, 0.3, 1, 1, 0, 1, &in, &err) != 0 && !in);
    RT_CHECK(rt_spdnn_inputs_create(&w0, 0, 4, 0.3, 1, 1, 0, 1, &in, &err) != 0 &&
             rt_test_contains(err.msg, "layers"));
    RT_CHECK(rt_spdnn_inputs_create(&w0, 2, 0, 0.3, 1, 1, 0, 1, &in, &err) != 0 &&
             rt_test_contains(err.msg, "features"));
    RT_CHECK(rt_spdnn_inputs_create(&w0, 2, 4, -0.1, 1, 1, 0, 1, &in, &err) != 0 &&
             rt_test_contains(err.msg, "feature_density"));
    RT_CHECK(rt_spdnn_inputs_create(&w0, 2, 4, NAN, 1, 1, 0, 1, &in, &err) != 0 &&
             rt_test_contains(err.msg, "feature_density"));
    RT_CHECK(rt_spdnn_inputs_create(&w0, 2, 4, 0.3, 1, 1, 2, 2, &in, &err) != 0 &&
             rt_test_contains(err.msg, "rank 2 of 2"));
    rt_csr_free(&w0);

    /* Layer 0 must be a square Graph Challenge width. */
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "rows", rt_value_int(1024), &err);
    rt_params_set(&args, "cols", rt_value_int(512), &err);
    rt_params_set(&args, "nnz_per_row", rt_value_int(8), &err);
    rt_csr rect;
    RT_CHECK(rt_matrix_build("uniform", &args, NULL, NULL, &rect, &err) == 0);
    RT_CHECK(rt_spdnn_inputs_create(&rect, 2, 4, 0.3, 1, 1, 0, 1, &in, &err) != 0 &&
             rt_test_contains(err.msg, "square") && rt_test_contains(err.msg, "1024 x 512"));
    rt_csr_free(&rect);
    rt_params_set(&args, "rows", rt_value_int(1000), &err);
    rt_params_set(&args, "cols", rt_value_int(1000), &err);
    rt_csr odd;
    RT_CHECK(rt_matrix_build("uniform", &args, NULL, NULL, &odd, &err) == 0);
    RT_CHECK(rt_spdnn_inputs_create(&odd, 2, 4, 0.3, 1, 1, 0, 1, &in, &err) != 0 &&
             rt_test_contains(err.msg, "1000 neurons"));
    rt_csr_free(&odd);
    /* A malformed layer 0 is refused before any kernel indexes with it. */
    rt_csr bad;
    RT_CHECK(rt_csr_alloc(&bad, 1024, 1024, 1, &err) == 0);
    for (int i = 1; i <= 1024; ++i)
        bad.rowptr[i] = 1;
    bad.colidx[0] = 5000;
    bad.val[0] = 1.0;
    RT_CHECK(rt_spdnn_inputs_create(&bad, 2, 4, 0.3, 1, 1, 0, 1, &in, &err) != 0 &&
             rt_test_contains(err.msg, "malformed"));
    rt_csr_free(&bad);
}

/* The output helper refuses a broken compaction instead of hiding it. */
static void test_output_and_transpose(void)
{
    rt_err err;
    rt_csr w0;
    RT_CHECK(make_layer0(1024, &w0, &err) == 0);
    rt_spdnn_inputs *in = NULL;
    RT_CHECK(rt_spdnn_inputs_create(&w0, 1, 4, 0.3, 1, 1, 0, 1, &in, &err) == 0);
    if (in) {
        float *rows = calloc(2 * 1024, sizeof *rows);
        rows[5] = 2.0f;
        const unsigned char active[2] = {1, 0};
        double out[12];
        int32_t ids[2] = {3, 1};
        RT_CHECK(rt_spdnn_write_output(in, 2, rows, 1024, ids, active, out, &err) == 0);
        RT_CHECK(out[9] == 2.0 && out[10] == 2.0 * 6.0 / 1024.0 && out[11] == 32.0 * 1024.0);
        RT_CHECK(out[3] == 0.0 && out[5] == 0.0 && out[0] == 0.0);
        ids[1] = 3;
        RT_CHECK(rt_spdnn_write_output(in, 2, rows, 1024, ids, active, out, &err) != 0 &&
                 rt_test_contains(err.msg, "twice"));
        ids[1] = 4;
        RT_CHECK(rt_spdnn_write_output(in, 2, rows, 1024, ids, active, out, &err) != 0 &&
                 rt_test_contains(err.msg, "out of range"));
        RT_CHECK(rt_spdnn_write_output(in, 5, rows, 1024, ids, active, out, &err) != 0);
        free(rows);
        rt_spdnn_inputs_destroy(in);
    }
    /* W^T: every entry moved, rows sorted. */
    rt_csr wt;
    RT_CHECK(rt_spdnn_transpose(&w0, &wt, &err) == 0);
    RT_CHECK(wt.nnz == w0.nnz && rt_csr_validate(&wt, &err) == 0);
    int ok = 1;
    for (int64_t r = 0; r < w0.rows && ok; ++r)
        for (int64_t e = w0.rowptr[r]; e < w0.rowptr[r + 1] && ok; ++e) {
            const int64_t c = w0.colidx[e];
            int found = 0;
            for (int64_t g = wt.rowptr[c]; g < wt.rowptr[c + 1]; ++g)
                found |= wt.colidx[g] == r && wt.val[g] == w0.val[e];
            ok = found;
        }
    RT_CHECK(ok);
    rt_csr_free(&wt);
    rt_csr_free(&w0);
}

/* The CUDA kernels of the family are in the catalog: listed (unavailable) wherever the family
 * is registered, and only there. */
static void test_catalog(void)
{
    rt_err err;
    RT_CHECK(rt_kernels_cuda_find(RT_SPDNN_CUDA_FUSED) ==
             rt_spdnn_cuda_catalog_at(RT_SPDNN_CUDA_KIND_FUSED));
    RT_CHECK(rt_kernels_cuda_entry(rt_kernels_cuda_count()) == NULL);
    RT_CHECK(rt_spdnn_cuda_catalog_at(RT_SPDNN_CUDA_KIND_COUNT) == NULL);
    RT_CHECK(rt_spmm_cuda_catalog_at(RT_SPMM_CUDA_KIND_COUNT) == NULL);
    /* Every kernel after the spmm ones (spdnn, then the distributed families) has a family and
     * a schema whose defaults pass their own checks (the user family's engine has no parameters:
     * its kernels take theirs from their specs). */
    for (int i = RT_SPMM_CUDA_KIND_COUNT; i < rt_kernels_cuda_count(); ++i) {
        const rt_cuda_catalog_entry *e = rt_kernels_cuda_entry(i);
        const int spdnn = i < RT_SPMM_CUDA_KIND_COUNT + RT_SPDNN_CUDA_KIND_COUNT;
        RT_CHECK(e && e->family && (strcmp(e->family, "spdnn") == 0) == spdnn &&
                 (e->n_params > 0 || strcmp(e->family, "user") == 0));
        for (int j = 0; e && j < e->n_params; ++j) {
            rt_value v;
            char why[256];
            RT_CHECK(rt_param_default(&e->params[j], &v, &err) == 0 &&
                     rt_param_check(&e->params[j], &v, why, sizeof why) == 0);
        }
    }
    rt_registry reg;
    rt_registry_init(&reg);
    RT_CHECK(rt_registry_add_family(&reg, rt_spmm_family(), &err) == 0);
    RT_CHECK(rt_cuda_register_unavailable(&reg, "no GPU here", &err) == 0);
    RT_CHECK(rt_registry_find_kernel(&reg, RT_SPDNN_CUDA_FUSED) == NULL);
    RT_CHECK(reg.n_kernels == RT_SPMM_CUDA_KIND_COUNT);
    rt_cuda_unregister_unavailable(&reg);

    rt_registry full;
    rt_registry_init(&full);
    RT_CHECK_MSG(rt_kernels_register_builtin(&full, &err) == 0, "%s", err.msg);
    const int before = full.n_kernels;
    RT_CHECK(rt_cuda_register_unavailable(&full, "no GPU here", &err) == 0);
    const char *names[] = {RT_SPDNN_CUDA_FUSED, RT_SPDNN_CUDA_CUSPARSE};
    for (int i = 0; i < 2; ++i) {
        const rt_kernel_desc *k = rt_registry_find_kernel(&full, names[i]);
        RT_CHECK_MSG(k && k->unavailable && strcmp(k->family, "spdnn") == 0 &&
                         strcmp(k->backend, "cuda") == 0,
                     "%s", names[i]);
        if (k) {
            void *state = NULL;
            RT_CHECK(k->setup(k, NULL, NULL, NULL, &state, &err) != 0 &&
                     rt_test_contains(err.msg, names[i]) &&
                     rt_test_contains(err.msg, "no GPU here"));
        }
    }
    const rt_kernel_desc *fused = rt_registry_find_kernel(&full, RT_SPDNN_CUDA_FUSED);
    RT_CHECK(fused && rt_kernel_find_param(fused, "register_tile") &&
             rt_kernel_find_param(fused, "shared_kib") &&
             rt_kernel_find_param(fused, "block_size"));
    rt_cuda_unregister_unavailable(&full);
    RT_CHECK(full.n_kernels == before && !rt_registry_find_kernel(&full, RT_SPDNN_CUDA_FUSED));
    RT_CHECK(rt_registry_find_kernel(&full, "spdnn.cpu.fused") != NULL);
}

/* A stop request that asks from its after-th poll on (polls counted across OpenMP threads). */
typedef struct stop_after {
    int *polls;
    int after;
} stop_after;

static int stop_after_requested(const void *ctx)
{
    const stop_after *s = ctx;
    int seen;
#pragma omp atomic capture
    seen = (*s->polls)++;
    return seen >= s->after;
}

/* rt_spdnn_inputs_create_until stops when asked, in the layers or in the reference, frees what it
 * built and says so; a stop that never asks changes nothing; the family hook forwards it. */
static void test_stop(void)
{
    const rt_job alone = rt_job_alone(); /* one process: the whole problem */
    rt_err err;
    rt_csr w0;
    RT_CHECK_MSG(make_layer0(1024, &w0, &err) == 0, "%s", err.msg);
    const struct {
        int after;
        const char *expect; /* NULL: builds */
    } cases[] = {           /* layers 1..5 poll once each, then the reference once per batch of 8 */
                 {0, "while generating the 6 layers"},
                 {3, "while generating the 6 layers"},
                 {5, "while computing the reference of 400 features"},
                 {5 + 3, "while computing the reference of 400 features"},
                 {5 + 1000, NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        int polls = 0;
        const stop_after ctx = {.polls = &polls, .after = cases[i].after};
        const rt_stop stop = {.requested = stop_after_requested, .ctx = &ctx};
        rt_spdnn_inputs *in = NULL;
        rt_err_clear(&err);
        const int rc = rt_spdnn_inputs_create_until(&w0, 6, 400, 0.3, 1, 1, 0, 1, &stop, &in, &err);
        if (!cases[i].expect) {
            RT_CHECK_MSG(rc == 0 && in != NULL, "case %zu: %s", i, err.msg);
            RT_CHECK(polls > 5); /* the reference polled too */
        } else {
            RT_CHECK_MSG(rc != 0 && in == NULL && rt_test_contains(err.msg, "stopped on request") &&
                             rt_test_contains(err.msg, cases[i].expect),
                         "case %zu: rc %d: %s", i, rc, err.msg);
        }
        rt_spdnn_inputs_destroy(in);
    }
    /* Through the family: the hook exists and honours the request. */
    const rt_family_desc *fam = rt_spdnn_family();
    RT_CHECK(fam->make_inputs_until != NULL);
    rt_params problem;
    rt_params_init(&problem);
    rt_params_set(&problem, "layers", rt_value_int(3), &err);
    rt_params_set(&problem, "features", rt_value_int(40), &err);
    rt_params_set(&problem, "feature_density", rt_value_real(0.3), &err);
    rt_params_set(&problem, "seed", rt_value_int(1), &err);
    rt_params_set(&problem, "network_seed", rt_value_int(1), &err);
    int polls = 0;
    const stop_after now = {.polls = &polls, .after = 0};
    const rt_stop stop = {.requested = stop_after_requested, .ctx = &now};
    void *inputs = NULL;
    RT_CHECK(fam->make_inputs_until(&w0, &problem, &alone, &stop, &inputs, &err) != 0 && !inputs);
    RT_CHECK_MSG(rt_test_contains(err.msg, "stopped on request"), "%s", err.msg);
    RT_CHECK_MSG(fam->make_inputs(&w0, &problem, &alone, &inputs, &err) == 0 && inputs, "%s",
                 err.msg);
    fam->free_inputs(inputs);
    rt_csr_free(&w0);
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : "all";
    if (!strcmp(only, "all") || !strcmp(only, "reference"))
        test_reference_against_naive();
    if (!strcmp(only, "all") || !strcmp(only, "cpu"))
        test_cpu_kernel();
    if (!strcmp(only, "all") || !strcmp(only, "edges"))
        test_edge_cases();
    if (!strcmp(only, "all") || !strcmp(only, "family")) {
        test_split_and_family();
        test_errors();
        test_output_and_transpose();
    }
    if (!strcmp(only, "all") || !strcmp(only, "catalog"))
        test_catalog();
    if (!strcmp(only, "all") || !strcmp(only, "stop"))
        test_stop();
    return RT_TEST_RESULT();
}
