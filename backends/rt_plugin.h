/* rt_plugin: the ABI between rooftune and a backend plugin loaded with dlopen.
 *
 * The CUDA backend lives in librooftune_cuda.so so that the rooftune binary itself never links
 * libcuda or libcudart: on a machine with no driver the plugin is never opened and the CPU backend
 * runs everything. The loader (rt_backend.c) first checks that libcuda.so.1 opens and reports at
 * least one device, then opens the plugin, looks up `rooftune_plugin_entry` and calls init. */
#ifndef RT_PLUGIN_H
#define RT_PLUGIN_H

#include <stddef.h>

#include "rt_device.h"
#include "rt_error.h"
#include "rt_metrics.h"
#include "rt_registry.h"
#include "rt_timeline.h"

/* 2: set_compile_limit and energy; 3: the activity timeline; 4: compile ahead (set_compile_ahead,
 * ahead_stats, and rt_kernel_desc's compile_ahead hook, which changes the descriptors' layout) */
#define RT_PLUGIN_ABI_VERSION 4

typedef struct rt_plugin_options {
    int device_ordinal;    /* which GPU this rank uses (local rank modulo device count) */
    const char *cache_dir; /* where compiled variants are cached; NULL disables the cache */
    int verbose;
} rt_plugin_options;

/* What the compile-ahead pool did in a run (set_compile_ahead). */
typedef struct rt_plugin_ahead_stats {
    int submitted;    /* distinct variants queued */
    int compiled;     /* compiled by NVRTC on a pool thread */
    int cached;       /* already in the variant cache when their turn came */
    int failed;       /* failed or ran past the compile limit ahead (the point compiled again) */
    int dropped;      /* taken back by their point before a thread took them, or at the end */
    double compile_s; /* the pool's NVRTC time, summed over its threads */
} rt_plugin_ahead_stats;

/* Counters collected for one point in passes separate from the timed ones (CUPTI). */
typedef struct rt_plugin_api {
    int abi_version;  /* RT_PLUGIN_ABI_VERSION */
    const char *name; /* "cuda" */
    /* Selects the device, fills dev, registers the plugin's kernels (and families, if any) into
     * reg. *state is passed back to every other call. */
    int (*init)(const rt_plugin_options *opt, rt_registry *reg, rt_device_info *dev, void **state,
                rt_err *err);
    /* Optional: reads hardware counters of one execution of a prepared point (kernel state from
     * the kernel's setup) into m; counters it cannot read are recorded unavailable with the reason.
     */
    int (*collect_counters)(void *state, const rt_kernel_desc *k, void *kernel_state,
                            const char *const *names, int n_names, rt_metrics *m, rt_err *err);
    /* Optional: writes the device's measured ceilings (the probe) as YAML lines to a FILE*. */
    int (*probe)(void *state, void *file, rt_err *err);
    /* Optional: the device-buffer operations `rooftune probe` measures MPI between device buffers
     * with (a const rt_probe_devbuf_ops *, roofline/rt_probe.h); NULL when none. */
    const void *(*probe_devbuf)(void *state);
    /* Called once compile/cache statistics are wanted for the run summary. */
    void (*stats)(void *state, int *compiles, int *cache_hits);
    void (*fini)(void *state);
    /* Optional: NVRTC compiles longer than this many seconds are abandoned (0: no limit); the
     * point's setup then returns RT_TIMED_OUT (measure.compile_timeout_s). */
    void (*set_compile_limit)(void *state, double seconds);
    /* Optional: the device's energy counter in joules (measure.energy): 0, or -1 with why. */
    int (*energy)(void *state, double *joules, char *why, size_t whylen);
    /* Optional: the activity timeline (`rooftune run --timeline`, rt_timeline.h). timeline_start
     * begins recording every kernel execution and copy (host to device, device to host, within a
     * device, between devices) of every device this process uses, appending them to *into as
     * they complete; into must stay valid until timeline_stop, which waits for what is recorded,
     * stops recording and leaves into alone from then on. Both return 0, or -1 with err carrying
     * the tracer's (CUPTI's) reason; a failed start records nothing and needs no stop. */
    int (*timeline_start)(void *state, rt_timeline_list *into, rt_err *err);
    int (*timeline_stop)(void *state, rt_err *err);
    /* Optional: measure.compile_ahead. threads > 0 starts a pool of that many CPU threads that
     * compile kernel variants into the variant cache ahead of their points (the kernels'
     * compile_ahead hooks feed it; a point's setup then finds its variant compiled); 0 ends it.
     * 0, or -1 with why (no pool: every point compiles on its own path, as without it). */
    int (*set_compile_ahead)(void *state, int threads, rt_err *err);
    /* Optional: the pool's counts so far (all 0 without one). */
    void (*ahead_stats)(void *state, rt_plugin_ahead_stats *out);
} rt_plugin_api;

/* The one symbol a plugin exports. */
typedef const rt_plugin_api *(*rt_plugin_entry_fn)(void);
#define RT_PLUGIN_ENTRY_SYMBOL "rooftune_plugin_entry"

#endif
