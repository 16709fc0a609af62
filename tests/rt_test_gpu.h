/* rt_test_gpu: for the GPU tests that talk to the CUDA plugin through dlopen (they link no CUDA
 * library, so they start, and skip, without a driver). */
#ifndef RT_TEST_GPU_H
#define RT_TEST_GPU_H

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "rt_plugin.h"

/* The number of CUDA devices the driver reports, 0 (saying why) when there is no driver or no
 * device: the test then exits 77 (ctest SKIP). */
static inline int rt_test_device_count(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("SKIP: no NVIDIA driver (libcuda.so.1 does not open)\n");
        return 0;
    }
    typedef int (*init_fn)(unsigned);
    typedef int (*count_fn)(int *);
    init_fn cu_init = (init_fn)dlsym(h, "cuInit");
    count_fn cu_count = (count_fn)dlsym(h, "cuDeviceGetCount");
    int n = 0;
    if (!cu_init || !cu_count || cu_init(0) != 0 || cu_count(&n) != 0)
        n = 0;
    dlclose(h);
    if (n <= 0)
        printf("SKIP: the NVIDIA driver reports no CUDA device\n");
    return n;
}

/* The CUDA plugin's API for a test run as `test <librooftune_cuda.so> <cache dir>`: NULL when the
 * test cannot go on, *status then its exit status (2 usage, 77 no device, 1 the plugin does not
 * load or is not the CUDA plugin of this ABI, saying why). The plugin stays loaded. */
static inline const rt_plugin_api *rt_test_plugin_open(int argc, char **argv, int *status)
{
    *status = 1;
    if (argc != 3) {
        fprintf(stderr, "usage: %s <librooftune_cuda.so> <cache dir>\n", argv[0]);
        *status = 2;
        return NULL;
    }
    if (rt_test_device_count() <= 0) {
        *status = 77;
        return NULL;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "FAIL: the plugin does not load: %s\n", dlerror());
        return NULL;
    }
    rt_plugin_entry_fn entry = (rt_plugin_entry_fn)dlsym(h, RT_PLUGIN_ENTRY_SYMBOL);
    const rt_plugin_api *api = entry ? entry() : NULL;
    if (!api || api->abi_version != RT_PLUGIN_ABI_VERSION || strcmp(api->name, "cuda") != 0) {
        fprintf(stderr, "FAIL: %s has no CUDA plugin entry of ABI %d\n", argv[1],
                RT_PLUGIN_ABI_VERSION);
        return NULL;
    }
    return api;
}

#endif
