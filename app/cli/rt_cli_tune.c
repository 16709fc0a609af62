/* rooftune tune: run a tuning config and record the best verified configuration of every sweep in
 * the store's tuning table (the tuning database, results/rt_store_tuning.h); or, with --from,
 * record those of an existing store without running anything. */
#define _POSIX_C_SOURCE 200809L
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_clock.h"
#include "rt_readonly.h"
#include "rt_store.h"
#include "rt_store_lock.h"
#include "rt_store_read.h"
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
        "from an existing store without running; when that store is a tuning database itself\n"
        "(another device's), its entries are merged as they were recorded. The architecture\n"
        "comes from the device name (H100 -> sm_90, ...); --arch overrides it for the points\n"
        "recorded. Query with `rooftune best`.\n");
}

/* Records the best points of `store` in the tuning table of `tuning_db`. The source is checked
 * (schema) and read-only; the tuning database is locked like a run's store, and a tuning database
 * this call created is removed again when the harvest fails, so a failure leaves no file behind
 * and an existing one unchanged (one transaction). */
static int harvest(const char *store, const char *tuning_db, const char *arch)
{
    const double t0 = rt_clock_now();
    struct sqlite3 *src = NULL;
    rt_err err;
    if (rt_readonly_open(store, &src, &err) != 0) {
        fprintf(stderr, "rooftune tune: --from: %s\n", err.msg);
        return RT_EXIT_USAGE;
    }
    struct stat st;
    const int existed = stat(tuning_db, &st) == 0;
    rt_store_lock *lock = NULL;
    rt_store *dst = NULL;
    int rc = RT_EXIT_FAILURE, recorded = 0;
    if (rt_store_lock_acquire(tuning_db, &lock, &err) != 0 ||
        rt_store_open(tuning_db, &dst, &err) != 0) {
        fprintf(stderr, "rooftune tune: --tuning-db: %s\n", err.msg);
        rc = RT_EXIT_USAGE;
    } else if (rt_tuning_harvest(src, rt_store_db(dst), store, arch, &recorded, &err) != 0) {
        fprintf(stderr, "rooftune tune: %s\n", err.msg);
        rc = RT_EXIT_USAGE;
    } else {
        rc = RT_EXIT_OK;
    }
    const int opened = dst != NULL;
    rt_store_close(dst);
    if (rc != RT_EXIT_OK && !existed && opened) {
        /* Ours, new, and the harvest failed: it holds only the empty schema. */
        static const char *const suffixes[] = {"", "-wal", "-shm"};
        for (int i = 0; i < 3; ++i) {
            char path[4200];
            if (snprintf(path, sizeof path, "%s%s", tuning_db, suffixes[i]) < (int)sizeof path)
                unlink(path);
        }
    }
    rt_store_lock_release(lock);
    rt_store_read_close(src);
    if (rc == RT_EXIT_OK)
        printf("tuning database %s: %d entr%s added or improved from %s (%.2f s)\n", tuning_db,
               recorded, recorded == 1 ? "y" : "ies", store, rt_clock_now() - t0);
    return rc;
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
    rt_err err;
    if (arch && rt_cli_check_arch("--arch", arch, &err) != 0) {
        fprintf(stderr, "rooftune tune: %s\n", err.msg);
        free(run_argv);
        return RT_EXIT_USAGE;
    }
    int rc;
    if (from && run_argc > 1) {
        fprintf(stderr,
                "rooftune tune: --from records from an existing store without running anything, "
                "so it takes no CONFIG or run options (got '%s'); give either CONFIG --db STORE "
                "or --from STORE\n",
                run_argv[1]);
        rc = RT_EXIT_USAGE;
    } else if (from) {
        rc = harvest(from, tuning_db ? tuning_db : from, arch);
    } else if (!db) {
        fprintf(stderr,
                "rooftune tune: give the store with --db (or record from one with --from)\n");
        tune_usage(stderr);
        rc = RT_EXIT_USAGE;
    } else {
        /* `run` with this command's name in its messages. */
        int owner = 1;
        rc = rt_cli_run_as("tune", run_argc, run_argv, &owner);
        /* Under mpirun every rank ran; the store's owner alone records the tuning entries
         * (two ranks harvesting at once found the store locked by each other). */
        if (owner && (rc == RT_EXIT_OK || rc == RT_EXIT_ATTENTION)) {
            const int hrc = harvest(db, tuning_db ? tuning_db : db, arch);
            if (hrc != RT_EXIT_OK)
                rc = hrc;
        }
    }
    free(run_argv);
    return rc;
}
