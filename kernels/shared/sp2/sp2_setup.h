/* sp2_setup: Setup and teardown of a 2D kernel: feasibility agreed on by every rank, the
 * distributed A and B, the local tile maps and buffers, queues, work grids and process-grid
 * communicators, and the engine. sp2_setup_with_engine (sp2_engine.h) is the entry the GPU
 * kernels share. */
#ifndef SP2_SETUP_H
#define SP2_SETUP_H

#include "rt_error.h"
#include "rt_registry.h"

int sp2_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
              const rt_kernel_env *env, void **state, rt_err *err);
void sp2_teardown(void *state);

#endif
