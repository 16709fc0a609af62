/* spmm.cuda.tiled's compile ahead without a GPU (NVRTC only): for every point of
 * configs/tune/tiled-parallel.yaml's space (the config walked as a run walks it, its problem point
 * made into the family's inputs), the variant request that the kernel's set-up compiles and its
 * compile-ahead hook queues (both build it with rt_spmm_tiled_read_params and
 * rt_spmm_tiled_variant, spmm_cuda_variant.h) has, byte for byte, the cache key of the variant
 * spelt out here from the point's parameters and the source's defines: the spmm defines, then
 * STAGING_ELL, INDEX_BYTES and NNZ_UNROLL, for spmm_tiled.cu's rt_spmm_tiled, as the request
 * rt_cuda_get_variant builds (rt_cuda_variant_compile_request). The 64 points make 32 variants
 * (register_tile 1..32, the same on both matrices). A few of them are then compiled by the
 * compile-ahead pool into a fresh cache: each claim finds it done and the set-up's compile of the
 * same request is a cache hit with the bytes of a compile of its own.
 *
 * What needs a device (the plugin's context owning the pool, rt_cuda_get_variant claiming,
 * module loads, the store's compiled_ahead metrics) is cuda.tune_gpu's, on a GPU host.
 *   test_cuda_tiled_ahead <config> <scratch dir> */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_config.h"
#include "rt_cuda_unavailable.h"
#include "rt_cuda_ahead.h"
#include "rt_cuda_defines.h"
#include "rt_job.h"
#include "rt_kernels.h"
#include "rt_test.h"
#include "rt_test_dir.h"
#include "rt_test_embedded.h"
#include "rt_walk.h"
#include "spmm_cuda_catalog.h"
#include "spmm_cuda_variant.h"
#include "spmm_family.h"

#define MAX_POINTS 256

typedef struct walk_state {
    rt_csr a; /* a 4 x 4 diagonal stands for every matrix: the variant does not depend on A */
    const char *cache;
    int n; /* points seen */
    int64_t register_tile[MAX_POINTS];
    char key[MAX_POINTS][RT_CUDA_KEY_MAX];
    rt_cuda_compile_request req[MAX_POINTS]; /* their text lives in the arrays below */
    rt_cuda_defines defs[MAX_POINTS];
} walk_state;

static rt_cuda_target sm90(const char *cache)
{
    const rt_cuda_target t = {.cc_major = 9, .cc_minor = 0, .cache_dir = cache};
    return t;
}

/* The matrices are not built: the spaces see a shape, the inputs the stand-in diagonal. */
static int shape_only(void *ctx, int mi, const rt_matrix_cfg *mc, int64_t shape[3], rt_err *err)
{
    (void)ctx;
    (void)mi;
    (void)mc;
    (void)err;
    shape[0] = shape[1] = 1000;
    shape[2] = 5000;
    return RT_WALK_MATRIX_OK;
}

/* The key of the variant written out by hand from the point's parameters. */
static int expected_key(const rt_params *p, const rt_spmm_inputs *in, const char *cache, char *key,
                        rt_err *err)
{
    char text[8][RT_CUDA_DEFINE_MAX];
    const char *list[8];
    snprintf(text[0], sizeof text[0], "RT_FP64=%d", in->prec == RT_FP64);
    snprintf(text[1], sizeof text[1], "RT_ROW_MAJOR=%d", in->layout == RT_ROW_MAJOR);
    snprintf(text[2], sizeof text[2], "BLOCK_SIZE=%lld",
             (long long)rt_params_int(p, "block_size", -1));
    snprintf(text[3], sizeof text[3], "REGISTER=%lld",
             (long long)rt_params_int(p, "register_tile", -1));
    snprintf(text[4], sizeof text[4], "MIN_BLOCKS=%lld",
             (long long)rt_params_int(p, "min_blocks", -1));
    snprintf(text[5], sizeof text[5], "STAGING_ELL=%d",
             strcmp(rt_params_str(p, "staging", ""), "ell") == 0);
    snprintf(text[6], sizeof text[6], "INDEX_BYTES=%lld",
             (long long)rt_params_int(p, "index_bytes", -1));
    snprintf(text[7], sizeof text[7], "NNZ_UNROLL=%lld",
             (long long)rt_params_int(p, "nnz_unroll", -1));
    for (int i = 0; i < 8; ++i)
        list[i] = text[i];
    const rt_cuda_compile_request req = {.source_name = "spmm_tiled.cu",
                                         .source = rt_test_embedded_source("spmm_tiled.cu"),
                                         .defines = list,
                                         .n_defines = 8,
                                         .entry = "rt_spmm_tiled",
                                         .cc_major = 9,
                                         .cc_minor = 0,
                                         .cache_dir = cache};
    return rt_cuda_variant_key(&req, key, RT_CUDA_KEY_MAX, err);
}

