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
 * Abort groups (kernels[].abort_group, check_group): two entries share the best time of each
 * matrix and problem point. With abort_factor 5, entry A (ms 2 and 50; on the 16-row matrix only
 * 50, by a constraint) and entry B (ms 12, 9, 11, 30, 40): on the 8-row matrix the group's best is
 * A's 2 ms, so A's 50 and B's 11, 30 and 40 stop after one repetition (over 10 ms and over B's own
 * best so far); B's 12, over 10 ms too, runs in full, being B's first (every entry's best is
 * measured in full), and so does its 9. Without the group only A's 50 stops. On the 16-row matrix
 * the group starts again from A's 50 ms: nothing stops. With abort_reps 0 (check_verify_sample) the
 * same points stop at their verification execution with that one sample, and a point of 200 ms
 * in B is over point_timeout_s (0.1 s) there: a timeout with its one sample.
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
                                      "abort_reps: -1",    "abort_reps: 1.5"};
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

/* B's points: 12 runs in full as B's first though over 5 x A's 2 ms, 9 as B's best; 11, 30 and
 * 40 stop on m8 (over 10 ms and over 9) but not without the group (within 5 x 9 ms). */
#define B_MS "12, 9, 11, 30, 40"

/* The group's config: A and B share abort_group base unless `group` is 0; b_ms: B's points. */
static int run_group(rt_comm *comm, const char *work, const char *name, int group, const char *b_ms,
                     const char *measure, rt_run_summary *sum, char *db, size_t db_len)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "experiment: {name: %s}\n"
             "matrices: [{name: m8, generator: banded, rows: 8, bandwidth: 1},\n"
             "           {name: m16, generator: banded, rows: 16, bandwidth: 1}]\n"
             "kernels:\n"
             "  - {name: fake.cpu.timed, %s params: {ms: [2, 50]},\n"
             "     constraints: ['matrix.rows <= 8 || ms >= 50']}\n"
             "  - {name: fake.cpu.timed, %s params: {ms: [%s]}}\n"
             "measure: {warmup: 1, min_reps: 5, max_reps: 10, max_time_s: 100, target_rel_ci: 0,\n"
             "          abort_factor: 5, %s}\n%s",
             name, group ? "abort_group: base," : "", group ? "abort_group: base," : "", b_ms,
             measure, rt_comm_world_size(comm) > 1 ? "search: {parallel: ranks}\n" : "");
    return runner_util_run(comm, work, name, yaml, sum, db, db_len, NULL, 0);
}

/* The points of matrix m (m8, m16) whose ms is in `list` (SQL) and that meet `cond`. */
static double count_points(const char *db, const char *m, const char *list, const char *cond)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM points p WHERE p.matrix = '%s' AND p.params->>'ms' IN (%s) "
             "AND %s",
             m, list, cond);
    return q(db, sql);
}

#define ABORTED                                                                                    \
    "EXISTS (SELECT 1 FROM metrics m WHERE m.point_id = p.id AND m.name = 'aborted' AND "          \
    "m.value = 1)"
#define NSAMPLES(n) "(SELECT count(*) FROM samples s WHERE s.point_id = p.id) = " #n

/* What holds in any order of measurement (serial, or parallel ranks handed the best times known
 * when each point went out): only points of m8 in `may_stop` stop, each ok and verified, slower
 * than 5 x the best it lost to, which is never below the group's best (A's 2 ms); A's 2 and B's
 * 12 and 9 (each entry's first or best) are measured in full; on m16 nothing stops (the group
 * starts again from its own points). Returns how many stopped. */
