/* spmm.cuda.tiled_pipe's thread-block cluster variants (CLUSTER 2, 4, 8) through NVRTC for compute
 * capability 9.0, without a GPU: the embedded source (shared headers inlined, as the plugin
 * compiles it) with the define sets of the GPU smoke test's cluster points, the sanitizer config
 * (configs/gpu-sanitize-cluster.yaml) and the measurement (configs/tune/tiled-cluster.yaml): both
 * layouts and precisions, ELL and CSR, the stage split, interleaved tiles, the warp mapping,
 * 16-byte copies and swizzled stages. Each set lists the defines spmm_cuda_tiled_pipe.c passes, in
 * its order (CLUSTER last, and only above 1). A set that does not compile fails here, not on the
 * GPU host; CLUSTER 3 must not compile (the kernel's own check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cuda_nvrtc.h"
#include "rt_test.h"
#include "rt_test_embedded.h"
#include "rt_test_nvrtc.h"

/* RT_FP64 RT_ROW_MAJOR BLOCK_SIZE REGISTER MIN_BLOCKS STAGING_ELL INDEX_BYTES NNZ_UNROLL N_BUFFERS
 * STAGE_SPLIT VECTOR WARP_ROWS LANE_VALUES SKEW SWIZZLE TILE_INTERLEAVE [NTILES] CLUSTER */
static const char *const sets[] = {
    /* the measurement's shapes: 512 threads, 2 blocks per SM, one 113 KiB buffer, tiles of 16 */
    "0 1 512 16 2 1 2 4 1 1 1 0 1 0 1 1 2 2", /* row-major swizzled, K = 32, cluster 2 */
    "0 1 512 16 2 1 2 4 1 1 1 0 1 0 1 1 8 4", /* row-major swizzled, K = 128, cluster 4 */
    "0 0 512 16 2 1 2 4 1 1 0 0 1 0 0 1 2 4", /* column-major, K = 32, cluster 4 */
    "0 0 512 16 2 1 2 4 1 1 0 0 1 0 0 1 8 2", /* column-major, K = 128, cluster 2 */
    /* the smoke test's and the sanitizer config's */
    "0 1 1024 8 1 1 2 4 2 1 0 0 1 0 0 0 2",  /* the defaults, cluster 2 */
    "0 0 64 4 2 0 4 4 3 1 0 0 1 0 0 0 4",    /* CSR, three buffers */
    "1 1 128 16 1 1 2 1 2 3 0 0 1 0 0 0 8",  /* fp64, stage split */
    "1 0 96 5 1 0 2 4 1 8 0 0 1 0 0 0 2",    /* fp64 column-major CSR, one buffer */
    "0 0 128 4 1 1 2 4 2 3 0 0 1 0 0 1 9 4", /* interleaved, K = 33 */
    "0 1 96 5 1 0 2 4 1 1 0 0 1 0 0 1 7 8",  /* interleaved CSR, K = 33 */
    "0 1 64 32 1 0 2 4 2 1 0 2 2 0 0 0 2",   /* the warp mapping */
    "1 0 64 32 1 0 2 4 2 1 0 2 2 0 0 0 4",   /* the warp mapping, fp64 column-major */
    "0 1 128 8 1 1 2 4 3 1 2 0 1 0 0 0 4",   /* 16-byte copies and stores of C */
    "1 1 64 8 1 1 2 4 2 3 1 0 1 0 1 1 4 2",  /* fp64 swizzled, interleaved */
    "0 1 256 32 1 1 2 4 2 1 1 0 1 1 0 0 8",  /* skewed reads */
};

static const char *const names[] = {
    "RT_FP64",     "RT_ROW_MAJOR", "BLOCK_SIZE", "REGISTER",        "MIN_BLOCKS", "STAGING_ELL",
    "INDEX_BYTES", "NNZ_UNROLL",   "N_BUFFERS",  "STAGE_SPLIT",     "VECTOR",     "WARP_ROWS",
    "LANE_VALUES", "SKEW",         "SWIZZLE",    "TILE_INTERLEAVE", "NTILES",     "CLUSTER"};

/* Compiles the set's defines; returns rt_cuda_compile's code (err filled on failure). */
static int compile_set(const char *set, const char *source, rt_err *err)
{
    int v[18], n = 0;
    const char *at = set;
    while (n < 18) {
        char *end;
        const long x = strtol(at, &end, 10);
        if (end == at)
            break;
        v[n++] = (int)x;
        at = end;
    }
    /* 17 values: no NTILES (TILE_INTERLEAVE 0), the last is CLUSTER; 18: NTILES then CLUSTER. */
    RT_CHECK_MSG((n == 17 && v[15] == 0) || (n == 18 && v[15] == 1), "set '%s': %d values", set, n);
    char text[18][RT_CUDA_DEFINE_MAX];
    const char *defs[18];
    for (int i = 0; i < n; ++i) {
        const char *name = (n == 17 && i == 16) ? "CLUSTER" : names[i];
        snprintf(text[i], sizeof text[i], "%s=%d", name, v[i]);
        defs[i] = text[i];
    }
    const rt_cuda_compile_request req =
        rt_test_sm90_request("spmm_tiled_pipe.cu", source, "rt_spmm_tiled_pipe", defs, n, NULL);
    rt_cuda_image img;
    const int rc = rt_cuda_compile(&req, &img, err);
    if (rc == 0) {
        RT_CHECK(img.size > 0 && !img.is_ptx && strcmp(img.arch, "sm_90") == 0);
        rt_cuda_image_free(&img);
    }
    return rc;
}

int main(void)
{
    const char *source = rt_test_embedded_source("spmm_tiled_pipe.cu");
    RT_CHECK(source != NULL);
    if (!source)
        return RT_TEST_RESULT();
    rt_err err;
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; ++i)
        RT_CHECK_MSG(compile_set(sets[i], source, &err) == 0, "set '%s': %s", sets[i], err.msg);
    /* The kernel refuses a cluster size it was not written for. */
    RT_CHECK(compile_set("0 1 1024 8 1 1 2 4 2 1 0 0 1 0 0 0 3", source, &err) != 0);
    RT_CHECK_MSG(strstr(err.msg, "CLUSTER") != NULL, "CLUSTER=3: %s", err.msg);
    printf("%zu cluster define sets of spmm_tiled_pipe.cu compiled for sm_90, CLUSTER=3 refused\n",
           sizeof sets / sizeof sets[0]);
    return RT_TEST_RESULT();
}
