/* Early abort (measure.abort_factor), through the real runner on synthetic times
 * (tests/rt_fake_timed.h: each point reports ms milliseconds, 0.1% noise). The sweep visits
 * ms = 4, 1, 8, 2, 6, 1.2, 3 in that order with target_rel_ci 0, so without early abort every
 * point runs to max_reps. With abort_factor 1.5 after 2 repetitions, the points slower than
 * 1.5 x the best so far (8, 2, 6 and 3 once 1 is measured) stop after 2 repetitions; 4 (nothing
 * measured before it), 1 and 1.2 run in full. Checked: the same best point and the same verified
 * set, fewer samples and less measured time, both numbers of every aborted point (its time and
 * the best it lost to), and bad values of the keys refused naming them. Under mpirun the ranks
 * measure the sweep in parallel (search.parallel: ranks; check_parallel says what holds then).
 *
 * Usage: test_abort_run WORK_DIR */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_comm.h"
#include "rt_test.h"
#include "runner_util.h"

#define MAX_REPS 40

static const char k_sweep[] =
    "matrices: [{name: m, generator: banded, rows: 8, bandwidth: 1}]\n"
    "kernels: [{name: fake.cpu.timed, params: {ms: [4, 1, 8, 2, 6, 1.2, 3]}}]\n";

/* Under mpirun the sweep is measured in parallel by the ranks (search.parallel: ranks). */
static int run_abort(rt_comm *comm, const char *work, const char *name, const char *abort_keys,
                     rt_run_summary *sum, char *db, size_t db_len, char *why, size_t why_len)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "experiment: {name: %s}\n%s"
             "measure: {warmup: 0, min_reps: 5, max_reps: %d, max_time_s: 100, "
             "target_rel_ci: 0%s%s}\n%s",
             name, k_sweep, MAX_REPS, abort_keys[0] ? ", " : "", abort_keys,
             rt_comm_world_size(comm) > 1 ? "search: {parallel: ranks}\n" : "");
    return runner_util_run(comm, work, name, yaml, sum, db, db_len, why, why_len);
}

static double q(const char *db, const char *sql)
{
    return runner_util_sql(db, sql);
}

static void check_same_result(const char *plain, const char *early)
{
    static const char best_sql[] = "SELECT params->>'ms' FROM points WHERE status = 'ok' AND "
                                   "verified = 1 ORDER BY time_median_s LIMIT 1";
    RT_CHECK_MSG(q(plain, best_sql) == 1.0 && q(early, best_sql) == 1.0,
                 "best point: ms %g without early abort, %g with", q(plain, best_sql),
                 q(early, best_sql));
    /* The same verified set: all seven points, the same values (their count and sum). */
    static const char n_sql[] = "SELECT count(*) FROM points WHERE status = 'ok' AND verified = 1";
    static const char sum_sql[] =
        "SELECT sum(params->>'ms') FROM points WHERE status = 'ok' AND verified = 1";
    RT_CHECK_MSG(q(plain, n_sql) == 7 && q(early, n_sql) == 7,
                 "verified points: %g without, %g with early abort", q(plain, n_sql),
                 q(early, n_sql));
    RT_CHECK(fabs(q(plain, sum_sql) - q(early, sum_sql)) < 1e-9);
}

static void check_savings(const char *plain, const char *early, const rt_run_summary *sp,
                          const rt_run_summary *se)
{
    static const char samples_sql[] = "SELECT count(*) FROM samples";
    static const char time_sql[] = "SELECT sum(seconds) FROM samples";
    const double n_plain = q(plain, samples_sql), n_early = q(early, samples_sql);
    RT_CHECK_MSG(n_plain == 7 * MAX_REPS, "without early abort: %g samples", n_plain);
    RT_CHECK_MSG(n_early == 3 * MAX_REPS + 4 * 2, "with early abort: %g samples", n_early);
    const double t_plain = q(plain, time_sql), t_early = q(early, time_sql);
    /* 4 + 1 + 1.2 ms in full, 8 + 2 + 6 + 3 ms twice: 6.2 x 40 + 19 x 2 = 286 ms of 1008 ms. */
    /* docs/guides/tuning.md quotes these two numbers. */
    RT_CHECK_MSG(fabs(t_plain - 1.008) < 1.008 * 0.01 && fabs(t_early - 0.286) < 0.286 * 0.01,
                 "measured time: %.4f s with early abort, %.4f s without", t_early, t_plain);
    RT_CHECK_MSG(sp->aborted == 0 && se->aborted == 4 && se->aborted_samples == 8,
                 "summary: %d aborted without, %d (%d samples) with", sp->aborted, se->aborted,
                 se->aborted_samples);
    RT_CHECK(se->measured == 7 && sp->measured == 7);
}

