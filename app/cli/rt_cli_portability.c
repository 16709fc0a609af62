/* rooftune portability: each GPU's best configurations run on the other GPUs (issue 35, item 4).
 * With --config it writes a config that runs every configuration of the tuning database (the
 * tuning config's matrices and problems, included, with the database's configurations as its
 * kernels); run it on every device into a store of its own, then --table reads the stores and
 * writes the table: each configuration's time on each device against that device's own best,
 * the loss in % (store/rt_store_portability.h, report/rt_portability_write.h). */
#define _XOPEN_SOURCE 700
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_config.h"
#include "rt_outfile.h"
#include "rt_portability_write.h"
#include "rt_readonly.h"
#include "rt_store_portability.h"
#include "rt_store_read.h"
#include "rt_store_tuning.h"

#define MAX_STORES 16

static void portability_usage(FILE *f)
{
    fprintf(
        f, "usage: rooftune portability --db TUNED --config CONFIG --out PORT.yaml [--kernel K]\n"
           "       rooftune portability --db TUNED --table STORE... [--markdown FILE]\n"
           "\n"
           "--config: writes PORT.yaml, which includes CONFIG (its matrices, problem points and\n"
           "measurement) and runs every configuration of the tuning database TUNED of the kernels\n"
           "CONFIG tunes (of kernel K):\n"
           "each one kernel entry with one value per parameter, searched exhaustively. Run it on\n"
           "every device (rooftune run PORT.yaml --db port-<device>.db), then\n"
           "--table: for every tuning entry and every device the stores measured, the entry's\n"
           "time on that device against the device's own best (its tuning entry's configuration,\n"
           "else the fastest there), the loss in %%, with a summary per pair of devices.\n");
}

typedef struct gen_ctx {
    struct sqlite3 *db;
    FILE *out;
    const char *kernel;
    const rt_config *cfg;       /* the tuning config: only the kernels it tunes are written */
    char seen[256][1024 + 128]; /* kernel|params already written */
    int n_seen, written;
    rt_err *err;
} gen_ctx;

/* One kernel entry per distinct (kernel, configuration) of the database. */
static int write_entry(void *ctx, const rt_tuning_entry *e)
{
    gen_ctx *g = ctx;
    if (g->kernel && strcmp(g->kernel, e->kernel) != 0)
        return 0;
    /* A database that holds several families' tunings (one per tuning config) gives each config
     * only its own kernels: another family's kernel would run on this config's problem. */
    int tuned_here = 0;
    for (int i = 0; i < g->cfg->n_kernels && !tuned_here; ++i)
        tuned_here = strcmp(g->cfg->kernels[i].name, e->kernel) == 0;
    if (!tuned_here)
        return 0;
    char key[sizeof g->seen[0]];
    snprintf(key, sizeof key, "%s|%s", e->kernel, e->params);
    for (int i = 0; i < g->n_seen; ++i)
        if (strcmp(g->seen[i], key) == 0)
            return 0;
    if (g->n_seen >= (int)(sizeof g->seen / sizeof g->seen[0])) {
        rt_err_set(g->err, "more than %d distinct configurations", g->n_seen);
        return -1;
    }
    snprintf(g->seen[g->n_seen++], sizeof g->seen[0], "%s", key);
    rt_tuning_param params[64];
    int n = 0;
    if (rt_tuning_params_split(g->db, e->params, params, 64, &n, g->err) != 0)
        return -1;
    fprintf(g->out, "  # tuned on %s (%s), %s %s\n  - name: %s\n    params: {", e->device, e->arch,
            e->matrix, e->problem, e->kernel);
    for (int i = 0; i < n; ++i) {
        fprintf(g->out, "%s%s: [", i ? ", " : "", params[i].name);
        if (params[i].is_text) {
            fputc('"', g->out);
            for (const char *c = params[i].value; *c; ++c) {
                if (*c == '"' || *c == '\\')
                    fputc('\\', g->out);
                fputc((unsigned char)*c < 0x20 ? ' ' : *c, g->out);
            }
            fputc('"', g->out);
        } else {
            fputs(params[i].value, g->out);
        }
        fputc(']', g->out);
    }
    fprintf(g->out, "}\n");
    g->written++;
    return 0;
}

