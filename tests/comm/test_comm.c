/* rt_comm under mpirun: topology (node and socket ids, level communicators, tiers) with emulated
 * and real nodes, the world collectives, failure agreement and traffic counters.
 *
 * Usage: test_comm RANKS_PER_NODE RANKS_PER_SOCKET   (0 = real topology)
 *        test_comm bad-divisor | bad-mismatch         (creation must fail on every rank)
 * Every rank checks what it can see; the exit status is non-zero when any rank failed. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_registry.h"
#include "rt_test_mpi.h"

#define CHECK     RT_MPI_CHECK
#define CHECK_MSG RT_MPI_CHECK_MSG

/* Expected topology from the emulation formulas. */
static int expect_node(int r, int n, int rpn)
{
    return (rpn <= 0 || rpn >= n) ? 0 : r / rpn;
}

static int expect_local(int r, int n, int rpn)
{
    return (rpn <= 0 || rpn >= n) ? r : r % rpn;
}

static int expect_socket(int r, int n, int rpn, int rps)
{
    return rps > 0 ? expect_local(r, n, rpn) / rps : -1;
}

static void test_topology(rt_comm *c, int rpn, int rps)
{
    const int r = rt_comm_world_rank(c), n = rt_comm_world_size(c);
    int mpi_rank = -1, mpi_size = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    CHECK(r == mpi_rank && n == mpi_size);
    CHECK(rt_comm_rank(c, RT_COMM_WORLD) == r && rt_comm_size(c, RT_COMM_WORLD) == n);

    const int node_size = (rpn <= 0 || rpn >= n) ? n : rpn; /* this host runs every rank */
    const int n_nodes = n / node_size;
    CHECK_MSG(rt_comm_node_id(c) == expect_node(r, n, rpn), "node %d", rt_comm_node_id(c));
    CHECK(rt_comm_n_nodes(c) == n_nodes);
    CHECK(rt_comm_size(c, RT_COMM_NODE) == node_size);
    CHECK(rt_comm_rank(c, RT_COMM_NODE) == expect_local(r, n, rpn));
    CHECK(rt_comm_size(c, RT_COMM_PEERS) == n_nodes);
    CHECK(rt_comm_rank(c, RT_COMM_PEERS) == rt_comm_node_id(c));
    CHECK(rt_comm_is_emulated(c) == (rpn > 0));

    /* Sockets: emulated ids follow the formula; real ones are at least consistent. */
    const int sid = rt_comm_socket_id(c);
    if (rps > 0) {
        CHECK_MSG(sid == expect_socket(r, n, rpn, rps), "socket %d", sid);
        int same = 0;
        for (int q = 0; q < n; ++q)
            same += expect_node(q, n, rpn) == expect_node(r, n, rpn) &&
                    expect_socket(q, n, rpn, rps) == sid;
        CHECK(rt_comm_size(c, RT_COMM_SOCKET) == same);
    } else {
        CHECK(sid >= 0 && rt_comm_size(c, RT_COMM_SOCKET) >= 1 &&
              rt_comm_size(c, RT_COMM_SOCKET) <= node_size);
    }
    CHECK(rt_comm_socket_of(c, r) == sid && rt_comm_node_of(c, r) == rt_comm_node_id(c));

    /* Level communicators really group what they claim: sum of world ranks over the node. */
    int node_sum = 0, expect_sum = 0;
    MPI_Allreduce(&mpi_rank, &node_sum, 1, MPI_INT, MPI_SUM, rt_comm_mpi(c, RT_COMM_NODE));
    for (int q = 0; q < n; ++q)
        if (expect_node(q, n, rpn) == expect_node(r, n, rpn))
            expect_sum += q;
    CHECK(node_sum == expect_sum);
    int peer_sum = 0;
    MPI_Allreduce(&mpi_rank, &peer_sum, 1, MPI_INT, MPI_SUM, rt_comm_mpi(c, RT_COMM_PEERS));
    expect_sum = 0;
    for (int q = 0; q < n; ++q)
        if (expect_local(q, n, rpn) == expect_local(r, n, rpn))
            expect_sum += q;
    CHECK(peer_sum == expect_sum);
    CHECK(rt_comm_mpi(c, RT_COMM_LEVEL_COUNT) == MPI_COMM_NULL);
    CHECK(rt_comm_rank(c, (rt_comm_level)7) == -1);

    /* Tiers to every rank. */
    for (int q = 0; q < n; ++q) {
        const int tier = rt_comm_tier_of(c, q);
        int expect;
        if (expect_node(q, n, rpn) != expect_node(r, n, rpn))
            expect = RT_TIER_GLOBAL;
        else if (rt_comm_socket_of(c, q) != sid)
            expect = RT_TIER_NODE;
        else
            expect = RT_TIER_SOCKET;
        CHECK_MSG(tier == expect, "tier to %d is %d, expected %d", q, tier, expect);
        if (rps > 0 && expect_node(q, n, rpn) == expect_node(r, n, rpn))
            CHECK(rt_comm_socket_of(c, q) == expect_socket(q, n, rpn, rps));
    }
    CHECK(rt_comm_tier_of(c, r) == RT_TIER_SOCKET);
    CHECK(rt_comm_tier_of(c, -1) == -1 && rt_comm_tier_of(c, n) == -1);
    CHECK(rt_comm_node_of(c, n) == -1 && rt_comm_socket_of(c, -5) == -1);

    char text[256], expect_text[128];
    const int len = rt_comm_describe(c, text, sizeof text);
    CHECK(len > 0 && (size_t)len < sizeof text);
    snprintf(expect_text, sizeof expect_text, "%d ranks: %d node%s x %d rank%s/node%s", n, n_nodes,
             n_nodes == 1 ? "" : "s", node_size, node_size == 1 ? "" : "s",
             rpn > 0 ? " (emulated)" : "");
    CHECK_MSG(strncmp(text, expect_text, strlen(expect_text)) == 0, "'%s' vs '%s'", text,
              expect_text);
    CHECK(strstr(text, "socket") != NULL);
    if (rps > 0)
        CHECK(strstr(text, "(emulated)") != NULL);
    /* The same text everywhere: compare with rank 0's. */
    char root_text[256];
    memcpy(root_text, text, sizeof text);
    MPI_Bcast(root_text, (int)sizeof root_text, MPI_CHAR, 0, MPI_COMM_WORLD);
    CHECK(strcmp(root_text, text) == 0);
    if (r == 0)
        printf("topology: %s\n", text);
}

