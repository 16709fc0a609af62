/* A small registry for the config tests: one fake family and two fake kernels, so the checks
 * that need a registry run without the real kernels (and without a GPU). */
#ifndef TEST_CONFIG_REGISTRY_H
#define TEST_CONFIG_REGISTRY_H

#include "rt_fake_kernel.h"
#include "rt_registry.h"

static const rt_param_schema fake_problem_params[] = {
    {"K", RT_V_INT, "1..4096", "32", 0, "dense columns"},
    {"precision", RT_V_STR, "fp32|fp64", "fp32", 0, "arithmetic"},
};
static const rt_family_desc fake_family = {
    .name = "fakefam",
    .summary = "a family for tests",
    .problem_params = fake_problem_params,
    .n_problem_params = 2,
};
static const rt_param_schema fake_tiled_params[] = {
    {"row_block", RT_V_INT, "1..1024", "64", 0, "rows per block"},
    {"col_block", RT_V_INT, "1..64", "8", 0, "columns per block"},
    {"variant", RT_V_STR, "a|b", "a", 1, "code variant"},
};
static const rt_kernel_desc fake_tiled = {
    RT_FAKE_KERNEL("fake.cpu.tiled", "fakefam", fake_tiled_params), .summary = "tiled"};
static const rt_kernel_desc fake_basic = {.name = "fake.cpu.basic",
                                          .family = "fakefam",
                                          .backend = "cpu",
                                          .summary = "basic",
                                          RT_FAKE_KERNEL_HOOKS};

/* 0 on success. */
static int test_registry_init(rt_registry *reg, rt_err *err)
{
    rt_registry_init(reg);
    if (rt_registry_add_family(reg, &fake_family, err) != 0 ||
        rt_registry_add_kernel(reg, &fake_tiled, err) != 0 ||
        rt_registry_add_kernel(reg, &fake_basic, err) != 0)
        return -1;
    return 0;
}

#endif
