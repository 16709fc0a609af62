/* eigen_hooks: what every eigen kernel (eigen.cpu.*, eigen.cuda.* solvers and micro-benchmarks)
 * does the same way: the solver or operation a kernel runs, found from its name, against the
 * problem's (the check hook), the flops-only traffic model (the solvers' bytes depend on the
 * schedule; docs/families/eigen.md), the tiling parameters every solver kernel reads, its timed
 * solve and the metrics of a solve. */
#ifndef EIGEN_HOOKS_H
#define EIGEN_HOOKS_H

#include "eigen_family.h"
#include "rt_registry.h"

/* The check hook: infeasible (why filled) when the problem asks for another solver or operation
 * than the kernel's name runs ("lanczos", "spmm", "xty", else LOBPCG). */
int eg_hooks_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                   const rt_kernel_env *env, char *why, size_t whylen, rt_err *err);
/* The traffic hook: the family's flops, no byte term. */
int eg_hooks_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, rt_traffic *t, rt_err *err);
/* The problem's solver configuration with the kernel's tile, gpu_mem_budget and schedule. */
int eg_hooks_config(const rt_kernel_desc *self, const eg_inputs *in, const rt_params *p,
                    eg_config *c, rt_err *err);

/* One timed solve: eg_solver_run into *r, its wall time (monotonic clock) in *elapsed. */
int eg_hooks_run(eg_solver *s, eg_result *r, double *elapsed, rt_err *err);
/* The metrics of a solve every solver kernel reports: bytes and copies moved (per iteration too),
 * evictions, host waits, the solver's sizes, tasks, time per iteration, residual and the lowest
 * Ritz value. */
void eg_hooks_metrics(const eg_solver *s, const eg_result *r, const eg_config *cfg, double last_s,
                      rt_metrics *m);

#endif