static double check_group_rule(const char *db, const char *may_stop)
{
    char others[256];
    snprintf(others, sizeof others, "NOT (p.matrix = 'm8' AND p.params->>'ms' IN (%s))", may_stop);
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM points p WHERE " ABORTED " AND %s", others);
    RT_CHECK_MSG(q(db, sql) == 0, "%g points stopped that cannot lose to the group", q(db, sql));
    RT_CHECK_MSG(count_points(db, "m8", "2, 12, 9", "NOT " ABORTED " AND " NSAMPLES(10)) == 3,
                 "m8: the first and best points of A and B in full: %g of 3",
                 count_points(db, "m8", "2, 12, 9", "NOT " ABORTED " AND " NSAMPLES(10)));
    RT_CHECK_MSG(count_points(db, "m16", "2, 50, 12, 9, 11, 30, 40", ABORTED) == 0,
                 "m16: %g points stopped: the group's best leaked from m8",
                 count_points(db, "m16", "2, 50, 12, 9, 11, 30, 40", ABORTED));
    RT_CHECK(q(db, "SELECT count(*) FROM points p JOIN metrics m ON m.point_id = p.id WHERE "
                   "m.name = 'abort_best_s' AND NOT (p.time_min_s > 5 * m.value AND "
                   "m.value > 1.99e-3 AND p.status = 'ok' AND p.verified = 1 AND "
                   "p.reason LIKE '%the best of abort_group base%')") == 0);
    return count_points(db, "m8", may_stop, ABORTED);
}

static void check_group(rt_comm *comm, const char *work)
{
    char plain[1100], grouped[1100];
    rt_run_summary sp, sg;
    RT_CHECK(run_group(comm, work, "group-off", 0, B_MS, "abort_reps: 1", &sp, plain,
                       sizeof plain) == 0);
    RT_CHECK(run_group(comm, work, "group-on", 1, B_MS, "abort_reps: 1", &sg, grouped,
                       sizeof grouped) == 0);
    if (rt_comm_world_rank(comm) != 0)
        return;
    const double stopped = check_group_rule(grouped, "50, 11, 30, 40");
    if (rt_comm_world_size(comm) > 1)
        return;
    /* One after the other: all four stop after one repetition; without the group each entry
     * compares with its own sweep, and only A's 50 stops (over 5 x 2 ms). */
    RT_CHECK_MSG(stopped == 4 && count_points(grouped, "m8", "50, 11, 30, 40",
                                              "reason LIKE 'early abort after 1 "
                                              "repetition(s)%' AND " NSAMPLES(1)) == 4,
                 "with the group: %g of 4 points stopped", stopped);
    RT_CHECK_MSG(q(plain, "SELECT count(*) FROM points p WHERE " ABORTED) == 1 &&
                     count_points(plain, "m8", "50", ABORTED) == 1,
                 "without the group: %g points stopped",
                 q(plain, "SELECT count(*) FROM points p WHERE " ABORTED));
}

/* abort_reps 0: the verification execution decides, its time the one sample, no warm-up and no
 * timed repetition; 200 ms is over point_timeout_s there. */
static void check_verify_sample(rt_comm *comm, const char *work)
{
    char db[1100];
    rt_run_summary sum;
    RT_CHECK(run_group(comm, work, "group-verify", 1, B_MS ", 200",
                       "abort_reps: 0, point_timeout_s: 0.1", &sum, db, sizeof db) == 0);
    if (rt_comm_world_rank(comm) != 0)
        return;
    const double stopped = check_group_rule(db, "50, 11, 30, 40");
    RT_CHECK_MSG(count_points(db, "m8", "50, 11, 30, 40",
                              ABORTED " AND " NSAMPLES(1) " AND reason LIKE 'early abort at its "
                                                          "verification execution: the "
                                                          "fastest%'") == stopped,
                 "m8: %g of %g stopped points stopped at their verification execution",
                 count_points(db, "m8", "50, 11, 30, 40", ABORTED " AND " NSAMPLES(1)), stopped);
    RT_CHECK_MSG(rt_comm_world_size(comm) > 1 || stopped == 4, "%g of 4 points stopped", stopped);
    RT_CHECK_MSG(q(db, "SELECT count(*) FROM points p WHERE p.params->>'ms' = 200 AND status = "
                       "'timeout' AND " NSAMPLES(
                           1) " AND reason LIKE 'the verification "
                              "execution took 0.2% s, over measure.point_timeout_s = 0.1 s'") == 2,
                 "the 200 ms points: %g timeouts at their verification execution",
                 q(db, "SELECT count(*) FROM points WHERE params->>'ms' = 200 AND status = "
                       "'timeout'"));
    /* every other point ran its warm-up and 10 timed repetitions */
    RT_CHECK(q(db, "SELECT count(*) FROM points p WHERE status = 'ok' AND NOT " ABORTED
                   " AND NOT " NSAMPLES(10)) == 0);
}

