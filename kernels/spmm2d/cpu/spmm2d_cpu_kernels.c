#include "spmm2d_cpu_kernels.h"

#include "rt_cpu_kernel.h"
#include "spmm2d_engine.h"
#include "spmm2d_metrics.h"
#include "spmm2d_output.h"
#include "spmm2d_run.h"
#include "spmm2d_setup.h"
#include "spmm2d_traffic.h"

#define sc_params    rt_spmm2d_sc_params
#define sa_params    rt_spmm2d_sa_params
#define summa_params rt_spmm2d_summa_params
#define ws_params    rt_spmm2d_ws_params

/* ---------------------------------------------------------------------------------------------
 * Descriptors */

/* Feasibility is agreed on inside setup (no check hook). */
#define SP2_KERNEL(ident, kname, fam, sum, schema)                                                 \
    static const rt_kernel_desc ident =                                                            \
        RT_CPU_KERNEL(kname, fam, sum, schema, NULL, sp2_setup, sp2_run, sp2_output, sp2_metrics,  \
                      sp2_teardown, sp2_traffic)

SP2_KERNEL(k_spmm_sc, "spmm2d.cpu.stationary_c", "spmm2d",
           "2D SpMM, stationary C: one-sided gets of A and B tiles, offset i+j, prefetch",
           sc_params);
SP2_KERNEL(k_spmm_sa, "spmm2d.cpu.stationary_a", "spmm2d",
           "2D SpMM, stationary A: gets of B, partial C to remote accumulation queues, offset i+k",
           sa_params);
SP2_KERNEL(k_spmm_sb, "spmm2d.cpu.stationary_b", "spmm2d",
           "2D SpMM, stationary B: gets of A, partial C to remote accumulation queues, offset k+j",
           sa_params);
SP2_KERNEL(k_spmm_summa, "spmm2d.cpu.summa", "spmm2d",
           "2D SpMM, bulk-synchronous SUMMA: row and column broadcasts", summa_params);
SP2_KERNEL(k_spmm_summa_a, "spmm2d.cpu.summa_a", "spmm2d",
           "2D SpMM, stationary-A SUMMA: column broadcasts of B, row reductions of C",
           summa_params);
SP2_KERNEL(k_spmm_wsr, "spmm2d.cpu.ws_random", "spmm2d",
           "2D SpMM, stationary A with random work stealing (2D fetch-and-add work grid)",
           ws_params);
SP2_KERNEL(k_spmm_wsl, "spmm2d.cpu.ws_locality", "spmm2d",
           "2D SpMM, stationary C with locality-aware work stealing (3D work grid)", ws_params);
SP2_KERNEL(k_spgemm_sc, "spgemm2d.cpu.stationary_c", "spgemm2d",
           "2D SpGEMM, stationary C: gets of A and B tiles, local Gustavson, offset i+j",
           sc_params);
SP2_KERNEL(k_spgemm_sa, "spgemm2d.cpu.stationary_a", "spgemm2d",
           "2D SpGEMM, stationary A: gets of B, sparse partial C to remote queues", sa_params);
SP2_KERNEL(k_spgemm_summa, "spgemm2d.cpu.summa", "spgemm2d",
           "2D SpGEMM, bulk-synchronous SUMMA: row and column broadcasts", summa_params);

void sp2_fill_hooks(rt_kernel_desc *d)
{
    d->check = NULL; /* feasibility is agreed on inside setup */
    d->run = sp2_run;
    d->output = sp2_output;
    d->metrics = sp2_metrics;
    d->flush = sp2_flush; /* device caches; the CPU kernels leave it NULL (the runner flushes) */
    d->teardown = sp2_teardown;
    d->traffic = sp2_traffic;
}

const rt_kernel_desc *const *rt_spmm2d_kernels(void)
{
    static const rt_kernel_desc *const all[] = {
        &k_spmm_sc,      &k_spmm_sa,      &k_spmm_sb,  &k_spmm_summa,
        &k_spmm_summa_a, &k_spmm_wsr,     &k_spmm_wsl, &k_spgemm_sc,
        &k_spgemm_sa,    &k_spgemm_summa, NULL,
    };
    return all;
}
