/* The NVRTC kernel sources as the plugin embeds them (backends/cuda/embed_sources.cmake: shared
 * device headers inlined), for tests that compile what the plugin compiles. Needs the generated
 * header: link the test with rt_cuda_embedded. */
#ifndef RT_TEST_EMBEDDED_H
#define RT_TEST_EMBEDDED_H

#include <string.h>

#include "rt_cuda_embedded.h"

/* The embedded text of the source named name ("spmm_tiled.cu"), NULL when there is none. */
static inline const char *rt_test_embedded_source(const char *name)
{
    const size_t n = sizeof rt_cuda_embedded_sources / sizeof rt_cuda_embedded_sources[0];
    for (size_t i = 0; i < n; ++i)
        if (strcmp(rt_cuda_embedded_sources[i].name, name) == 0)
            return rt_cuda_embedded_sources[i].text;
    return NULL;
}

#endif
