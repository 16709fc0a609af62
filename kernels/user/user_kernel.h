/* user_kernel: what a registered kernel of a spec carries (its descriptor's backend_ctx) and the
 * hooks both of its backends share: the feasibility check (the spec's constraints, the launch
 * against the device's limits) and the traffic model (flops and bytes of the spec).
 *
 * The CPU hooks are in cpu/user_cpu.c, the CUDA ones in cuda/user_cuda.c (the plugin); a CUDA
 * kernel's descriptor takes the plugin's hooks from its engine (user_register.h). */
#ifndef USER_KERNEL_H
#define USER_KERNEL_H

#include <stddef.h>

#include "rt_device.h"
#include "rt_error.h"
#include "rt_registry.h"
#include "user_family.h"
#include "user_spec.h"

/* The CUDA plugin's kernel that carries the hooks of every user CUDA kernel (the "engine"): the
 * catalog makes it known on every host, and a spec's CUDA kernel copies its hooks when it is
 * registered. Named directly in a config it refuses to run. */
#define USER_ENGINE_KERNEL "user.cuda.nvrtc"
#define USER_ENGINE_FAMILY "user"

typedef struct user_kernel {
    const user_spec *spec; /* as registered */
    const user_kernel_spec *k;
    const char *cache_dir; /* built C objects */
    const char *worker;    /* rooftune-user-worker */
    double timeout_s;      /* measure.point_timeout_s */
    void *cuda_ctx;        /* CUDA kernels: the plugin's rt_cuda_ctx */
} user_kernel;

/* The inputs a kernel gets, checked: of its own family, from the same spec text. */
int user_kernel_inputs(const user_kernel *uk, const void *inputs, const user_inputs **in,
                       rt_err *err);

/* A CUDA kernel's launch for a point: grid, block and dynamic shared memory from the spec's
 * expressions. 0, RT_INFEASIBLE (why filled: beyond the device's limits) or -1. */
typedef struct user_launch {
    unsigned grid[3], block[3];
    size_t shared_bytes;
} user_launch;
int user_kernel_launch(const user_kernel *uk, const user_inputs *in, const rt_params *params,
                       const rt_device_info *dev, user_launch *out, char *why, size_t whylen,
                       rt_err *err);

/* The hooks (rt_registry.h): constraints and launch limits; flops and bytes. */
int user_kernel_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, char *why, size_t whylen, rt_err *err);
int user_kernel_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, rt_traffic *t, rt_err *err);

#endif
