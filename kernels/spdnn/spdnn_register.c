#include "spdnn_register.h"

#include "spdnn_cpu_fused.h"
#include "spdnn_family.h"

int rt_spdnn_register(rt_registry *reg, rt_err *err)
{
    if (rt_registry_add_family(reg, rt_spdnn_family(), err) != 0 ||
        rt_registry_add_kernel(reg, rt_spdnn_cpu_fused_kernel(), err) != 0)
        return -1;
    return 0;
}
