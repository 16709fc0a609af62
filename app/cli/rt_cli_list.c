/* rooftune list: what this binary can run, on this machine. */
#include <stdio.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_generators.h"
#include "rt_strategy_table.h"

static const char *kind_name(rt_vkind k)
{
    return k == RT_V_INT ? "int" : (k == RT_V_REAL ? "real" : "string");
}

static void print_schema(const rt_param_schema *s, int n, const char *indent)
{
    for (int i = 0; i < n; ++i)
        printf("%s%-16s %-6s %-22s default %-8s %s%s\n", indent, s[i].name, kind_name(s[i].kind),
               s[i].domain && *s[i].domain ? s[i].domain : "(any)",
               s[i].default_value ? s[i].default_value : "",
               s[i].compile_time ? "[compile-time] " : "", s[i].help ? s[i].help : "");
}

int rt_cli_list(int argc, char **argv)
{
    int cpu_only = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0) {
            printf(
                "usage: rooftune list [--cpu]\n\nLists backends, kernel families and their problem "
                "parameters, kernels and their\nparameters with domains and defaults, matrix "
                "generators and search strategies with\ntheir options. --cpu skips loading "
                "CUDA.\n");
            return RT_EXIT_OK;
        } else if (strcmp(argv[i], "--cpu") == 0) {
            cpu_only = 1;
        } else {
            fprintf(stderr, "rooftune list: unknown option '%s'\n", argv[i]);
            return RT_EXIT_USAGE;
        }
    }
    rt_err err;
    rt_cli_env env;
    if (rt_cli_env_open(&env, cpu_only, 0, 0, &err) != 0) {
        fprintf(stderr, "rooftune list: %s\n", err.msg);
        return RT_EXIT_FAILURE;
    }
    printf("backends:\n  cpu   %s (%d cores)\n  cuda  %s\n\n", env.backend.cpu.name,
           env.backend.cpu.sm_count, env.backend.cuda_status);
    for (int f = 0; f < env.registry.n_families; ++f) {
        const rt_family_desc *fam = env.registry.families[f];
        printf("family %s: %s\n  problem parameters:\n", fam->name,
               fam->summary ? fam->summary : "");
        print_schema(fam->problem_params, fam->n_problem_params, "    ");
        printf("\n");
    }
    printf("kernels:\n");
    for (int k = 0; k < env.registry.n_kernels; ++k) {
        const rt_kernel_desc *kd = env.registry.kernels[k];
        printf("  %s  [%s, family %s]%s%s\n    %s\n", kd->name, kd->backend, kd->family,
               kd->unavailable ? "  unavailable here: " : "",
               kd->unavailable ? kd->unavailable : "", kd->summary ? kd->summary : "");
        print_schema(kd->params, kd->n_params, "      ");
    }
    printf("\nmatrix generators:\n");
    for (int g = 0; g < rt_generator_count(); ++g) {
        const rt_generator_desc *gd = rt_generator_at(g);
        printf("  %s: %s\n", gd->name, gd->summary ? gd->summary : "");
        print_schema(gd->args, gd->n_args, "      ");
    }
    printf("\nsearch strategies (search.strategy, search.options):\n");
    rt_strategy_describe(stdout, "  ", 0);
    rt_cli_env_close(&env);
    return RT_EXIT_OK;
}