static void test_collectives(rt_comm *c)
{
    const int r = rt_comm_world_rank(c), n = rt_comm_world_size(c);
    rt_err err;
    double v = 0;
    CHECK(rt_comm_barrier(c, &err) == 0);
    CHECK(rt_comm_max_double(c, r + 1.0, &v, &err) == 0 && v == n);
    CHECK(rt_comm_min_double(c, r + 1.0, &v, &err) == 0 && v == 1.0);
    CHECK(rt_comm_sum_double(c, r + 1.0, &v, &err) == 0 && v == n * (n + 1) / 2.0);
    double mx = 0, mn = 0, avg = 0;
    CHECK(rt_comm_time_reduce(c, 0.5 * (r + 1), &mx, &mn, &avg, &err) == 0);
    CHECK(mx == 0.5 * n && mn == 0.5 && avg == 0.25 * (n + 1));
    CHECK(rt_comm_time_reduce(c, 1.0, NULL, NULL, NULL, &err) == 0);
    double arr[3] = {(double)r, -(double)r, r == 1 ? 100.0 : 0.0};
    CHECK(rt_comm_max_doubles(c, arr, 3, &err) == 0);
    CHECK(arr[0] == n - 1 && arr[1] == 0 && arr[2] == 100.0);
    CHECK(rt_comm_max_doubles(c, NULL, 0, &err) == 0);
    CHECK(rt_comm_max_doubles(c, NULL, 2, &err) != 0);

    const int root = n - 1;
    int iv = r == root ? 4242 : -1;
    CHECK(rt_comm_bcast_int(c, &iv, root, &err) == 0 && iv == 4242);
    double dv = r == root ? 3.5 : 0.0;
    CHECK(rt_comm_bcast_double(c, &dv, root, &err) == 0 && dv == 3.5);
    char bytes[1000];
    for (int i = 0; i < 1000; ++i)
        bytes[i] = (char)(r == root ? i * 7 : 0);
    CHECK(rt_comm_bcast_bytes(c, bytes, sizeof bytes, root, &err) == 0);
    int same = 1;
    for (int i = 0; i < 1000; ++i)
        same &= bytes[i] == (char)(i * 7);
    CHECK(same);
    CHECK(rt_comm_bcast_bytes(c, NULL, 0, 0, &err) == 0);
    /* A root outside the job is refused on every rank before any communication. */
    CHECK(rt_comm_bcast_int(c, &iv, n, &err) != 0 && strstr(err.msg, "root") != NULL);
    CHECK(rt_comm_bcast_double(c, &dv, -1, &err) != 0);
    CHECK(rt_comm_bcast_bytes(c, bytes, 4, n + 3, &err) != 0);
}

