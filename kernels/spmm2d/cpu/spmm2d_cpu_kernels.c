#include "spmm2d_cpu_kernels.h"

#include <stddef.h>

#include "sp2_hooks.h"
#include "sp2_schema.h"

#define sc_params    rt_sp2_sc_params
#define sa_params    rt_sp2_sa_params
#define summa_params rt_sp2_summa_params
#define ws_params    rt_sp2_ws_params

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

const rt_kernel_desc *const *rt_spmm2d_kernels(void)
{
    static const rt_kernel_desc *const all[] = {
        &k_spmm_sc,      &k_spmm_sa,  &k_spmm_sb,  &k_spmm_summa,
        &k_spmm_summa_a, &k_spmm_wsr, &k_spmm_wsl, NULL};
    return all;
}
