/* rooftune export: the store as one flat table. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_export.h"
#include "rt_store_read.h"

static void export_usage(FILE *f)
{
    fprintf(
        f, "usage: rooftune export --db FILE [--format csv|json] [--experiment NAME] [--out FILE]\n"
           "\n"
           "Writes one row per point (experiment, kernel, backend, matrix, params, ranks, device,\n"
           "status, verified, samples, time_median_s, time_min_s, time_max_s, gflops, bound_s,\n"
           "efficiency, metrics, ...) to standard output or FILE. See docs/reference/store.md.\n");
}

int rt_cli_export(int argc, char **argv)
{
    static const struct option longopts[] = {{"db", required_argument, 0, 'd'},
                                             {"format", required_argument, 0, 'f'},
                                             {"experiment", required_argument, 0, 'e'},
                                             {"out", required_argument, 0, 'o'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *db = NULL, *format = "csv", *experiment = NULL, *out_path = NULL;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'f': format = optarg; break;
        case 'e': experiment = optarg; break;
        case 'o': out_path = optarg; break;
        case 'h': export_usage(stdout); return RT_EXIT_OK;
        default: export_usage(stderr); return RT_EXIT_USAGE;
        }
    }
    if (!db || optind != argc) {
        fprintf(stderr, "rooftune export: --db FILE is required\n\n");
        export_usage(stderr);
        return RT_EXIT_USAGE;
    }
    if (strcmp(format, "csv") != 0 && strcmp(format, "json") != 0) {
        fprintf(stderr, "rooftune export: --format must be csv or json, not '%s'\n", format);
        return RT_EXIT_USAGE;
    }
    rt_err err;
    rt_err_clear(&err);
    struct sqlite3 *h = NULL;
    /* Read-only with the schema version checked; a store that is not being written (no -wal
     * beside it) is opened immutable, so no -wal/-shm is left (rt_store_read_open). */
    if (rt_store_read_open(db, &h, &err) != 0) {
        fprintf(stderr, "rooftune export: %s\n", err.msg);
        return RT_EXIT_USAGE;
    }
    FILE *out = stdout;
    if (out_path && !(out = fopen(out_path, "w"))) {
        fprintf(stderr, "rooftune export: cannot write %s\n", out_path);
        rt_store_read_close(h);
        return RT_EXIT_FAILURE;
    }
    int status = RT_EXIT_OK;
    if (rt_export(h, format, experiment, out, &err) != 0) {
        fprintf(stderr, "rooftune export: %s: %s\n", db, err.msg);
        status = RT_EXIT_USAGE;
    }
    if (out != stdout)
        fclose(out);
    rt_store_read_close(h);
    return status;
}
