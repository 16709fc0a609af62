/* sp2_hooks: the hooks every 2D kernel shares, CPU and GPU, of both families (spmm2d,
 * spgemm2d): a CPU kernel's descriptor in one expression (SP2_KERNEL), and the shared hooks of a
 * descriptor built elsewhere (sp2_fill_hooks: the GPU kernels). */
#ifndef SP2_HOOKS_H
#define SP2_HOOKS_H

#include "rt_cpu_kernel.h"
#include "rt_registry.h"
#include "sp2_metrics.h"
#include "sp2_output.h"
#include "sp2_run.h"
#include "sp2_setup.h"
#include "sp2_traffic.h"

/* A CPU kernel: feasibility is agreed on inside setup (no check hook). */
#define SP2_KERNEL(ident, kname, fam, sum, schema)                                                 \
    static const rt_kernel_desc ident =                                                            \
        RT_CPU_KERNEL(kname, fam, sum, schema, NULL, sp2_setup, sp2_run, sp2_output, sp2_metrics,  \
                      sp2_teardown, sp2_traffic)

/* Fills the hooks every 2D kernel shares (run, output, metrics, flush, teardown, traffic) and
 * clears check; the caller sets name, family, schema, setup and backend_ctx. */
void sp2_fill_hooks(rt_kernel_desc *d);

#endif