static void test_all_ok(rt_comm *c)
{
    const int r = rt_comm_world_rank(c), n = rt_comm_world_size(c);
    int all = -7, first = -7;
    CHECK(rt_comm_all_ok(c, 1, &all, &first) == 0 && all == 1 && first == -1);
    /* The last rank fails. */
    CHECK(rt_comm_all_ok(c, r != n - 1, &all, &first) == 0 && all == 0 && first == n - 1);
    /* Two fail: the lowest is named. */
    const int fails = (r == n - 1) || (r == 1);
    CHECK(rt_comm_all_ok(c, !fails, &all, &first) == 0 && all == 0 && first == 1);
    /* In and out through the same variable, as callers do. */
    int ok = r != 0;
    CHECK(rt_comm_all_ok(c, ok, &ok, NULL) == 0 && ok == 0);
    CHECK(strcmp(rt_comm_last_error(c), "") == 0);

    /* With the message of the first failure delivered everywhere. */
    char msg[RT_ERR_MSG_MAX];
    char mine[64];
    snprintf(mine, sizeof mine, "rank %d could not open file x", r);
    CHECK(rt_comm_all_ok_msg(c, !fails, fails ? mine : NULL, &all, &first, msg, sizeof msg) == 0);
    CHECK(all == 0 && first == 1);
    CHECK_MSG(strcmp(msg, "rank 1 could not open file x") == 0, "'%s'", msg);
    CHECK(rt_comm_all_ok_msg(c, 1, NULL, &all, &first, msg, sizeof msg) == 0);
    CHECK(all == 1 && first == -1 && msg[0] == '\0');
    /* A failing rank with no message, and a tiny output buffer. */
    char tiny[4];
    CHECK(rt_comm_all_ok_msg(c, r != 0, NULL, &all, &first, tiny, sizeof tiny) == 0);
    CHECK(all == 0 && first == 0 && tiny[0] == '\0');
    CHECK(rt_comm_all_ok_msg(c, r != 0, "abcdefgh", &all, &first, tiny, sizeof tiny) == 0);
    CHECK(strcmp(tiny, "abc") == 0);

    /* Outcome agreement: all succeed; the last rank infeasible; rank 1 (and the last) failing. */
    rt_err e;
    CHECK(rt_comm_agree_outcome(c, 0, "test", "setup", &e) == 0);
    if (n > 1) {
        const int last = n - 1;
        int rc = r == last ? rt_err_set(&e, "no room on rank %d", r), RT_INFEASIBLE : 0;
        rc = rt_comm_agree_outcome(c, rc, "test", "setup", &e);
        char want[96];
        snprintf(want, sizeof want,
                 r == last ? "no room on rank %d" : "rank %d: no room on rank %d", last, last);
        CHECK_MSG(rc == RT_INFEASIBLE && strcmp(e.msg, want) == 0, "rc %d, '%s'", rc, e.msg);
        rc = (r == 1 || r == last) ? rt_err_set(&e, "rank %d lost its device", r) : 0;
        rc = rt_comm_agree_outcome(c, rc, "test", "setup", &e);
        snprintf(want, sizeof want,
                 r == 1 ? "rank 1 lost its device"
                        : "rank 1 failed in the setup: rank 1 lost its device");
        CHECK_MSG(rc == -1 && strcmp(e.msg, want) == 0, "rc %d, '%s'", rc, e.msg);
    }
}

