/* The spdnn kernel sources through NVRTC, as the plugin compiles them (not nvcc: the options
 * differ): the embedded texts, shared device headers inlined, with the define sets the kernels
 * use, for sm_90. Needs NVRTC only, no GPU.
 *   test_spdnn_nvrtc */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cuda_nvrtc.h"
#include "rt_test.h"
#include "rt_test_embedded.h"
#include "rt_test_nvrtc.h"

static int compile(const char *file, const char *text, const char *entry, const char **defs, int n,
                   rt_err *err)
{
    const rt_cuda_compile_request req = rt_test_sm90_request(file, text, entry, defs, n, NULL);
    rt_cuda_image img;
    if (rt_cuda_compile(&req, &img, err) != 0)
        return -1;
    rt_cuda_image_free(&img);
    return 0;
}

int main(int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        fprintf(stderr, "usage: test_spdnn_nvrtc\n");
        return 2;
    }
    const char *fused = rt_test_embedded_source("spdnn_fused.cu");
    const char *ops = rt_test_embedded_source("spdnn_ops.cu");
    RT_CHECK(fused && ops);
    if (!fused || !ops)
        return 1;
    /* The embed step put the shared headers in place of their #include lines. */
    RT_CHECK(strstr(fused, "#include \"rt_") == NULL);
    RT_CHECK(strstr(fused, "#line 1 \"rt_async_copy.cuh\"") != NULL);
    RT_CHECK(strstr(fused, "rt_swizzled_chunk(int slot, int q)") != NULL);
    rt_err err;
    static const struct {
        int block, reg, min_blocks, ell, index, slot_major, buffers;
    } variants[] = {{1024, 8, 1, 1, 2, 0, 1},
                    {1024, 32, 1, 1, 2, 0, 1},
                    {1024, 16, 1, 0, 4, 0, 1},
                    {256, 1, 0, 1, 2, 0, 1},
                    {96, 3, 2, 0, 2, 0, 1},
                    {1024, 64, 1, 1, 4, 0, 1},
                    {1024, 16, 1, 1, 2, 1, 1},
                    {256, 4, 0, 0, 4, 1, 1},
                    {1024, 32, 1, 1, 2, 1, 1},
                    /* cp.async rings and XOR-swizzled slot rows (the shared device headers) */
                    {512, 8, 2, 1, 2, 0, 2},
                    {512, 16, 2, 1, 2, 1, 3},
                    {512, 4, 2, 1, 2, 2, 1},
                    {512, 8, 2, 1, 4, 2, 2},
                    {256, 32, 2, 1, 2, 2, 3},
                    {512, 64, 1, 1, 2, 2, 2}};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; ++v) {
        char d[7][RT_CUDA_DEFINE_MAX];
        snprintf(d[0], sizeof d[0], "BLOCK_SIZE=%d", variants[v].block);
        snprintf(d[1], sizeof d[1], "REGISTER=%d", variants[v].reg);
        snprintf(d[2], sizeof d[2], "MIN_BLOCKS=%d", variants[v].min_blocks);
        snprintf(d[3], sizeof d[3], "STAGING_ELL=%d", variants[v].ell);
        snprintf(d[4], sizeof d[4], "INDEX_BYTES=%d", variants[v].index);
        snprintf(d[5], sizeof d[5], "SLOT_MAJOR=%d", variants[v].slot_major);
        snprintf(d[6], sizeof d[6], "N_BUFFERS=%d", variants[v].buffers);
        const char *defs[7] = {d[0], d[1], d[2], d[3], d[4], d[5], d[6]};
        RT_CHECK_MSG(compile("spdnn_fused.cu", fused, "rt_spdnn_fused", defs, 7, &err) == 0,
                     "variant %zu: %s", v, err.msg);
    }
    /* Warp votes need whole warps: the source refuses other block sizes itself. */
    const char *bad[] = {"BLOCK_SIZE=48"};
    RT_CHECK(compile("spdnn_fused.cu", fused, "rt_spdnn_fused", bad, 1, &err) != 0 &&
             rt_test_contains(err.msg, "multiple of the warp size"));
    /* Slot rows are read as float4: a register tile of 6 features is refused by the source. */
    const char *bad_slot[] = {"REGISTER=6", "SLOT_MAJOR=1"};
    RT_CHECK(compile("spdnn_fused.cu", fused, "rt_spdnn_fused", bad_slot, 2, &err) != 0 &&
             rt_test_contains(err.msg, "multiple of 4"));
    const char *entries[] = {"rt_spdnn_flag_count", "rt_spdnn_compact", "rt_spdnn_bias_relu",
                             "rt_spdnn_gather"};
    const char *scan[] = {"SCAN_BLOCK=1024"};
    for (int e = 0; e < 4; ++e)
        RT_CHECK_MSG(compile("spdnn_ops.cu", ops, entries[e], scan, 1, &err) == 0, "%s: %s",
                     entries[e], err.msg);
    const char *bad_scan[] = {"SCAN_BLOCK=100"};
    RT_CHECK(compile("spdnn_ops.cu", ops, "rt_spdnn_compact", bad_scan, 1, &err) != 0);
    return RT_TEST_RESULT();
}
