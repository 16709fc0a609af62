/* rooftune validate: load and check a config, then walk its whole sweep the way `run` would
 * (rt_cli_space.h), and print what it would sweep. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_cli_space.h"
#include "rt_config.h"
#include "rt_problem.h"

#define MAX_SETS 64

static void validate_usage(FILE *f)
{
    fprintf(f,
            "usage: rooftune validate CONFIG [--set KEY=VALUE]... [--inputs] [--cpu]\n"
            "\n"
            "Checks the config (YAML syntax, keys, types, domains, kernels and their parameters,\n"
            "constraints, generators) without running anything, then walks the whole sweep the\n"
            "way `run` does: for every problem point and kernel (and every matrix, built as the\n"
            "run builds it, when a constraint reads matrix.*) it evaluates every point's domains\n"
            "and constraints against the problem, the matrix and the device.\n"
            "A constraint that cannot be evaluated, or a config none of whose kernels has a point\n"
            "that satisfies the constraints, is an error (a kernel alone with none is noted).\n"
            "CUDA kernels on a machine without a GPU (or with --cpu) are checked but their points\n"
            "are not judged (their constraints read the device).\n"
            "Errors name file:line:column.\n"
            "\n"
            "  --inputs    also build every family's inputs and reference for every matrix and\n"
            "              problem point (the checks that need the matrix's values, such as\n"
            "              eigen's nev against the matrix; as slow as a run's set-up)\n"
            "  --cpu       do not load the CUDA backend even if a GPU is present (its kernels\n"
            "              are then checked but not judged)\n"
            "\n"
            "Exit status 0 when valid, 2 otherwise.\n");
}

/* a * b, or -1 when it does not fit in int64_t. */
static int64_t checked_product(int64_t a, int64_t b)
{
    return a < 0 || b < 0 || (b > 0 && a > INT64_MAX / b) ? -1 : a * b;
}

static void print_count(const char *what, int64_t n)
{
    if (n < 0)
        printf("more than %lld %s", (long long)INT64_MAX, what);
    else
        printf("%lld %s", (long long)n, what);
}

int rt_cli_validate(int argc, char **argv)
{
    static const struct option longopts[] = {{"set", required_argument, 0, 's'},
                                             {"inputs", no_argument, 0, 'i'},
                                             {"cpu", no_argument, 0, 'c'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *sets[MAX_SETS];
    int n_sets = 0, with_inputs = 0, cpu_only = 0;
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "", longopts) {
        if (c == 's' && n_sets < MAX_SETS) {
            sets[n_sets++] = optarg;
        } else if (c == 's') {
            fprintf(stderr, "rooftune validate: at most %d --set options\n", MAX_SETS);
            return RT_EXIT_USAGE;
        } else if (c == 'i') {
            with_inputs = 1;
        } else if (c == 'c') {
            cpu_only = 1;
        } else if (c == 'h') {
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
    /* The backend as `run` opens it, so the CUDA kernels' sweeps are judged against the GPU
     * where there is one; elsewhere (or with --cpu) they are known through their catalog entries
     * and their points are not judged. */
    if (rt_cli_env_open(&env, cpu_only, 0, 0, &err) != 0) {
        fprintf(stderr, "rooftune validate: %s\n", err.msg);
        rt_config_free(&cfg);
        return RT_EXIT_FAILURE;
    }
    rt_cli_space_totals totals;
    if (rt_cli_env_user_kernels(&env, &cfg, &err) != 0 ||
        rt_config_check(&cfg, &env.registry, &err) != 0 ||
        rt_cli_check_spaces(&cfg, &env.registry, &env.backend, 1, with_inputs, &totals, &err) !=
            0) {
        fprintf(stderr, "%s\n", err.msg);
        status = RT_EXIT_USAGE;
    } else {
        int64_t problems = 1;
        for (int i = 0; i < cfg.n_problem; ++i)
            problems = checked_product(problems, cfg.problem[i].n_values);
        printf("%s: valid. experiment '%s': %d matri%s, ", argv[optind], cfg.name, cfg.n_matrices,
               cfg.n_matrices == 1 ? "x" : "ces");
        print_count("problem point(s)", problems);
        printf(", %d kernel(s)\n", cfg.n_kernels);
        for (int k = 0; k < cfg.n_kernels; ++k) {
            int64_t n = 1;
            for (int p = 0; p < cfg.kernels[k].n_params; ++p)
                n = checked_product(n, cfg.kernels[k].params[p].n_values);
            printf("  %-24s ", cfg.kernels[k].name);
            print_count("parameter combination(s) before constraints", n);
            printf(", %d constraint(s)\n", cfg.kernels[k].n_constraints);
        }
        printf("  sweep: %lld point(s) evaluated in %d sweep(s), %lld feasible",
               (long long)totals.points, totals.sweeps, (long long)totals.feasible);
        if (totals.empty_sweeps)
            printf(" (%d sweep(s) with no feasible point: their points are recorded infeasible)",
                   totals.empty_sweeps);
        if (totals.unjudged)
            printf("; %d sweep(s) of kernels whose backend is not here not judged",
                   totals.unjudged);
        printf("%s\n", with_inputs ? "; every family's inputs and reference built" : "");
        for (int k = 0; k < totals.n_empty_kernels; ++k)
            printf("  note: %s (its points are recorded infeasible)\n", totals.empty_kernels[k]);
        rt_cli_reps_warn(&cfg, stdout);
    }
    rt_cli_env_close(&env);
    rt_config_free(&cfg);
    return status;
}
