/* rt_tma_race: see rt_tma_race.h. */
#include "rt_tma_race.h"

#include <stdio.h>
#include <string.h>

/* The control kernel's text as embedded (tests/cuda/CMakeLists.txt runs the plugin's embed step on
 * it into a header of its own: it is a test, not one of the plugin's kernels). */
#include "rt_tma_race_embedded.h"

static const char *const mode_names[RT_TMA_RACE_NMODES] = {"correct", "broken", "generic_mbar",
                                                           "generic_sync"};

const char *rt_tma_race_mode_name(int mode)
{
    return mode >= 0 && mode < RT_TMA_RACE_NMODES ? mode_names[mode] : NULL;
}

int rt_tma_race_mode_parse(const char *name, rt_tma_race_mode *mode, rt_err *err)
{
    for (int m = 0; m < RT_TMA_RACE_NMODES; ++m)
        if (name && strcmp(name, mode_names[m]) == 0) {
            *mode = (rt_tma_race_mode)m;
            return 0;
        }
    return rt_err_set(err,
                      "unknown mode '%s': the modes are correct, broken, generic_mbar and "
                      "generic_sync",
                      name ? name : "(none)");
}

int rt_tma_race_compile(rt_tma_race_mode mode, int cc_major, int cc_minor, rt_cuda_image *img,
                        rt_err *err)
{
    if (!rt_tma_race_mode_name((int)mode))
        return rt_err_set(err, "tma_race_control: mode %d is out of range", (int)mode);
    const char *source = NULL;
    const size_t n = sizeof rt_cuda_embedded_sources / sizeof rt_cuda_embedded_sources[0];
    for (size_t i = 0; i < n; ++i)
        if (strcmp(rt_cuda_embedded_sources[i].name, "tma_race_control.cu") == 0)
            source = rt_cuda_embedded_sources[i].text;
    if (!source)
        return rt_err_set(err, "tma_race_control.cu is not among the embedded sources");
    /* The geometry goes in as defines so that the kernel and the host's reference cannot disagree
     * (the kernel's #ifndef defaults are the same numbers, for nvcc syntax checks). */
    char text[4][RT_CUDA_DEFINE_MAX];
    snprintf(text[0], sizeof text[0], "RT_TMA_RACE_MODE=%d", (int)mode);
    snprintf(text[1], sizeof text[1], "N_BUFFERS=%d", RT_TMA_RACE_BUFFERS);
    snprintf(text[2], sizeof text[2], "CONSUMER_WARPS=%d", RT_TMA_RACE_CONSUMER_WARPS);
    snprintf(text[3], sizeof text[3], "ROW_WORDS=%d", RT_TMA_RACE_ROW_WORDS);
    const char *defines[4] = {text[0], text[1], text[2], text[3]};
    const rt_cuda_compile_request req = {.source_name = "tma_race_control.cu",
                                         .source = source,
                                         .defines = defines,
                                         .n_defines = 4,
                                         .entry = RT_TMA_RACE_ENTRY,
                                         .cc_major = cc_major,
                                         .cc_minor = cc_minor,
                                         .cache_dir = NULL};
    if (rt_cuda_compile(&req, img, err) != 0)
        return rt_err_prefix(err, "tma_race_control mode %s", rt_tma_race_mode_name((int)mode));
    return 0;
}

void rt_tma_race_fill(unsigned *src, size_t nwords)
{
    for (size_t i = 0; i < nwords; ++i) {
        /* A 32-bit mix of the index (splitmix-like): distinct stages give distinct sums. */
        unsigned x = (unsigned)i * 0x9e3779b9u + 0x7f4a7c15u;
        x ^= x >> 16;
        x *= 0x85ebca6bu;
        x ^= x >> 13;
        src[i] = x | 1u;
    }
}

void rt_tma_race_expect(const unsigned *src, int nblocks, int nstages, unsigned *sums)
{
    for (int b = 0; b < nblocks; ++b)
        for (int t = 0; t < RT_TMA_RACE_CONSUMER_THREADS; ++t) {
            unsigned sum = 0; /* wraps, as the kernel's does */
            for (int j = 0; j < nstages; ++j) {
                const unsigned *stage =
                    src + ((size_t)b * (size_t)nstages + (size_t)j) * RT_TMA_RACE_STAGE_WORDS;
                for (int w = t; w < RT_TMA_RACE_STAGE_WORDS; w += RT_TMA_RACE_CONSUMER_THREADS)
                    sum += stage[w];
            }
            sums[(size_t)b * RT_TMA_RACE_CONSUMER_THREADS + (size_t)t] = sum;
        }
}
