/* rt_probe_mpi: the MPI half of `rooftune probe` (declared in rt_probe.h): per-tier ping-pong
 * latency and streaming bandwidth between rank 0 and one partner per tier, host buffers. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_machine.h"
#include "rt_probe.h"

enum { TAG_PING = 71, TAG_DATA = 72, TAG_ACK = 73 };

static int mpi_fail(int rc, const char *what, rt_err *err)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    return rt_err_set(err, "probe: %s failed: %s", what, text);
}

int rt_probe_idle_barrier(void *comm_ptr, rt_err *err)
{
    MPI_Request req;
    int rc = MPI_Ibarrier(rt_comm_mpi((const rt_comm *)comm_ptr, RT_COMM_WORLD), &req);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Ibarrier", err);
    const struct timespec nap = {0, 1000000};
    for (;;) {
        int done = 0;
        rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "MPI_Test (barrier)", err);
        if (done)
            return 0;
        nanosleep(&nap, NULL);
    }
}

/* Round trips of 8 bytes; best (lowest) of reps batches, as half the round-trip time. */
static int pingpong(MPI_Comm c, int peer, int first, int iters, int reps, double *lat_s,
                    rt_err *err)
{
    char buf[8] = {0};
    double best = INFINITY;
    for (int r = 0; r <= reps; ++r) {
        const double t0 = MPI_Wtime();
        for (int i = 0; i < iters; ++i) {
            int rc;
            if (first) {
                rc = MPI_Send(buf, 8, MPI_BYTE, peer, TAG_PING, c);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Recv(buf, 8, MPI_BYTE, peer, TAG_PING, c, MPI_STATUS_IGNORE);
            } else {
                rc = MPI_Recv(buf, 8, MPI_BYTE, peer, TAG_PING, c, MPI_STATUS_IGNORE);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Send(buf, 8, MPI_BYTE, peer, TAG_PING, c);
            }
            if (rc != MPI_SUCCESS)
                return mpi_fail(rc, "ping-pong", err);
        }
        const double t = (MPI_Wtime() - t0) / (2.0 * iters);
        if (r > 0 && t < best) /* batch 0 warms the path up */
            best = t;
    }
    *lat_s = best;
    return 0;
}

/* window messages in flight from the sender, then one acknowledgement back; bandwidth = bytes /
 * time until the acknowledgement. The receiver gives every pending receive its own buffer (MPI
 * forbids concurrent receives into one buffer); the sender may share one send buffer. */
static int stream_bw(MPI_Comm c, int peer, int sender, size_t msg, int window, int reps,
                     double *gbs, rt_err *err)
{
    const size_t total = sender ? msg : msg * (size_t)window;
    char *buf = malloc(total);
    MPI_Request *req = malloc(sizeof *req * (size_t)window);
    if (!buf || !req) {
        free(buf);
        free(req);
        return rt_err_set(err,
                          "probe: cannot allocate %zu bytes of MPI buffers (lower "
                          "--message-bytes or --window)",
                          total);
    }
    memset(buf, 1, total);
    double best = INFINITY;
    int rc = MPI_SUCCESS;
    const char *what = "";
    for (int r = 0; r <= reps && rc == MPI_SUCCESS; ++r) {
        char ack = 0;
        const double t0 = MPI_Wtime();
        for (int w = 0; w < window && rc == MPI_SUCCESS; ++w) {
            what = sender ? "MPI_Isend" : "MPI_Irecv";
            rc = sender ? MPI_Isend(buf, (int)msg, MPI_BYTE, peer, TAG_DATA, c, &req[w])
                        : MPI_Irecv(buf + (size_t)w * msg, (int)msg, MPI_BYTE, peer, TAG_DATA, c,
                                    &req[w]);
        }
        if (rc == MPI_SUCCESS) {
            what = "MPI_Waitall";
            rc = MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        }
        if (rc == MPI_SUCCESS) {
            what = "acknowledgement";
            rc = sender ? MPI_Recv(&ack, 1, MPI_BYTE, peer, TAG_ACK, c, MPI_STATUS_IGNORE)
                        : MPI_Send(&ack, 1, MPI_BYTE, peer, TAG_ACK, c);
        }
        const double t = MPI_Wtime() - t0;
        if (r > 0 && t < best)
            best = t;
    }
    free(buf);
    free(req);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, what, err);
    *gbs = (double)msg * window / best / 1e9;
    return 0;
}

