/* measure.energy on the CPU backend, through the real runner on synthetic times: the package
 * counter of a stand-in powercap folder ($ROOFTUNE_POWERCAP). No counter, and a counter that does
 * not advance over the repetitions, record energy_j unavailable with the reason; without
 * measure.energy there is no energy metric; rt_energy_read reads microjoules as joules.
 *
 * Usage: test_energy_run WORK_DIR */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_comm.h"
#include "rt_energy.h"
#include "rt_test.h"
#include "runner_util.h"

static void write_counter(const char *root, const char *value)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/intel-rapl:0", root);
    mkdir(root, 0777);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/intel-rapl:0/energy_uj", root);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(value, f);
        fclose(f);
    }
}

static int run_energy(rt_comm *comm, const char *work, const char *name, int energy, char *db,
                      size_t db_len)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "experiment: {name: %s}\n"
             "matrices: [{name: m, generator: banded, rows: 8, bandwidth: 1}]\n"
             "kernels: [{name: fake.cpu.timed, params: {ms: [2]}}]\n"
             "measure: {warmup: 0, min_reps: 3, max_reps: 3%s}\n",
             name, energy ? ", energy: true" : "");
    rt_run_summary sum;
    return runner_util_run(comm, work, name, yaml, &sum, db, db_len, NULL, 0);
}

/* The reason of the point's energy_j metric, or "" with *available set. */
static void energy_metric(const char *db, int *rows, int *available)
{
    *rows = (int)runner_util_sql(db, "SELECT count(*) FROM metrics WHERE name = 'energy_j'");
    *available = (int)runner_util_sql(db, "SELECT count(*) FROM metrics WHERE name = 'energy_j' "
                                          "AND available = 1");
}

static void run_checks(rt_comm *comm, const char *work)
{
    char root[1100], db[1200];
    int rows, available;

    /* No counter at all: unavailable, the reason naming the file it looked for. */
    snprintf(root, sizeof root, "%s/no-powercap", work);
    setenv("ROOFTUNE_POWERCAP", root, 1);
    RT_CHECK(run_energy(comm, work, "energy-none", 1, db, sizeof db) == 0);
    energy_metric(db, &rows, &available);
    RT_CHECK_MSG(rows == 1 && available == 0, "no counter: %d rows, %d available", rows, available);
    RT_CHECK(runner_util_sql(db, "SELECT count(*) FROM metrics WHERE name = 'energy_j' AND "
                                 "reason LIKE 'no CPU energy counter: %no-powercap/intel-"
                                 "rapl:0/energy_uj%'") == 1);

    /* A counter that stands still: unavailable, saying it did not advance. */
    snprintf(root, sizeof root, "%s/still", work);
    write_counter(root, "123456789\n");
    setenv("ROOFTUNE_POWERCAP", root, 1);
    RT_CHECK(run_energy(comm, work, "energy-still", 1, db, sizeof db) == 0);
    energy_metric(db, &rows, &available);
    RT_CHECK(rows == 1 && available == 0);
    RT_CHECK(runner_util_sql(db, "SELECT count(*) FROM metrics WHERE name = 'energy_j' AND "
                                 "reason LIKE '%did not advance over % of 3 repetition(s)%' "
                                 "AND reason LIKE '%raise measure.max_reps, which ended the "
                                 "loop%'") == 1);
    RT_CHECK(runner_util_sql(db, "SELECT count(*) FROM metrics WHERE name = 'power_w'") == 0);

    /* Not asked for: no energy metric. */
    RT_CHECK(run_energy(comm, work, "energy-off", 0, db, sizeof db) == 0);
    energy_metric(db, &rows, &available);
    RT_CHECK(rows == 0);

    /* The reader: microjoules as joules, and garbage refused. */
    rt_backend be;
    memset(&be, 0, sizeof be);
    char why[256];
    double j = 0;
    write_counter(root, "2500000\n");
    RT_CHECK(rt_energy_read(&be, "cpu", &j, why, sizeof why) == 0 && fabs(j - 2.5) < 1e-12);
    write_counter(root, "watts\n");
    RT_CHECK(rt_energy_read(&be, "cpu", &j, why, sizeof why) == -1 &&
             strstr(why, "does not hold a count of microjoules"));
    RT_CHECK(rt_energy_read(&be, "cuda", &j, why, sizeof why) == -1 &&
             strstr(why, "CUDA backend is not loaded"));
    RT_CHECK(rt_energy_read(&be, "tpu", &j, why, sizeof why) == -1 &&
             strstr(why, "no energy counter for backend 'tpu'"));
}

int main(int argc, char **argv)
{
    const int rc = runner_util_main(argc, argv, "test_energy_run", run_checks);
    return rc != 0 ? rc : RT_TEST_RESULT();
}
