/* rt_cpu_kernel: the descriptor of a CPU kernel in one expression, so that every family's CPU
 * kernels are declared alike: name, family, summary, parameter schema (an array: its length is
 * taken from it) and the hooks. CPU kernels leave flush NULL (the runner flushes host caches
 * itself) and have no backend context. */
#ifndef RT_CPU_KERNEL_H
#define RT_CPU_KERNEL_H

#include "rt_registry.h"

#define RT_CPU_KERNEL(kname, fam, text, schema, check_, setup_, run_, output_, metrics_,           \
                      teardown_, traffic_)                                                         \
    {                                                                                              \
        .name = kname, .family = fam, .backend = "cpu", .summary = text, .params = schema,         \
        .n_params = (int)(sizeof schema / sizeof schema[0]), .check = check_, .setup = setup_,     \
        .run = run_, .output = output_, .metrics = metrics_, .teardown = teardown_,                \
        .traffic = traffic_,                                                                       \
    }

#endif
