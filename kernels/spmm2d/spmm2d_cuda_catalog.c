#include "spmm2d_cuda_catalog.h"

#include "rt_tables.h"
#include "sp2_schema.h"

/* spmm2d.cuda.<variant>, in the order of the CPU kernels (rt_spmm2d_kernels()): the 2D algorithms
 * with cuSPARSE local products (kernels/shared/cuda/sp2_cuda_engine.c). */
static const rt_cuda_catalog_entry catalog[RT_SPMM2D_CUDA_COUNT] = {
    RT_CUDA_ENTRY(
        "spmm2d.cuda.stationary_c",
        "2D SpMM on GPUs, stationary C (cuSPARSE local SpMM, tiles staged through the host)",
        rt_sp2_sc_params, "spmm2d"),
    RT_CUDA_ENTRY("spmm2d.cuda.stationary_a",
                  "2D SpMM on GPUs, stationary A: partial C to remote queues", rt_sp2_sa_params,
                  "spmm2d"),
    RT_CUDA_ENTRY("spmm2d.cuda.stationary_b",
                  "2D SpMM on GPUs, stationary B: partial C to remote queues", rt_sp2_sa_params,
                  "spmm2d"),
    RT_CUDA_ENTRY("spmm2d.cuda.summa", "2D SpMM on GPUs, bulk-synchronous SUMMA",
                  rt_sp2_summa_params, "spmm2d"),
    RT_CUDA_ENTRY("spmm2d.cuda.summa_a", "2D SpMM on GPUs, reduce-based stationary-A SUMMA",
                  rt_sp2_summa_params, "spmm2d"),
    RT_CUDA_ENTRY("spmm2d.cuda.ws_random",
                  "2D SpMM on GPUs, stationary A with random work stealing", rt_sp2_ws_params,
                  "spmm2d"),
    RT_CUDA_ENTRY("spmm2d.cuda.ws_locality",
                  "2D SpMM on GPUs, stationary C with locality-aware work stealing",
                  rt_sp2_ws_params, "spmm2d"),
};

const rt_cuda_catalog_entry *rt_spmm2d_cuda_catalog(int *n)
{
    *n = RT_N_OF(catalog);
    return catalog;
}
