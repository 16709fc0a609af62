/* rt_wire, the messages of parallel tuning.
 *
 * test_wire sockets        (alone) a peer's closed socket is a failure while it is awaited, and
 *                          none once it is forgotten (a worker exits as soon as it answered BYE
 *                          while the coordinator still awaits the others' answers)
 * test_wire mpi DIR        (under mpirun -np 3, Open MPI's shared memory without its single-copy
 *                          mechanism) ranks 1 and 2 send messages of every size around the frame
 *                          (a measured point among them) and then stay out of MPI until rank 0
 *                          has taken them all whole and in order: a message that needed its
 *                          sender's help to arrive would leave both waiting (a sender gives up
 *                          after 60 s and says so); then frames that are not the wire's (too
 *                          short, too long, a length beyond 2 GiB) are errors naming the rank.
 * test_wire rendezvous     (under mpirun -np 2; a report, not a test) whether this MPI hands a
 *                          measured point's 69 KiB as one message to a receiver while its sender
 *                          stays out of MPI for 1 s, or only once the sender is back (the wait
 *                          the frames avoid): one line, for ci/gpu-tune-parallel.sh ranks. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_test.h"
#include "rt_wire.h"

#define CHECK     RT_CHECK
#define CHECK_MSG RT_CHECK_MSG

/* The wire's tag over MPI (rt_wire.c), for the frames that are not its own. */
#define WIRE_TAG 0x5254

static int test_sockets(void)
{
    int a[2], b[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, a) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, b) != 0)
        return 1;
    const int mine[2] = {a[0], b[0]};
    rt_wire *coord = NULL, *wa = NULL, *wb = NULL;
    rt_err err;
    CHECK(rt_wire_open_sockets(mine, 2, 1, &coord, &err) == 0);
    CHECK(rt_wire_open_sockets(&a[1], 1, 0, &wa, &err) == 0);
    CHECK(rt_wire_open_sockets(&b[1], 1, 0, &wb, &err) == 0);
    if (!coord || !wa || !wb)
        return 1;
    int peer = -1;
    void *data = NULL;
    size_t n = 0;
    /* Worker A's last word, then its exit (its socket closes). */
    CHECK(rt_wire_send(wa, 0, "stats A", 8, &err) == 0);
    rt_wire_close(wa);
    CHECK(rt_wire_recv(coord, 1, &peer, &data, &n, &err) == 1 && peer == 1 && n == 8 &&
          strcmp(data, "stats A") == 0);
    free(data);
    /* Not forgotten, its closed socket is a failure (a worker that died)... */
    CHECK(rt_wire_recv(coord, 1, &peer, &data, &n, &err) == -1 &&
          rt_test_contains(err.msg, "peer 1 closed the connection"));
    /* ...forgotten, it is not read any more: B's answer comes, however late. */
    rt_wire_forget(coord, 1);
    CHECK(rt_wire_recv(coord, 0, &peer, &data, &n, &err) == 0);
    CHECK(rt_wire_send(wb, 0, "stats B", 8, &err) == 0);
    CHECK(rt_wire_recv(coord, 1, &peer, &data, &n, &err) == 1 && peer == 2 &&
          strcmp(data, "stats B") == 0);
    free(data);
    CHECK(rt_wire_send(coord, 1, "bye", 4, &err) != 0 && rt_test_contains(err.msg, "last word"));
    rt_wire_forget(coord, 2);
    rt_wire_forget(coord, 2); /* twice: nothing more */
    rt_wire_forget(coord, 7); /* not a peer */
    CHECK(rt_wire_recv(coord, 0, &peer, &data, &n, &err) == 0);
    CHECK(rt_wire_recv(coord, 1, &peer, &data, &n, &err) == -1 &&
          rt_test_contains(err.msg, "no peer is left"));
    rt_wire_close(wb);
    rt_wire_close(coord);
    return rt_test_failures == 0 ? 0 : 1;
}

/* Byte i of message k of `sender`, so that a byte out of place or from another message shows. */
static unsigned char byte_of(int sender, int k, size_t i)
{
    return (unsigned char)(sender * 31 + k * 7 + i * 13 + (i >> 8));
}

