/* measure.compile_ahead through the real runner, on the CPU: which points' compiles a process
 * queues ahead (rt_kernel_desc.compile_ahead) and when. A stand-in kernel (the synthetic-time
 * kernel of tests/rt_fake_timed.h with a compile_ahead hook and a set-up that notes whether its
 * point was queued before it) stands for a CUDA kernel whose variant the plugin's pool compiles:
 * what the CUDA path does with a queued point (cuda.tiled_ahead, cuda.tune_gpu) is not this
 * test's; that the runner queues the right points, once their inputs are ready, without changing
 * what is measured, is.
 *
 *   serial   exhaustive: every point but the sweep's first was queued before its set-up, each
 *            queued point is one the sweep measures later, with the inputs built; the same
 *            statuses as with compile_ahead 0 (which queues nothing); a steering strategy
 *            (anneal) and a search with a time budget queue nothing; bad values of the key are
 *            refused naming it.
 *   ranks    under mpirun -np 2 (search.parallel: ranks): rank 1, a worker holding up to three
 *            points, queues the ASSIGNs waiting in its socket as it starts a point: some of its
 *            points were queued before their set-up, and every point it queued is one it then
 *            measured itself (the drain keeps the protocol: each point measured once, all of them
 *            in the store); rank 0, which coordinates, queues nothing.
 *
 * Usage: test_ahead_run WORK_DIR */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rt_comm.h"
#include "rt_fake_timed.h"
#include "rt_params.h"
#include "rt_test.h"
#include "runner_util.h"

#define N_POINTS 8
#define MAX_SEEN 64

/* What this process's stand-in kernel saw in the current run. */
static struct {
    double queued[MAX_SEEN]; /* ms of every compile_ahead call, in order */
    int n_queued;
    int no_inputs;           /* compile_ahead calls without the sweep's inputs */
    double setup[MAX_SEEN];  /* ms of every set-up, in order */
    int announced[MAX_SEEN]; /* whether that point had been queued before its set-up */
    int n_setup;
} seen;

static double ms_of(const rt_params *p)
{
    return rt_params_real(p, "ms", 1.0);
}

static int was_queued(double ms)
{
    for (int i = 0; i < seen.n_queued; ++i)
        if (seen.queued[i] == ms)
            return 1;
    return 0;
}

static int ahead_hook(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, rt_err *err)
{
    (void)self;
    (void)env;
    (void)err;
    seen.no_inputs += inputs == NULL;
    if (seen.n_queued < MAX_SEEN)
        seen.queued[seen.n_queued++] = ms_of(p);
    return 0;
}

static int ahead_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, void **state, rt_err *err)
{
    if (seen.n_setup < MAX_SEEN) {
        seen.setup[seen.n_setup] = ms_of(p);
        seen.announced[seen.n_setup] = was_queued(ms_of(p));
        seen.n_setup++;
    }
    /* A set-up that takes a while, as a compile would: a worker's next ASSIGN is in its socket
     * by its next point's start. */
    const struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    return rt_fake_timed_kernel.setup(self, inputs, p, env, state, err);
}

static rt_kernel_desc ahead_kernel;

static int add_kernel(void *ctx, rt_registry *reg, rt_run_options *ro, rt_err *err)
{
    (void)ctx;
    (void)ro;
    ahead_kernel = rt_fake_timed_kernel;
    ahead_kernel.name = "fake.cpu.ahead";
    ahead_kernel.summary = "fake.cpu.timed with a compile_ahead hook (test_ahead_run)";
    ahead_kernel.setup = ahead_setup;
    ahead_kernel.compile_ahead = ahead_hook;
    return rt_registry_add_kernel(reg, &ahead_kernel, err);
}

/* One run of the 8-point sweep; measure_extra and search are spliced into the config. */
static int run(rt_comm *comm, const char *work, const char *name, const char *measure_extra,
               const char *search, char *db, size_t db_len, char *why, size_t why_len)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "experiment: {name: %s}\n"
             "matrices: [{name: m, generator: banded, rows: 8, bandwidth: 1}]\n"
             "kernels: [{name: fake.cpu.ahead, params: {ms: [2, 3, 4, 5, 6, 7, 8, 9]}}]\n"
             "measure: {warmup: 0, min_reps: 3, max_reps: 3, max_time_s: 100, "
             "target_rel_ci: 0%s%s}\n%s",
             name, measure_extra[0] ? ", " : "", measure_extra, search);
    memset(&seen, 0, sizeof seen);
    rt_run_summary sum;
    return runner_util_run_prepared(comm, work, name, yaml, add_kernel, NULL, &sum, db, db_len, why,
                                    why_len);
}

