#include "sptrsv_cuda_catalog.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const rt_param_schema cusparse_params[] = {
    {"algorithm", RT_V_STR, "default", "default", 0,
     "cusparseSpSV algorithm (CUSPARSE_SPSV_ALG_DEFAULT, the only one the library has)"},
};

/* One warp per row in both own kernels: the block size only sets how many rows share a block. */
static const rt_param_schema levelset_params[] = {
    {"threads_per_block", RT_V_INT, "32|64|128|256|512|1024", "256", 0,
     "threads per block (a warp per row, so threads_per_block / 32 rows per block)"},
};

static const rt_param_schema syncfree_params[] = {
    {"threads_per_block", RT_V_INT, "32|64|128|256|512|1024", "256", 0,
     "threads per block (a warp per row, so threads_per_block / 32 rows per block)"},
};

static const rt_cuda_catalog_entry catalog[] = {
    {RT_SPTRSV_CUDA_CUSPARSE,
     "cusparseSpSV on L's CSR copy (FP64): the analysis in setup (analysis_s), one solve per "
     "right-hand side timed with events",
     cusparse_params, N_OF(cusparse_params), "sptrsv"},
    {RT_SPTRSV_CUDA_LEVELSET,
     "level-set solve on L's CSR copy: one kernel launch per level of the row DAG, one warp per "
     "row",
     levelset_params, N_OF(levelset_params), "sptrsv"},
    {RT_SPTRSV_CUDA_SYNCFREE,
     "synchronisation-free solve in one launch: one warp per row, rows taken in level order "
     "from a ticket counter, each waiting on per-row ready flags in global memory",
     syncfree_params, N_OF(syncfree_params), "sptrsv"},
};

const rt_cuda_catalog_entry *rt_sptrsv_cuda_catalog(int *n)
{
    *n = N_OF(catalog);
    return catalog;
}