int rt_probe_mpi(const rt_probe_opts *opt, void *comm_ptr, rt_probe_net_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    rt_comm *comm = comm_ptr;
    if (!comm)
        return rt_err_set(err, "probe: the MPI probe needs a communicator");
    const size_t msg = opt->mpi_message_bytes ? opt->mpi_message_bytes
                       : opt->quick           ? (size_t)64 << 10
                                              : (size_t)4 << 20;
    const int window = opt->mpi_window > 0 ? opt->mpi_window : opt->quick ? 8 : 16;
    const int iters = opt->mpi_iterations > 0 ? opt->mpi_iterations : opt->quick ? 50 : 1000;
    const int reps = opt->repetitions > 0 ? opt->repetitions : opt->quick ? 3 : 10;
    if (msg > (size_t)1 << 30)
        return rt_err_set(err, "probe: message size %zu bytes is over the 1 GiB limit", msg);
    if (opt->mpi_window < 0 || opt->mpi_iterations < 0)
        return rt_err_set(err, "probe: window and iterations must be >= 0 (0 = default)");
    res->message_bytes = msg;

    const MPI_Comm world = rt_comm_mpi(comm, RT_COMM_WORLD);
    const int me = rt_comm_world_rank(comm), size = rt_comm_world_size(comm);
    /* Rank 0 picks, for each tier, the lowest rank at that distance from it; everyone learns the
     * pairs so the ranks outside a pair know to wait. */
    int partner[RT_TIER_COUNT] = {-1, -1, -1};
    if (me == 0)
        for (int r = 1; r < size; ++r) {
            const int t = rt_comm_tier_of(comm, r);
            if (t >= 0 && t < RT_TIER_COUNT && partner[t] < 0)
                partner[t] = r;
        }
    int rc = MPI_Bcast(partner, RT_TIER_COUNT, MPI_INT, 0, world);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Bcast", err);

    double out[2 * RT_TIER_COUNT] = {0};
    int local_ok = 1;
    char local_msg[RT_ERR_MSG_MAX] = "";
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        if (partner[t] < 0)
            continue;
        res->have[t] = 1;
        res->partner[t] = partner[t];
        if (local_ok && (me == 0 || me == partner[t])) {
            const int peer = me == 0 ? partner[t] : 0;
            double lat = 0, gbs = 0;
            rt_err local;
            rt_err_clear(&local);
            if (pingpong(world, peer, me == 0, iters, reps, &lat, &local) != 0 ||
                stream_bw(world, peer, me == 0, msg, window, reps, &gbs, &local) != 0) {
                local_ok = 0;
                snprintf(local_msg, sizeof local_msg, "%s (tier %s, ranks 0 and %d)", local.msg,
                         rt_machine_tier_name((rt_net_tier)t), partner[t]);
            } else if (me == 0) {
                out[2 * t] = lat * 1e6;
                out[2 * t + 1] = gbs;
            }
        }
        /* Pairs run one at a time, so no two measurements share the links. */
        if (rt_probe_idle_barrier(comm, err) != 0)
            return -1;
    }
    int all_ok = 0, failed = -1;
    char msg_out[RT_ERR_MSG_MAX];
    if (rt_comm_all_ok_msg(comm, local_ok, local_msg, &all_ok, &failed, msg_out, sizeof msg_out) !=
        0)
        return rt_err_set(err, "probe: failure agreement failed: %s", rt_comm_last_error(comm));
    if (!all_ok)
        return rt_err_set(err, "probe: MPI measurement failed on rank %d: %s", failed, msg_out);
    rc = MPI_Bcast(out, 2 * RT_TIER_COUNT, MPI_DOUBLE, 0, world);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Bcast", err);
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        res->latency_us[t] = out[2 * t];
        res->bandwidth_gbs[t] = out[2 * t + 1];
    }
    return 0;
}
