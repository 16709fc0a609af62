#include "eigen_cuda_catalog.h"

#include "eigen_family.h"
#include "rt_tables.h"

/* The CPU kernels' parameters (eigen_cpu.c) plus the kind of host memory the tiles live in. */
static const rt_param_schema eigen_cuda_params[] = {
    EIGEN_PARAM_TILE,
    RT_PARAM_STR("schedule", "kbk|dag|graph", "dag",
                 "kbk: call by call, each call staging its operands; dag: depth-first order of the "
                 "task graph; graph: the dag order with its device segments captured as CUDA "
                 "graphs and replayed (in core, lobpcg)"),
    EIGEN_PARAM_GPU_MEM_BUDGET,
    RT_PARAM_STR("host_mem", "pinned|pageable", "pinned",
                 "host copies of the tiles page-locked (cudaHostRegister) or pageable"),
};

/* The microbenchmarks (problem solver spmm or xty): tiles streamed or the in-core baseline. */
static const rt_param_schema eigen_micro_params[] = {
    RT_PARAM_STR(
        "mode", "ooc|incore", "ooc",
        "ooc: row tiles streamed through the GPU; incore: operands resident, one library call"),
    RT_PARAM_INT("tile", "1..2147483647", "8192", "rows per streamed tile (ooc)"),
    RT_PARAM_INT(
        "streams", "1..2", "1",
        "streams the tiles alternate on (2: a tile's copies overlap the previous tile's compute)"),
    RT_PARAM_STR("host_mem", "pinned|pageable", "pinned",
                 "host buffers page-locked (cudaMallocHost) or pageable (malloc)"),
};

static const rt_cuda_catalog_entry catalog[] = {
    RT_CUDA_ENTRY(
        RT_EIGEN_CUDA_LOBPCG,
        "out-of-core block LOBPCG over tiles on the GPU: cuSPARSE SpMM per packed block, cuBLAS "
        "X*Y and X'*Y, a device pool of gpu_mem_budget bytes run by the memory manager",
        eigen_cuda_params, "eigen"),
    RT_CUDA_ENTRY(RT_EIGEN_CUDA_LANCZOS,
                  "out-of-core Lanczos (full reorthogonalisation) over tiles on the GPU: cuSPARSE, "
                  "cuBLAS, a device pool of gpu_mem_budget bytes",
                  eigen_cuda_params, "eigen"),
    RT_CUDA_ENTRY(RT_EIGEN_CUDA_SPMM_OOC,
                  "out-of-core SpMM microbenchmark (solver spmm): Y = A X with A's row tiles and Y "
                  "streamed, or in-core cusparseSpMM; transfer and compute time per kernel",
                  eigen_micro_params, "eigen"),
    RT_CUDA_ENTRY(
        RT_EIGEN_CUDA_XTY_OOC,
        "out-of-core X'*Y microbenchmark (solver xty): row tiles of X and Y streamed into cuBLAS "
        "partial products, or in-core cublasDgemm; transfer and compute time per kernel",
        eigen_micro_params, "eigen"),
};

const rt_cuda_catalog_entry *rt_eigen_cuda_catalog(int *n)
{
    *n = RT_N_OF(catalog);
    return catalog;
}