static const size_t sizes[] = {0, 1, 2039, 2040, 2041, 2048, 4096, 7000, 69184, 5};
#define N_SIZES ((int)(sizeof sizes / sizeof sizes[0]))

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int test_mpi(const char *dir)
{
    MPI_Init(NULL, NULL);
    rt_err err;
    rt_comm *comm = NULL;
    if (rt_comm_create(NULL, &comm, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int rank = rt_comm_world_rank(comm), ranks = rt_comm_world_size(comm);
    char flag[4096];
    snprintf(flag, sizeof flag, "%s/all-taken", dir);
    if (rank == 0)
        unlink(flag);
    MPI_Barrier(MPI_COMM_WORLD);
    rt_wire *w = NULL;
    CHECK(rt_wire_open_mpi(comm, &w, &err) == 0);
    if (rank > 0) {
        for (int k = 0; k < N_SIZES; ++k) {
            unsigned char *m = malloc(sizes[k] + 1);
            for (size_t i = 0; i < sizes[k]; ++i)
                m[i] = byte_of(rank, k, i);
            CHECK(rt_wire_send(w, 0, m, sizes[k], &err) == 0);
            free(m);
        }
        /* Out of MPI until rank 0 has them all, as a worker measuring its next point. */
        const double t0 = now();
        while (access(flag, F_OK) != 0 && now() - t0 < 60.0) {
            const struct timespec nap = {0, 10 * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
        CHECK_MSG(access(flag, F_OK) == 0,
                  "rank %d: rank 0 did not take its messages in 60 s while it stayed out of MPI",
                  rank);
        CHECK(rt_wire_flush(w, &err) == 0);
    } else {
        int next[8] = {0};
        const int want = (ranks - 1) * N_SIZES;
        /* Half without waiting (frames taken as they come, a message whole or not at all),
         * half waiting. */
        for (int got = 0; got < want;) {
            int peer = -1;
            void *data = NULL;
            size_t n = 0;
            const int rc = rt_wire_recv(w, got >= want / 2, &peer, &data, &n, &err);
            if (rc < 0) {
                CHECK_MSG(0, "rank 0: %s", err.msg);
                break;
            }
            if (rc == 0)
                continue;
            const int k = peer > 0 && peer < 8 ? next[peer]++ : N_SIZES;
            CHECK_MSG(k < N_SIZES && n == sizes[k], "message %d of rank %d: %zu bytes", k, peer, n);
            int same = k < N_SIZES;
            for (size_t i = 0; same && i < n; ++i)
                same = ((unsigned char *)data)[i] == byte_of(peer, k, i);
            CHECK_MSG(same, "message %d of rank %d: other bytes", k, peer);
            free(data);
            ++got;
        }
        FILE *f = fopen(flag, "w");
        CHECK(f != NULL);
        if (f)
            fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Frames that are not the wire's: rank 1 sends them raw, rank 0 names it. */
    MPI_Comm world = rt_comm_mpi(comm, RT_COMM_WORLD); /* the wire's */
    if (rank == 1) {
        char frame[3000];
        memset(frame, 0, sizeof frame);
        MPI_Send(frame, 4, MPI_BYTE, 0, WIRE_TAG, world); /* no room for a length */
        MPI_Send(frame, 3000, MPI_BYTE, 0, WIRE_TAG, world);
        const uint64_t huge = (uint64_t)1 << 40;
        memcpy(frame, &huge, sizeof huge);
        MPI_Send(frame, 16, MPI_BYTE, 0, WIRE_TAG, world);
    } else if (rank == 0) {
        int peer;
        void *data = NULL;
        size_t n;
        CHECK(rt_wire_recv(w, 1, &peer, &data, &n, &err) == -1 &&
              rt_test_contains(err.msg, "rank 1 sent a frame of 4 bytes"));
        CHECK(rt_wire_recv(w, 1, &peer, &data, &n, &err) == -1 &&
              rt_test_contains(err.msg, "rank 1 sent a frame of 3000 bytes (at most 2048)"));
        char big[3000]; /* refused unread: taken here */
        MPI_Recv(big, 3000, MPI_BYTE, 1, WIRE_TAG, world, MPI_STATUS_IGNORE);
        CHECK(rt_wire_recv(w, 1, &peer, &data, &n, &err) == -1 &&
              rt_test_contains(err.msg, "rank 1 sent a message of 1099511627776 bytes"));
    }
    rt_wire_close(w);
    int total = 0;
    MPI_Allreduce(&rt_test_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    rt_comm_free(comm);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}

static int rendezvous(void)
{
    MPI_Init(NULL, NULL);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    enum { BYTES = 69184 }; /* a measured point on the wire */
    char *buf = calloc(BYTES, 1);
    double waited = 0.0;
    if (rank == 1) {
        MPI_Request req;
        MPI_Isend(buf, BYTES, MPI_BYTE, 0, WIRE_TAG, MPI_COMM_WORLD, &req);
        const struct timespec away = {1, 0};
        nanosleep(&away, NULL);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 0) {
        MPI_Status st;
        MPI_Probe(1, WIRE_TAG, MPI_COMM_WORLD, &st);
        const double t0 = now();
        MPI_Recv(buf, BYTES, MPI_BYTE, 1, WIRE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        waited = now() - t0;
        printf("MPI: one message of %d bytes, its sender out of MPI for 1 s: received in %.3f s "
               "(%s)\n",
               BYTES, waited, waited > 0.5 ? "it waited for its sender" : "without its sender");
    }
    free(buf);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "rendezvous") == 0)
        return rendezvous();
    if (argc == 2 && strcmp(argv[1], "sockets") == 0)
        return test_sockets();
    if (argc == 3 && strcmp(argv[1], "mpi") == 0)
        return test_mpi(argv[2]);
    fprintf(stderr, "usage: %s sockets | mpi DIR | rendezvous\n", argv[0]);
    return 2;
}
