/* Issue 33: the GEMM baselines of every paper config are tuned as hard as ours. A gemm.cuda.cublas
 * entry sweeps every cuBLAS math mode that changes the products of the config's precisions
 * (rt_gemm_cublas_mode_applies: tf32 and bf16x9 for FP32, fp64_emulated for FP64, default and
 * pedantic for both; the configs list the others too, infeasible at no cost, as the tests of all
 * families' baselines ask for every value of a library's option); a gemm.cuda.cublasxt entry
 * sweeps the block dimension (three sizes or more beside the library's default: an integer range,
 * which a check of enumerated options does not ask for) over all the GPUs of the host (xt_gpus 0,
 * or counts of two or more). Ratios then use the best verified baseline point. Configs written to
 * leave a mode, the block sweep or the GPUs out prove that the check fires.
 * Args: the paper configs' folder, a scratch folder. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "gemm_cuda_catalog.h"
#include "rt_config.h"
#include "rt_test.h"

static const rt_param_domain *domain_of(const rt_kernel_cfg *k, const char *name)
{
    for (int i = 0; i < k->n_params; ++i)
        if (strcmp(k->params[i].name, name) == 0)
            return &k->params[i];
    return NULL;
}

/* Whether the domain lists the word; an entry without the parameter runs its default only. */
static int has_word(const rt_param_domain *d, const char *word, const char *dflt)
{
    if (!d)
        return strcmp(word, dflt) == 0;
    for (int i = 0; i < d->n_values; ++i)
        if (d->values[i].kind == RT_V_STR && strcmp(d->values[i].s, word) == 0)
            return 1;
    return 0;
}

/* What the config's baseline entries leave out, appended to why; 0 when nothing. */
static int gaps(const rt_config *cfg, char *why, size_t len)
{
    int n = 0;
    why[0] = '\0';
    int prec[2] = {0, 0}; /* fp32, fp64 swept */
    const rt_param_domain *pd = NULL;
    for (int i = 0; i < cfg->n_problem; ++i)
        if (strcmp(cfg->problem[i].name, "precision") == 0)
            pd = &cfg->problem[i];
    if (!pd)
        prec[RT_FP64] = 1; /* the family's default */
    for (int i = 0; pd && i < pd->n_values; ++i)
        prec[strcmp(pd->values[i].s, "fp32") == 0 ? RT_FP32 : RT_FP64] = 1;
    static const char *const modes[] = {"default", "pedantic", "tf32", "bf16x9", "fp64_emulated"};
    for (int k = 0; k < cfg->n_kernels; ++k) {
        const rt_kernel_cfg *kc = &cfg->kernels[k];
        if (strcmp(kc->name, RT_GEMM_CUDA_CUBLAS) == 0) {
            const rt_param_domain *d = domain_of(kc, "math_mode");
            for (size_t m = 0; m < sizeof modes / sizeof modes[0]; ++m) {
                const char *for_prec = NULL; /* a swept precision the mode changes */
                for (int p = 0; p < 2; ++p)
                    if (prec[p] && rt_gemm_cublas_mode_applies(modes[m], (rt_precision)p) == 1)
                        for_prec = p == RT_FP64 ? "fp64" : "fp32";
                if (for_prec && !has_word(d, modes[m], "default"))
                    n += snprintf(why + strlen(why), len - strlen(why),
                                  " cublas entry %d leaves out math_mode %s (%s);", k, modes[m],
                                  for_prec) > 0;
            }
        }
        if (strcmp(kc->name, RT_GEMM_CUDA_CUBLASXT) == 0) {
            const rt_param_domain *b = domain_of(kc, "xt_block"), *g = domain_of(kc, "xt_gpus");
            int sizes = 0, all = 0;
            for (int i = 0; b && i < b->n_values; ++i)
                sizes += b->values[i].i > 0;
            for (int i = 0; g && i < g->n_values; ++i)
                all |= g->values[i].i == 0 || g->values[i].i >= 2;
            if (sizes < 3)
                n += snprintf(why + strlen(why), len - strlen(why),
                              " cublasxt entry %d sweeps %d block size(s), not 3 or more;", k,
                              sizes) > 0;
            if (!all)
                n += snprintf(why + strlen(why), len - strlen(why),
                              " cublasxt entry %d never runs on all the GPUs (xt_gpus 0 or >= 2);",
                              k) > 0;
        }
    }
    return n;
}

static int load(const char *path, rt_config *cfg)
{
    rt_err err;
    const int rc = rt_config_load(path, NULL, 0, cfg, &err);
    RT_CHECK_MSG(rc == 0, "%s: %s", path, err.msg);
    return rc;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    RT_CHECK_MSG(f != NULL, "cannot write %s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s CONFIG_DIR SCRATCH\n", argv[0]);
        return 2;
    }
    DIR *d = opendir(argv[1]);
    RT_CHECK_MSG(d != NULL, "cannot open %s", argv[1]);
    int checked = 0, baselines = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        const size_t l = strlen(de->d_name);
        if (strncmp(de->d_name, "gemm-", 5) != 0 || l < 6 || strcmp(de->d_name + l - 5, ".yaml"))
            continue;
        char path[2048], why[2048];
        snprintf(path, sizeof path, "%s/%s", argv[1], de->d_name);
        rt_config cfg;
        if (load(path, &cfg) != 0)
            continue;
        for (int k = 0; k < cfg.n_kernels; ++k)
            baselines += strcmp(cfg.kernels[k].name, RT_GEMM_CUDA_CUBLAS) == 0 ||
                         strcmp(cfg.kernels[k].name, RT_GEMM_CUDA_CUBLASXT) == 0;
        RT_CHECK_MSG(gaps(&cfg, why, sizeof why) == 0, "%s:%s", path, why);
        rt_config_free(&cfg);
        ++checked;
    }
    if (d)
        closedir(d);
    RT_CHECK_MSG(checked >= 5 && baselines >= 5, "%d GEMM paper configs, %d baseline entries",
                 checked, baselines);

    /* The check fires: an FP32 cublas entry without tf32, an FP64 one at the default mode only,
     * cublasXt at its default block on one GPU. */
    const char *head = "experiment: {name: gap}\n"
                       "matrices: [{name: dense, generator: banded, rows: 4, bandwidth: 1}]\n";
    char text[1024], path[2048], why[2048];
    snprintf(path, sizeof path, "%s/gap.yaml", argv[2]);
    snprintf(text, sizeof text,
             "%sproblem: {N: [64], precision: [fp32]}\nkernels:\n"
             "  - {name: gemm.cuda.cublas, params: {math_mode: [default, pedantic, bf16x9]}}\n",
             head);
    write_file(path, text);
    rt_config cfg;
    if (load(path, &cfg) == 0) {
        RT_CHECK(gaps(&cfg, why, sizeof why) == 1 && strstr(why, "math_mode tf32 (fp32)"));
        rt_config_free(&cfg);
    }
    snprintf(text, sizeof text,
             "%sproblem: {N: [64]}\nkernels:\n  - {name: gemm.cuda.cublas}\n"
             "  - {name: gemm.cuda.cublasxt, params: {xt_block: [0, 1024]}}\n",
             head);
    write_file(path, text);
    if (load(path, &cfg) == 0) {
        RT_CHECK_MSG(gaps(&cfg, why, sizeof why) == 4 && strstr(why, "pedantic (fp64)") &&
                         strstr(why, "fp64_emulated (fp64)") && strstr(why, "1 block size") &&
                         strstr(why, "never runs on all"),
                     "%s", why);
        rt_config_free(&cfg);
    }
    return RT_TEST_RESULT();
}
