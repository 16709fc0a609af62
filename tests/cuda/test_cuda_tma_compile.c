/* spmm.cuda.tiled_tma's device code through NVRTC for compute capability 9.0, without a GPU: the
 * embedded source (shared headers inlined, as the plugin compiles it) with the define sets of the
 * GPU smoke test, the sanitizer config and the Hopper bar (configs/paper/hopper-bar.yaml), every
 * flag on and off, both precisions and stagings. A define set that does not compile fails here,
 * not on the GPU host. The defines are those spmm_cuda_tiled_tma.c passes. */
#include <stdio.h>
#include <string.h>

#include "rt_cuda_nvrtc.h"
#include "rt_test.h"
#include "rt_test_nvrtc.h"
#include "rt_test_embedded.h"

typedef struct tma_set {
    int fp64, block, reg, min_blocks, ell, index_bytes, unroll, buffers, producer, merge, skew,
        c_bulk, interleave, ntiles;
} tma_set;

static const tma_set sets[] = {
    /* fp64 blk reg minb ell idx unr buf pro mrg skw cb  il  nt */
    {0, 256, 8, 1, 1, 2, 4, 3, 1, 0, 0, 0, 0, 1},   /* the defaults */
    {0, 256, 32, 1, 1, 2, 4, 3, 1, 1, 1, 1, 0, 1},  /* K = 32: whole rows, merged, bulk C */
    {0, 256, 32, 1, 1, 2, 2, 2, 0, 1, 1, 0, 0, 1},  /* no producer warp */
    {0, 512, 16, 2, 1, 2, 4, 2, 1, 0, 1, 0, 1, 2},  /* interleaved tiles, K = 32 */
    {0, 512, 32, 2, 1, 2, 2, 2, 1, 0, 1, 1, 1, 4},  /* interleaved tiles, K = 128, bulk C */
    {0, 128, 128, 1, 1, 2, 2, 3, 1, 1, 1, 1, 0, 1}, /* K = 128 whole rows */
    {0, 96, 4, 1, 0, 4, 1, 1, 0, 0, 0, 0, 0, 1},    /* CSR, one buffer, 4-byte indices */
    {0, 64, 8, 1, 0, 2, 8, 4, 1, 0, 1, 1, 1, 3},    /* CSR, four buffers, interleaved */
    {1, 256, 8, 1, 1, 2, 4, 3, 1, 0, 1, 1, 0, 1},   /* fp64 */
    {1, 128, 2, 1, 0, 4, 4, 2, 0, 0, 0, 1, 0, 1},   /* fp64, one chunk, bulk C per row */
    {1, 256, 32, 1, 1, 2, 2, 2, 1, 1, 1, 0, 0, 1},  /* fp64 whole rows, merged */
    {0, 1024, 8, 1, 1, 2, 4, 2, 0, 0, 1, 0, 0, 1},  /* 1024 consumers, no producer */
    {0, 992, 8, 1, 1, 2, 4, 2, 1, 0, 1, 1, 0, 1},   /* 992 + 32 */
};

static void compile_set(const tma_set *s, const char *source)
{
    /* The defines in this order; NTILES only with interleaved tiles. */
    const struct {
        const char *name;
        int value;
    } values[] = {{"RT_FP64", s->fp64},
                  {"RT_ROW_MAJOR", 1},
                  {"BLOCK_SIZE", s->block},
                  {"REGISTER", s->reg},
                  {"MIN_BLOCKS", s->min_blocks},
                  {"STAGING_ELL", s->ell},
                  {"INDEX_BYTES", s->index_bytes},
                  {"NNZ_UNROLL", s->unroll},
                  {"N_BUFFERS", s->buffers},
                  {"PRODUCER", s->producer},
                  {"MERGE_RUNS", s->merge},
                  {"SKEW", s->skew},
                  {"C_BULK", s->c_bulk},
                  {"TILE_INTERLEAVE", s->interleave},
                  {"NTILES", s->ntiles}};
    const int n = (int)(sizeof values / sizeof values[0]) - (s->interleave ? 0 : 1);
    char text[16][RT_CUDA_DEFINE_MAX];
    const char *defs[16];
    for (int i = 0; i < n; ++i) {
        snprintf(text[i], sizeof text[i], "%s=%d", values[i].name, values[i].value);
        defs[i] = text[i];
    }
    const rt_cuda_compile_request req =
        rt_test_sm90_request("spmm_tiled_tma.cu", source, "rt_spmm_tiled_tma", defs, n, NULL);
    rt_cuda_image img;
    rt_err err;
    const int rc = rt_cuda_compile(&req, &img, &err);
    RT_CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc == 0) {
        RT_CHECK(img.size > 0 && !img.is_ptx && strcmp(img.arch, "sm_90") == 0);
        rt_cuda_image_free(&img);
    }
}

int main(void)
{
    const char *source = rt_test_embedded_source("spmm_tiled_tma.cu");
    RT_CHECK(source != NULL);
    if (!source)
        return RT_TEST_RESULT();
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; ++i)
        compile_set(&sets[i], source);
    printf("%zu define sets of spmm_tiled_tma.cu compiled for sm_90\n",
           sizeof sets / sizeof sets[0]);
    return RT_TEST_RESULT();
}
