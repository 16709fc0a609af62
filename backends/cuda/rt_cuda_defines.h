/* rt_cuda_defines: a kernel variant as data, before any device is involved: its NVRTC defines,
 * what a point asks of it (rt_cuda_variant_request), and the compile request it becomes for one
 * device (rt_cuda_variant_compile_request). The point's set-up (rt_cuda_prepare_variant) and the
 * compile-ahead pool (rt_cuda_ctx_compile_ahead) both build their requests here, so a variant
 * compiled ahead has the cache key the set-up looks for.
 *
 * No driver and no context: tested on machines without a GPU. */
#ifndef RT_CUDA_DEFINES_H
#define RT_CUDA_DEFINES_H

#include <stddef.h>
#include <stdint.h>

#include "rt_cuda_nvrtc.h"

/* The NVRTC defines of one variant ("NAME=value"), built in place (at most RT_CUDA_MAX_DEFINES). */
typedef struct rt_cuda_defines {
    int n;
    char text[RT_CUDA_MAX_DEFINES][RT_CUDA_DEFINE_MAX];
    const char *list[RT_CUDA_MAX_DEFINES];
} rt_cuda_defines;

void rt_cuda_defines_init(rt_cuda_defines *d);
/* Appends NAME=value; one past RT_CUDA_MAX_DEFINES makes rt_cuda_prepare_variant (and a compile
 * ahead) fail. */
void rt_cuda_define_int(rt_cuda_defines *d, const char *name, long long value);

/* What a point asks of its compiled variant: the embedded source and entry point, the defines,
 * and the launch the variant must fit (rt_cuda_variant_fits). what names kernel and point. */
typedef struct rt_cuda_variant_request {
    const char *source_name; /* e.g. "spmm_csr.cu" (embedded in the plugin) */
    const char *entry;       /* e.g. "rt_spmm_csr" */
    const rt_cuda_defines *defines;
    int64_t block_size, register_tile;
    int allow_spills;
    size_t dynamic_shared;
    const char *what;
} rt_cuda_variant_request;

/* The device a variant is compiled for, and how: its compute capability, the variant cache
 * (NULL or "": none) and the compile time limit (0: none). */
typedef struct rt_cuda_target {
    int cc_major, cc_minor;
    const char *cache_dir;
    double time_limit_s;
} rt_cuda_target;

/* The compile request of entry `entry` of `source` (its text; source_name names it) with the
 * given defines for target t. out points into the arguments: they must outlive it. */
void rt_cuda_variant_compile_request(const rt_cuda_target *t, const char *source_name,
                                     const char *source, const char *const *defines, int n_defines,
                                     const char *entry, rt_cuda_compile_request *out);

#endif
