#include "spgemm2d_cpu_kernels.h"

#include <stddef.h>

#include "sp2_hooks.h"
#include "sp2_schema.h"

#define sc_params    rt_sp2_sc_params
#define sa_params    rt_sp2_sa_params
#define summa_params rt_sp2_summa_params

SP2_KERNEL(k_spgemm_sc, "spgemm2d.cpu.stationary_c", "spgemm2d",
           "2D SpGEMM, stationary C: gets of A and B tiles, local Gustavson, offset i+j",
           sc_params);
SP2_KERNEL(k_spgemm_sa, "spgemm2d.cpu.stationary_a", "spgemm2d",
           "2D SpGEMM, stationary A: gets of B, sparse partial C to remote queues", sa_params);
SP2_KERNEL(k_spgemm_summa, "spgemm2d.cpu.summa", "spgemm2d",
           "2D SpGEMM, bulk-synchronous SUMMA: row and column broadcasts", summa_params);

const rt_kernel_desc *const *rt_spgemm2d_kernels(void)
{
    static const rt_kernel_desc *const all[] = {&k_spgemm_sc, &k_spgemm_sa, &k_spgemm_summa, NULL};
    return all;
}
