/* rt_energy: the energy counter of the device a kernel runs on, for energy as a second objective
 * of tuning (measure.energy). A CUDA kernel's is its GPU's total-energy counter through the
 * plugin (NVML, backends/cuda/rt_cuda_nvml.h); a CPU kernel's is the package counter of Linux's
 * powercap interface (RAPL: <root>/intel-rapl:0/energy_uj, microjoules, AMD's too on recent
 * kernels), where root is $ROOFTUNE_POWERCAP (tests) or /sys/class/powercap. A counter that
 * cannot be read says why; nothing is estimated. */
#ifndef RT_ENERGY_H
#define RT_ENERGY_H

#include <stddef.h>

#include "rt_backend.h"

/* The counter of backend ("cpu" or "cuda") in joules: 0, or -1 with why. */
int rt_energy_read(const rt_backend *be, const char *backend, double *joules, char *why,
                   size_t whylen);

#endif
