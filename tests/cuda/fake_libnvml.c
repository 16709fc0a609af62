/* A stand-in libnvidia-ml for tests on machines without a GPU: one device, at PCI bus id
 * 0000:01:00.0, whose energy counter advances 1500 mJ per read; any other bus id is
 * NVML_ERROR_NOT_FOUND (6). Only the entry points rt_cuda_nvml.c looks up. */
#include <string.h>

typedef struct nvml_device *nvml_device;

static unsigned long long counter_mj = 1000000;
static struct nvml_device {
    int unused;
} the_device;

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, nvml_device *device);
int nvmlDeviceGetTotalEnergyConsumption(nvml_device device, unsigned long long *mj);
const char *nvmlErrorString(int r);

int nvmlInit_v2(void)
{
    return 0;
}

int nvmlShutdown(void)
{
    return 0;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, nvml_device *device)
{
    if (strcmp(bus, "0000:01:00.0") != 0)
        return 6;
    *device = &the_device;
    return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(nvml_device device, unsigned long long *mj)
{
    if (device != &the_device)
        return 2;
    counter_mj += 1500;
    *mj = counter_mj;
    return 0;
}

const char *nvmlErrorString(int r)
{
    return r == 6 ? "Not Found" : r == 2 ? "Invalid Argument" : "Unknown Error";
}
