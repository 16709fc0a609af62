#define _GNU_SOURCE
#include "rt_backend.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_cuda_unavailable.h"
#include "rt_path.h"

int rt_backend_default_cache_dir(char *buf, size_t len, rt_err *err)
{
    const char *env = getenv("ROOFTUNE_CACHE_DIR");
    if (env && *env)
        return rt_path_format(buf, len, err, "%s", env) == 0
                   ? 0
                   : rt_err_prefix(err, "ROOFTUNE_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && *xdg)
        return rt_path_format(buf, len, err, "%s/rooftune", xdg) == 0
                   ? 0
                   : rt_err_prefix(err, "XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    return rt_path_format(buf, len, err, "%s/.cache/rooftune", home && *home ? home : "/tmp") == 0
               ? 0
               : rt_err_prefix(err, "HOME");
}

void rt_backend_describe_cpu(rt_device_info *dev)
{
    memset(dev, 0, sizeof *dev);
    snprintf(dev->backend, sizeof dev->backend, "cpu");
    snprintf(dev->name, sizeof dev->name, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                const char *colon = strchr(line, ':');
                if (colon) {
                    ++colon;
                    while (*colon == ' ')
                        ++colon;
                    snprintf(dev->name, sizeof dev->name, "%s", colon);
                    dev->name[strcspn(dev->name, "\n")] = '\0';
                }
                break;
            }
        }
        fclose(f);
    }
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    dev->sm_count = cores > 0 ? (int)cores : 1;
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0)
        llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
    dev->l2_bytes = llc > 0 ? llc : 0;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    dev->global_mem_bytes = (pages > 0 && page > 0) ? (int64_t)pages * page : 0;
    dev->warp_size = 1;
    dev->max_threads_per_block = dev->sm_count;
}

/* The driver check is done here, before the plugin is opened, because opening the plugin pulls in
 * libcudart and friends, which is pointless (and noisy) on a machine without a driver. */
static int cuda_device_count(char *why, size_t whylen)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, whylen, "no NVIDIA driver (libcuda.so.1 not found)");
        return 0;
    }
    typedef int (*init_fn)(unsigned int);
    typedef int (*count_fn)(int *);
    init_fn cu_init = (init_fn)dlsym(h, "cuInit");
    count_fn cu_count = (count_fn)dlsym(h, "cuDeviceGetCount");
    int n = 0;
    if (!cu_init || !cu_count) {
        snprintf(why, whylen, "libcuda.so.1 lacks cuInit/cuDeviceGetCount");
    } else {
        const int rc = cu_init(0);
        /* CUDA_ERROR_NO_DEVICE (100) is a host without a GPU, not a broken driver: the GPU tests
         * skip on "no CUDA device" and fail on anything else (tests/gpu/rt_gpu_gate.sh). */
        if (rc == 100)
            snprintf(why, whylen, "no CUDA device (cuInit error 100)");
        else if (rc != 0)
            snprintf(why, whylen, "the NVIDIA driver did not initialise (cuInit error %d)", rc);
        else if (cu_count(&n) != 0 || n <= 0) {
            snprintf(why, whylen, "the NVIDIA driver reports no CUDA device");
            n = 0;
        }
    }
    dlclose(h);
    return n;
}

static int plugin_path(const rt_backend_options *opt, char *buf, size_t len, rt_err *err)
{
    const char *env = getenv("ROOFTUNE_PLUGIN_DIR");
    if (opt->plugin_dir)
        return rt_path_format(buf, len, err, "%s/librooftune_cuda.so", opt->plugin_dir);
    if (env && *env)
        return rt_path_format(buf, len, err, "%s/librooftune_cuda.so", env) == 0
                   ? 0
                   : rt_err_prefix(err, "ROOFTUNE_PLUGIN_DIR");
    char exe[PATH_MAX];
    if (rt_path_exe_dir(exe, sizeof exe) == 0)
        return rt_path_format(buf, len, err, "%s/librooftune_cuda.so", exe);
    return rt_path_format(buf, len, err, "librooftune_cuda.so");
}

