/* The CUDA kernel catalog (plain C, in every build): schemas valid and registrable, unavailable
 * descriptors listed with their reason, stub hooks that fail with a message instead of crashing,
 * and unregistering that removes exactly the unavailable CUDA kernels. */
#include <stdio.h>
#include <string.h>

#include "rt_cuda_unavailable.h"
#include "rt_kernels.h"
#include "rt_registry.h"
#include "rt_fake_kernel.h"
#include "rt_test.h"
#include "spmm_cuda_catalog.h"
#include "spmm_family.h"

static void test_schemas(void)
{
    RT_CHECK(rt_spmm_cuda_catalog_at(-1) == NULL);
    RT_CHECK(rt_spmm_cuda_catalog_at(RT_SPMM_CUDA_KIND_COUNT) == NULL);
    RT_CHECK(rt_kernels_cuda_find(NULL) == NULL);
    RT_CHECK(rt_kernels_cuda_find("spmm.cuda.tiled_typo") == NULL);
    const char *names[] = {RT_SPMM_CUDA_CSR,      RT_SPMM_CUDA_ELL,        RT_SPMM_CUDA_TILED,
                           RT_SPMM_CUDA_CUSPARSE, RT_SPMM_CUDA_TILED_PIPE, RT_SPMM_CUDA_TILED_TMA};
    RT_CHECK(sizeof names / sizeof names[0] == RT_SPMM_CUDA_KIND_COUNT);
    for (int i = 0; i < RT_SPMM_CUDA_KIND_COUNT; ++i) {
        const rt_cuda_catalog_entry *e = rt_spmm_cuda_catalog_at(i);
        RT_CHECK(e && strcmp(e->name, names[i]) == 0);
        RT_CHECK(rt_kernels_cuda_find(names[i]) == e);
        RT_CHECK(e->n_params > 0 && e->summary && *e->summary);
        for (int j = 0; j < e->n_params; ++j) {
            const rt_param_schema *s = &e->params[j];
            rt_value v;
            rt_err err;
            char why[256];
            RT_CHECK_MSG(rt_param_default(s, &v, &err) == 0, "%s.%s: %s", e->name, s->name,
                         err.msg);
            RT_CHECK_MSG(rt_param_check(s, &v, why, sizeof why) == 0, "%s.%s: %s", e->name, s->name,
                         why);
            RT_CHECK_MSG(s->help && *s->help, "%s.%s has no help", e->name, s->name);
        }
    }
    /* The domains the brief fixes, spot-checked through the schema checker. */
    const rt_cuda_catalog_entry *tiled = rt_kernels_cuda_find(RT_SPMM_CUDA_TILED);
    const rt_param_schema *shared = NULL, *staging = NULL;
    for (int j = 0; j < tiled->n_params; ++j) {
        if (strcmp(tiled->params[j].name, "shared_kib") == 0)
            shared = &tiled->params[j];
        if (strcmp(tiled->params[j].name, "staging") == 0)
            staging = &tiled->params[j];
    }
    RT_CHECK(shared && staging);
    if (shared && staging) {
        char why[256];
        rt_value v = rt_value_int(229);
        RT_CHECK(rt_param_check(shared, &v, why, sizeof why) != 0 &&
                 rt_test_contains(why, "1..228"));
        v = rt_value_str("coo");
        RT_CHECK(rt_param_check(staging, &v, why, sizeof why) != 0);
        RT_CHECK(shared->compile_time == 0 && staging->compile_time == 1);
    }
    rt_kernel_desc d;
    memset(&d, 0xAB, sizeof d);
    rt_cuda_catalog_describe(tiled, &d);
    RT_CHECK(strcmp(d.family, "spmm") == 0 && strcmp(d.backend, "cuda") == 0);
    RT_CHECK(d.setup == NULL && d.unavailable == NULL && d.backend_ctx == NULL);
}