static void test_counters(rt_comm *c)
{
    const int r = rt_comm_world_rank(c), n = rt_comm_world_size(c);
    rt_err err;
    int64_t bytes[RT_TIER_COUNT], msgs[RT_TIER_COUNT];
    rt_comm_counters_read(c, bytes, msgs);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        CHECK(bytes[t] == 0 && msgs[t] == 0);

    /* Send 100 bytes to every other rank, plus (r + 1) bytes to itself. */
    int64_t expect_b[RT_TIER_COUNT] = {0, 0, 0}, expect_m[RT_TIER_COUNT] = {0, 0, 0};
    for (int q = 0; q < n; ++q) {
        const int64_t amount = q == r ? r + 1 : 100;
        CHECK(rt_comm_count_to(c, q, amount, &err) == 0);
        const int tier = rt_comm_tier_of(c, q);
        expect_b[tier] += amount;
        expect_m[tier] += 1;
    }
    CHECK(rt_comm_count(c, RT_TIER_GLOBAL, 5, 2, &err) == 0);
    expect_b[RT_TIER_GLOBAL] += 5;
    expect_m[RT_TIER_GLOBAL] += 2;
    rt_comm_counters_read(c, bytes, msgs);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        CHECK_MSG(bytes[t] == expect_b[t] && msgs[t] == expect_m[t], "tier %d: %lld/%lld", t,
                  (long long)bytes[t], (long long)msgs[t]);

    int64_t max_b[RT_TIER_COUNT], sum_b[RT_TIER_COUNT], sum_m[RT_TIER_COUNT];
    CHECK(rt_comm_counters_reduce(c, max_b, NULL, sum_b, sum_m, &err) == 0);
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        int64_t mine[2] = {expect_b[t], expect_m[t]}, hi = 0, tot[2] = {0, 0};
        MPI_Allreduce(&mine[0], &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(mine, tot, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        CHECK(max_b[t] == hi && sum_b[t] == tot[0] && sum_m[t] == tot[1]);
    }
    /* Every message counted once at its sender: n*n messages, n*(n-1)*100 + n(n+1)/2 + 5n bytes. */
    CHECK(sum_m[0] + sum_m[1] + sum_m[2] == (int64_t)n * n + 2 * n);
    CHECK(sum_b[0] + sum_b[1] + sum_b[2] ==
          (int64_t)n * (n - 1) * 100 + (int64_t)n * (n + 1) / 2 + 5 * n);

    rt_comm_counters_reset(c);
    rt_comm_counters_read(c, bytes, NULL);
    CHECK(bytes[0] == 0 && bytes[1] == 0 && bytes[2] == 0);

    CHECK(rt_comm_count(c, (rt_net_tier)3, 1, 1, &err) != 0 && strstr(err.msg, "tier") != NULL);
    CHECK(rt_comm_count(c, (rt_net_tier)-1, 1, 1, &err) != 0);
    CHECK(rt_comm_count(c, RT_TIER_NODE, -1, 0, &err) != 0 && strstr(err.msg, "negative"));
    CHECK(rt_comm_count_to(c, n, 10, &err) != 0 && strstr(err.msg, "not in this") != NULL);
    rt_comm_counters_read(c, bytes, msgs);
    CHECK(bytes[0] == 0 && bytes[1] == 0 && bytes[2] == 0 && msgs[0] + msgs[1] + msgs[2] == 0);
}

int main(int argc, char **argv)
{
    /* Before MPI_Init: creation is refused with the reason, the version is still available. */
    rt_err err;
    rt_comm *c = (rt_comm *)0x1;
    const int early = rt_comm_create(NULL, &c, &err);
    char version[256];
    const int early_version = rt_comm_library_version(version, sizeof version);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rt_mpi_rank);
    int n = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc < 2) {
        if (rt_mpi_rank == 0)
            fprintf(stderr,
                    "usage: %s RANKS_PER_NODE RANKS_PER_SOCKET | bad-divisor | "
                    "bad-mismatch | bad-negative\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }

    CHECK(early != 0 && c == NULL && strstr(err.msg, "MPI_Init") != NULL);
    CHECK(early_version == 0);
    CHECK(rt_comm_library_version(version, sizeof version) == 0 && strlen(version) > 3);
    CHECK(strchr(version, '\n') == NULL);
    CHECK(rt_comm_library_version(NULL, 4) != 0);

    c = NULL;
    if (strncmp(argv[1], "bad-", 4) == 0) {
        rt_comm_opts o = {0, 0};
        const char *needle = "";
        if (strcmp(argv[1], "bad-divisor") == 0) {
            o.ranks_per_node = n - 1; /* n >= 3 */
            needle = "does not divide";
        } else if (strcmp(argv[1], "bad-mismatch") == 0) {
            o.ranks_per_node = rt_mpi_rank == n - 1 ? 2 : 1;
            needle = "differ";
        } else {
            o.ranks_per_node = -2;
            needle = ">= 0";
        }
        err.msg[0] = '\0';
        const int rc = rt_comm_create(&o, &c, &err);
        CHECK_MSG(rc != 0 && c == NULL, "creation with %s succeeded", argv[1]);
        CHECK_MSG(strstr(err.msg, needle) != NULL, "'%s' lacks '%s'", err.msg, needle);
        if (rt_mpi_rank == 0)
            printf("%s: %s\n", argv[1], err.msg);
        rt_comm_free(c);
    } else {
        const int rpn = atoi(argv[1]);
        const int rps = argc > 2 ? atoi(argv[2]) : 0;
        rt_comm_opts o = {rpn, rps};
        if (rt_comm_create(&o, &c, &err) != 0) {
            CHECK_MSG(0, "rt_comm_create: %s", err.msg);
        } else {
            test_topology(c, rpn, rps);
            test_collectives(c);
            test_all_ok(c);
            test_counters(c);
            rt_comm_free(c);
        }
        /* NULL options mean the real topology. */
        c = NULL;
        CHECK(rt_comm_create(NULL, &c, &err) == 0 && c && rt_comm_n_nodes(c) == 1);
        rt_comm_free(c);
    }

    int total = 0;
    MPI_Allreduce(&rt_mpi_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
