/* spmm_cuda_catalog: names, summaries and parameter schemas of the CUDA SpMM kernels (and of
 * the CUDA kernels of other families built on them: spdnn).
 *
 * Plain C with no CUDA dependency, compiled into the main binary (through rt_kernels) and into
 * the CUDA plugin. The plugin registers the real kernels with these schemas; a host without a
 * GPU, a driver or the plugin registers the same descriptors as unavailable, so that `rooftune
 * list` and `validate` know every CUDA kernel and its parameters on any machine, and a config
 * written on a laptop is checked exactly as it will be on the GPU node. */
#ifndef SPMM_CUDA_CATALOG_H
#define SPMM_CUDA_CATALOG_H

#include "rt_error.h"
#include "rt_registry.h"

#define RT_SPMM_CUDA_CSR      "spmm.cuda.csr"
#define RT_SPMM_CUDA_ELL      "spmm.cuda.ell"
#define RT_SPMM_CUDA_TILED    "spmm.cuda.tiled"
#define RT_SPMM_CUDA_CUSPARSE "spmm.cuda.cusparse"

/* Index of each kernel in the catalog (stable: the plugin fills its descriptors in this order). */
typedef enum rt_spmm_cuda_kind {
    RT_SPMM_CUDA_KIND_CSR = 0,
    RT_SPMM_CUDA_KIND_ELL = 1,
    RT_SPMM_CUDA_KIND_TILED = 2,
    RT_SPMM_CUDA_KIND_CUSPARSE = 3,
    RT_SPMM_CUDA_KIND_COUNT = 4
} rt_spmm_cuda_kind;

/* CUDA kernels of other families share this catalog (so the same unavailable registration
 * covers them); they follow the spmm kernels, at these indices of rt_cuda_catalog_entry. The
 * distributed ones (dspmm, spmm2d, spgemm2d) are the CPU kernels' algorithms with GPU local work
 * and GPU transports (kernels/dspmm/cuda, kernels/spmm2d/cuda). */
#define RT_SPDNN_CUDA_FUSED    "spdnn.cuda.fused"
#define RT_SPDNN_CUDA_CUSPARSE "spdnn.cuda.cusparse"
#define RT_DSPMM_CUDA_SENDER   "dspmm.cuda.sender"
/* spmm2d.cuda.<variant> and spgemm2d.cuda.<variant>, in the order of the CPU kernels
 * (rt_spmm2d_kernels()): stationary_c, stationary_a, stationary_b, summa, summa_a, ws_random,
 * ws_locality, then spgemm2d stationary_c, stationary_a, summa. */
#define RT_SPMM2D_CUDA_COUNT 10
typedef enum rt_cuda_catalog_index {
    RT_CUDA_CATALOG_SPDNN_FUSED = RT_SPMM_CUDA_KIND_COUNT,
    RT_CUDA_CATALOG_SPDNN_CUSPARSE,
    RT_CUDA_CATALOG_DSPMM_SENDER,
    RT_CUDA_CATALOG_SPMM2D_FIRST,
    RT_CUDA_CATALOG_COUNT = RT_CUDA_CATALOG_SPMM2D_FIRST + RT_SPMM2D_CUDA_COUNT
} rt_cuda_catalog_index;

typedef struct rt_spmm_cuda_entry {
    const char *name;
    const char *summary;
    const rt_param_schema *params;
    int n_params;
    const char *family; /* "spmm", "spdnn", ... */
} rt_spmm_cuda_entry;

/* The entry of one spmm kernel; NULL for an out-of-range kind. */
const rt_spmm_cuda_entry *rt_spmm_cuda_catalog_at(int kind);
/* The entry of any family's kernel, 0 .. RT_CUDA_CATALOG_COUNT-1 (spmm's first, at their kind);
 * NULL outside. */
const rt_spmm_cuda_entry *rt_cuda_catalog_entry(int index);
/* The entry with this kernel name (any family), or NULL. */
const rt_spmm_cuda_entry *rt_spmm_cuda_catalog_find(const char *name);

/* Fills the descriptive fields of a kernel descriptor (name, the entry's family, backend "cuda",
 * summary, schema) and clears everything else (hooks, unavailable, backend_ctx). */
void rt_spmm_cuda_describe(const rt_spmm_cuda_entry *e, rt_kernel_desc *out);

/* Registers every CUDA kernel as unavailable for `reason` (copied), with hooks that fail with a
 * message naming the kernel and the reason. The "spmm" family must already be registered; the
 * kernels of other families are registered when their family is (a registry without the spdnn
 * family simply does not list spdnn kernels). On failure nothing stays registered. The
 * descriptors are heap-allocated: release them with rt_spmm_cuda_unregister_unavailable before
 * the registry goes away. */
int rt_spmm_cuda_register_unavailable(rt_registry *reg, const char *reason, rt_err *err);

/* Removes from reg the descriptors that rt_spmm_cuda_register_unavailable added and frees them;
 * other kernels keep their order. Does nothing when there are none. */
void rt_spmm_cuda_unregister_unavailable(rt_registry *reg);

#endif
