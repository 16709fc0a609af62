/* rt_comm_rma under mpirun: window creation with different sizes per rank, non-blocking and
 * blocking gets, puts, accumulates, fetch-and-add under contention (every value handed out once),
 * atomic loads and stores, windows over the node, socket and peers levels (each group its own
 * memory), per-tier byte counters (self operations not counted), and errors
 * that fail cleanly: out-of-range targets and offsets, misaligned atomics, and one rank failing
 * window creation (every rank fails, naming it).
 *
 * Usage: test_spmm2d_rma RANKS_PER_NODE RANKS_PER_SOCKET   (0 = the real topology) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_comm_rma.h"
#include "rt_test_mpi.h"

#define CHECK     RT_MPI_CHECK
#define CHECK_MSG RT_MPI_CHECK_MSG

static void test_create_get_put(rt_comm *c)
{
    const int P = rt_comm_world_size(c);
    rt_err err;
    rt_rma_win *w = NULL;
    /* Rank r exposes 8 * 16 * (r + 1) bytes. */
    const size_t mine = 8 * 16 * (size_t)(rt_mpi_rank + 1);
    CHECK_MSG(rt_rma_win_create(c, RT_COMM_WORLD, mine, "test", &w, &err) == 0, "%s", err.msg);
    if (!w)
        return;
    CHECK(rt_rma_size(w) == P && rt_rma_rank(w) == rt_mpi_rank);
    CHECK(rt_rma_local_bytes(w) == mine);
    for (int r = 0; r < P; ++r) {
        CHECK(rt_rma_bytes_of(w, r) == 8 * 16 * (size_t)(r + 1));
        CHECK(rt_rma_world_rank(w, r) == r);
    }
    int64_t *base = rt_rma_local(w);
    int zero = 1;
    for (size_t q = 0; q < mine / 8; ++q)
        zero &= base[q] == 0;
    CHECK(zero);
    for (size_t q = 0; q < mine / 8; ++q)
        base[q] = rt_mpi_rank * 1000 + (int64_t)q;
    CHECK(rt_rma_sync(w, &err) == 0);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));

    /* Non-blocking gets from everyone (the last 4 words of each window), tested to completion. */
    int64_t *got = calloc((size_t)P * 4, sizeof *got);
    rt_rma_req *req = calloc((size_t)P, sizeof *req);
    for (int r = 0; r < P; ++r) {
        const size_t words = 16 * (size_t)(r + 1);
        CHECK_MSG(rt_rma_rget(w, got + 4 * r, 32, r, (words - 4) * 8, &req[r], &err) == 0, "%s",
                  err.msg);
    }
    for (int r = 0; r < P; ++r) {
        int done = 0;
        for (int spin = 0; spin < 1000000 && !done; ++spin)
            CHECK(rt_rma_test(&req[r], &done, &err) == 0);
        CHECK(done);
        CHECK(rt_rma_wait(&req[r], &err) == 0); /* an empty request is complete */
        const int64_t words = 16 * (r + 1);
        for (int q = 0; q < 4; ++q)
            CHECK_MSG(got[4 * r + q] == r * 1000 + words - 4 + q, "rank %d word %d: %lld", r, q,
                      (long long)got[4 * r + q]);
    }
    /* Blocking get of the neighbour's first word. */
    int64_t first = -1;
    CHECK(rt_rma_get(w, &first, 8, (rt_mpi_rank + 1) % P, 0, &err) == 0);
    CHECK(first == ((rt_mpi_rank + 1) % P) * 1000);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));

    /* Put my rank into word 1 of the next rank; the source buffer is reusable on return. */
    int64_t v = 77000 + rt_mpi_rank;
    CHECK(rt_rma_put(w, &v, 8, (rt_mpi_rank + 1) % P, 8, &err) == 0);
    v = -1;
    CHECK(rt_rma_flush(w, (rt_mpi_rank + 1) % P, &err) == 0);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    CHECK(rt_rma_sync(w, &err) == 0);
    CHECK_MSG(base[1] == 77000 + (rt_mpi_rank + P - 1) % P, "word 1 holds %lld",
              (long long)base[1]);

    /* Accumulate doubles into rank 0's word 2 from everyone. */
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    if (rt_mpi_rank == 0) {
        const double z = 0.0;
        memcpy(&base[2], &z, 8);
        CHECK(rt_rma_sync(w, &err) == 0);
    }
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    const double add[1] = {(double)(rt_mpi_rank + 1)};
    CHECK(rt_rma_accumulate(w, add, 1, RT_RMA_F64, 0, 16, &err) == 0);
    CHECK(rt_rma_flush_all(w, &err) == 0);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    if (rt_mpi_rank == 0) {
        CHECK(rt_rma_sync(w, &err) == 0);
        double sum = 0;
        memcpy(&sum, &base[2], 8);
        CHECK_MSG(sum == P * (P + 1) / 2.0, "accumulated %g", sum);
    }
    free(got);
    free(req);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    rt_rma_win_free(w);
}

