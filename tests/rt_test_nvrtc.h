/* rt_test_nvrtc: the NVRTC compile requests of the tests that compile kernel sources
 * (backends/cuda/rt_cuda_nvrtc.h). */
#ifndef RT_TEST_NVRTC_H
#define RT_TEST_NVRTC_H

#include "rt_cuda_nvrtc.h"

/* A small kernel: entry "tiny", SCALE a define. */
static const char rt_test_tiny_source[] = "#ifndef SCALE\n#define SCALE 1\n#endif\n"
                                          "extern \"C\" __global__ void tiny(float *x, int n) {\n"
                                          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                          "  if (i < n) x[i] *= SCALE;\n}\n";

/* A kernel whose unrolled loop of sines takes NVRTC about a second with HEAVY_N=40 (entry
 * "heavy"; the compile time grows with HEAVY_N). */
static const char rt_test_heavy_source[] =
    "#ifndef HEAVY_N\n#define HEAVY_N 40\n#endif\n"
    "extern \"C\" __global__ void heavy(float *x) {\n"
    "  float a = x[threadIdx.x];\n"
    "#pragma unroll\n"
    "  for (int i = 0; i < HEAVY_N; ++i) a = a * 1.0001f + sinf(a + i);\n"
    "  x[threadIdx.x] = a;\n}\n";

/* A request to compile source (named name in messages) with its n defines for entry on compute
 * capability 9.0, cached in cache_dir (NULL: not cached). */
static inline rt_cuda_compile_request rt_test_sm90_request(const char *name, const char *source,
                                                           const char *entry,
                                                           const char *const *defines, int n,
                                                           const char *cache_dir)
{
    const rt_cuda_compile_request req = {.source_name = name,
                                         .source = source,
                                         .defines = defines,
                                         .n_defines = n,
                                         .entry = entry,
                                         .cc_major = 9,
                                         .cc_minor = 0,
                                         .cache_dir = cache_dir};
    return req;
}

#endif
