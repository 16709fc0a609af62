/* rt_kernels: the families built into rooftune, read from the family list (rt_family_list.h).
 *
 * The main binary registers every family and its CPU kernels with one call; the CUDA plugin
 * registers the CUDA kernels itself (kernels/rt_cuda_plugin.c), and the CUDA catalog below is what
 * both sides know of those kernels without a GPU. */
#ifndef RT_KERNELS_H
#define RT_KERNELS_H

#include "rt_cuda_catalog.h"
#include "rt_error.h"
#include "rt_registry.h"

/* Registers every built-in family and every CPU kernel into reg. Fails (err filled) when the
 * registry is full or a name is already taken. */
int rt_kernels_register_builtin(rt_registry *reg, rt_err *err);

/* The CUDA kernels of every family, in family-list order: their number, the i-th entry (NULL
 * outside 0 .. count-1), and the entry with a given name (NULL when none). */
int rt_kernels_cuda_count(void);
const rt_cuda_catalog_entry *rt_kernels_cuda_entry(int index);
const rt_cuda_catalog_entry *rt_kernels_cuda_find(const char *name);

#endif
