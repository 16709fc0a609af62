#include "rt_cuda_catalog.h"

#include <string.h>

void rt_cuda_catalog_describe(const rt_cuda_catalog_entry *e, rt_kernel_desc *out)
{
    memset(out, 0, sizeof *out);
    out->name = e->name;
    out->family = e->family;
    out->backend = "cuda";
    out->summary = e->summary;
    out->params = e->params;
    out->n_params = e->n_params;
}

const rt_cuda_catalog_entry *rt_cuda_catalog_at(const rt_cuda_catalog_entry *table, int n,
                                                int index)
{
    if (!table || index < 0 || index >= n)
        return NULL;
    return &table[index];
}

const rt_cuda_catalog_entry *rt_cuda_catalog_find_in(const rt_cuda_catalog_entry *table, int n,
                                                     const char *name)
{
    if (!table || !name)
        return NULL;
    for (int i = 0; i < n; ++i)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}
