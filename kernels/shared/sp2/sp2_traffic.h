/* sp2_traffic: The traffic model: what this rank must move and compute in one execution, by
 * the static assignment of its algorithm (work stealing is modelled by the assignment it starts
 * from). */
#ifndef SP2_TRAFFIC_H
#define SP2_TRAFFIC_H

#include "rt_error.h"
#include "rt_registry.h"

int sp2_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                const rt_kernel_env *env, rt_traffic *t, rt_err *err);

#endif
