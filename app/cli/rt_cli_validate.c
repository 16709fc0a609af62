/* rooftune validate: load and check a config, print what it would sweep. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_config.h"

#define MAX_SETS 64

static void validate_usage(FILE *f)
{
    fprintf(f,
            "usage: rooftune validate CONFIG [--set KEY=VALUE]...\n"
            "\n"
            "Checks the config (YAML syntax, keys, types, domains, kernels and their parameters,\n"
            "constraints, generators) without running anything. Errors name file:line:column.\n"
            "Exit status 0 when valid, 2 otherwise.\n");
}

int rt_cli_validate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"set", required_argument, 0, 's'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *sets[MAX_SETS];
    int n_sets = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 's' && n_sets < MAX_SETS)
            sets[n_sets++] = optarg;
        else if (c == 'h') {
            validate_usage(stdout);
            return RT_EXIT_OK;
        } else {
            validate_usage(stderr);
            return RT_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        validate_usage(stderr);
        return RT_EXIT_USAGE;
    }
    rt_err err;
    rt_err_clear(&err);
    rt_config cfg;
    memset(&cfg, 0, sizeof cfg);
    rt_cli_env env;
    int status = RT_EXIT_OK;
    if (rt_config_load(argv[optind], sets, n_sets, &cfg, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return RT_EXIT_USAGE;
    }
    /* Validation never needs the GPU: CUDA kernels are known through their catalog entries. */
    if (rt_cli_env_open(&env, 1, 0, 0, &err) != 0) {
        fprintf(stderr, "rooftune validate: %s\n", err.msg);
        rt_config_free(&cfg);
        return RT_EXIT_FAILURE;
    }
    if (rt_cli_env_user_kernels(&env, &cfg, &err) != 0 ||
        rt_config_check(&cfg, &env.registry, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        status = RT_EXIT_USAGE;
    } else {
        long long space = 1;
        for (int i = 0; i < cfg.n_problem; ++i)
            space *= cfg.problem[i].n_values;
        printf("%s: valid. experiment '%s': %d matri%s, %lld problem point(s), %d kernel(s)\n",
               argv[optind], cfg.name, cfg.n_matrices, cfg.n_matrices == 1 ? "x" : "ces", space,
               cfg.n_kernels);
        for (int k = 0; k < cfg.n_kernels; ++k) {
            long long n = 1;
            for (int p = 0; p < cfg.kernels[k].n_params; ++p)
                n *= cfg.kernels[k].params[p].n_values;
            printf("  %-24s %lld parameter combination(s) before constraints, %d constraint(s)\n",
                   cfg.kernels[k].name, n, cfg.kernels[k].n_constraints);
        }
    }
    rt_cli_env_close(&env);
    rt_config_free(&cfg);
    return status;
}
