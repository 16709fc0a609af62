#include "spgemm2d_cuda_catalog.h"

#include "rt_cuda_catalog.h"
#include "sp2_schema.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* spgemm2d.cuda.<variant>, in the order of the CPU kernels (rt_spgemm2d_kernels()): the 2D
 * algorithms with cuSPARSE local products (kernels/shared/cuda/sp2_cuda_engine.c). */
static const rt_cuda_catalog_entry catalog[RT_SPGEMM2D_CUDA_COUNT] = {
    {"spgemm2d.cuda.stationary_c", "2D SpGEMM on GPUs (cuSPARSE local SpGEMM), stationary C",
     rt_sp2_sc_params, RT_SP2_SC_NPARAMS, "spgemm2d"},
    {"spgemm2d.cuda.stationary_a", "2D SpGEMM on GPUs, stationary A: sparse partial C to queues",
     rt_sp2_sa_params, RT_SP2_SA_NPARAMS, "spgemm2d"},
    {"spgemm2d.cuda.summa", "2D SpGEMM on GPUs, bulk-synchronous SUMMA", rt_sp2_summa_params,
     RT_SP2_SUMMA_NPARAMS, "spgemm2d"},
};

const rt_cuda_catalog_entry *rt_spgemm2d_cuda_catalog(int *n)
{
    *n = N_OF(catalog);
    return catalog;
}