static int cmp64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Every rank adds 1 to rank 0's counter M times: the values handed out are 0 .. P*M-1, each once;
 * and every rank adds to every rank's counter, so each ends at P * M2. */
static void test_fetch_add(rt_comm *c)
{
    const int P = rt_comm_world_size(c), M = 300, M2 = 50;
    rt_err err;
    rt_rma_win *w = NULL;
    CHECK_MSG(rt_rma_win_create(c, RT_COMM_WORLD, 16, "counters", &w, &err) == 0, "%s", err.msg);
    if (!w)
        return;
    int64_t *old = malloc((size_t)M * sizeof *old);
    for (int q = 0; q < M; ++q)
        CHECK(rt_rma_fetch_add(w, 0, 0, 1, &old[q], &err) == 0);
    for (int q = 0; q < M2; ++q)
        for (int r = 0; r < P; ++r)
            CHECK(rt_rma_fetch_add(w, (r + rt_mpi_rank) % P, 8, 1, NULL, &err) == 0);
    int64_t *all = rt_mpi_rank == 0 ? malloc((size_t)P * M * sizeof *all) : NULL;
    MPI_Gather(old, M, MPI_INT64_T, all, M, MPI_INT64_T, 0, rt_comm_mpi(c, RT_COMM_WORLD));
    if (rt_mpi_rank == 0) {
        qsort(all, (size_t)P * M, sizeof *all, cmp64);
        int perm = 1;
        for (int64_t q = 0; q < (int64_t)P * M; ++q)
            perm &= all[q] == q;
        CHECK_MSG(perm, "fetch-and-add handed out a value twice or skipped one");
    }
    /* Values taken by one rank increase (its own adds are ordered). */
    int increasing = 1;
    for (int q = 1; q < M; ++q)
        increasing &= old[q] > old[q - 1];
    CHECK(increasing);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    int64_t total = -1, mine = -1;
    CHECK(rt_rma_atomic_load(w, 0, 0, &total, &err) == 0);
    CHECK_MSG(total == (int64_t)P * M, "counter %lld", (long long)total);
    CHECK(rt_rma_atomic_load(w, rt_mpi_rank, 8, &mine, &err) == 0);
    CHECK_MSG(mine == (int64_t)P * M2, "my counter %lld", (long long)mine);
    /* Atomic store then load through another rank. */
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    if (rt_mpi_rank == 0)
        CHECK(rt_rma_atomic_store(w, P - 1, 8, -5, &err) == 0);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    int64_t v = 0;
    CHECK(rt_rma_atomic_load(w, P - 1, 8, &v, &err) == 0);
    CHECK(v == -5);
    free(old);
    free(all);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    rt_rma_win_free(w);
}

/* Per-tier counters: a get of B bytes from every rank adds B to the tier of each other rank, one
 * message each; the get from oneself is counted only as the window's self traffic. */
static void test_counters(rt_comm *c)
{
    const int P = rt_comm_world_size(c);
    const size_t B = 1000;
    rt_err err;
    rt_rma_win *w = NULL;
    CHECK(rt_rma_win_create(c, RT_COMM_WORLD, B + 8, "bytes", &w, &err) == 0);
    if (!w)
        return;
    rt_comm_counters_reset(c);
    unsigned char *buf = malloc(B);
    int64_t want_b[RT_TIER_COUNT] = {0, 0, 0}, want_m[RT_TIER_COUNT] = {0, 0, 0};
    for (int r = 0; r < P; ++r) {
        CHECK(rt_rma_get(w, buf, B, r, 0, &err) == 0);
        if (r != rt_mpi_rank) {
            want_b[rt_comm_tier_of(c, r)] += (int64_t)B;
            want_m[rt_comm_tier_of(c, r)] += 1;
        }
    }
    /* One fetch-and-add (16 bytes: operand out, value back) to the next rank. */
    if (P > 1) {
        CHECK(rt_rma_fetch_add(w, (rt_mpi_rank + 1) % P, B, 1, NULL, &err) == 0);
        want_b[rt_comm_tier_of(c, (rt_mpi_rank + 1) % P)] += 16;
        want_m[rt_comm_tier_of(c, (rt_mpi_rank + 1) % P)] += 1;
    }
    int64_t got_b[RT_TIER_COUNT], got_m[RT_TIER_COUNT];
    rt_comm_counters_read(c, got_b, got_m);
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        CHECK_MSG(got_b[t] == want_b[t], "tier %d: %lld bytes, want %lld", t, (long long)got_b[t],
                  (long long)want_b[t]);
        CHECK_MSG(got_m[t] == want_m[t], "tier %d: %lld messages, want %lld", t,
                  (long long)got_m[t], (long long)want_m[t]);
    }
    rt_rma_stats st;
    rt_rma_stats_read(w, &st);
    CHECK(st.self_bytes == (int64_t)B && st.self_ops == 1);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        CHECK(st.bytes[t] == want_b[t] && st.ops[t] == want_m[t]);
    rt_rma_stats_reset(w);
    rt_rma_stats_read(w, &st);
    CHECK(st.self_bytes == 0 && st.bytes[0] == 0);
    free(buf);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    rt_rma_win_free(w);
    rt_comm_counters_reset(c);
}

