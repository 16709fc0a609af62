/* rooftune tune: run a tuning config and record the best verified configuration of every sweep in
 * the store's tuning table (the tuning database, results/rt_store_tuning.h); or, with --from,
 * record those of an existing store without running anything. */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_store.h"
#include "rt_store_tuning.h"

static void tune_usage(FILE *f)
{
    fprintf(
        f,
        "usage: rooftune tune CONFIG --db STORE [run options] [--tuning-db DB] [--arch sm_XY]\n"
        "       rooftune tune --from STORE [--tuning-db DB] [--arch sm_XY]\n"
        "\n"
        "Runs CONFIG like `rooftune run` (usually with a budgeted search strategy: bayes, the\n"
        "best single strategy over the recorded spaces, see docs/guides/tuning.md), then records,\n"
        "for every (kernel, device, matrix, problem) sweep in STORE, the fastest verified point "
        "in\n"
        "the tuning table of DB (default: STORE itself), keyed by kernel, device, architecture\n"
        "and input class (rows, nonzeros per row, K), with its provenance and evidence (every\n"
        "verified point of the sweep). An entry is only replaced by a faster one. --from records\n"
        "from an existing store without running. The architecture comes from the device name\n"
        "(H100 -> sm_90, ...); --arch overrides it. Query with `rooftune best`.\n");
}

static int harvest(const char *store, const char *tuning_db, const char *arch)
{
    sqlite3 *src = NULL;
    rt_err err;
    if (sqlite3_open_v2(store, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "rooftune tune: cannot open %s: %s\n", store, sqlite3_errmsg(src));
        sqlite3_close(src);
        return RT_EXIT_USAGE;
    }
    rt_store *dst = NULL;
    if (rt_store_open(tuning_db, &dst, &err) != 0) {
        fprintf(stderr, "rooftune tune: %s\n", err.msg);
        sqlite3_close(src);
        return RT_EXIT_FAILURE;
    }
    int recorded = 0;
    const int rc = rt_tuning_harvest(src, rt_store_db(dst), store, arch, &recorded, &err);
    if (rc != 0)
        fprintf(stderr, "rooftune tune: %s\n", err.msg);
    else
        printf("tuning database %s: %d entr%s added or improved from %s\n", tuning_db, recorded,
               recorded == 1 ? "y" : "ies", store);
    rt_store_close(dst);
    sqlite3_close(src);
    return rc == 0 ? RT_EXIT_OK : RT_EXIT_USAGE;
}

int rt_cli_tune(int argc, char **argv)
{
    const char *from = NULL, *tuning_db = NULL, *arch = NULL, *db = NULL;
    /* Our options are taken out; the rest goes to `run` as it is. */
    char **run_argv = calloc((size_t)argc + 1, sizeof *run_argv);
    if (!run_argv)
        return RT_EXIT_FAILURE;
    int run_argc = 0;
    for (int i = 0; i < argc; ++i) {
        const int has_next = i + 1 < argc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            tune_usage(stdout);
            free(run_argv);
            return RT_EXIT_OK;
        }
        if (has_next && strcmp(argv[i], "--from") == 0) {
            from = argv[++i];
        } else if (has_next && strcmp(argv[i], "--tuning-db") == 0) {
            tuning_db = argv[++i];
        } else if (has_next && strcmp(argv[i], "--arch") == 0) {
            arch = argv[++i];
        } else {
            if (has_next && strcmp(argv[i], "--db") == 0)
                db = argv[i + 1];
            else if (strncmp(argv[i], "--db=", 5) == 0)
                db = argv[i] + 5;
            run_argv[run_argc++] = argv[i];
        }
    }
    if (arch && strncmp(arch, "sm_", 3) != 0 && strcmp(arch, "cpu") != 0) {
        fprintf(stderr, "rooftune tune: --arch expects sm_XY (e.g. sm_90) or cpu, got '%s'\n",
                arch);
        free(run_argv);
        return RT_EXIT_USAGE;
    }
    int rc;
    if (from) {
        rc = run_argc > 1 ? RT_EXIT_USAGE : harvest(from, tuning_db ? tuning_db : from, arch);
        if (run_argc > 1)
            tune_usage(stderr);
    } else if (!db) {
        fprintf(stderr,
                "rooftune tune: give the store with --db (or record from one with --from)\n");
        tune_usage(stderr);
        rc = RT_EXIT_USAGE;
    } else {
        run_argv[0] = "run";
        rc = rt_cli_run(run_argc, run_argv);
        if (rc == RT_EXIT_OK || rc == RT_EXIT_ATTENTION) {
            const int hrc = harvest(db, tuning_db ? tuning_db : db, arch);
            if (hrc != RT_EXIT_OK)
                rc = hrc;
        }
    }
    free(run_argv);
    return rc;
}
