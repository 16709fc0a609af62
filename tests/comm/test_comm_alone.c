/* rt_comm in a process no MPI launcher started: the job of one rank made without MPI_Init
 * (rt_comm_create_alone), its local collectives, and MPI started only when a communicator is
 * asked for (a window, rt_comm_mpi), once, with its time kept; after MPI_Finalize a start is an
 * error with the reason.
 *
 * Usage: test_comm_alone                   (run alone, without mpirun)
 *        test_comm_alone unknown-launcher  (under mpirun -np 2: a job made alone where a
 *                                           launcher did start the process, as under a launcher
 *                                           whose variables rt_comm_launched does not know: the
 *                                           late start finds 2 ranks and says so) */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_comm_rma.h"
#include "rt_registry.h"
#include "rt_test.h"

#define CHECK     RT_CHECK
#define CHECK_MSG RT_CHECK_MSG

static const char *const marks[] = {
    "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",          "PMI_RANK", "PMI_SIZE", "PMI_FD",
    "MPI_LOCALNRANKS",      "MV2_COMM_WORLD_SIZE"};
#define N_MARKS ((int)(sizeof marks / sizeof marks[0]))

static int mpi_initialized(void)
{
    int flag = 0;
    MPI_Initialized(&flag);
    return flag;
}

static void unset_marks(void)
{
    for (int i = 0; i < N_MARKS; ++i)
        unsetenv(marks[i]);
}

/* Each launcher's variable alone marks the process as launched. */
static void test_launched(void)
{
    unset_marks();
    CHECK(rt_comm_launched() == 0);
    for (int i = 0; i < N_MARKS; ++i) {
        setenv(marks[i], "0", 1);
        CHECK_MSG(rt_comm_launched() == 1, "%s set, not launched", marks[i]);
        unsetenv(marks[i]);
    }
    CHECK(rt_comm_launched() == 0);
}

static void test_topology(void)
{
    rt_err err;
    rt_comm *c = NULL;
    CHECK(rt_comm_create_alone(NULL, &c, &err) == 0 && c);
    if (!c)
        return;
    for (int l = 0; l < RT_COMM_LEVEL_COUNT; ++l)
        CHECK(rt_comm_rank(c, (rt_comm_level)l) == 0 && rt_comm_size(c, (rt_comm_level)l) == 1);
    CHECK(rt_comm_node_id(c) == 0 && rt_comm_socket_id(c) == 0 && rt_comm_n_nodes(c) == 1);
    CHECK(rt_comm_node_of(c, 0) == 0 && rt_comm_socket_of(c, 0) == 0);
    CHECK(rt_comm_node_of(c, 1) == -1 && rt_comm_tier_of(c, 1) == -1);
    CHECK(rt_comm_tier_of(c, 0) == RT_TIER_SOCKET && !rt_comm_is_emulated(c));
    CHECK(!rt_comm_mpi_started(c));
    char text[256];
    rt_comm_describe(c, text, sizeof text);
    CHECK_MSG(strncmp(text, "1 rank: 1 node x 1 rank/node, 1 socket/node (", 45) == 0, "'%s'",
              text);
    rt_comm_free(c);

    /* Emulation options of one rank, and garbage. */
    const rt_comm_opts emulated = {2, 1};
    CHECK(rt_comm_create_alone(&emulated, &c, &err) == 0 && rt_comm_is_emulated(c));
    rt_comm_describe(c, text, sizeof text);
    CHECK_MSG(strstr(text, "(emulated)") != NULL, "'%s'", text);
    rt_comm_free(c);
    const rt_comm_opts negative = {-1, 0};
    c = (rt_comm *)0x1;
    CHECK(rt_comm_create_alone(&negative, &c, &err) != 0 && c == NULL &&
          rt_test_contains(err.msg, ">= 0"));
}

