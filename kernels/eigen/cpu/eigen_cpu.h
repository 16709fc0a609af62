/* eigen_cpu: the CPU kernels eigen.cpu.lobpcg and eigen.cpu.lanczos: the out-of-core solvers on
 * the host-memory device, with the tile size, the schedule and the device budget as parameters,
 * so CI measures the same staging and byte counts the GPU kernels have. */
#ifndef EIGEN_CPU_H
#define EIGEN_CPU_H

#include "rt_registry.h"

/* NULL-terminated. */
const rt_kernel_desc *const *rt_eigen_cpu_kernels(void);

#endif
