#include "spmm2d_cuda_catalog.h"

#include "spmm2d_schema.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* spmm2d.cuda.<variant> and spgemm2d.cuda.<variant>, in the order of the CPU kernels
 * (rt_spmm2d_kernels()): the 2D algorithms with cuSPARSE local products (kernels/spmm2d/cuda). */
static const rt_cuda_catalog_entry catalog[RT_SPMM2D_CUDA_COUNT] = {
    {"spmm2d.cuda.stationary_c",
     "2D SpMM on GPUs, stationary C (cuSPARSE local SpMM, tiles staged through the host)",
     rt_spmm2d_sc_params, RT_SPMM2D_SC_NPARAMS, "spmm2d"},
    {"spmm2d.cuda.stationary_a", "2D SpMM on GPUs, stationary A: partial C to remote queues",
     rt_spmm2d_sa_params, RT_SPMM2D_SA_NPARAMS, "spmm2d"},
    {"spmm2d.cuda.stationary_b", "2D SpMM on GPUs, stationary B: partial C to remote queues",
     rt_spmm2d_sa_params, RT_SPMM2D_SA_NPARAMS, "spmm2d"},
    {"spmm2d.cuda.summa", "2D SpMM on GPUs, bulk-synchronous SUMMA", rt_spmm2d_summa_params,
     RT_SPMM2D_SUMMA_NPARAMS, "spmm2d"},
    {"spmm2d.cuda.summa_a", "2D SpMM on GPUs, reduce-based stationary-A SUMMA",
     rt_spmm2d_summa_params, RT_SPMM2D_SUMMA_NPARAMS, "spmm2d"},
    {"spmm2d.cuda.ws_random", "2D SpMM on GPUs, stationary A with random work stealing",
     rt_spmm2d_ws_params, RT_SPMM2D_WS_NPARAMS, "spmm2d"},
    {"spmm2d.cuda.ws_locality", "2D SpMM on GPUs, stationary C with locality-aware work stealing",
     rt_spmm2d_ws_params, RT_SPMM2D_WS_NPARAMS, "spmm2d"},
    {"spgemm2d.cuda.stationary_c", "2D SpGEMM on GPUs (cuSPARSE local SpGEMM), stationary C",
     rt_spmm2d_sc_params, RT_SPMM2D_SC_NPARAMS, "spgemm2d"},
    {"spgemm2d.cuda.stationary_a", "2D SpGEMM on GPUs, stationary A: sparse partial C to queues",
     rt_spmm2d_sa_params, RT_SPMM2D_SA_NPARAMS, "spgemm2d"},
    {"spgemm2d.cuda.summa", "2D SpGEMM on GPUs, bulk-synchronous SUMMA", rt_spmm2d_summa_params,
     RT_SPMM2D_SUMMA_NPARAMS, "spgemm2d"},
};

const rt_cuda_catalog_entry *rt_spmm2d_cuda_catalog(int *n)
{
    *n = N_OF(catalog);
    return catalog;
}
