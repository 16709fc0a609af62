#include "rt_kernels.h"

#include <stddef.h>

/* The family list is a build input: the project's kernels/rt_family_list.h, or a test build's
 * list with a family of its own (tests/family/). */
#ifndef RT_FAMILY_LIST_FILE
#define RT_FAMILY_LIST_FILE "rt_family_list.h"
#endif

/* Declarations of every family's entry points, generated from the family list. */
#define RT_FAMILY(f) int rt_##f##_register(rt_registry *reg, rt_err *err);
#define RT_FAMILY_CUDA(f)                                                                          \
    RT_FAMILY(f)                                                                                   \
    const rt_cuda_catalog_entry *rt_##f##_cuda_catalog(int *n);
#include RT_FAMILY_LIST_FILE
#undef RT_FAMILY
#undef RT_FAMILY_CUDA

typedef struct family_entry {
    const char *name;
    int (*register_builtin)(rt_registry *reg, rt_err *err);
    const rt_cuda_catalog_entry *(*cuda_catalog)(int *n); /* NULL: no CUDA kernels */
} family_entry;

static const family_entry families[] = {
#define RT_FAMILY(f)      {#f, rt_##f##_register, NULL},
#define RT_FAMILY_CUDA(f) {#f, rt_##f##_register, rt_##f##_cuda_catalog},
#include RT_FAMILY_LIST_FILE
#undef RT_FAMILY
#undef RT_FAMILY_CUDA
};

#define N_FAMILIES ((int)(sizeof families / sizeof families[0]))

int rt_kernels_register_builtin(rt_registry *reg, rt_err *err)
{
    if (!reg)
        return rt_err_set(err, "rt_kernels_register_builtin: no registry given");
    for (int i = 0; i < N_FAMILIES; ++i)
        if (families[i].register_builtin(reg, err) != 0)
            return rt_err_prefix(err, "registering the %s family", families[i].name);
    return 0;
}

int rt_kernels_cuda_count(void)
{
    int total = 0;
    for (int i = 0; i < N_FAMILIES; ++i) {
        int n = 0;
        if (families[i].cuda_catalog)
            families[i].cuda_catalog(&n);
        total += n;
    }
    return total;
}

const rt_cuda_catalog_entry *rt_kernels_cuda_entry(int index)
{
    if (index < 0)
        return NULL;
    for (int i = 0; i < N_FAMILIES; ++i) {
        int n = 0;
        const rt_cuda_catalog_entry *table =
            families[i].cuda_catalog ? families[i].cuda_catalog(&n) : NULL;
        if (index < n)
            return &table[index];
        index -= n;
    }
    return NULL;
}

const rt_cuda_catalog_entry *rt_kernels_cuda_find(const char *name)
{
    for (int i = 0; i < N_FAMILIES; ++i) {
        int n = 0;
        const rt_cuda_catalog_entry *table =
            families[i].cuda_catalog ? families[i].cuda_catalog(&n) : NULL;
        const rt_cuda_catalog_entry *e = rt_cuda_catalog_find_in(table, n, name);
        if (e)
            return e;
    }
    return NULL;
}
