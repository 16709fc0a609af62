#include "user_register.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_strutil.h"
#include "user_cpu.h"
#include "user_family.h"
#include "user_kernel.h"
#include "user_spec.h"

/* ---------------------------------------------------------------------------------------------
 * The family `user`: only the engine's home. Its inputs are never built. */

static int engine_only(const rt_csr *a, const rt_params *problem, const rt_job *job, void **inputs,
                       rt_err *err)
{
    *inputs = NULL;
    return rt_err_set(err, "the family '" USER_ENGINE_FAMILY "' only carries the CUDA engine of "
                           "kernel specs: list your spec under user_kernels: and name its "
                           "kernels");
}

static void no_inputs(void *inputs) {}

static int64_t no_output(const void *inputs)
{
    return 0;
}

static double no_tolerance(const void *inputs)
{
    return 0;
}

static int no_reference(const void *inputs, double *out, rt_err *err)
{
    return rt_err_set(err, "the family '" USER_ENGINE_FAMILY "' has no reference");
}

static double no_flops(const void *inputs)
{
    return 0;
}

static const rt_family_desc k_engine_family = {
    .name = USER_ENGINE_FAMILY,
    .summary = "kernels users write, described in YAML kernel specs (user_kernels: in a config; "
               "docs/families/user.md): each spec adds a family of its own",
    .make_inputs = engine_only,
    .free_inputs = no_inputs,
    .output_elems = no_output,
    .tolerance = no_tolerance,
    .reference = no_reference,
    .flops = no_flops,
};

int rt_user_register(rt_registry *reg, rt_err *err)
{
    return rt_registry_add_family(reg, &k_engine_family, err);
}

/* ---------------------------------------------------------------------------------------------
 * The specs of a config */

struct rt_user_set {
    int n_specs;
    user_spec *specs[RT_USER_MAX_SPECS];
    rt_family_desc families[RT_USER_MAX_SPECS];
    int n_kernels;
    user_kernel kernels[RT_USER_MAX_SPECS * USER_MAX_KERNELS];
    rt_kernel_desc descs[RT_USER_MAX_SPECS * USER_MAX_KERNELS];
    char unavailable[RT_USER_MAX_SPECS * USER_MAX_KERNELS][512];
    char cache_dir[1024];
    char worker[1024];
    char hash[17];
};

static int owned_kernel(const rt_user_set *set, const rt_kernel_desc *k)
{
    for (int i = 0; i < set->n_kernels; ++i)
        if (k == &set->descs[i])
            return 1;
    return 0;
}

static int owned_family(const rt_user_set *set, const rt_family_desc *f)
{
    for (int i = 0; i < set->n_specs; ++i)
        if (f == &set->families[i])
            return 1;
    return 0;
}

/* Takes every family and kernel of the set out of the registry. */
static void unregister(rt_user_set *set, rt_registry *reg)
{
    int kept = 0;
    for (int i = 0; i < reg->n_kernels; ++i)
        if (!owned_kernel(set, reg->kernels[i]))
            reg->kernels[kept++] = reg->kernels[i];
    for (int i = kept; i < reg->n_kernels; ++i)
        reg->kernels[i] = NULL;
    reg->n_kernels = kept;
    kept = 0;
    for (int i = 0; i < reg->n_families; ++i)
        if (!owned_family(set, reg->families[i]))
            reg->families[kept++] = reg->families[i];
    for (int i = kept; i < reg->n_families; ++i)
        reg->families[i] = NULL;
    reg->n_families = kept;
}

void rt_user_set_free(rt_user_set *set, rt_registry *reg)
{
    if (!set)
        return;
    if (reg)
        unregister(set, reg);
    for (int i = 0; i < set->n_specs; ++i)
        user_spec_free(set->specs[i]);
    free(set);
}

const char *rt_user_set_hash(const rt_user_set *set)
{
    return set->hash;
}

/* A CUDA kernel of a spec: the engine's hooks (or its stubs and reason where it is unavailable),
 * the shared check and traffic. */
