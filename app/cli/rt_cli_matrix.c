/* rooftune matrix: build one matrix exactly as a run would (a config's matrix entry, a generator
 * with arguments, or a Matrix Market file, then an ordering), print its structure and optionally
 * write it as Matrix Market so that another tool can be run on the same input. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_config.h"
#include "rt_generators.h"
#include "rt_matrix_stats.h"
#include "rt_mmio.h"

#define MAX_ARGS 32

static void matrix_usage(FILE *f)
{
    fprintf(f,
            "usage: rooftune matrix --config CONFIG --name NAME [options]\n"
            "       rooftune matrix --generator GEN [--arg KEY=VALUE]... [options]\n"
            "       rooftune matrix --file FILE.mtx [options]\n"
            "\n"
            "Builds the matrix a run would build (same generator, arguments, seed and ordering),\n"
            "prints its structure and, with --out, writes it as Matrix Market (coordinate real\n"
            "general, 17 significant digits: reading it back gives the same matrix).\n"
            "\n"
            "  --config FILE    a config; --name picks its matrix entry (default: the first)\n"
            "  --name NAME      the matrix entry's name\n"
            "  --generator GEN  a generator (`rooftune list` shows them and their arguments)\n"
            "  --arg KEY=VALUE  a generator argument (repeatable); the others take defaults\n"
            "  --file FILE      a Matrix Market file\n"
            "  --ordering ORD   natural, rcm, random[:SEED], metis[:PARTS], hilbert (xct only);\n"
            "                   replaces the config entry's ordering\n"
            "  --out FILE       write the matrix as Matrix Market (- for standard output; the\n"
            "                   structure then goes to standard error)\n"
            "  --block-size B   rows per Tiled SpMM block for the reuse figure (default 256)\n"
            "\n"
            "Structure: rows, columns, nonzeros, density, nonzeros per row (min, mean, max,\n"
            "standard deviation, empty rows), bandwidth (max |i - j|), and the Tiled SpMM reuse:\n"
            "nonzeros over the distinct columns each block of B rows touches (how many times each\n"
            "row of the dense operand staged for a block is used).\n");
}

/* KEY=VALUE into a typed value: an integer, else a real, else a string. */
static int parse_arg(const char *text, rt_params *args, rt_err *err)
{
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || !eq[1])
        return rt_err_set(err, "--arg '%s': expected KEY=VALUE", text);
    char key[RT_NAME_MAX];
    const size_t klen = (size_t)(eq - text);
    if (klen >= sizeof key)
        return rt_err_set(err, "--arg '%s': the name is too long", text);
    memcpy(key, text, klen);
    key[klen] = '\0';
    const char *v = eq + 1;
    char *end = NULL;
    errno = 0;
    const long long i = strtoll(v, &end, 10);
    rt_value value;
    if (errno == 0 && end && *end == '\0') {
        value = rt_value_int(i);
    } else {
        errno = 0;
        const double r = strtod(v, &end);
        if (end && *end == '\0' && end != v && !isfinite(r))
            return rt_err_set(err, "--arg %s: '%s' is not a finite number", key, v);
        if (errno == 0 && end && *end == '\0')
            value = rt_value_real(r);
        else if (strlen(v) < RT_STR_MAX)
            value = rt_value_str(v);
        else
            return rt_err_set(err, "--arg '%s': the value is too long", text);
    }
    if (rt_params_get(args, key))
        return rt_err_set(err, "--arg %s is given twice", key);
    return rt_params_set(args, key, value, err);
}

static void print_stats(FILE *f, const char *what, const rt_matrix_stats *s)
{
    fprintf(f, "matrix %s\n", what);
    fprintf(f, "  rows            %lld\n", (long long)s->rows);
    fprintf(f, "  columns         %lld\n", (long long)s->cols);
    fprintf(f, "  nonzeros        %lld\n", (long long)s->nnz);
    fprintf(f, "  density         %.6g\n", s->density);
    fprintf(f, "  per row         min %lld, mean %.4g, max %lld, stddev %.4g, empty rows %lld\n",
            (long long)s->row_nnz_min, s->row_nnz_mean, (long long)s->row_nnz_max,
            s->row_nnz_stddev, (long long)s->empty_rows);
    fprintf(f, "  bandwidth       %lld\n", (long long)s->bandwidth);
    fprintf(f,
            "  tiled reuse     %.4g (block of %d rows: %lld staged rows of B over all blocks, at "
            "most %lld in one block)\n",
            s->tiled_reuse, s->block_size, (long long)s->tiled_footprint,
            (long long)s->tiled_footprint_max);
}

