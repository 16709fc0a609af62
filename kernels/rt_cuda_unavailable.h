/* rt_cuda_unavailable: the CUDA kernels of every family, registered as unavailable on a host where
 * the CUDA backend is not loaded (no GPU, no driver, no plugin), so `list` and `validate` know them
 * and `run` skips their points, saying why. */
#ifndef RT_CUDA_UNAVAILABLE_H
#define RT_CUDA_UNAVAILABLE_H

#include "rt_error.h"
#include "rt_registry.h"

/* Registers every CUDA kernel whose family is in reg as unavailable for `reason` (copied), with
 * hooks that fail with a message naming the kernel and the reason. Fails when none of the kernels'
 * families is registered. On failure nothing stays registered. The descriptors are heap-allocated:
 * release them with rt_cuda_unregister_unavailable before the registry goes away. */
int rt_cuda_register_unavailable(rt_registry *reg, const char *reason, rt_err *err);

/* Removes from reg the descriptors that rt_cuda_register_unavailable added and frees them; other
 * kernels keep their order. Does nothing when there are none. */
void rt_cuda_unregister_unavailable(rt_registry *reg);

#endif
