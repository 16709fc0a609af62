#include "rt_kernels.h"

#include <stdio.h>
#include <string.h>

#include "spmm_cpu_csr.h"
#include "spmm_cpu_ell.h"
#include "spmm_cpu_tiled.h"
#include "spmm_family.h"
#include "spdnn_cpu_fused.h"
#include "spdnn_family.h"
#include "dspmm_cpu_sender.h"
#include "dspmm_family.h"
#include "spmm2d_family.h"
#include "spmm2d_kernels.h"

int rt_kernels_register_builtin(rt_registry *reg, rt_err *err)
{
    if (!reg)
        return rt_err_set(err, "rt_kernels_register_builtin: no registry given");

    /* Families first: a kernel can only be added once its family is known. */
    if (rt_registry_add_family(reg, rt_spmm_family(), err) != 0)
        return rt_err_prefix(err, "registering built-in families");

    const rt_kernel_desc *const spmm_cpu[] = {
        rt_spmm_cpu_csr_kernel(),
        rt_spmm_cpu_ell_kernel(),
        rt_spmm_cpu_tiled_kernel(),
    };
    for (size_t i = 0; i < sizeof spmm_cpu / sizeof spmm_cpu[0]; ++i)
        if (rt_registry_add_kernel(reg, spmm_cpu[i], err) != 0)
            return rt_err_prefix(err, "registering built-in CPU kernels");

    if (rt_registry_add_family(reg, rt_spdnn_family(), err) != 0 ||
        rt_registry_add_kernel(reg, rt_spdnn_cpu_fused_kernel(), err) != 0)
        return rt_err_prefix(err, "registering the spdnn family and its CPU kernel");
    if (rt_registry_add_family(reg, rt_dspmm_family(), err) != 0 ||
        rt_registry_add_kernel(reg, rt_dspmm_cpu_sender_kernel(), err) != 0)
        return rt_err_prefix(err, "registering the dspmm family and its CPU kernel");
    if (rt_registry_add_family(reg, rt_spmm2d_family(), err) != 0 ||
        rt_registry_add_family(reg, rt_spgemm2d_family(), err) != 0)
        return rt_err_prefix(err, "registering the spmm2d and spgemm2d families");
    for (const rt_kernel_desc *const *k = rt_spmm2d_kernels(); *k; ++k)
        if (rt_registry_add_kernel(reg, *k, err) != 0)
            return rt_err_prefix(err, "registering the 2D distributed CPU kernels");

    /* ---- CPU-side registration of other families goes here. ----
     * Each new family (e.g. "sddmm", "spgemm", "gemm") adds its rt_family_desc with
     * rt_registry_add_family above the kernels that use it, then its CPU kernels, in the same
     * pattern as spmm. CUDA kernels are not registered here: the CUDA plugin registers its own
     * from its init hook (harness/backend/rt_plugin.h), after this function has run. */
    return 0;
}

static const rt_param_schema *find_schema(const rt_param_schema *schema, int n_schema,
                                          const char *name)
{
    for (int i = 0; i < n_schema; ++i)
        if (strcmp(schema[i].name, name) == 0)
            return &schema[i];
    return NULL;
}

/* The value a hook should use: the one set in p, or the schema default; checked against the
 * schema so a hook never sees an out-of-domain value. */
static int resolve(const rt_param_schema *schema, int n_schema, const char *owner,
                   const rt_params *p, const char *name, rt_vkind want, rt_value *out, rt_err *err)
{
    const rt_param_schema *s = find_schema(schema, n_schema, name);
    if (!s || s->kind != want)
        return rt_err_set(err, "%s: internal error: no %s parameter '%s' in its schema", owner,
                          want == RT_V_STR ? "string" : "integer", name);
    const rt_value *v = p ? rt_params_get(p, name) : NULL;
    if (v) {
        *out = *v;
    } else if (rt_param_default(s, out, err) != 0) {
        return rt_err_prefix(err, "%s", owner);
    }
    char why[256];
    if (rt_param_check(s, out, why, sizeof why) != 0)
        return rt_err_set(err, "%s: %s", owner, why);
    return 0;
}

int rt_kernels_param_int(const rt_param_schema *schema, int n_schema, const char *owner,
                         const rt_params *p, const char *name, int64_t *out, rt_err *err)
{
    rt_value v;
    if (resolve(schema, n_schema, owner, p, name, RT_V_INT, &v, err) != 0)
        return -1;
    /* rt_param_check accepted it, so a real value here is integral. */
    *out = v.kind == RT_V_INT ? v.i : (int64_t)v.r;
    return 0;
}

int rt_kernels_param_str(const rt_param_schema *schema, int n_schema, const char *owner,
                         const rt_params *p, const char *name, char *out, size_t outlen,
                         rt_err *err)
{
    rt_value v;
    if (resolve(schema, n_schema, owner, p, name, RT_V_STR, &v, err) != 0)
        return -1;
    if (strlen(v.s) >= outlen)
        return rt_err_set(err, "%s: value of %s ('%s') is too long", owner, name, v.s);
    snprintf(out, outlen, "%s", v.s);
    return 0;
}