static void test_errors(rt_comm *c)
{
    const int P = rt_comm_world_size(c);
    rt_err err;
    rt_rma_win *w = NULL;
    CHECK(rt_rma_win_create(c, RT_COMM_WORLD, 64, "errs", &w, &err) == 0);
    if (!w)
        return;
    int64_t v = 0;
    rt_rma_req req;
    rt_err_clear(&err);
    CHECK(rt_rma_rget(w, &v, 8, P, 0, &req, &err) != 0);
    CHECK_MSG(strstr(err.msg, "target rank") && strstr(err.msg, "errs"), "%s", err.msg);
    CHECK(rt_rma_get(w, &v, 16, 0, 56, &err) != 0);
    CHECK_MSG(strstr(err.msg, "outside"), "%s", err.msg);
    CHECK(rt_rma_put(w, &v, 8, -1, 0, &err) != 0);
    CHECK(rt_rma_fetch_add(w, 0, 4, 1, NULL, &err) != 0);
    CHECK_MSG(strstr(err.msg, "aligned"), "%s", err.msg);
    CHECK(rt_rma_atomic_load(w, 0, 64, &v, &err) != 0);
    CHECK(rt_rma_accumulate(w, &v, 1, RT_RMA_I64, 0, 60, &err) != 0);
    CHECK(rt_rma_flush(w, P + 3, &err) != 0);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    rt_rma_win_free(w);

    /* One rank cannot create its part: every rank fails, and the message names that rank. */
    w = NULL;
    rt_err_clear(&err);
    const size_t bytes = rt_mpi_rank == P - 1 ? SIZE_MAX : 64;
    CHECK(rt_rma_win_create(c, RT_COMM_WORLD, bytes, "too big", &w, &err) != 0);
    CHECK(w == NULL);
    char want[32];
    snprintf(want, sizeof want, "rank %d", P - 1);
    CHECK_MSG(strstr(err.msg, want) != NULL, "%s", err.msg);
}

/* A window over one level's groups: ranks and world ranks of the group, and each group's memory
 * its own (everyone adds 1 to its group's rank 0: the count is the group's size, not more). */
static void test_level(rt_comm *c, rt_comm_level level)
{
    rt_err err;
    rt_rma_win *w = NULL;
    CHECK(rt_rma_win_create(c, level, 8, "level", &w, &err) == 0);
    if (!w)
        return;
    const int n = rt_comm_size(c, level);
    CHECK(rt_rma_size(w) == n && rt_rma_rank(w) == rt_comm_rank(c, level));
    CHECK(rt_rma_world_rank(w, rt_rma_rank(w)) == rt_mpi_rank);
    for (int r = 0; level == RT_COMM_NODE && r < n; ++r)
        CHECK(rt_comm_node_of(c, rt_rma_world_rank(w, r)) == rt_comm_node_id(c));
    CHECK(rt_rma_fetch_add(w, 0, 0, 1, NULL, &err) == 0);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    int64_t v = 0;
    CHECK(rt_rma_atomic_load(w, 0, 0, &v, &err) == 0);
    CHECK_MSG(v == n, "level %d: counter %lld, group of %d", (int)level, (long long)v, n);
    CHECK(rt_rma_get(w, &v, 8, n, 0, &err) != 0); /* outside the group */
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    rt_rma_win_free(w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rt_mpi_rank);
    const rt_comm_opts opts = {argc > 1 ? atoi(argv[1]) : 0, argc > 2 ? atoi(argv[2]) : 0};
    rt_comm *c = NULL;
    rt_err err;
    if (rt_comm_create(&opts, &c, &err) != 0) {
        fprintf(stderr, "[rank %d] %s\n", rt_mpi_rank, err.msg);
        MPI_Finalize();
        return 1;
    }
    test_create_get_put(c);
    test_fetch_add(c);
    test_counters(c);
    test_errors(c);
    test_level(c, RT_COMM_NODE);
    test_level(c, RT_COMM_SOCKET);
    test_level(c, RT_COMM_PEERS);
    int all = 0;
    MPI_Allreduce(&rt_mpi_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    rt_comm_free(c);
    MPI_Finalize();
    if (rt_mpi_rank == 0)
        printf("rma: %s (%d failed checks over all ranks)\n", all ? "FAILED" : "ok", all);
    return all ? 1 : 0;
}
