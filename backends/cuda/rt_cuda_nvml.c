#define _POSIX_C_SOURCE 200809L
#include "rt_cuda_nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* NVML's C interface, the few entry points used here (nvml.h is not needed to build: the types
 * are an int return code and an opaque device handle). */
typedef int nvml_return;
typedef struct nvml_device *nvml_device;
enum { NVML_OK = 0 };

struct rt_cuda_nvml {
    void *lib;
    nvml_device device;
    nvml_return (*shutdown)(void);
    nvml_return (*energy)(nvml_device, unsigned long long *);
    const char *(*error_string)(nvml_return);
};

static const char *nvml_text(const rt_cuda_nvml *n, nvml_return r)
{
    const char *s = n->error_string ? n->error_string(r) : NULL;
    return s ? s : "unknown NVML error";
}

int rt_cuda_nvml_open(const char *lib_path, const char *pci_bus_id, rt_cuda_nvml **out, char *why,
                      size_t whylen)
{
    *out = NULL;
    const char *name = lib_path ? lib_path : "libnvidia-ml.so.1";
    rt_cuda_nvml *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(why, whylen, "out of memory opening NVML");
        return -1;
    }
    n->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        const char *e = dlerror();
        snprintf(why, whylen, "NVML (%s) cannot be opened: %s", name, e ? e : "unknown reason");
        free(n);
        return -1;
    }
    typedef nvml_return (*init_fn)(void);
    typedef nvml_return (*by_bus_fn)(const char *, nvml_device *);
    typedef nvml_return (*shutdown_fn)(void);
    typedef nvml_return (*energy_fn)(nvml_device, unsigned long long *);
    typedef const char *(*error_fn)(nvml_return);
    const init_fn init = (init_fn)dlsym(n->lib, "nvmlInit_v2");
    const by_bus_fn by_bus = (by_bus_fn)dlsym(n->lib, "nvmlDeviceGetHandleByPciBusId_v2");
    n->shutdown = (shutdown_fn)dlsym(n->lib, "nvmlShutdown");
    n->energy = (energy_fn)dlsym(n->lib, "nvmlDeviceGetTotalEnergyConsumption");
    n->error_string = (error_fn)dlsym(n->lib, "nvmlErrorString");
    if (!init || !by_bus || !n->shutdown || !n->energy) {
        snprintf(why, whylen,
                 "%s lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2, "
                 "nvmlShutdown or nvmlDeviceGetTotalEnergyConsumption",
                 name);
        dlclose(n->lib);
        free(n);
        return -1;
    }
    nvml_return r = init();
    if (r != NVML_OK) {
        snprintf(why, whylen, "nvmlInit failed: %s", nvml_text(n, r));
        dlclose(n->lib);
        free(n);
        return -1;
    }
    r = by_bus(pci_bus_id, &n->device);
    if (r != NVML_OK) {
        snprintf(why, whylen, "NVML has no device at PCI bus id %s: %s", pci_bus_id,
                 nvml_text(n, r));
        rt_cuda_nvml_close(n);
        return -1;
    }
    *out = n;
    return 0;
}

int rt_cuda_nvml_energy(rt_cuda_nvml *n, double *joules, char *why, size_t whylen)
{
    unsigned long long mj = 0;
    const nvml_return r = n->energy(n->device, &mj);
    if (r != NVML_OK) {
        snprintf(why, whylen, "nvmlDeviceGetTotalEnergyConsumption failed: %s", nvml_text(n, r));
        return -1;
    }
    *joules = (double)mj * 1e-3;
    return 0;
}

void rt_cuda_nvml_close(rt_cuda_nvml *n)
{
    if (!n)
        return;
    n->shutdown();
    dlclose(n->lib);
    free(n);
}
