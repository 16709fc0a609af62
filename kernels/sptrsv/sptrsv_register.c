#include "sptrsv_register.h"

#include "sptrsv_cpu_dist.h"
#include "sptrsv_cpu_levelset.h"
#include "sptrsv_cpu_persist.h"
#include "sptrsv_family.h"

int rt_sptrsv_register(rt_registry *reg, rt_err *err)
{
    if (rt_registry_add_family(reg, rt_sptrsv_family(), err) != 0 ||
        rt_registry_add_kernel(reg, rt_sptrsv_cpu_levelset_kernel(), err) != 0 ||
        rt_registry_add_kernel(reg, rt_sptrsv_cpu_dist_kernel(), err) != 0 ||
        rt_registry_add_kernel(reg, rt_sptrsv_cpu_persist_kernel(), err) != 0)
        return -1;
    return 0;
}