static void test_unavailable(void)
{
    rt_registry reg;
    rt_err err;
    rt_registry_init(&reg);
    /* Without the family, registration fails and leaves nothing behind. */
    RT_CHECK(rt_cuda_register_unavailable(&reg, "no driver", &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "spmm"));
    RT_CHECK(reg.n_kernels == 0);
    RT_CHECK(rt_cuda_register_unavailable(NULL, "x", &err) != 0);

    RT_CHECK(rt_registry_add_family(&reg, rt_spmm_family(), &err) == 0);
    static const rt_kernel_desc other = {
        .name = "spmm.cpu.fake", .family = "spmm", .backend = "cpu", RT_FAKE_KERNEL_HOOKS};
    RT_CHECK(rt_registry_add_kernel(&reg, &other, &err) == 0);
    char reason[600];
    memset(reason, 'r',
           sizeof reason - 1); /* longer than the stored copy: truncated, not overrun */
    reason[sizeof reason - 1] = '\0';
    memcpy(reason, "no NVIDIA driver", 16);
    RT_CHECK_MSG(rt_cuda_register_unavailable(&reg, reason, &err) == 0, "%s", err.msg);
    RT_CHECK(reg.n_kernels == 1 + RT_SPMM_CUDA_KIND_COUNT);
    const rt_kernel_desc *k = rt_registry_find_kernel(&reg, RT_SPMM_CUDA_TILED);
    RT_CHECK(k && k->unavailable && strncmp(k->unavailable, "no NVIDIA driver", 16) == 0);
    RT_CHECK(k && rt_kernel_find_param(k, "register_tile") != NULL);
    /* A second registration is a duplicate and must not disturb the first. */
    RT_CHECK(rt_cuda_register_unavailable(&reg, "again", &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "twice"));
    RT_CHECK(reg.n_kernels == 1 + RT_SPMM_CUDA_KIND_COUNT);

    if (k) {
        void *state = (void *)&reg;
        char why[256] = "";
        RT_CHECK(k->setup(k, NULL, NULL, NULL, &state, &err) != 0 && state == NULL);
        RT_CHECK(rt_test_contains(err.msg, RT_SPMM_CUDA_TILED) &&
                 rt_test_contains(err.msg, "no NVIDIA driver"));
        RT_CHECK(k->check(k, NULL, NULL, NULL, why, sizeof why, &err) != 0);
        RT_CHECK(rt_test_contains(why, "unavailable"));
        double sec;
        RT_CHECK(k->run(NULL, &sec, &err) != 0);
        RT_CHECK(k->output(NULL, NULL, &err) != 0);
        rt_traffic t;
        RT_CHECK(k->traffic(k, NULL, NULL, NULL, &t, &err) != 0);
        k->teardown(NULL);
    }

    rt_cuda_unregister_unavailable(&reg);
    RT_CHECK(reg.n_kernels == 1);
    RT_CHECK(rt_registry_find_kernel(&reg, "spmm.cpu.fake") == &other);
    RT_CHECK(rt_registry_find_kernel(&reg, RT_SPMM_CUDA_CSR) == NULL);
    rt_cuda_unregister_unavailable(&reg); /* nothing left: harmless */
    rt_cuda_unregister_unavailable(NULL);
    RT_CHECK(reg.n_kernels == 1);

    /* Registration after unregistering works again (what a loader retrying would do), with an
     * empty reason replaced by a generic one. */
    RT_CHECK(rt_cuda_register_unavailable(&reg, "", &err) == 0);
    k = rt_registry_find_kernel(&reg, RT_SPMM_CUDA_CUSPARSE);
    RT_CHECK(k && k->unavailable && *k->unavailable);
    rt_cuda_unregister_unavailable(&reg);
    RT_CHECK(reg.n_kernels == 1);

    /* A full registry: the failure rolls back the kernels already added. */
    rt_registry full;
    rt_registry_init(&full);
    RT_CHECK(rt_registry_add_family(&full, rt_spmm_family(), &err) == 0);
    static rt_kernel_desc filler[RT_REGISTRY_MAX_KERNELS];
    static char filler_names[RT_REGISTRY_MAX_KERNELS][32];
    for (int i = 0; i < RT_REGISTRY_MAX_KERNELS - 2; ++i) {
        snprintf(filler_names[i], sizeof filler_names[i], "spmm.cpu.f%d", i);
        filler[i] = other;
        filler[i].name = filler_names[i];
        RT_CHECK(rt_registry_add_kernel(&full, &filler[i], &err) == 0);
    }
    RT_CHECK(rt_cuda_register_unavailable(&full, "none", &err) != 0);
    RT_CHECK(full.n_kernels == RT_REGISTRY_MAX_KERNELS - 2);
    RT_CHECK(rt_registry_find_kernel(&full, RT_SPMM_CUDA_CSR) == NULL);
}

int main(void)
{
    test_schemas();
    test_unavailable();
    return RT_TEST_RESULT();
}