/* The collectives of one rank: its own values, its own failure. */
static void test_collectives(void)
{
    rt_err err;
    rt_comm *c = NULL;
    if (rt_comm_create_alone(NULL, &c, &err) != 0) {
        CHECK_MSG(0, "%s", err.msg);
        return;
    }
    double v = 0, mx = 0, mn = 0, avg = 0;
    CHECK(rt_comm_barrier(c, &err) == 0);
    CHECK(rt_comm_max_double(c, 2.5, &v, &err) == 0 && v == 2.5);
    CHECK(rt_comm_min_double(c, -1.5, &v, &err) == 0 && v == -1.5);
    CHECK(rt_comm_sum_double(c, 7.0, &v, &err) == 0 && v == 7.0);
    CHECK(rt_comm_time_reduce(c, 0.25, &mx, &mn, &avg, &err) == 0);
    CHECK(mx == 0.25 && mn == 0.25 && avg == 0.25);
    double arr[2] = {3.0, -4.0};
    CHECK(rt_comm_max_doubles(c, arr, 2, &err) == 0 && arr[0] == 3.0 && arr[1] == -4.0);
    CHECK(rt_comm_max_doubles(c, NULL, 2, &err) != 0);
    int iv = 42;
    double dv = 1.25;
    char bytes[3] = {1, 2, 3};
    CHECK(rt_comm_bcast_int(c, &iv, 0, &err) == 0 && iv == 42);
    CHECK(rt_comm_bcast_double(c, &dv, 0, &err) == 0 && dv == 1.25);
    CHECK(rt_comm_bcast_bytes(c, bytes, 3, 0, &err) == 0 && bytes[2] == 3);
    CHECK(rt_comm_bcast_int(c, &iv, 1, &err) != 0 && rt_test_contains(err.msg, "root 1"));
    CHECK(rt_comm_bcast_bytes(c, NULL, 8, 0, &err) != 0 && rt_test_contains(err.msg, "NULL"));

    int all = -1, first = -7;
    CHECK(rt_comm_all_ok(c, 1, &all, &first) == 0 && all == 1 && first == -1);
    CHECK(rt_comm_all_ok(c, 0, &all, &first) == 0 && all == 0 && first == 0);
    char msg[64];
    CHECK(rt_comm_all_ok_msg(c, 0, "no disk", &all, &first, msg, sizeof msg) == 0);
    CHECK(all == 0 && first == 0 && strcmp(msg, "no disk") == 0);
    rt_err e;
    CHECK(rt_comm_agree_outcome(c, 0, "test", "setup", &e) == 0);
    rt_err_set(&e, "too big");
    CHECK(rt_comm_agree_outcome(c, RT_INFEASIBLE, "test", "setup", &e) == RT_INFEASIBLE &&
          strcmp(e.msg, "too big") == 0);
    rt_err_set(&e, "lost the device");
    CHECK(rt_comm_agree_outcome(c, -1, "test", "setup", &e) == -1 &&
          strcmp(e.msg, "lost the device") == 0);

    int64_t sum_b[RT_TIER_COUNT], max_b[RT_TIER_COUNT], sum_m[RT_TIER_COUNT];
    CHECK(rt_comm_count_to(c, 0, 10, &err) == 0 && rt_comm_count_to(c, 1, 10, &err) != 0);
    CHECK(rt_comm_counters_reduce(c, max_b, NULL, sum_b, sum_m, &err) == 0);
    CHECK(max_b[RT_TIER_SOCKET] == 10 && sum_b[RT_TIER_SOCKET] == 10 &&
          sum_m[RT_TIER_SOCKET] == 1 && sum_b[RT_TIER_GLOBAL] == 0);
    rt_comm_free(c);
}

