#define _POSIX_C_SOURCE 200809L
#include "runner_util.h"

#include <math.h>
#include <mpi.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_backend.h"
#include "rt_fake_timed.h"
#include "rt_kernels.h"
#include "rt_runner.h"

int runner_util_run(rt_comm *comm, const char *work, const char *name, const char *yaml,
                    rt_run_summary *sum, char *db, size_t db_len, char *why, size_t why_len)
{
    return runner_util_run_prepared(comm, work, name, yaml, NULL, NULL, sum, db, db_len, why,
                                    why_len);
}

int runner_util_run_prepared(rt_comm *comm, const char *work, const char *name, const char *yaml,
                             runner_util_prepare prepare, void *ctx, rt_run_summary *sum, char *db,
                             size_t db_len, char *why, size_t why_len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.yaml", work, name);
    snprintf(db, db_len, "%s/%s.db", work, name);
    rt_err err = {{0}};
    /* Rank 0 writes the config and clears the store; the others read it once it is there. */
    if (rt_comm_world_rank(comm) == 0) {
        unlink(db);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(yaml, f);
            fclose(f);
        }
    }
    if (rt_comm_barrier(comm, &err) != 0)
        return -1;
    rt_registry reg = {0};
    rt_backend be = {0};
    rt_config cfg = {0};
    const rt_backend_options bo = {.disable_cuda = 1};
    int rc = -1;
    *sum = (rt_run_summary){0};
    /* The built-in registry too: the backend registers the CUDA catalog's families' kernels. */
    if (rt_kernels_register_builtin(&reg, &err) != 0 ||
        rt_registry_add_family(&reg, &rt_fake_timed_family, &err) != 0 ||
        rt_registry_add_kernel(&reg, &rt_fake_timed_kernel, &err) != 0 ||
        rt_backend_open(&be, &bo, &reg, &err) != 0)
        goto out;
    rt_run_options ro = {.db_path = db, .machine_dir = "", .command_line = "test"};
    if (prepare && prepare(ctx, &reg, &ro, &err) != 0)
        goto out;
    if (rt_config_load(path, NULL, 0, &cfg, &err) != 0 || rt_config_check(&cfg, &reg, &err) != 0) {
        rc = -2;
        if (why)
            snprintf(why, why_len, "%s", err.msg);
        goto out;
    }
    rc = rt_run_experiment(&cfg, &reg, &be, comm, &ro, sum, &err);
out:
    if (rc == -1)
        fprintf(stderr, "%s: %s\n", name, err.msg);
    rt_config_free(&cfg);
    rt_backend_close(&be, &reg);
    return rc;
}

double runner_util_sql(const char *db, const char *sql)
{
    double v = NAN;
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

int runner_util_main(int argc, char **argv, const char *name,
                     void (*body)(rt_comm *comm, const char *work))
{
    MPI_Init(&argc, &argv);
    rt_comm *comm = NULL;
    rt_err err;
    rt_err_clear(&err);
    const int ok = argc == 2 && rt_comm_create(NULL, &comm, &err) == 0;
    if (ok) {
        mkdir(argv[1], 0777); /* it may be there from an earlier run */
        body(comm, argv[1]);
    } else if (argc == 2) {
        fprintf(stderr, "%s\n", err.msg);
    } else {
        fprintf(stderr, "usage: %s WORK_DIR\n", name);
    }
    rt_comm_free(comm);
    MPI_Finalize();
    return ok ? 0 : 2;
}