int rt_backend_count_gpus(int disable_cuda, char *why, size_t whylen)
{
    const char *no_cuda = getenv("ROOFTUNE_NO_CUDA");
    if (disable_cuda || (no_cuda && *no_cuda && strcmp(no_cuda, "0") != 0)) {
        snprintf(why, whylen, "CUDA disabled by request");
        return 0;
    }
    const int n = cuda_device_count(why, whylen);
    return n > 0 ? n : 0;
}

int rt_backend_open(rt_backend *be, const rt_backend_options *opt, rt_registry *reg, rt_err *err)
{
    memset(be, 0, sizeof *be);
    rt_backend_describe_cpu(&be->cpu);
    char why[400] = "";
    const int ndev = rt_backend_count_gpus(opt->disable_cuda, why, sizeof why);
    be->gpu_count = ndev;

    if (ndev > 0) {
        char path[PATH_MAX + 32];
        if (plugin_path(opt, path, sizeof path, err) != 0)
            return rt_err_prefix(err, "CUDA plugin");
        be->plugin_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!be->plugin_handle) {
            snprintf(why, sizeof why, "%d CUDA device(s) found but the plugin did not load: %s",
                     ndev, dlerror());
        } else {
            rt_plugin_entry_fn entry =
                (rt_plugin_entry_fn)dlsym(be->plugin_handle, RT_PLUGIN_ENTRY_SYMBOL);
            be->plugin = entry ? entry() : NULL;
            if (!be->plugin || be->plugin->abi_version != RT_PLUGIN_ABI_VERSION) {
                snprintf(why, sizeof why, "%s is not a rooftune plugin of ABI %d", path,
                         RT_PLUGIN_ABI_VERSION);
                dlclose(be->plugin_handle);
                be->plugin_handle = NULL;
                be->plugin = NULL;
            } else {
                char cache[PATH_MAX];
                const int cache_ok =
                    opt->cache_dir
                        ? rt_path_format(cache, sizeof cache, err, "%s", opt->cache_dir) == 0
                        : rt_backend_default_cache_dir(cache, sizeof cache, err) == 0;
                if (!cache_ok) {
                    dlclose(be->plugin_handle);
                    be->plugin_handle = NULL;
                    be->plugin = NULL;
                    return rt_err_prefix(err, "CUDA kernel cache");
                }
                rt_plugin_options popt = {.device_ordinal = opt->local_rank % ndev,
                                          .cache_dir = cache,
                                          .verbose = opt->verbose};
                if (be->plugin->init(&popt, reg, &be->gpu, &be->plugin_state, err) != 0) {
                    dlclose(be->plugin_handle);
                    be->plugin_handle = NULL;
                    be->plugin = NULL;
                    return rt_err_prefix(err, "CUDA backend (%s)", path);
                }
                be->cuda_loaded = 1;
                snprintf(be->cuda_status, sizeof be->cuda_status,
                         "CUDA backend active: %s (device %d of %d)", be->gpu.name,
                         popt.device_ordinal, ndev);
                return 0;
            }
        }
    }
    snprintf(be->cuda_status, sizeof be->cuda_status, "CUDA backend inactive: %s", why);
    if (rt_cuda_register_unavailable(reg, why, err) != 0)
        return -1;
    return 0;
}

void rt_backend_close(rt_backend *be, rt_registry *reg)
{
    /* The unavailable CUDA descriptors were allocated by the catalog for this registry. */
    if (reg && !be->cuda_loaded)
        rt_cuda_unregister_unavailable(reg);
    if (be->plugin && be->plugin->fini)
        be->plugin->fini(be->plugin_state);
    /* The plugin is deliberately not dlclose()d: CUDA libraries register atexit handlers that
     * would run after the code is unmapped. */
    be->plugin = NULL;
    be->plugin_state = NULL;
}

const rt_device_info *rt_backend_device(const rt_backend *be, const char *backend_name)
{
    if (backend_name && strcmp(backend_name, "cuda") == 0 && be->cuda_loaded)
        return &be->gpu;
    return &be->cpu;
}
