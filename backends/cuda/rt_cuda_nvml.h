/* rt_cuda_nvml: the device's energy counter through NVML (nvmlDeviceGetTotalEnergyConsumption:
 * millijoules since the driver loaded, Volta and newer), for energy as a second objective of
 * tuning. libnvidia-ml is opened with dlopen, so neither the plugin nor rooftune links it and a
 * host without it records the energy as unavailable with the reason. The device is found by its
 * PCI bus id, which NVML and CUDA number alike (their ordinals may differ).
 *
 * Needs no CUDA: tests load a stand-in library (lib_path) on machines without a GPU. */
#ifndef RT_CUDA_NVML_H
#define RT_CUDA_NVML_H

#include <stddef.h>

typedef struct rt_cuda_nvml rt_cuda_nvml;

/* Opens NVML (lib_path NULL: libnvidia-ml.so.1) and the device at pci_bus_id
 * ("0000:3B:00.0"). Returns 0, or -1 with *out NULL and why saying what failed (the library,
 * a symbol, nvmlInit, the device) in NVML's words. */
int rt_cuda_nvml_open(const char *lib_path, const char *pci_bus_id, rt_cuda_nvml **out, char *why,
                      size_t whylen);
/* The energy counter in joules. 0, or -1 with why (a GPU without the counter says
 * NVML_ERROR_NOT_SUPPORTED in NVML's words). */
int rt_cuda_nvml_energy(rt_cuda_nvml *n, double *joules, char *why, size_t whylen);
/* Shuts NVML down and closes the library; NULL is fine. */
void rt_cuda_nvml_close(rt_cuda_nvml *n);

#endif