/* The group's keys refused with the place and the key: no early abort, one entry, two families,
 * a name with a space; abort_reps below 0. */
static void check_group_keys(rt_comm *comm, const char *work)
{
    static const char *const bad[][2] = {
        {"  - {name: fake.cpu.timed, abort_group: g}\n  - {name: fake.cpu.timed, abort_group: g}\n"
         "measure: {abort_factor: 0}\n",
         "kernels[0].abort_group: 'g' needs measure.abort_factor >= 1"},
        {"  - {name: fake.cpu.timed, abort_group: g}\n  - {name: fake.cpu.timed}\n"
         "measure: {abort_factor: 2}\n",
         "kernels[0].abort_group: 'g' names no other entry"},
        {"  - {name: fake.cpu.timed, abort_group: g}\n  - {name: spmm.cpu.csr, abort_group: g}\n"
         "measure: {abort_factor: 2}\n",
         "kernels[1].abort_group: 'g' holds kernels[0] (fake.cpu.timed, family fake)"},
        {"  - {name: fake.cpu.timed, abort_group: 'a b'}\n", "kernels[0].abort_group: 'a b' may "
                                                             "contain only letters"},
        {"  - {name: fake.cpu.timed, abort_group: [g]}\n", "kernels[0].abort_group"},
        {"  - {name: fake.cpu.timed}\nmeasure: {abort_factor: 2, abort_reps: -1}\n",
         "measure.abort_reps: expected an integer >= 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char yaml[1024], db[1100], why[1024] = "", name[32];
        snprintf(yaml, sizeof yaml,
                 "experiment: {name: bad-group}\n"
                 "matrices: [{name: m, generator: banded, rows: 8, bandwidth: 1}]\nkernels:\n%s",
                 bad[i][0]);
        snprintf(name, sizeof name, "bad-group-%zu", i);
        rt_run_summary sum;
        const int rc =
            runner_util_run(comm, work, name, yaml, &sum, db, sizeof db, why, sizeof why);
        RT_CHECK_MSG(rc == -2 && strstr(why, bad[i][1]) && strstr(why, ".yaml:"),
                     "case %zu: rc %d, message '%s'", i, rc, why);
    }
}

static void run_checks(rt_comm *comm, const char *work)
{
    char plain[1100], early[1100];
    rt_run_summary sp, se;
    RT_CHECK(run_abort(comm, work, "plain", "", &sp, plain, sizeof plain, NULL, 0) == 0);
    RT_CHECK(run_abort(comm, work, "early", "abort_factor: 1.5, abort_reps: 2", &se, early,
                       sizeof early, NULL, 0) == 0);
    check_group(comm, work);
    check_verify_sample(comm, work);
    if (rt_comm_world_size(comm) > 1) {
        if (rt_comm_world_rank(comm) == 0)
            check_parallel(plain, early);
        return;
    }
    check_same_result(plain, early);
    check_savings(plain, early, &sp, &se);
    check_aborted_points(early);
    check_bad_keys(comm, work);
    check_group_keys(comm, work);
}

int main(int argc, char **argv)
{
    const int rc = runner_util_main(argc, argv, "test_abort_run", run_checks);
    return rc != 0 ? rc : RT_TEST_RESULT();
}
