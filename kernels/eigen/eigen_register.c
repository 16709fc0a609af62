#include "eigen_register.h"

#include "eigen_cpu.h"
#include "eigen_family.h"

int rt_eigen_register(rt_registry *reg, rt_err *err)
{
    if (rt_registry_add_family(reg, rt_eigen_family(), err) != 0)
        return -1;
    for (const rt_kernel_desc *const *k = rt_eigen_cpu_kernels(); *k; ++k)
        if (rt_registry_add_kernel(reg, *k, err) != 0)
            return -1;
    return 0;
}
