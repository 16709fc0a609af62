/* baseline_cover: does each config's baseline entry cover every algorithm and layout its library
 * offers? (issue 33, item 1: a baseline is tuned like our kernels, over its library's options.)
 *
 * A baseline is a kernel that runs a vendor library as it is: its implementation name (after the
 * last dot) is the library's, one of BASELINE_LIBS. What it "offers" is read from the kernel's
 * schema in the catalog, never listed here, so a library option added to a kernel is required of
 * every config at once:
 *   - every string parameter of the kernel with an enumerated domain ("a|b|c": algorithms, math
 *     modes, layouts of the kernel's own) must take every value over the config's entries of that
 *     kernel together (an entry that does not name the parameter takes the default);
 *   - the family's problem parameter `layout`, when its domain is enumerated, must take every
 *     value in the config's problem (the default when the config does not sweep it), since the
 *     library is then called on every dense layout.
 * Integer sizes (Blocked-ELL's block, cublasXt's block dimension) are tuning ranges, not
 * algorithms, and are not required in full.
 *
 *   baseline_cover CONFIG.yaml...
 *
 * Prints one line per config and, for each omission, "FILE:LINE:COL: KERNEL leaves out
 * PARAM VALUE[, VALUE...] (the library offers DOMAIN)". Exit status: 0 every baseline entry
 * covers its library, 1 at least one leaves something out, 2 bad input (no config given, or a
 * config that does not load or does not check against the kernels' schemas: the message names
 * the file, line and key). */
#include <stdio.h>
#include <string.h>

#include "rt_config.h"
#include "rt_cuda_unavailable.h"
#include "rt_error.h"
#include "rt_kernels.h"
#include "rt_registry.h"

/* Implementation names of the kernels that run a library as it is. */
static const char *const BASELINE_LIBS[] = {"cusparse", "cublas", "cublasxt"};

#define MAX_WORDS 64

/* The words of an enumerated domain "a|b|c" (a single word is an enumeration of one). Returns
 * their number, or 0 for a domain that is not an enumeration of words ("", a range "LO..HI"). */
static int domain_words(const char *domain, char words[][RT_STR_MAX])
{
    if (!domain || !*domain || strstr(domain, ".."))
        return 0;
    int n = 0;
    const char *p = domain;
    while (*p && n < MAX_WORDS) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len >= RT_STR_MAX)
            len = RT_STR_MAX - 1;
        memcpy(words[n], p, len);
        words[n][len] = '\0';
        ++n;
        p = bar ? bar + 1 : p + len;
    }
    return n;
}

static int is_baseline(const char *kernel)
{
    const char *dot = strrchr(kernel, '.');
    const char *impl = dot ? dot + 1 : kernel;
    for (size_t i = 0; i < sizeof BASELINE_LIBS / sizeof BASELINE_LIBS[0]; ++i)
        if (strcmp(impl, BASELINE_LIBS[i]) == 0)
            return 1;
    return 0;
}

/* 1 when the string value `word` is among the values of domain d. */
static int domain_has(const rt_param_domain *d, const char *word)
{
    for (int v = 0; v < d->n_values; ++v)
        if (d->values[v].kind == RT_V_STR && strcmp(d->values[v].s, word) == 0)
            return 1;
    return 0;
}

/* Does some entry of `kernel` in cfg give parameter `param` the value `word`? An entry that does
 * not name the parameter gives it the schema default. */
static int entries_take(const rt_config *cfg, const char *kernel, const rt_param_schema *s,
                        const char *word)
{
    for (int e = 0; e < cfg->n_kernels; ++e) {
        const rt_kernel_cfg *k = &cfg->kernels[e];
        if (strcmp(k->name, kernel) != 0)
            continue;
        const rt_param_domain *d = NULL;
        for (int j = 0; j < k->n_params; ++j)
            if (strcmp(k->params[j].name, s->name) == 0)
                d = &k->params[j];
        if (d ? domain_has(d, word) : strcmp(s->default_value, word) == 0)
            return 1;
    }
    return 0;
}

/* Prints the values of `words` that `taken` says are missing, as one omission line; returns 1
 * when one was missing. */
