#include "rt_cuda_defines.h"

#include <stdio.h>

void rt_cuda_defines_init(rt_cuda_defines *d)
{
    d->n = 0;
}

void rt_cuda_define_int(rt_cuda_defines *d, const char *name, long long value)
{
    if (d->n >= RT_CUDA_MAX_DEFINES) {
        d->n = RT_CUDA_MAX_DEFINES + 1; /* one too many: rt_cuda_prepare_variant refuses */
        return;
    }
    snprintf(d->text[d->n], sizeof d->text[d->n], "%s=%lld", name, value);
    d->list[d->n] = d->text[d->n];
    d->n++;
}

void rt_cuda_variant_compile_request(const rt_cuda_target *t, const char *source_name,
                                     const char *source, const char *const *defines, int n_defines,
                                     const char *entry, rt_cuda_compile_request *out)
{
    *out = (rt_cuda_compile_request){.source_name = source_name,
                                     .source = source,
                                     .defines = defines,
                                     .n_defines = n_defines,
                                     .entry = entry,
                                     .cc_major = t->cc_major,
                                     .cc_minor = t->cc_minor,
                                     .cache_dir =
                                         t->cache_dir && t->cache_dir[0] ? t->cache_dir : NULL,
                                     .time_limit_s = t->time_limit_s};
}