/* Both numbers: the point's own time (its samples' median, over the factor x the best) and the
 * best it lost to; the points that ran in full carry neither. */
static void check_aborted_points(const char *early)
{
    static const char n_sql[] = "SELECT count(*) FROM points p JOIN metrics m ON m.point_id = "
                                "p.id WHERE m.name = 'aborted' AND m.value = 1 AND "
                                "p.params->>'ms' IN (8, 2, 6, 3) AND p.status = 'ok'";
    RT_CHECK_MSG(q(early, n_sql) == 4, "aborted points 8, 2, 6, 3: %g", q(early, n_sql));
    static const char best_sql[] =
        "SELECT count(*) FROM points p JOIN metrics m ON m.point_id = p.id WHERE m.name = "
        "'abort_best_s' AND abs(m.value - 1e-3) < 2e-6 AND p.time_median_s > 1.5 * m.value AND "
        "p.reason LIKE 'early abort after 2 repetition(s)%'";
    RT_CHECK_MSG(q(early, best_sql) == 4, "aborted points with both numbers: %g",
                 q(early, best_sql));
    static const char full_sql[] =
        "SELECT count(*) FROM points p WHERE p.params->>'ms' IN (4, 1, 1.2) AND NOT EXISTS "
        "(SELECT 1 FROM metrics m WHERE m.point_id = p.id AND m.name LIKE 'abort%') AND "
        "(SELECT count(*) FROM samples s WHERE s.point_id = p.id) = 40";
    RT_CHECK_MSG(q(early, full_sql) == 3, "points measured in full: %g", q(early, full_sql));
}

static void check_bad_keys(rt_comm *comm, const char *work)
{
    static const char *const bad[] = {"abort_factor: 0.5", "abort_factor: 0.99",
                                      "abort_factor: -2",  "abort_factor: fast",
                                      "abort_reps: 0",     "abort_reps: 1.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char db[1100], why[1024] = "", name[32];
        rt_run_summary sum;
        snprintf(name, sizeof name, "bad-%zu", i);
        const int rc = run_abort(comm, work, name, bad[i], &sum, db, sizeof db, why, sizeof why);
        const char *key =
            strncmp(bad[i], "abort_reps", 10) == 0 ? "measure.abort_reps" : "measure.abort_factor";
        RT_CHECK_MSG(rc == -2 && strstr(why, key) && strstr(why, ".yaml:"),
                     "'%s': rc %d, message '%s'", bad[i], rc, why);
    }
}

/* Parallel ranks: which points stop depends on the best time each rank was handed with its
 * point, so what holds is the result (the same best point and verified set), every point once
 * on one rank, and the rule: an aborted point is slower than the factor times the best it was
 * compared with, which is never below the sweep's best, and no more samples than without. */
static void check_parallel(const char *plain, const char *early)
{
    check_same_result(plain, early);
    RT_CHECK(q(early, "SELECT count(*) FROM points WHERE ranks != 1") == 0);
    RT_CHECK(q(early, "SELECT count(*) - count(DISTINCT point_key) FROM points") == 0);
    RT_CHECK_MSG(q(early, "SELECT count(*) FROM points p JOIN metrics m ON m.point_id = p.id "
                          "WHERE m.name = 'abort_best_s' AND NOT (p.time_median_s > 1.5 * "
                          "m.value AND m.value > 0.99e-3)") == 0,
                 "an aborted point breaks the rule");
    RT_CHECK(q(early, "SELECT count(*) FROM samples") <= q(plain, "SELECT count(*) FROM samples"));
}

static void run_checks(rt_comm *comm, const char *work)
{
    char plain[1100], early[1100];
    rt_run_summary sp, se;
    RT_CHECK(run_abort(comm, work, "plain", "", &sp, plain, sizeof plain, NULL, 0) == 0);
    RT_CHECK(run_abort(comm, work, "early", "abort_factor: 1.5, abort_reps: 2", &se, early,
                       sizeof early, NULL, 0) == 0);
    if (rt_comm_world_size(comm) > 1) {
        if (rt_comm_world_rank(comm) == 0)
            check_parallel(plain, early);
        return;
    }
    check_same_result(plain, early);
    check_savings(plain, early, &sp, &se);
    check_aborted_points(early);
    check_bad_keys(comm, work);
}

int main(int argc, char **argv)
{
    const int rc = runner_util_main(argc, argv, "test_abort_run", run_checks);
    return rc != 0 ? rc : RT_TEST_RESULT();
}
