#include "spmm_register.h"

#include <stddef.h>

#include "spmm_cpu_csr.h"
#include "spmm_cpu_ell.h"
#include "spmm_cpu_tiled.h"
#include "spmm_family.h"

int rt_spmm_register(rt_registry *reg, rt_err *err)
{
    /* The family first: a kernel can only be added once its family is known. */
    if (rt_registry_add_family(reg, rt_spmm_family(), err) != 0)
        return -1;
    const rt_kernel_desc *const cpu[] = {
        rt_spmm_cpu_csr_kernel(),
        rt_spmm_cpu_ell_kernel(),
        rt_spmm_cpu_tiled_kernel(),
    };
    for (size_t i = 0; i < sizeof cpu / sizeof cpu[0]; ++i)
        if (rt_registry_add_kernel(reg, cpu[i], err) != 0)
            return -1;
    return 0;
}
