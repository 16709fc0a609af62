/* The cuSPARSE baseline of a config covers the library (issue 33: every baseline tuned as hard as
 * ours): the entries of spdnn.cuda.cusparse without constraints must together list every value of
 * the catalog's `alg` and `layout` domains in every pairing, so that every network of the config
 * is measured with every SpMM algorithm cuSPARSE offers in both layouts of the features. Prints
 * each pairing left out ("leaves out ALG/LAYOUT") and exits 1 when any is.
 *   test_spdnn_baseline CONFIG */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_config.h"
#include "rt_cuda_catalog.h"
#include "spdnn_cuda_catalog.h"

#define MAX_VALUES 32

/* The '|'-separated values of a schema domain. */
static int split_domain(const char *domain, char out[][32])
{
    int n = 0;
    const char *p = domain;
    while (*p && n < MAX_VALUES) {
        const char *bar = strchr(p, '|');
        const size_t len = bar ? (size_t)(bar - p) : strlen(p);
        snprintf(out[n++], 32, "%.*s", (int)len, p);
        p = bar ? bar + 1 : p + len;
    }
    return n;
}

static const char *domain_of(const rt_cuda_catalog_entry *e, const char *name)
{
    for (int i = 0; i < e->n_params; ++i)
        if (strcmp(e->params[i].name, name) == 0)
            return e->params[i].domain;
    return NULL;
}

static const char *default_of(const rt_cuda_catalog_entry *e, const char *name)
{
    for (int i = 0; i < e->n_params; ++i)
        if (strcmp(e->params[i].name, name) == 0)
            return e->params[i].default_value;
    return NULL;
}

/* Whether entry k lists value v for parameter name (a parameter it does not set takes the
 * schema's default). */
static int lists(const rt_kernel_cfg *k, const rt_cuda_catalog_entry *e, const char *name,
                 const char *v)
{
    for (int i = 0; i < k->n_params; ++i) {
        if (strcmp(k->params[i].name, name) != 0)
            continue;
        for (int j = 0; j < k->params[i].n_values; ++j)
            if (strcmp(k->params[i].values[j].s, v) == 0)
                return 1;
        return 0;
    }
    return strcmp(default_of(e, name), v) == 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CONFIG\n", argv[0]);
        return 2;
    }
    const rt_cuda_catalog_entry *e = rt_spdnn_cuda_catalog_at(RT_SPDNN_CUDA_KIND_CUSPARSE);
    const char *alg_domain = e ? domain_of(e, "alg") : NULL;
    const char *layout_domain = e ? domain_of(e, "layout") : NULL;
    if (!alg_domain || !layout_domain) {
        fprintf(stderr, "FAIL: %s has no alg or layout parameter\n", RT_SPDNN_CUDA_CUSPARSE);
        return 1;
    }
    char algs[MAX_VALUES][32], layouts[MAX_VALUES][32];
    const int n_algs = split_domain(alg_domain, algs);
    const int n_layouts = split_domain(layout_domain, layouts);
    rt_config cfg;
    rt_err err;
    if (rt_config_load(argv[1], NULL, 0, &cfg, &err) != 0) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }
    int entries = 0, missing = 0;
    for (int a = 0; a < n_algs; ++a)
        for (int l = 0; l < n_layouts; ++l) {
            int covered = 0;
            for (int i = 0; i < cfg.n_kernels && !covered; ++i) {
                const rt_kernel_cfg *k = &cfg.kernels[i];
                if (strcmp(k->name, RT_SPDNN_CUDA_CUSPARSE) != 0 || k->n_constraints > 0)
                    continue;
                entries += a == 0 && l == 0;
                covered = lists(k, e, "alg", algs[a]) && lists(k, e, "layout", layouts[l]);
            }
            if (!covered) {
                printf("%s: the %s baseline leaves out %s/%s\n", argv[1], RT_SPDNN_CUDA_CUSPARSE,
                       algs[a], layouts[l]);
                ++missing;
            }
        }
    printf("%s: %d of %d algorithm/layout pairings in %d unconstrained %s entries\n", argv[1],
           n_algs * n_layouts - missing, n_algs * n_layouts, entries, RT_SPDNN_CUDA_CUSPARSE);
    rt_config_free(&cfg);
    return missing ? 1 : 0;
}
