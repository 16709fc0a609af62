/* user_cuda: the CUDA engine of kernel specs (user.cuda.nvrtc, in the CUDA plugin). Its hooks run
 * every user CUDA kernel: setup compiles the user's source with NVRTC through the variant cache
 * (keyed by a hash of the source text, the parameters as -D defines, the entry and the device;
 * compile errors name the user's file:line), lays the arguments out on the device with guard
 * zones (user_guard.h) and checks the launch against the compiled variant; run launches it and
 * waits at most measure.point_timeout_s (a watchdog polls the kernel's end event); output checks
 * every guard and reads the outputs back.
 *
 * What a hung kernel leaves: CUDA cannot stop a running kernel from the host. At the timeout the
 * point is recorded as failed ("timeout: ..."), the context is abandoned (rt_cuda_ctx_abandon):
 * every later GPU point of the run fails at once saying why, nothing waits for the device again,
 * and the process's exit ends the kernel. A kernel that faults (illegal address, ...) leaves a
 * sticky error in the context: the same happens. Running the command again resumes after the
 * recorded point. */
#ifndef USER_CUDA_H
#define USER_CUDA_H

#include "rt_cuda_ctx.h"
#include "rt_registry.h"

/* The family list's entry: the engine's descriptor (index 0 of the user catalog). */
void rt_user_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx);

#endif
