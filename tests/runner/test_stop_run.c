/* The stopping criterion a config picks (measure.stop), through the real runner: a test-only
 * kernel (tests/rt_fake_timed.h) reports synthetic times from a deterministic stream (steady: 0.1%
 * noise; wide: +-50%, the same all along) instead of timing itself, and each config runs both
 * streams into a store. With stop: confidence the steady point stops at the first 95% interval of
 * the median (6 samples) and the wide one runs to max_reps, noisy; with stop: noise the steady
 * point stops at the first noise estimate (5 samples) and the wide one once its noise has
 * settled, well before max_reps, noisy as well.
 *
 * Usage: test_stop_run WORK_DIR */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_comm.h"
#include "rt_test.h"
#include "runner_util.h"

#define MAX_REPS 300

/* Samples and the noisy metric of the point of `shape` (steady: spread 0.001, wide: 0.5). */
static void read_point(const char *db, const char *shape, int *n_samples, int *noisy)
{
    char sql[512];
    const char *spread = strcmp(shape, "wide") == 0 ? "0.5" : "0.001";
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM samples s JOIN points p ON p.id = s.point_id "
             "WHERE p.params->>'spread' = %s AND p.status = 'ok'",
             spread);
    const double n = runner_util_sql(db, sql);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM metrics m JOIN points p ON p.id = m.point_id "
             "WHERE p.params->>'spread' = %s AND p.status = 'ok' AND m.name = 'noisy' "
             "AND m.value = 1",
             spread);
    const double nz = runner_util_sql(db, sql);
    *n_samples = isnan(n) ? -1 : (int)n;
    *noisy = isnan(nz) ? -1 : (int)nz;
}

static int run_with(rt_comm *comm, const char *work, const char *stop, rt_run_summary *sum,
                    char *db, size_t db_len)
{
    char yaml[1024], name[64];
    snprintf(name, sizeof name, "stop-%s", stop);
    snprintf(yaml, sizeof yaml,
             "experiment: {name: stop-%s}\n"
             "matrices: [{name: m, generator: banded, rows: 8, bandwidth: 1}]\n"
             "kernels: [{name: fake.cpu.timed, params: {spread: [0.001, 0.5]}}]\n"
             "measure: {stop: %s, warmup: 0, min_reps: 1, max_reps: %d, max_time_s: 100,\n"
             "          target_rel_ci: 0.02, max_noise: 0.01}\n",
             stop, stop, MAX_REPS);
    return runner_util_run(comm, work, name, yaml, sum, db, db_len, NULL, 0);
}

static void run_checks(rt_comm *comm, const char *work)
{
    char db[1100];
    rt_run_summary sum;
    int n, noisy;

    RT_CHECK(run_with(comm, work, "confidence", &sum, db, sizeof db) == 0);
    RT_CHECK_MSG(sum.measured == 2 && sum.noisy == 1, "confidence: %d measured, %d noisy",
                 sum.measured, sum.noisy);
    read_point(db, "steady", &n, &noisy);
    RT_CHECK_MSG(n == 6 && noisy == 0, "confidence, steady: %d samples, noisy %d", n, noisy);
    read_point(db, "wide", &n, &noisy);
    RT_CHECK_MSG(n == MAX_REPS && noisy == 1, "confidence, wide: %d samples, noisy %d", n, noisy);

    RT_CHECK(run_with(comm, work, "noise", &sum, db, sizeof db) == 0);
    RT_CHECK_MSG(sum.measured == 2 && sum.noisy == 1, "noise: %d measured, %d noisy", sum.measured,
                 sum.noisy);
    read_point(db, "steady", &n, &noisy);
    RT_CHECK_MSG(n == 5 && noisy == 0, "noise, steady: %d samples, noisy %d", n, noisy);
    read_point(db, "wide", &n, &noisy);
    RT_CHECK_MSG(n >= 80 && n <= 160 && n % 16 == 0 && noisy == 1,
                 "noise, wide: %d samples (settled at a multiple of 16), noisy %d", n, noisy);
}

int main(int argc, char **argv)
{
    const int rc = runner_util_main(argc, argv, "test_stop_run", run_checks);
    return rc != 0 ? rc : RT_TEST_RESULT();
}
