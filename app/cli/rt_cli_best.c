/* rooftune best: query the tuning database (results/rt_store_tuning.h) for a kernel on a device or
 * architecture and an input, with fallbacks, or export it as YAML or a C header. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_outfile.h"
#include "rt_readonly.h"
#include "rt_store_read.h"
#include "rt_store_tuning.h"

static void best_usage(FILE *f)
{
    fprintf(
        f,
        "usage: rooftune best --db DB --kernel K [--device NAME] [--arch sm_XY]\n"
        "                     [--rows N] [--nnz-per-row X] [--k K] [--memory-gb G]\n"
        "       rooftune best --db DB --export-yaml FILE | --export-header FILE\n"
        "\n"
        "Answers with the tuning database's nearest entry for the kernel: the same device if it\n"
        "has one, else the same architecture, else the architecture family (the nearest lower\n"
        "sm_X0: sm_90 -> sm_80), else the nearest architecture; among the entries of other\n"
        "devices there, the nearest device memory (--memory-gb, else the size the device's name\n"
        "states or its model is sold with), then the entry whose input (rows, nonzeros per row,\n"
        "K) is nearest in log distance. It says which fallback answered. Exit status 1 when the\n"
        "database has no entry for the kernel.\n");
}

/* Input features are counts and sizes: positive, and below anything a matrix can have. */
static int parse_positive(const char *option, const char *text, double *out)
{
    char *end;
    const double v = strtod(text, &end);
    if (end == text || *end != '\0' || !(v > 0) || !isfinite(v) || v > 1e18) {
        fprintf(stderr, "rooftune best: %s expects a positive number up to 1e18, got '%s'\n",
                option, text);
        return -1;
    }
    *out = v;
    return 0;
}

/* Written whole or not at all; "wrote" is printed only once it is in place. */
static int export_to(struct sqlite3 *db, const char *path, int header)
{
    rt_outfile o;
    rt_err err;
    if (rt_outfile_open(&o, path, &err) != 0) {
        fprintf(stderr, "rooftune best: %s\n", err.msg);
        return RT_EXIT_USAGE; /* a path where no file can be made */
    }
    const int rc =
        header ? rt_tuning_export_header(db, o.f, &err) : rt_tuning_export_yaml(db, o.f, &err);
    if (rc != 0) {
        rt_outfile_abort(&o);
        fprintf(stderr, "rooftune best: %s\n", err.msg);
        return RT_EXIT_FAILURE;
    }
    if (rt_outfile_commit(&o, &err) != 0) {
        fprintf(stderr, "rooftune best: %s\n", err.msg);
        return RT_EXIT_FAILURE;
    }
    printf("wrote %s\n", path);
    return RT_EXIT_OK;
}

int rt_cli_best(int argc, char **argv)
{
    static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
                                         {"kernel", required_argument, NULL, 'k'},
                                         {"device", required_argument, NULL, 'D'},
                                         {"arch", required_argument, NULL, 'a'},
                                         {"rows", required_argument, NULL, 'r'},
                                         {"nnz-per-row", required_argument, NULL, 'n'},
                                         {"k", required_argument, NULL, 'K'},
                                         {"memory-gb", required_argument, NULL, 'M'},
                                         {"export-yaml", required_argument, NULL, 'y'},
                                         {"export-header", required_argument, NULL, 'H'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *path = NULL, *yaml = NULL, *header = NULL;
    rt_tuning_query q = {0};
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "h", opts) {
        switch (c) {
        case 'd': path = optarg; break;
        case 'k': q.kernel = optarg; break;
        case 'D': q.device = optarg; break;
        case 'a': q.arch = optarg; break;
        case 'r':
            if (parse_positive("--rows", optarg, &q.rows) != 0)
                return RT_EXIT_USAGE;
            break;
        case 'n':
            if (parse_positive("--nnz-per-row", optarg, &q.nnz_per_row) != 0)
                return RT_EXIT_USAGE;
            break;
        case 'K':
            if (parse_positive("--k", optarg, &q.k) != 0)
                return RT_EXIT_USAGE;
            break;
        case 'M':
            if (parse_positive("--memory-gb", optarg, &q.memory_bytes) != 0)
                return RT_EXIT_USAGE;
            q.memory_bytes *= 1e9;
            break;
        case 'y': yaml = optarg; break;
        case 'H': header = optarg; break;
        case 'h': best_usage(stdout); return RT_EXIT_OK;
        default: best_usage(stderr); return RT_EXIT_USAGE;
        }
    }
    if (!path || optind != argc || (!q.kernel && !yaml && !header)) {
        best_usage(stderr);
        return RT_EXIT_USAGE;
    }
    rt_err err;
    if (q.arch && rt_cli_check_arch("--arch", q.arch, &err) != 0) {
        fprintf(stderr, "rooftune best: %s\n", err.msg);
        return RT_EXIT_USAGE;
    }
    /* A query opens the store read-only (it cannot write, not even a table) after the schema
     * check every command makes. */
    struct sqlite3 *db = NULL;
    if (rt_readonly_open(path, &db, &err) != 0 || rt_tuning_check(db, &err) != 0) {
        fprintf(stderr, "rooftune best: %s%s%s\n", db ? path : "", db ? ": " : "", err.msg);
        rt_store_read_close(db);
        return RT_EXIT_USAGE;
    }
    int rc = RT_EXIT_OK;
    if (yaml)
        rc = export_to(db, yaml, 0);
    if (rc == RT_EXIT_OK && header)
        rc = export_to(db, header, 1);
    if (rc == RT_EXIT_OK && q.kernel) {
        rt_tuning_entry e;
        const int found = rt_tuning_lookup(db, &q, &e, &err);
        if (found < 0) {
            fprintf(stderr, "rooftune best: %s\n", err.msg);
            rc = RT_EXIT_FAILURE;
        } else if (found == 1) {
            printf("no tuning entry for kernel %s in %s\n", q.kernel, path);
            rc = RT_EXIT_ATTENTION;
        } else {
            printf("kernel:    %s\nmatched:   %s\ndevice:    %s (%s", e.kernel, e.fallback,
                   e.device, e.arch);
            if (e.memory_bytes > 0)
                printf(", %.0f GB", e.memory_bytes * 1e-9);
            printf(")\n");
            printf("input:     %s, rows %.0f, nnz/row %.2f, K %g\n", e.matrix, e.rows,
                   e.nnz_per_row, e.k);
            printf("params:    %s\ntime:      %.6g s (%.1f GFLOP/s), best of %d verified points\n",
                   e.params, e.time_s, e.gflops, e.evidence_points);
        }
    }
    rt_store_read_close(db);
    return rc;
}