static double ok_points(const char *db)
{
    return runner_util_sql(db, "SELECT COUNT(*) FROM points WHERE status = 'ok' AND verified = 1");
}

static void check_serial(rt_comm *comm, const char *work)
{
    char db[1100], why[512];
    RT_CHECK(run(comm, work, "serial", "", "", db, sizeof db, why, sizeof why) == 0);
    RT_CHECK(ok_points(db) == N_POINTS);
    RT_CHECK_MSG(seen.n_setup == N_POINTS, "%d set-ups", seen.n_setup);
    int announced = 0;
    for (int i = 0; i < seen.n_setup; ++i)
        announced += seen.announced[i];
    /* The first point of the sweep has nothing before it; every later one was queued while an
     * earlier point ran. */
    RT_CHECK_MSG(!seen.announced[0] && announced == N_POINTS - 1, "%d of %d points queued ahead",
                 announced, seen.n_setup);
    RT_CHECK(seen.no_inputs == 0);
    /* Only points the sweep measures later, never the one being set up now. */
    for (int q = 0; q < seen.n_queued; ++q) {
        int later = 0;
        for (int i = 1; i < seen.n_setup; ++i)
            later |= seen.setup[i] == seen.queued[q];
        RT_CHECK_MSG(later && seen.queued[q] != seen.setup[0], "queued ms=%g", seen.queued[q]);
    }

    RT_CHECK(run(comm, work, "off", "compile_ahead: 0", "", db, sizeof db, why, sizeof why) == 0);
    RT_CHECK(ok_points(db) == N_POINTS && seen.n_setup == N_POINTS);
    RT_CHECK_MSG(seen.n_queued == 0, "compile_ahead 0 queued %d", seen.n_queued);

    /* Orders that depend on the results, or a deadline a point taken early could pass: none. */
    RT_CHECK(run(comm, work, "anneal", "", "search: {strategy: anneal, budget: 6}\n", db, sizeof db,
                 why, sizeof why) == 0);
    RT_CHECK(seen.n_setup == 6 && seen.n_queued == 0);
    RT_CHECK(run(comm, work, "deadline", "", "search: {strategy: random, max_time_s: 100}\n", db,
                 sizeof db, why, sizeof why) == 0);
    RT_CHECK(seen.n_setup == N_POINTS && seen.n_queued == 0);

    /* Garbage: refused at load with the key named (exit code 2 on the command line). */
    static const char *const bad[] = {"compile_ahead: -1", "compile_ahead: 65",
                                      "compile_ahead: two", "compile_ahead: 1.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        why[0] = '\0';
        const int rc = run(comm, work, "bad", bad[i], "", db, sizeof db, why, sizeof why);
        RT_CHECK_MSG(rc == -2 && strstr(why, "measure.compile_ahead") && strstr(why, "bad.yaml:"),
                     "%s: rc %d, %s", bad[i], rc, why);
    }
}

static void check_ranks(rt_comm *comm, const char *work)
{
    char db[1100], why[512];
    RT_CHECK(run(comm, work, "ranks", "", "search: {parallel: ranks}\n", db, sizeof db, why,
                 sizeof why) == 0);
    const int rank = rt_comm_world_rank(comm);
    if (rank == 0) {
        RT_CHECK(ok_points(db) == N_POINTS);
        RT_CHECK(runner_util_sql(db, "SELECT COUNT(DISTINCT params->>'ms') FROM points") ==
                 N_POINTS);
        /* The coordinator measures between hand-outs and looks ahead at nothing. */
        RT_CHECK_MSG(seen.n_queued == 0, "rank 0 queued %d", seen.n_queued);
        return;
    }
    int announced = 0;
    for (int i = 0; i < seen.n_setup; ++i)
        announced += seen.announced[i];
    RT_CHECK_MSG(seen.n_setup >= 2 && announced >= 1,
                 "rank %d: %d of its %d points queued before their set-up", rank, announced,
                 seen.n_setup);
    RT_CHECK(seen.no_inputs == 0);
    for (int q = 0; q < seen.n_queued; ++q) {
        int mine = 0;
        for (int i = 0; i < seen.n_setup; ++i)
            mine |= seen.setup[i] == seen.queued[q];
        RT_CHECK_MSG(mine, "rank %d queued ms=%g, which it did not measure", rank, seen.queued[q]);
    }
}

static void run_checks(rt_comm *comm, const char *work)
{
    if (rt_comm_world_size(comm) > 1)
        check_ranks(comm, work);
    else
        check_serial(comm, work);
}

int main(int argc, char **argv)
{
    const int rc = runner_util_main(argc, argv, "test_ahead_run", run_checks);
    return rc != 0 ? rc : RT_TEST_RESULT();
}
