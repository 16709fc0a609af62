/* The runner itself records what misbehaving kernels do: a kernel with one element off by 0.1%
 * (invisible to the normwise check) is `wrong`, at the gate or at the re-check after the timed
 * repetitions; a kernel reporting an impossible time is `above_roofline`. Drives
 * rt_run_experiment with the built-in registry plus the test-only kernels of faulty_kernels.c.
 *
 * usage: test_trust_runner SOURCE_DIR WORK_DIR */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "faulty_kernels.h"
#include "rt_backend.h"
#include "rt_comm.h"
#include "rt_config.h"
#include "rt_kernels.h"
#include "rt_runner.h"
#include "rt_test.h"
#include "rt_verify.h"

typedef struct point_row {
    char status[32];
    char reason[600];
    int verified;
    double rel_error, tolerance, efficiency;
    int n_samples;
} point_row;

/* The points of `db` whose params satisfy `where` (SQL over json_extract(params, ...)); returns
 * how many there were and the last one in out. */
static int read_point(const char *db, const char *where, point_row *out)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT status, coalesce(reason,''), verified, rel_error, tolerance, efficiency, "
             "(SELECT count(*) FROM samples s WHERE s.point_id = p.id) FROM points p WHERE %s",
             where);
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    int found = 0;
    memset(out, 0, sizeof *out);
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            ++found;
            snprintf(out->status, sizeof out->status, "%s", sqlite3_column_text(st, 0));
            snprintf(out->reason, sizeof out->reason, "%s", sqlite3_column_text(st, 1));
            out->verified = sqlite3_column_int(st, 2);
            out->rel_error =
                sqlite3_column_type(st, 3) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 3);
            out->tolerance = sqlite3_column_double(st, 4);
            out->efficiency =
                sqlite3_column_type(st, 5) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 5);
            out->n_samples = sqlite3_column_int(st, 6);
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return found;
}

static int run_config(rt_comm *comm, const char *config, const char *machine, const char *db,
                      rt_run_summary *sum)
{
    rt_err err;
    rt_err_clear(&err);
    rt_registry reg;
    rt_registry_init(&reg);
    rt_backend be;
    memset(&be, 0, sizeof be);
    rt_config cfg;
    memset(&cfg, 0, sizeof cfg);
    char set_machine[1200];
    snprintf(set_machine, sizeof set_machine, "machine=%s", machine);
    const char *sets[] = {set_machine};
    const rt_backend_options bo = {.disable_cuda = 1};
    int rc = -1;
    if (rt_kernels_register_builtin(&reg, &err) != 0 || faulty_kernels_register(&reg, &err) != 0 ||
        rt_backend_open(&be, &bo, &reg, &err) != 0)
        goto out;
    if (rt_config_load(config, sets, machine[0] ? 1 : 0, &cfg, &err) != 0 ||
        rt_config_check(&cfg, &reg, &err) != 0)
        goto out;
    const rt_run_options ro = {
        .db_path = db, .machine_dir = "", .command_line = "test", .log = stdout};
    memset(sum, 0, sizeof *sum);
    rc = rt_run_experiment(&cfg, &reg, &be, comm, &ro, sum, &err);
out:
    if (rc != 0)
        fprintf(stderr, "run of %s failed: %s\n", config, err.msg);
    rt_config_free(&cfg);
    rt_backend_close(&be, &reg);
    return rc;
}

