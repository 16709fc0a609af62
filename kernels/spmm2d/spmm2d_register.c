#include "spmm2d_register.h"

#include "spmm2d_cpu_kernels.h"
#include "spmm2d_family.h"

int rt_spmm2d_register(rt_registry *reg, rt_err *err)
{
    if (rt_registry_add_family(reg, rt_spmm2d_family(), err) != 0)
        return -1;
    for (const rt_kernel_desc *const *k = rt_spmm2d_kernels(); *k; ++k)
        if (rt_registry_add_kernel(reg, *k, err) != 0)
            return -1;
    return 0;
}
