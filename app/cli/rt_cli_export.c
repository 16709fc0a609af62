/* rooftune export: the store as one flat table. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_export.h"
#include "rt_outfile.h"
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
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "", longopts) {
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
    /* A file is written whole or not at all: an error leaves the old one as it was. */
    rt_outfile file = RT_OUTFILE_NONE;
    if (out_path && rt_outfile_open(&file, out_path, &err) != 0) {
        fprintf(stderr, "rooftune export: %s\n", err.msg);
        rt_store_read_close(h);
        return RT_EXIT_USAGE; /* a path where no file can be made */
    }
    int status = RT_EXIT_OK;
    if (rt_export(h, format, experiment, out_path ? file.f : stdout, &err) != 0 &&
        !(out_path && file.write_errno)) {
        fprintf(stderr, "rooftune export: %s: %s\n", db, err.msg);
        status = RT_EXIT_USAGE;
    } else if (out_path && rt_outfile_commit(&file, &err) != 0) {
        /* a write that failed (a full disk) is reported here, with its reason */
        fprintf(stderr, "rooftune export: %s\n", err.msg);
        status = RT_EXIT_FAILURE;
    } else if (!out_path && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "rooftune export: cannot write to standard output\n");
        status = RT_EXIT_FAILURE;
    }
    rt_outfile_abort(&file);
    rt_store_read_close(h);
    return status;
}
