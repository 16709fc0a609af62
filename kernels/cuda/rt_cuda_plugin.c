/* rt_cuda_plugin: the entry point of librooftune_cuda.so (ABI in backends/rt_plugin.h).
 *
 * init creates the CUDA context on the requested device and turns every family's CUDA catalog
 * (kernels/rt_family_list.h) into runnable descriptors. The families are the main binary's: they
 * are registered before the plugin is opened, so the plugin adds kernels only, and only those of
 * families the registry has. The descriptors live in the plugin state (they point back at the
 * context through backend_ctx), so they stay valid until fini. */
#include <stdlib.h>
#include <string.h>

#include "rt_cuda_catalog.h"
#include "rt_cuda_ctx.h"
#include "rt_cuda_roofline.h"
#include "rt_cupti_timeline.h"
#include "rt_kernels.h"
#include "rt_plugin.h"

/* The family list is a build input: the project's kernels/rt_family_list.h, or a test build's
 * list with a family of its own (tests/family/). */
#ifndef RT_FAMILY_LIST_FILE
#define RT_FAMILY_LIST_FILE "rt_family_list.h"
#endif

/* Every family's CUDA entry points, declared from the family list. */
#define RT_FAMILY(f)
#define RT_FAMILY_CUDA(f)                                                                          \
    const rt_cuda_catalog_entry *rt_##f##_cuda_catalog(int *n);                                    \
    void rt_##f##_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx);
#include RT_FAMILY_LIST_FILE
#undef RT_FAMILY
#undef RT_FAMILY_CUDA

typedef struct cuda_family {
    const rt_cuda_catalog_entry *(*catalog)(int *n);
    void (*describe)(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx);
} cuda_family;

static const cuda_family cuda_families[] = {
#define RT_FAMILY(f)
#define RT_FAMILY_CUDA(f) {rt_##f##_cuda_catalog, rt_##f##_cuda_describe},
#include RT_FAMILY_LIST_FILE
#undef RT_FAMILY
#undef RT_FAMILY_CUDA
};

typedef struct cuda_plugin {
    rt_cuda_ctx *ctx;
    int n_kernels;
    rt_kernel_desc kernels[RT_REGISTRY_MAX_KERNELS];
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
    if (reg->n_families == 0)
        return rt_err_set(err, "CUDA plugin: the families must be registered before the plugin "
                               "is initialised");
    for (int i = 0; i < rt_kernels_cuda_count(); ++i)
        if (rt_registry_find_kernel(reg, rt_kernels_cuda_entry(i)->name))
            return rt_err_set(err,
                              "CUDA plugin: kernel %s is already registered (the unavailable "
                              "descriptors must not be registered when the plugin loads)",
                              rt_kernels_cuda_entry(i)->name);
    cuda_plugin *pl = calloc(1, sizeof *pl);
    if (!pl)
        return rt_err_set(err, "out of memory initialising the CUDA plugin");
    if (rt_cuda_ctx_create(opt->device_ordinal, opt->cache_dir, &pl->ctx, err) != 0) {
        free(pl);
        return -1;
    }
    const int n_fam = (int)(sizeof cuda_families / sizeof cuda_families[0]);
    for (int f = 0; f < n_fam; ++f) {
        int n = 0;
        const rt_cuda_catalog_entry *table = cuda_families[f].catalog(&n);
        for (int i = 0; i < n && pl->n_kernels < RT_REGISTRY_MAX_KERNELS; ++i) {
            if (!rt_registry_find_family(reg, table[i].family))
                continue;
            cuda_families[f].describe(i, &pl->kernels[pl->n_kernels++], pl->ctx);
        }
    }
    const int first = reg->n_kernels;
    for (int i = 0; i < pl->n_kernels; ++i)
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

static void plugin_set_compile_limit(void *state, double seconds)
{
    cuda_plugin *pl = state;
    if (pl)
        rt_cuda_ctx_set_compile_limit(pl->ctx, seconds);
}

static int plugin_set_compile_ahead(void *state, int threads, rt_err *err)
{
    cuda_plugin *pl = state;
    return rt_cuda_ctx_set_compile_ahead(pl->ctx, threads, err);
}

static void plugin_ahead_stats(void *state, rt_plugin_ahead_stats *out)
{
    const cuda_plugin *pl = state;
    rt_cuda_ahead_stats st;
    rt_cuda_ctx_ahead_stats(pl->ctx, &st);
    *out = (rt_plugin_ahead_stats){.submitted = st.submitted,
                                   .compiled = st.compiled,
                                   .cached = st.cached,
                                   .failed = st.failed,
                                   .dropped = st.dropped,
                                   .compile_s = st.compile_s};
}

static int plugin_energy(void *state, double *joules, char *why, size_t whylen)
{
    cuda_plugin *pl = state;
    return rt_cuda_ctx_energy(pl->ctx, joules, why, whylen);
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
    .set_compile_limit = plugin_set_compile_limit,
    .energy = plugin_energy,
    /* The activity timeline (CUPTI's activity API) lives beside the counters in roofline/cuda/. */
    .timeline_start = rt_cupti_timeline_start,
    .timeline_stop = rt_cupti_timeline_stop,
    .set_compile_ahead = plugin_set_compile_ahead,
    .ahead_stats = plugin_ahead_stats,
};

__attribute__((visibility("default"))) const rt_plugin_api *rooftune_plugin_entry(void);

const rt_plugin_api *rooftune_plugin_entry(void)
{
    return &plugin_api;
}