static int describe_cuda(rt_user_set *set, int index, const rt_kernel_desc *engine, rt_err *err)
{
    user_kernel *uk = &set->kernels[index];
    rt_kernel_desc *d = &set->descs[index];
    *d = *engine;
    d->name = uk->k->name;
    d->family = uk->spec->family;
    d->summary = uk->k->summary[0] ? uk->k->summary : "a user's CUDA kernel (kernels/user)";
    d->params = uk->k->schema;
    d->n_params = uk->k->n_params;
    if (engine->unavailable) {
        snprintf(set->unavailable[index], sizeof set->unavailable[index], "%s",
                 engine->unavailable);
        d->unavailable = set->unavailable[index];
        return 0;
    }
    if (!engine->setup || !engine->run || !engine->output || !engine->teardown)
        return rt_err_set(err, "%s: the CUDA plugin's %s lacks its hooks", uk->k->name,
                          USER_ENGINE_KERNEL);
    uk->cuda_ctx = engine->backend_ctx;
    d->check = user_kernel_check;
    d->traffic = uk->spec->flops.expr || uk->spec->bytes.expr || uk->k->bytes.expr
                     ? user_kernel_traffic
                     : NULL;
    d->backend_ctx = uk;
    return 0;
}

static int add_spec(rt_user_set *set, const char *path, const rt_user_options *opt,
                    rt_registry *reg, rt_err *err)
{
    user_spec *s = NULL;
    if (user_spec_load(path, &s, err) != 0)
        return -1;
    const int si = set->n_specs;
    set->specs[set->n_specs++] = s;
    if (rt_registry_find_family(reg, s->family))
        return rt_err_set(err,
                          "%s: family '%s' is already a family of rooftune or of another "
                          "spec; give this one a name of its own",
                          path, s->family);
    user_family_describe(s, &set->families[si]);
    if (rt_registry_add_family(reg, &set->families[si], err) != 0)
        return rt_err_prefix(err, "%s", path);
    const rt_kernel_desc *engine = rt_registry_find_kernel(reg, USER_ENGINE_KERNEL);
    for (int i = 0; i < s->n_kernels; ++i) {
        const user_kernel_spec *k = &s->kernels[i];
        const int ki = set->n_kernels;
        user_kernel *uk = &set->kernels[ki];
        *uk = (user_kernel){.spec = s,
                            .k = k,
                            .cache_dir = set->cache_dir,
                            .worker = set->worker,
                            .timeout_s = opt->timeout_s};
        if (k->cuda) {
            if (!engine)
                return rt_err_set(err, "%s: %s: the CUDA engine %s is not registered", path,
                                  k->name, USER_ENGINE_KERNEL);
            if (describe_cuda(set, ki, engine, err) != 0)
                return -1;
        } else {
            user_cpu_describe(uk, &set->descs[ki]);
        }
        if (rt_registry_find_kernel(reg, k->name))
            return rt_err_set(err,
                              "%s:%d:%d: %s is already a kernel of rooftune or of another "
                              "spec",
                              k->loc.file, k->loc.line, k->loc.col, k->name);
        set->n_kernels = ki + 1;
        if (rt_registry_add_kernel(reg, &set->descs[ki], err) != 0) {
            set->n_kernels = ki;
            return rt_err_prefix(err, "%s", path);
        }
    }
    return 0;
}

int rt_user_set_load(const char *const *paths, int n, const rt_user_options *opt, rt_registry *reg,
                     rt_user_set **out, rt_err *err)
{
    *out = NULL;
    if (n > RT_USER_MAX_SPECS)
        return rt_err_set(err, "%d kernel specs (at most %d in one run)", n, RT_USER_MAX_SPECS);
    if (!opt || !opt->cache_dir || !opt->worker_path || !(opt->timeout_s > 0))
        return rt_err_set(err, "kernel specs need a cache folder, the worker program and a point "
                               "timeout");
    rt_user_set *set = calloc(1, sizeof *set);
    if (!set)
        return rt_err_set(err, "out of memory for the kernel specs");
    snprintf(set->cache_dir, sizeof set->cache_dir, "%s", opt->cache_dir);
    snprintf(set->worker, sizeof set->worker, "%s", opt->worker_path);
    uint64_t h = 0;
    for (int i = 0; i < n; ++i) {
        /* The set stays consistent after a failure: unregister sees what was added. */
        if (add_spec(set, paths[i], opt, reg, err) != 0) {
            rt_user_set_free(set, reg);
            return -1;
        }
        h = rt_hash64(set->specs[i]->hash, 16, h);
    }
    rt_hash_hex(h, set->hash);
    *out = set;
    return 0;
}
