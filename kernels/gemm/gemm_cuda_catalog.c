#include "gemm_cuda_catalog.h"

#include <string.h>

#include "gemm_gpu_map.h"
#include "gemm_params.h"
#include "rt_tables.h"

static const rt_param_schema tiled_params[] = {
    GEMM_TILED_PARAMS,
    RT_PARAM_STR("gpu_map", GEMM_GPU_MAP_DOMAIN, "auto",
                 "where the G GPUs of a process live: logical (all on the rank's device, each with "
                 "its own budget), physical (GPU g on device (local rank x G + g) mod devices, "
                 "peer copies), auto (physical when the host has G x its ranks devices)"),
};

static const rt_param_schema cublas_params[] = {
    RT_PARAM_STR(
        "math_mode", GEMM_CUBLAS_MATH_MODES, "default",
        "cuBLAS math mode (cublasSetMathMode): default, pedantic, tf32 (FP32 on TF32 tensor "
        "cores), bf16x9 (FP32 emulated with BF16), fp64_emulated (FP64 fixed-point emulation)"),
};

static const rt_param_schema cublasxt_params[] = {
    RT_PARAM_INT("xt_block", "0..65536", "0",
                 "cublasXt block dimension (the library's tile; 0: the library's default)"),
    RT_PARAM_INT("xt_gpus", "0..64", "1",
                 "devices cublasXt spreads the product over: 1 the rank's own, n devices 0..n-1, 0 "
                 "every device of the host"),
};

/* Order: the RT_GEMM_CUDA_KIND_* indices. */
static const rt_cuda_catalog_entry catalog[] = {
    RT_CUDA_ENTRY(RT_GEMM_CUDA_TILED,
                  "chunked blocked GEMM over MPI (PaRSEC generic GEMM): data in pinned host "
                  "memory, G logical GPUs each with a memory budget and an LRU tile cache (peer "
                  "copies), cuBLAS tile products on streams, lookahead",
                  tiled_params, "gemm"),
    RT_CUDA_ENTRY(RT_GEMM_CUDA_CUBLAS,
                  "cublasDgemm/Sgemm with A, B and C already on the GPU (the practical peak; on R "
                  "ranks each rank runs the whole product on its own GPU at once)",
                  cublas_params, "gemm"),
    RT_CUDA_ENTRY(RT_GEMM_CUDA_CUBLASXT,
                  "cublasXtDgemm/Sgemm on host-resident (pinned) A, B, C, tiled by the library "
                  "over one or all GPUs of the host (one rank)",
                  cublasxt_params, "gemm"),
};

const rt_cuda_catalog_entry *rt_gemm_cuda_catalog(int *n)
{
    *n = RT_N_OF(catalog);
    return catalog;
}

int rt_gemm_cublas_mode_applies(const char *word, rt_precision prec)
{
    static const struct {
        const char *word;
        int fp32, fp64;
    } modes[] = {{"default", 1, 1},
                 {"pedantic", 1, 1},
                 {"tf32", 1, 0},
                 {"bf16x9", 1, 0},
                 {"fp64_emulated", 0, 1}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; ++i)
        if (word && strcmp(word, modes[i].word) == 0)
            return prec == RT_FP64 ? modes[i].fp64 : modes[i].fp32;
    return -1;
}