/* MPI starts the first time a communicator is asked for, once; then the communicators are real. */
static void test_late_start(void)
{
    rt_err err;
    rt_comm *a = NULL, *b = NULL, *self = NULL;
    if (rt_comm_create_alone(NULL, &a, &err) != 0 || rt_comm_create_alone(NULL, &b, &err) != 0 ||
        rt_comm_create_self(&self, &err) != 0) {
        CHECK_MSG(0, "%s", err.msg);
        rt_comm_free(a);
        rt_comm_free(b);
        return;
    }
    double t0, t1;
    CHECK(!mpi_initialized() && !rt_comm_mpi_started(self));
    CHECK(rt_comm_init_times(a, &t0, &t1) == 0);
    /* A window needs MPI: its creation starts it. */
    rt_rma_win *win = NULL;
    CHECK_MSG(rt_rma_win_create(a, RT_COMM_WORLD, 64, "late", &win, &err) == 0, "%s", err.msg);
    CHECK(mpi_initialized() && rt_comm_mpi_started(a));
    CHECK(rt_comm_init_times(a, &t0, &t1) == 1 && t0 > 0 && t1 >= t0);
    rt_rma_win_free(win);
    /* Another job alone starts its communicators on MPI already running: no second MPI_Init. */
    CHECK(!rt_comm_mpi_started(b));
    MPI_Comm world = rt_comm_mpi(b, RT_COMM_WORLD);
    CHECK(world != MPI_COMM_NULL && rt_comm_mpi_started(b));
    CHECK(rt_comm_init_times(b, &t0, &t1) == 0);
    int size = 0, sum = 0, one = 1;
    MPI_Comm_size(world, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, rt_comm_mpi(b, RT_COMM_NODE));
    CHECK(size == 1 && sum == 1);
    CHECK(rt_comm_mpi(b, RT_COMM_LEVEL_COUNT) == MPI_COMM_NULL);
    MPI_Comm_size(rt_comm_mpi(self, RT_COMM_WORLD), &size);
    CHECK(size == 1 && rt_comm_mpi_started(self));
    /* Its collectives are still its own values. */
    double v = 0;
    CHECK(rt_comm_max_double(b, 3.0, &v, &err) == 0 && v == 3.0);
    rt_comm_free(a);
    rt_comm_free(b);
    rt_comm_free(self);

    /* After MPI_Finalize nothing starts, and the reason is kept. */
    rt_comm_mpi_end();
    int finalized = 0;
    MPI_Finalized(&finalized);
    CHECK(finalized);
    rt_comm_mpi_end(); /* nothing to do */
    rt_comm *late = NULL;
    CHECK(rt_comm_create_alone(NULL, &late, &err) == 0);
    CHECK(rt_comm_start(late, &err) != 0 && rt_test_contains(err.msg, "MPI_Finalize"));
    CHECK(rt_comm_mpi(late, RT_COMM_WORLD) == MPI_COMM_NULL &&
          rt_test_contains(rt_comm_last_error(late), "MPI_Finalize"));
    rt_comm_free(late);
}

/* Under mpirun -np 2, each process made a job of its own (its launcher's variables are needed by
 * MPI_Init, so they stay: the job is made alone by hand, as it would be under a launcher
 * rt_comm_launched does not know); the late start finds the truth and refuses it. */
static int unknown_launcher(void)
{
    rt_err err;
    rt_comm *c = NULL;
    CHECK(rt_comm_launched() == 1);
    CHECK(rt_comm_create_alone(NULL, &c, &err) == 0);
    if (c) {
        const int rc = rt_comm_start(c, &err);
        CHECK_MSG(rc != 0 && rt_test_contains(err.msg, "finds 2 ranks"), "rc %d: '%s'", rc,
                  err.msg);
        CHECK(!rt_comm_mpi_started(c));
        rt_comm_free(c);
    }
    rt_comm_mpi_end();
    return rt_test_failures == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "unknown-launcher") == 0)
        return unknown_launcher();
    if (argc > 1) {
        fprintf(stderr, "usage: %s [unknown-launcher]\n", argv[0]);
        return 2;
    }
    test_launched();
    test_topology();
    test_collectives();
    CHECK(!mpi_initialized()); /* all of the above without MPI */
    test_late_start();
    return rt_test_failures == 0 ? 0 : 1;
}
