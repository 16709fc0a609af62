#include "spgemm2d_cuda_catalog.h"

#include "rt_tables.h"
#include "sp2_schema.h"

/* spgemm2d.cuda.<variant>, in the order of the CPU kernels (rt_spgemm2d_kernels()): the 2D
 * algorithms with cuSPARSE local products (kernels/shared/cuda/sp2_cuda_engine.c). */
static const rt_cuda_catalog_entry catalog[RT_SPGEMM2D_CUDA_COUNT] = {
    RT_CUDA_ENTRY("spgemm2d.cuda.stationary_c",
                  "2D SpGEMM on GPUs (cuSPARSE local SpGEMM), stationary C", rt_sp2_sc_params,
                  "spgemm2d"),
    RT_CUDA_ENTRY("spgemm2d.cuda.stationary_a",
                  "2D SpGEMM on GPUs, stationary A: sparse partial C to queues", rt_sp2_sa_params,
                  "spgemm2d"),
    RT_CUDA_ENTRY("spgemm2d.cuda.summa", "2D SpGEMM on GPUs, bulk-synchronous SUMMA",
                  rt_sp2_summa_params, "spgemm2d"),
};

const rt_cuda_catalog_entry *rt_spgemm2d_cuda_catalog(int *n)
{
    *n = RT_N_OF(catalog);
    return catalog;
}
