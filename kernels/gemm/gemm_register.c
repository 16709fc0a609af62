#include "gemm_register.h"

#include "gemm_cpu_kernels.h"
#include "gemm_desc.h"

int rt_gemm_register(rt_registry *reg, rt_err *err)
{
    if (rt_registry_add_family(reg, rt_gemm_family(), err) != 0 ||
        rt_registry_add_kernel(reg, rt_gemm_cpu_tiled_kernel(), err) != 0 ||
        rt_registry_add_kernel(reg, rt_gemm_cpu_summa_kernel(), err) != 0)
        return -1;
    return 0;
}
