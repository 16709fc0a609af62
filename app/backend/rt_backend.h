/* rt_backend: chooses the backend of this process. The CPU backend is always there; the CUDA
 * backend is a plugin (librooftune_cuda.so) opened only when libcuda.so.1 opens and reports a
 * device, so the rooftune binary never links the driver and starts on machines without one. */
#ifndef RT_BACKEND_H
#define RT_BACKEND_H

#include <stddef.h>

#include "rt_device.h"
#include "rt_error.h"
#include "rt_plugin.h"
#include "rt_registry.h"

typedef struct rt_backend {
    rt_device_info cpu; /* always filled */
    rt_device_info gpu; /* filled when cuda_loaded */
    int cuda_loaded;
    int gpu_count;         /* CUDA devices the driver reports (0 without one, or CUDA disabled) */
    char cuda_status[512]; /* why the CUDA backend is or is not active, for `list` and logs */
    void *plugin_handle;   /* dlopen handle */
    const rt_plugin_api *plugin;
    void *plugin_state;
} rt_backend;

typedef struct rt_backend_options {
    const char *plugin_dir; /* where librooftune_cuda.so lives; NULL: next to the executable */
    const char *cache_dir;  /* compiled-variant cache; NULL: default location */
    int local_rank;         /* picks the GPU: local_rank modulo device count */
    int disable_cuda;       /* 1: never try (ROOFTUNE_NO_CUDA=1 or --cpu) */
    int verbose;
} rt_backend_options;

/* Fills the CPU description, then tries the CUDA plugin; registers the CUDA kernels as
 * "unavailable" (with the reason) when it cannot be loaded, so they are still listed and
 * validated. Fails only on real errors (a plugin that exists but breaks while initialising). */
int rt_backend_open(rt_backend *be, const rt_backend_options *opt, rt_registry *reg, rt_err *err);
/* The CUDA devices the driver reports, without the plugin or a context (cuInit only): 0 without a
 * driver or device, or with CUDA disabled (disable_cuda, ROOFTUNE_NO_CUDA), why saying which.
 * What rt_backend_open finds as gpu_count; parallel tuning counts its workers' GPUs with it
 * before its own backend is open. */
int rt_backend_count_gpus(int disable_cuda, char *why, size_t whylen);
/* Releases the plugin and what rt_backend_open registered into reg. */
void rt_backend_close(rt_backend *be, rt_registry *reg);
/* The device kernels of a backend run on ("cpu" or "cuda"). */
const rt_device_info *rt_backend_device(const rt_backend *be, const char *backend_name);
/* Default cache directory: $ROOFTUNE_CACHE_DIR, $XDG_CACHE_HOME/rooftune or ~/.cache/rooftune. */
int rt_backend_default_cache_dir(char *buf, size_t len, rt_err *err);
/* Describes the host CPU (model, cores, last-level cache) in dev. */
void rt_backend_describe_cpu(rt_device_info *dev);

#endif
