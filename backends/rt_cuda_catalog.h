/* rt_cuda_catalog: what the main binary knows of a CUDA kernel without CUDA: its name, family,
 * one-line summary and parameter schema.
 *
 * Each family with CUDA kernels keeps its own table of these entries (plain C, in the family's
 * folder), compiled into both the main binary and the CUDA plugin. The plugin turns an entry into
 * a runnable descriptor; a host without a GPU registers the same entries as unavailable, so `list`
 * and `validate` know every CUDA kernel and its parameters on any machine. */
#ifndef RT_CUDA_CATALOG_H
#define RT_CUDA_CATALOG_H

#include "rt_registry.h"

typedef struct rt_cuda_catalog_entry {
    const char *name;
    const char *summary;
    const rt_param_schema *params;
    int n_params;
    const char *family; /* "spmm", "spdnn", ... */
} rt_cuda_catalog_entry;

/* Fills the descriptive fields of a kernel descriptor (name, family, backend "cuda", summary,
 * schema) and clears everything else (hooks, unavailable, backend_ctx). */
void rt_cuda_catalog_describe(const rt_cuda_catalog_entry *e, rt_kernel_desc *out);

/* The entry of table[0..n) at index, or NULL outside. */
const rt_cuda_catalog_entry *rt_cuda_catalog_at(const rt_cuda_catalog_entry *table, int n,
                                                int index);

/* The entry of table[0..n) with this kernel name, or NULL. */
const rt_cuda_catalog_entry *rt_cuda_catalog_find_in(const rt_cuda_catalog_entry *table, int n,
                                                     const char *name);

#endif
