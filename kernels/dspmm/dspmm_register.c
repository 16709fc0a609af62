#include "dspmm_register.h"

#include "dspmm_cpu_sender.h"
#include "dspmm_desc.h"
#include "dspmm_family.h"

int rt_dspmm_register(rt_registry *reg, rt_err *err)
{
    if (rt_registry_add_family(reg, rt_dspmm_family(), err) != 0 ||
        rt_registry_add_kernel(reg, rt_dspmm_cpu_sender_kernel(), err) != 0)
        return -1;
    return 0;
}