int rt_cli_matrix(int argc, char **argv)
{
    static const struct option longopts[] = {{"config", required_argument, 0, 'c'},
                                             {"name", required_argument, 0, 'n'},
                                             {"generator", required_argument, 0, 'g'},
                                             {"arg", required_argument, 0, 'a'},
                                             {"file", required_argument, 0, 'f'},
                                             {"ordering", required_argument, 0, 'o'},
                                             {"out", required_argument, 0, 'w'},
                                             {"block-size", required_argument, 0, 'b'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *config = NULL, *name = NULL, *generator = NULL, *file = NULL, *ordering = NULL,
               *out = NULL;
    long block_size = 256;
    rt_params args;
    rt_params_init(&args);
    rt_err err;
    rt_err_clear(&err);
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "", longopts) {
        switch (c) {
        case 'c': config = optarg; break;
        case 'n': name = optarg; break;
        case 'g': generator = optarg; break;
        case 'a':
            if (parse_arg(optarg, &args, &err) != 0) {
                fprintf(stderr, "rooftune matrix: %s\n", err.msg);
                return RT_EXIT_USAGE;
            }
            break;
        case 'f': file = optarg; break;
        case 'o': ordering = optarg; break;
        case 'w': out = optarg; break;
        case 'b':
            if (rt_cli_parse_int("--block-size", optarg, 1, 1 << 20, &block_size, &err) != 0) {
                fprintf(stderr, "rooftune matrix: %s\n", err.msg);
                return RT_EXIT_USAGE;
            }
            break;
        case 'h': matrix_usage(stdout); return RT_EXIT_OK;
        default: matrix_usage(stderr); return RT_EXIT_USAGE;
        }
    }
    if (optind != argc || (!!config + !!generator + !!file) != 1) {
        fprintf(stderr, "rooftune matrix: give exactly one of --config, --generator, --file\n\n");
        matrix_usage(stderr);
        return RT_EXIT_USAGE;
    }
    if (name && !config) {
        fprintf(stderr, "rooftune matrix: --name picks a matrix entry of --config\n");
        return RT_EXIT_USAGE;
    }
    if (args.n > 0 && !generator) {
        fprintf(stderr, "rooftune matrix: --arg sets arguments of --generator\n");
        return RT_EXIT_USAGE;
    }

    rt_config cfg;
    memset(&cfg, 0, sizeof cfg);
    rt_csr a;
    memset(&a, 0, sizeof a);
    char what[1200];
    int status = RT_EXIT_OK;
    int built;
    if (config) {
        if (rt_config_load(config, NULL, 0, &cfg, &err) != 0) {
            fprintf(stderr, "%s\n", err.msg);
            return RT_EXIT_USAGE;
        }
        const rt_matrix_cfg *mc = NULL;
        for (int i = 0; i < cfg.n_matrices && !mc; ++i)
            if (!name || strcmp(cfg.matrices[i].name, name) == 0)
                mc = &cfg.matrices[i];
        if (!mc) {
            fprintf(stderr, "rooftune matrix: %s has no matrix entry%s%s%s\n", config,
                    name ? " named '" : "", name ? name : "", name ? "'" : "");
            if (name && cfg.n_matrices > 0) {
                fprintf(stderr, "  its matrices:");
                for (int i = 0; i < cfg.n_matrices; ++i)
                    fprintf(stderr, " %s", cfg.matrices[i].name);
                fprintf(stderr, "\n");
            }
            rt_config_free(&cfg);
            return RT_EXIT_USAGE;
        }
        const char *ord = ordering ? ordering : mc->ordering[0] ? mc->ordering : NULL;
        built = rt_matrix_build(mc->generator[0] ? mc->generator : NULL, &mc->gen,
                                mc->file[0] ? mc->file : NULL, ord, &a, &err);
        snprintf(what, sizeof what, "'%s' of %s (ordering %s)", mc->name, config,
                 ord ? ord : "natural");
    } else {
        built = rt_matrix_build(generator, &args, file, ordering, &a, &err);
        snprintf(what, sizeof what, "%s%s (ordering %s)", generator ? "generator " : "",
                 generator ? generator : file, ordering ? ordering : "natural");
    }
    if (built != 0) {
        fprintf(stderr, "rooftune matrix: %s\n", err.msg);
        rt_config_free(&cfg);
        return RT_EXIT_USAGE;
    }

    rt_matrix_stats s;
    const int to_stdout = out && strcmp(out, "-") == 0;
    if (rt_matrix_stats_compute(&a, (int)block_size, &s, &err) != 0) {
        fprintf(stderr, "rooftune matrix: %s\n", err.msg);
        status = RT_EXIT_FAILURE;
    } else {
        print_stats(to_stdout ? stderr : stdout, what, &s);
    }
    if (status == RT_EXIT_OK && out) {
        const int rc = to_stdout ? rt_mmio_write_stream(stdout, "standard output", &a, &err)
                                 : rt_mmio_write(out, &a, &err);
        if (rc != 0) {
            fprintf(stderr, "rooftune matrix: %s\n", err.msg);
            status = RT_EXIT_FAILURE;
        } else if (!to_stdout) {
            printf("  wrote           %s\n", out);
        }
    }
    rt_csr_free(&a);
    rt_config_free(&cfg);
    return status;
}
