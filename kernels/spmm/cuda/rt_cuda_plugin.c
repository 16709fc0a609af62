/* rt_cuda_plugin: the entry point of librooftune_cuda.so (ABI in harness/backend/rt_plugin.h).
 *
 * init creates the CUDA context on the requested device and registers the CUDA SpMM kernels. The
 * "spmm" family is the main binary's: it is registered before the plugin is opened, so the plugin
 * adds kernels only. Kernels of other families (spdnn, dspmm, spmm2d, spgemm2d) are added when
 * the registry has their family. The descriptors live in the plugin state (they point back at the
 * context through backend_ctx), so they stay valid until fini. */
#include <stdlib.h>
#include <string.h>

#include "rt_cuda_ctx.h"
#include "rt_cuda_roofline.h"
#include "rt_plugin.h"
#include "spmm_cuda_catalog.h"
#include "spmm_cuda_csr.h"
#include "spmm_cuda_cusparse.h"
#include "spmm_cuda_ell.h"
#include "spmm_cuda_tiled.h"
#include "spdnn_cuda.h"
#include "dspmm_cuda_sender.h"
#include "spmm2d_cuda.h"

typedef struct cuda_plugin {
    rt_cuda_ctx *ctx;
    rt_kernel_desc kernels[RT_CUDA_CATALOG_COUNT];
} cuda_plugin;

static void plugin_fini(void *state)
{
    cuda_plugin *pl = state;
    if (!pl)
        return;
    rt_cuda_ctx_destroy(pl->ctx);
    free(pl);
}

static int plugin_init(const rt_plugin_options *opt, rt_registry *reg, rt_device_info *dev,
                       void **state, rt_err *err)
{
    *state = NULL;
    if (!opt || !reg || !dev)
        return rt_err_set(err, "CUDA plugin init called without options, registry or device");
    if (!rt_registry_find_family(reg, "spmm"))
        return rt_err_set(err, "CUDA plugin: the spmm family must be registered before the plugin "
                               "is initialised");
    for (int i = 0; i < RT_CUDA_CATALOG_COUNT; ++i)
        if (rt_registry_find_kernel(reg, rt_cuda_catalog_entry(i)->name))
            return rt_err_set(err,
                              "CUDA plugin: kernel %s is already registered (the unavailable "
                              "descriptors must not be registered when the plugin loads)",
                              rt_cuda_catalog_entry(i)->name);
    cuda_plugin *pl = calloc(1, sizeof *pl);
    if (!pl)
        return rt_err_set(err, "out of memory initialising the CUDA plugin");
    if (rt_cuda_ctx_create(opt->device_ordinal, opt->cache_dir, &pl->ctx, err) != 0) {
        free(pl);
        return -1;
    }
    rt_spmm_cuda_csr_describe(&pl->kernels[RT_SPMM_CUDA_KIND_CSR], pl->ctx);
    rt_spmm_cuda_ell_describe(&pl->kernels[RT_SPMM_CUDA_KIND_ELL], pl->ctx);
    rt_spmm_cuda_tiled_describe(&pl->kernels[RT_SPMM_CUDA_KIND_TILED], pl->ctx);
    rt_spmm_cuda_cusparse_describe(&pl->kernels[RT_SPMM_CUDA_KIND_CUSPARSE], pl->ctx);
    int n_kernels = RT_SPMM_CUDA_KIND_COUNT;
    for (int i = RT_SPMM_CUDA_KIND_COUNT; i < RT_CUDA_CATALOG_COUNT; ++i) {
        if (!rt_registry_find_family(reg, rt_cuda_catalog_entry(i)->family))
            continue;
        rt_kernel_desc *d = &pl->kernels[n_kernels++];
        if (i == RT_CUDA_CATALOG_SPDNN_FUSED)
            rt_spdnn_cuda_fused_describe(d, pl->ctx);
        else if (i == RT_CUDA_CATALOG_SPDNN_CUSPARSE)
            rt_spdnn_cuda_cusparse_describe(d, pl->ctx);
        else if (i == RT_CUDA_CATALOG_DSPMM_SENDER)
            rt_dspmm_cuda_sender_describe(d, pl->ctx);
        else
            rt_spmm2d_cuda_describe(i - RT_CUDA_CATALOG_SPMM2D_FIRST, d, pl->ctx);
    }
    const int first = reg->n_kernels;
    for (int i = 0; i < n_kernels; ++i)
        if (rt_registry_add_kernel(reg, &pl->kernels[i], err) != 0) {
            /* Leave the registry as it was: no pointer into the state freed below. */
            for (int j = first; j < reg->n_kernels; ++j)
                reg->kernels[j] = NULL;
            reg->n_kernels = first;
            plugin_fini(pl);
            return rt_err_prefix(err, "CUDA plugin");
        }
    *dev = *rt_cuda_ctx_device(pl->ctx);
    *state = pl;
    return 0;
}

static void plugin_stats(void *state, int *compiles, int *cache_hits)
{
    const cuda_plugin *pl = state;
    if (compiles)
        *compiles = 0;
    if (cache_hits)
        *cache_hits = 0;
    if (pl)
        rt_cuda_ctx_stats(pl->ctx, compiles, cache_hits);
}

static const rt_plugin_api plugin_api = {
    .abi_version = RT_PLUGIN_ABI_VERSION,
    .name = "cuda",
    .init = plugin_init,
    /* Counters (CUPTI) and the probe live with the roofline stage in roofline/cuda/ and are built
     * into this plugin. */
    .collect_counters = rt_cuda_collect_counters,
    .probe = rt_cuda_probe,
    .probe_devbuf = rt_cuda_probe_devbuf_ops,
    .stats = plugin_stats,
    .fini = plugin_fini,
};

__attribute__((visibility("default"))) const rt_plugin_api *rooftune_plugin_entry(void);

const rt_plugin_api *rooftune_plugin_entry(void)
{
    return &plugin_api;
}
