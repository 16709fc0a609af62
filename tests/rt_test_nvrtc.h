/* rt_test_nvrtc: the NVRTC compile requests of the tests that compile kernel sources
 * (backends/cuda/rt_cuda_nvrtc.h). */
#ifndef RT_TEST_NVRTC_H
#define RT_TEST_NVRTC_H

#include "rt_cuda_nvrtc.h"

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