static int generate(const char *tuned, const char *config, const char *out_path, const char *kernel)
{
    rt_err err;
    rt_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (rt_config_load(config, NULL, 0, &cfg, &err) != 0) {
        fprintf(stderr, "rooftune portability: %s\n", err.msg);
        return RT_EXIT_USAGE;
    }
    char name[64];
    snprintf(name, sizeof name, "%.48s-portability", cfg.name);
    char absolute[PATH_MAX];
    if (!realpath(config, absolute)) {
        fprintf(stderr, "rooftune portability: cannot resolve %s\n", config);
        rt_config_free(&cfg);
        return RT_EXIT_USAGE;
    }
    struct sqlite3 *db = NULL;
    if (rt_readonly_open(tuned, &db, &err) != 0) {
        fprintf(stderr, "rooftune portability: %s\n", err.msg);
        rt_config_free(&cfg);
        return RT_EXIT_USAGE;
    }
    /* Written whole or not at all. */
    rt_outfile o;
    if (rt_outfile_open(&o, out_path, &err) != 0) {
        fprintf(stderr, "rooftune portability: %s\n", err.msg);
        rt_store_read_close(db);
        rt_config_free(&cfg);
        return RT_EXIT_USAGE;
    }
    FILE *f = o.f;
    fprintf(
        f,
        "# Every configuration of the tuning database %s, run on the device this runs on\n"
        "# (written by `rooftune portability --config`). Run it on each device into a store of\n"
        "# its own, then: rooftune portability --db %s --table STORE...\n"
        "include: \"%s\"\n"
        "experiment: {name: %s, description: \"the tuned configurations of every device\"}\n"
        "search: {strategy: exhaustive, budget: 0, prune: none, stop_within: 0}\n"
        "kernels:\n",
        tuned, tuned, absolute, name);
    gen_ctx *g = calloc(1, sizeof *g);
    int rc = g ? 0 : -1;
    if (g) {
        *g = (gen_ctx){.db = db, .out = f, .kernel = kernel, .cfg = &cfg, .err = &err};
        rc = rt_tuning_each(db, kernel, write_entry, g, &err);
    } else {
        rt_err_set(&err, "out of memory");
    }
    const int written = g ? g->written : 0;
    free(g);
    rt_store_read_close(db);
    rt_config_free(&cfg);
    if (rc == 0 && written == 0)
        rc = kernel ? rt_err_set(&err,
                                 "the tuning database has no entry of kernel %s among the "
                                 "kernels %s tunes",
                                 kernel, config)
                    : rt_err_set(&err, "the tuning database has no entry of a kernel %s tunes",
                                 config);
    if (rc != 0) {
        rt_outfile_abort(&o);
        fprintf(stderr, "rooftune portability: %s\n", err.msg);
        return RT_EXIT_USAGE;
    }
    if (rt_outfile_commit(&o, &err) != 0) {
        fprintf(stderr, "rooftune portability: %s\n", err.msg);
        return RT_EXIT_FAILURE;
    }
    printf("wrote %s: %d configuration(s) of %s on the matrices and problems of %s\n", out_path,
           written, tuned, config);
    return RT_EXIT_OK;
}

static int table(const char *tuned, char **stores, int n_stores, const char *markdown)
{
    rt_err err;
    struct sqlite3 *db = NULL, *measured[MAX_STORES] = {0};
    int status = RT_EXIT_OK;
    if (rt_readonly_open(tuned, &db, &err) != 0) {
        fprintf(stderr, "rooftune portability: %s\n", err.msg);
        return RT_EXIT_USAGE;
    }
    for (int i = 0; i < n_stores && status == RT_EXIT_OK; ++i)
        if (rt_readonly_open(stores[i], &measured[i], &err) != 0) {
            fprintf(stderr, "rooftune portability: %s\n", err.msg);
            status = RT_EXIT_USAGE;
        }
    rt_portability_row *rows = NULL;
    int n = 0;
    if (status == RT_EXIT_OK && rt_portability_table(db, measured, (const char *const *)stores,
                                                     n_stores, &rows, &n, &err) != 0) {
        fprintf(stderr, "rooftune portability: %s\n", err.msg);
        status = RT_EXIT_USAGE;
    }
    if (status == RT_EXIT_OK && rt_portability_write(stdout, rows, n, 0, &err) != 0)
        status = RT_EXIT_FAILURE;
    if (status == RT_EXIT_OK && markdown) {
        rt_outfile o;
        if (rt_outfile_open(&o, markdown, &err) != 0) {
            status = RT_EXIT_USAGE;
        } else if (rt_portability_write(o.f, rows, n, 1, &err) != 0) {
            rt_outfile_abort(&o);
            status = RT_EXIT_FAILURE;
        } else if (rt_outfile_commit(&o, &err) != 0) {
            status = RT_EXIT_FAILURE;
        }
        if (status == RT_EXIT_OK)
            printf("wrote %s\n", markdown);
        else
            fprintf(stderr, "rooftune portability: %s\n", err.msg);
    }
    free(rows);
    for (int i = 0; i < n_stores; ++i)
        rt_store_read_close(measured[i]);
    rt_store_read_close(db);
    return status;
}

int rt_cli_portability(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},  {"config", required_argument, NULL, 'c'},
        {"out", required_argument, NULL, 'o'}, {"kernel", required_argument, NULL, 'k'},
        {"table", no_argument, NULL, 't'},     {"markdown", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0}};
    const char *tuned = NULL, *config = NULL, *out = NULL, *kernel = NULL, *markdown = NULL;
    int want_table = 0;
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "h", opts) {
        switch (c) {
        case 'd': tuned = optarg; break;
        case 'c': config = optarg; break;
        case 'o': out = optarg; break;
        case 'k': kernel = optarg; break;
        case 't': want_table = 1; break;
        case 'm': markdown = optarg; break;
        case 'h': portability_usage(stdout); return RT_EXIT_OK;
        default: portability_usage(stderr); return RT_EXIT_USAGE;
        }
    }
    const int n_stores = argc - optind;
    const int gen_ok = config && out && !want_table && !markdown && n_stores == 0;
    const int table_ok = want_table && !config && !out && !kernel && n_stores >= 1;
    if (!tuned || (!gen_ok && !table_ok) || n_stores > MAX_STORES) {
        if (n_stores > MAX_STORES)
            fprintf(stderr, "rooftune portability: at most %d stores\n", MAX_STORES);
        portability_usage(stderr);
        return RT_EXIT_USAGE;
    }
    return gen_ok ? generate(tuned, config, out, kernel)
                  : table(tuned, argv + optind, n_stores, markdown);
}