static int one_sweep(void *ctx, rt_sweep *s, rt_err *err)
{
    walk_state *w = ctx;
    RT_CHECK(strcmp(s->kernel->name, "spmm.cuda.tiled") == 0);
    void *inputs = NULL;
    const rt_job job = rt_job_alone();
    if (rt_family_make_inputs(s->family, &w->a, s->problem, &job, NULL, &inputs, err) != 0)
        return -1;
    const rt_spmm_inputs *in = inputs;
    for (int64_t i = 0; i < rt_space_size(s->space) && w->n < MAX_POINTS; ++i) {
        rt_params p;
        int feasible = 0;
        if (rt_space_point(s->space, i, &p, &feasible, NULL, 0, err) != 0)
            break;
        RT_CHECK(feasible);
        /* What the hook queues and the set-up compiles. */
        rt_spmm_tiled_params tp;
        rt_cuda_variant_request rq;
        const int k = w->n;
        if (rt_spmm_tiled_read_params(&p, in, &tp, err) != 0)
            break;
        rt_spmm_tiled_variant(in, &tp, "test", &w->defs[k], &rq);
        RT_CHECK(rq.defines == &w->defs[k] && w->defs[k].n <= RT_CUDA_MAX_DEFINES);
        const char *source = rt_test_embedded_source(rq.source_name);
        RT_CHECK_MSG(source != NULL, "%s is not embedded", rq.source_name);
        const rt_cuda_target t = sm90(w->cache);
        rt_cuda_variant_compile_request(&t, rq.source_name, source ? source : "", w->defs[k].list,
                                        w->defs[k].n, rq.entry, &w->req[k]);
        char want[RT_CUDA_KEY_MAX];
        if (rt_cuda_variant_key(&w->req[k], w->key[k], sizeof w->key[k], err) != 0 ||
            expected_key(&p, in, w->cache, want, err) != 0)
            break;
        RT_CHECK_MSG(strcmp(w->key[k], want) == 0, "point %lld: key\n  %s\nwant\n  %s",
                     (long long)i, w->key[k], want);
        w->register_tile[k] = tp.register_tile;
        w->n++;
    }
    s->family->free_inputs(inputs);
    return err->msg[0] ? -1 : 0;
}