static int report(const rt_kernel_cfg *first, const char *what, const char *domain,
                  char words[][RT_STR_MAX], const int *taken, int n)
{
    char missing[1024] = "";
    for (int w = 0; w < n; ++w) {
        if (taken[w])
            continue;
        size_t used = strlen(missing);
        snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "", words[w]);
    }
    if (!*missing)
        return 0;
    char where[600];
    rt_src_loc_format(&first->name_loc, where, sizeof where);
    printf("%s: %s leaves out %s %s (the library offers %s)\n", where, first->name, what, missing,
           domain);
    return 1;
}

/* Checks one kernel of a loaded config (first: its first entry); returns the omissions found. */
static int check_kernel(const rt_config *cfg, const rt_registry *reg, const rt_kernel_cfg *first)
{
    const rt_kernel_desc *desc = rt_registry_find_kernel(reg, first->name);
    char words[MAX_WORDS][RT_STR_MAX];
    int taken[MAX_WORDS];
    int omissions = 0;
    for (int i = 0; i < desc->n_params; ++i) {
        const rt_param_schema *s = &desc->params[i];
        int n = s->kind == RT_V_STR ? domain_words(s->domain, words) : 0;
        for (int w = 0; w < n; ++w)
            taken[w] = entries_take(cfg, first->name, s, words[w]);
        omissions += report(first, s->name, s->domain, words, taken, n);
    }
    const rt_family_desc *fam = rt_registry_find_family(reg, desc->family);
    for (int i = 0; fam && i < fam->n_problem_params; ++i) {
        const rt_param_schema *s = &fam->problem_params[i];
        if (strcmp(s->name, "layout") != 0 || s->kind != RT_V_STR)
            continue;
        const rt_param_domain *d = NULL;
        for (int j = 0; j < cfg->n_problem; ++j)
            if (strcmp(cfg->problem[j].name, s->name) == 0)
                d = &cfg->problem[j];
        int n = domain_words(s->domain, words);
        for (int w = 0; w < n; ++w)
            taken[w] = d ? domain_has(d, words[w]) : strcmp(s->default_value, words[w]) == 0;
        omissions += report(first, "problem layout", s->domain, words, taken, n);
    }
    return omissions;
}

/* 0: covered, 1: omissions (printed), 2: the config does not load or check (err filled). */
static int check_config(const char *path, const rt_registry *reg, rt_err *err)
{
    rt_config cfg;
    if (rt_config_load(path, NULL, 0, &cfg, err) != 0)
        return 2;
    if (rt_config_check(&cfg, reg, err) != 0) {
        rt_config_free(&cfg);
        return 2;
    }
    int baselines = 0, omissions = 0;
    for (int e = 0; e < cfg.n_kernels; ++e) {
        const rt_kernel_cfg *k = &cfg.kernels[e];
        int seen = 0; /* a kernel with several entries is checked once, over all of them */
        for (int p = 0; p < e; ++p)
            seen |= strcmp(cfg.kernels[p].name, k->name) == 0;
        if (seen || !is_baseline(k->name))
            continue;
        ++baselines;
        omissions += check_kernel(&cfg, reg, k);
    }
    if (baselines == 0)
        printf("%s: no baseline kernel\n", path);
    else
        printf("%s: %d baseline kernel(s), %s\n", path, baselines,
               omissions ? "options left out" : "every option covered");
    rt_config_free(&cfg);
    return omissions ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: baseline_cover CONFIG.yaml...\n");
        return 2;
    }
    rt_registry reg;
    rt_err err;
    rt_registry_init(&reg);
    if (rt_kernels_register_builtin(&reg, &err) != 0 ||
        rt_cuda_register_unavailable(&reg, "baseline_cover reads schemas only", &err) != 0) {
        fprintf(stderr, "baseline_cover: %s\n", err.msg);
        return 2;
    }
    int status = 0;
    for (int i = 1; i < argc; ++i) {
        int rc = check_config(argv[i], &reg, &err);
        if (rc == 2) {
            fprintf(stderr, "baseline_cover: %s\n", err.msg);
            status = 2;
        } else if (rc == 1 && status == 0) {
            status = 1;
        }
    }
    rt_cuda_unregister_unavailable(&reg);
    return status;
}