static void test_wrong_elements(rt_comm *comm, const char *src, const char *work)
{
    char config[1100], db[1100];
    snprintf(config, sizeof config, "%s/faulty.yaml", src);
    snprintf(db, sizeof db, "%s/faulty.db", work);
    unlink(db);
    rt_run_summary sum;
    point_row p;
    RT_CHECK(run_config(comm, config, "", db, &sum) == 0);
    RT_CHECK_MSG(sum.wrong == 2 && sum.measured == 2, "wrong %d, measured %d", sum.wrong,
                 sum.measured);
    /* 4 samples cannot give the median a finite confidence interval: target 0.5 missed. */
    RT_CHECK_MSG(sum.noisy == 2, "noisy %d", sum.noisy);
    RT_CHECK(read_point(db,
                        "params->>'fault_elem' = -1 AND EXISTS (SELECT 1 FROM metrics m WHERE "
                        "m.point_id = p.id AND m.name = 'noisy' AND m.value = 1)",
                        &p) == 2);

    RT_CHECK(read_point(db, "params->>'fault_elem' = -1 AND params->>'fault_after' = 0", &p) == 1);
    RT_CHECK_MSG(strcmp(p.status, "ok") == 0 && p.verified == 1, "honest point: %s %s", p.status,
                 p.reason);

    /* One element 0.1% off from the first run: normwise it passes, elementwise it does not. */
    RT_CHECK(read_point(db, "params->>'fault_elem' = 777 AND params->>'fault_after' = 0", &p) == 1);
    RT_CHECK_MSG(strcmp(p.status, "wrong") == 0, "gate: %s %s", p.status, p.reason);
    RT_CHECK_MSG(p.rel_error < p.tolerance, "the normwise error %g should pass %g", p.rel_error,
                 p.tolerance);
    RT_CHECK_MSG(rt_test_contains(p.reason, "elementwise") &&
                     rt_test_contains(p.reason, "element 777 of rank 0") &&
                     rt_test_contains(p.reason, "not timed"),
                 "reason: %s", p.reason);
    RT_CHECK(p.n_samples == 0 && p.verified == 0);

    /* Right at the gate, wrong after the third run: only the re-check can see it. */
    RT_CHECK(read_point(db, "params->>'fault_elem' = 777 AND params->>'fault_after' = 3", &p) == 1);
    RT_CHECK_MSG(strcmp(p.status, "wrong") == 0, "re-check: %s %s", p.status, p.reason);
    RT_CHECK_MSG(rt_test_contains(p.reason, "re-check after") && p.verified == 0, "reason: %s",
                 p.reason);
}

static void test_above_roofline(rt_comm *comm, const char *src, const char *work)
{
    char config[1100], machine[1100], db[1100];
    snprintf(config, sizeof config, "%s/fast.yaml", src);
    snprintf(machine, sizeof machine, "%s/tight-cpu.yaml", src);
    snprintf(db, sizeof db, "%s/fast.db", work);
    unlink(db);
    rt_run_summary sum;
    RT_CHECK(run_config(comm, config, machine, db, &sum) == 0);
    RT_CHECK_MSG(sum.above_roofline == 1 && sum.measured == 1, "above %d, measured %d",
                 sum.above_roofline, sum.measured);
    point_row p;
    RT_CHECK(read_point(db, "params->>'time_divisor' = 1", &p) == 1);
    RT_CHECK_MSG(strcmp(p.status, "ok") == 0 && p.efficiency > 0 && p.efficiency <= 1.0,
                 "honest: %s efficiency %g %s", p.status, p.efficiency, p.reason);
    RT_CHECK(read_point(db, "params->>'time_divisor' = 1000000", &p) == 1);
    RT_CHECK_MSG(strcmp(p.status, "above_roofline") == 0 && p.efficiency > 1.0,
                 "too fast: %s efficiency %g %s", p.status, p.efficiency, p.reason);
}

/* The failure message never rounds a value just over the tolerance to the tolerance itself. */
static void test_describe_digits(rt_comm *comm)
{
    double ref[2] = {1.0, 0.0}, out[2] = {1.0 + 1.0000004e-5, 0.0};
    rt_verify_result r;
    rt_err err;
    RT_CHECK(rt_verify_output(comm, out, ref, NULL, 2, 1e-5, &r, &err) == 0);
    RT_CHECK(!rt_verify_passed(&r));
    char why[512];
    rt_verify_describe(&r, why, sizeof why);
    RT_CHECK_MSG(!rt_test_contains(why, "1e-05 exceeds the tolerance 1e-05") &&
                     rt_test_contains(why, "exceeds the tolerance 1e-05"),
                 "%s", why);
    /* An empty row's element must be exactly zero: any difference where |A||B| is 0 fails. */
    double scale[2] = {1.0, 0.0}, out2[2] = {1.0, 1e-300};
    RT_CHECK(rt_verify_output(comm, out2, ref, scale, 2, 1e-5, &r, &err) == 0);
    RT_CHECK(!rt_verify_passed(&r) && r.n_over == 1 && r.worst_index == 1);
    double out3[2] = {1.0 + 1e-6, 0.0};
    RT_CHECK(rt_verify_output(comm, out3, ref, scale, 2, 1e-5, &r, &err) == 0);
    RT_CHECK(rt_verify_passed(&r));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s SOURCE_DIR WORK_DIR\n", argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    rt_comm *comm = NULL;
    rt_err err;
    if (rt_comm_create(NULL, &comm, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        MPI_Finalize();
        return 1;
    }
    mkdir(argv[2], 0777);
    test_describe_digits(comm);
    test_wrong_elements(comm, argv[1], argv[2]);
    test_above_roofline(comm, argv[1], argv[2]);
    rt_comm_free(comm);
    MPI_Finalize();
    return RT_TEST_RESULT();
}