static void test_keys_and_pool(const char *config, const char *cache)
{
    rt_err err;
    rt_err_clear(&err);
    rt_registry reg = {0};
    rt_config cfg = {0};
    static walk_state w;
    memset(&w, 0, sizeof w);
    w.cache = cache;
    static const int64_t ptr[] = {0, 1, 2, 3, 4};
    static const int32_t col[] = {0, 1, 2, 3};
    static const double val[] = {1, 2, 3, 4};
    w.a = (rt_csr){.rows = 4, .cols = 4, .nnz = 4};
    w.a.rowptr = (int64_t *)ptr;
    w.a.colidx = (int32_t *)col;
    w.a.val = (double *)val;
    /* The CUDA kernels as a machine without a GPU registers them: unavailable, schemas known. */
    RT_CHECK_MSG(rt_kernels_register_builtin(&reg, &err) == 0 &&
                     rt_cuda_register_unavailable(&reg, "no GPU in this test", &err) == 0,
                 "%s", err.msg);
    RT_CHECK_MSG(rt_config_load(config, NULL, 0, &cfg, &err) == 0, "%s", err.msg);
    const rt_walk_ops ops = {.matrix = shape_only, .sweep = one_sweep};
    RT_CHECK_MSG(rt_walk(&cfg, &reg, &ops, &w, &err) == 0, "%s", err.msg);
    rt_config_free(&cfg);
    rt_cuda_unregister_unavailable(&reg);
    RT_CHECK_MSG(w.n == 64, "%d points", w.n);

    /* 32 variants: one per register_tile, shared by the two matrices' sweeps. */
    int distinct = 0;
    for (int i = 0; i < w.n; ++i) {
        int first = 1;
        for (int j = 0; j < i; ++j) {
            const int same_key = strcmp(w.key[i], w.key[j]) == 0;
            RT_CHECK(same_key == (w.register_tile[i] == w.register_tile[j]));
            first &= !same_key;
        }
        distinct += first;
    }
    RT_CHECK_MSG(distinct == 32, "%d distinct variants", distinct);

    /* Three of them compiled ahead by the pool: found done, then cache hits for the set-up. */
    rt_cuda_ahead *a = NULL;
    RT_CHECK_MSG(rt_cuda_ahead_create(2, &a, &err) == 0, "%s", err.msg);
    if (!a)
        return;
    static const int pick[] = {0, 15, 31}; /* register_tile 1, 16, 32 in the first sweep */
    for (int i = 0; i < 3; ++i)
        RT_CHECK_MSG(rt_cuda_ahead_submit(a, &w.req[pick[i]], &err) == 0, "%s", err.msg);
    /* The second sweep's point of the same variant is not queued again. */
    RT_CHECK(rt_cuda_ahead_submit(a, &w.req[32 + 15], &err) == 0);
    rt_cuda_ahead_drain(a);
    rt_cuda_ahead_stats st;
    rt_cuda_ahead_get_stats(a, &st);
    RT_CHECK_MSG(st.submitted == 3 && st.compiled == 3 && st.failed == 0, "%d %d %d", st.submitted,
                 st.compiled, st.failed);
    for (int i = 0; i < 3; ++i) {
        const rt_cuda_compile_request *r = &w.req[pick[i]];
        double ahead_s = 0, waited_s = 0;
        RT_CHECK(rt_cuda_ahead_claim(a, r, &ahead_s, &waited_s) == 1 && ahead_s > 0);
        rt_cuda_image hit, own;
        RT_CHECK_MSG(rt_cuda_compile(r, &hit, &err) == 0, "%s", err.msg);
        RT_CHECK_MSG(hit.from_cache, "register_tile %lld was not a cache hit",
                     (long long)w.register_tile[pick[i]]);
        rt_cuda_compile_request uncached = *r;
        uncached.cache_dir = NULL;
        RT_CHECK_MSG(rt_cuda_compile(&uncached, &own, &err) == 0, "%s", err.msg);
        RT_CHECK(own.size == hit.size && own.data && hit.data &&
                 memcmp(own.data, hit.data, own.size) == 0);
        rt_cuda_image_free(&hit);
        rt_cuda_image_free(&own);
    }
    /* A variant nobody queued is not the pool's. */
    double ahead_s = 1, waited_s = 1;
    RT_CHECK(rt_cuda_ahead_claim(a, &w.req[1], &ahead_s, &waited_s) == 0 && ahead_s == 0);
    rt_cuda_ahead_destroy(a);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s CONFIG SCRATCH_DIR\n", argv[0]);
        return 2;
    }
    char cache[4096];
    char *scratch_argv[] = {argv[0], argv[2]};
    const int bad = rt_test_scratch(2, scratch_argv, "tiled-ahead", cache, sizeof cache);
    if (bad)
        return bad;
    test_keys_and_pool(argv[1], cache);
    rt_test_remove_tree(cache);
    return RT_TEST_RESULT();
}
