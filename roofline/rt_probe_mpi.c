/* rt_probe_mpi: the MPI half of `rooftune probe` (declared in rt_probe.h): per-tier ping-pong
 * latency and streaming bandwidth between rank 0 and one partner per tier, host buffers. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_machine.h"
#include "rt_probe_mpi.h"

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
    int rc = MPI_Ibarrier(rt_comm_mpi((rt_comm *)comm_ptr, RT_COMM_WORLD), &req);
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

/* One repetition of a measurement between two ranks: 0, or -1 with err filled (an MPI failure). */
typedef int (*rep_fn)(void *pair, rt_err *err);

/* The shortest time of reps repetitions; one more before them warms the path up. */
static int best_rep(rep_fn rep, void *pair, int reps, double *best_s, rt_err *err)
{
    double best = INFINITY;
    for (int r = 0; r <= reps; ++r) {
        const double t0 = MPI_Wtime();
        if (rep(pair, err) != 0)
            return -1;
        const double t = MPI_Wtime() - t0;
        if (r > 0 && t < best)
            best = t;
    }
    *best_s = best;
    return 0;
}

/* Two ranks measuring between host buffers. */
typedef struct {
    MPI_Comm c;
    int peer;
    int first; /* starts the ping-pong, sends the stream */
    int iters;
    size_t msg;
    int window;
    char *buf;        /* the sender's one message, or the receiver's window of them */
    MPI_Request *req; /* window */
} host_pair;

typedef struct dev_side dev_side;
static int pingpong_trips(MPI_Comm c, int peer, int first, int iters, int tag, char *buf,
                          dev_side *dev, const char *what, rt_err *err);

/* iters round trips of 8 bytes. */
static int host_trips(void *pair, rt_err *err)
{
    const host_pair *h = pair;
    char buf[8] = {0};
    return pingpong_trips(h->c, h->peer, h->first, h->iters, TAG_PING, buf, NULL, "ping-pong", err);
}

/* window messages in flight from the sender, then one acknowledgement back. The receiver gives
 * every pending receive its own buffer (MPI forbids concurrent receives into one buffer); the
 * sender may share one send buffer. */
static int host_window(void *pair, rt_err *err)
{
    const host_pair *h = pair;
    const int sender = h->first;
    int rc = MPI_SUCCESS;
    const char *what = "";
    char ack = 0;
    for (int w = 0; w < h->window && rc == MPI_SUCCESS; ++w) {
        what = sender ? "MPI_Isend" : "MPI_Irecv";
        rc = sender ? MPI_Isend(h->buf, (int)h->msg, MPI_BYTE, h->peer, TAG_DATA, h->c, &h->req[w])
                    : MPI_Irecv(h->buf + (size_t)w * h->msg, (int)h->msg, MPI_BYTE, h->peer,
                                TAG_DATA, h->c, &h->req[w]);
    }
    if (rc == MPI_SUCCESS) {
        what = "MPI_Waitall";
        rc = MPI_Waitall(h->window, h->req, MPI_STATUSES_IGNORE);
    }
    if (rc == MPI_SUCCESS) {
        what = "acknowledgement";
        rc = sender ? MPI_Recv(&ack, 1, MPI_BYTE, h->peer, TAG_ACK, h->c, MPI_STATUS_IGNORE)
                    : MPI_Send(&ack, 1, MPI_BYTE, h->peer, TAG_ACK, h->c);
    }
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, what, err);
}

/* Latency: best (lowest) of reps batches of iters round trips, as half the round-trip time.
 * Bandwidth: bytes / time until the acknowledgement of a window. */
static int host_measure(MPI_Comm c, int peer, int first, size_t msg, int window, int iters,
                        int reps, double *lat_s, double *gbs, rt_err *err)
{
    host_pair h = {c, peer, first, iters, msg, window, NULL, NULL};
    double best = 0;
    if (best_rep(host_trips, &h, reps, &best, err) != 0)
        return -1;
    *lat_s = best / (2.0 * iters);
    const size_t total = first ? msg : msg * (size_t)window;
    h.buf = malloc(total);
    h.req = malloc(sizeof *h.req * (size_t)window);
    if (!h.buf || !h.req) {
        free(h.buf);
        free(h.req);
        return rt_err_set(err,
                          "probe: cannot allocate %zu bytes of MPI buffers (lower "
                          "--message-bytes or --window)",
                          total);
    }
    memset(h.buf, 1, total);
    const int rc = best_rep(host_window, &h, reps, &best, err);
    free(h.buf);
    free(h.req);
    if (rc != 0)
        return -1;
    *gbs = (double)msg * window / best / 1e9;
    return 0;
}

/* What both MPI probes measure: message size, window, round trips and repetitions (the options,
 * or defaults by --quick), and one partner of rank 0 per tier (-1: none), which every rank learns.
 * A message must hold min_msg bytes (the device probe's ping-pong copies 8). */
typedef struct {
    size_t msg;
    int window, iters, reps;
    int partner[RT_TIER_COUNT];
} probe_plan;

static int plan(const rt_probe_opts *opt, rt_comm *comm, size_t min_msg, probe_plan *pl,
                rt_err *err)
{
    pl->msg = opt->mpi_message_bytes ? opt->mpi_message_bytes
              : opt->quick           ? (size_t)64 << 10
                                     : (size_t)4 << 20;
    pl->window = opt->mpi_window > 0 ? opt->mpi_window : opt->quick ? 8 : 16;
    pl->iters = opt->mpi_iterations > 0 ? opt->mpi_iterations : opt->quick ? 50 : 1000;
    pl->reps = opt->repetitions > 0 ? opt->repetitions : opt->quick ? 3 : 10;
    if (pl->msg > (size_t)1 << 30)
        return rt_err_set(err, "probe: message size %zu bytes is over the 1 GiB limit", pl->msg);
    if (pl->msg < min_msg)
        return rt_err_set(err, "probe: message size %zu bytes is under %zu bytes", pl->msg,
                          min_msg);
    if (opt->mpi_window < 0 || opt->mpi_iterations < 0)
        return rt_err_set(err, "probe: window and iterations must be >= 0 (0 = default)");
    /* Rank 0 picks, for each tier, the lowest rank at that distance from it; everyone learns the
     * pairs so the ranks outside a pair know to wait. */
    const int me = rt_comm_world_rank(comm), size = rt_comm_world_size(comm);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        pl->partner[t] = -1;
    if (me == 0)
        for (int r = 1; r < size; ++r) {
            const int t = rt_comm_tier_of(comm, r);
            if (t >= 0 && t < RT_TIER_COUNT && pl->partner[t] < 0)
                pl->partner[t] = r;
        }
    const int rc =
        MPI_Bcast(pl->partner, RT_TIER_COUNT, MPI_INT, 0, rt_comm_mpi(comm, RT_COMM_WORLD));
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, "MPI_Bcast", err);
}

int rt_probe_mpi(const rt_probe_opts *opt, void *comm_ptr, rt_probe_net_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    rt_comm *comm = comm_ptr;
    if (!comm)
        return rt_err_set(err, "probe: the MPI probe needs a communicator");
    probe_plan pl;
    if (plan(opt, comm, 0, &pl, err) != 0)
        return -1;
    const size_t msg = pl.msg;
    const int window = pl.window, iters = pl.iters, reps = pl.reps;
    const int *partner = pl.partner;
    res->message_bytes = msg;
    const MPI_Comm world = rt_comm_mpi(comm, RT_COMM_WORLD);
    const int me = rt_comm_world_rank(comm);
    int rc;

    double out[2 * RT_TIER_COUNT] = {0};
    int local_ok = 1;
    char local_msg[RT_ERR_MSG_MAX] = "";
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        if (partner[t] < 0)
            continue;
        res->have[t] = 1;
        res->partner[t] = partner[t];
        if (me == 0 && opt->log) {
            fprintf(opt->log,
                    "probe: MPI %s tier, ranks 0 and %d: ping-pong, then %zu-byte messages "
                    "x %d in flight\n",
                    rt_machine_tier_name((rt_net_tier)t), partner[t], msg, window);
            fflush(opt->log);
        }
        if (local_ok && (me == 0 || me == partner[t])) {
            const int peer = me == 0 ? partner[t] : 0;
            double lat = 0, gbs = 0;
            rt_err local;
            rt_err_clear(&local);
            if (host_measure(world, peer, me == 0, msg, window, iters, reps, &lat, &gbs, &local) !=
                0) {
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

/* ---- MPI between device buffers ------------------------------------------------------------ */

enum { TAG_DEV_PING = 81, TAG_DEV_DATA = 82, TAG_DEV_ACK = 83, TAG_DEV_SETUP = 84 };

/* One rank's side of a device-buffer pair. A failing device operation does not end the rank's
 * part of the message pattern: it only stops doing device work (first error kept in msg), so the
 * partner is never left waiting in a receive. MPI errors end it at once (as in the host probe). */
struct dev_side {
    const rt_probe_devbuf_ops *ops;
    void *state;
    MPI_Comm c;
    int peer;
    int first; /* rank 0 of the pair: starts the ping-pong, sends the stream */
    size_t msg;
    int window;
    void *dev;        /* msg bytes */
    void *pinned;     /* window * msg bytes: one slot per message in flight */
    void *peer_map;   /* the partner's dev buffer through IPC, or NULL */
    int iters;        /* round trips per ping-pong repetition */
    MPI_Request *req; /* window, during a staged stream */
    int ok;
    char why[RT_ERR_MSG_MAX];
};

static void dev_note(dev_side *s, const rt_err *e)
{
    if (s->ok) {
        s->ok = 0;
        snprintf(s->why, sizeof s->why, "%s", e->msg);
    }
}

#define DEV_OP(s, call)                                                                            \
    do {                                                                                           \
        if ((s)->ok) {                                                                             \
            rt_err e_;                                                                             \
            rt_err_clear(&e_);                                                                     \
            if ((call) != 0)                                                                       \
                dev_note((s), &e_);                                                                \
        }                                                                                          \
    } while (0)
#define DEV_E (&e_)

/* iters round trips of 8 bytes in buf between the pair (the first sends first). With dev, each
 * trip is staged through the device buffer: D2H before a send, H2D after a receive. */
static int pingpong_trips(MPI_Comm c, int peer, int first, int iters, int tag, char *buf,
                          dev_side *dev, const char *what, rt_err *err)
{
    dev_side *s = dev;
    for (int i = 0; i < iters; ++i) {
        int rc = MPI_SUCCESS;
        if (first) {
            if (s)
                DEV_OP(s, s->ops->to_host(s->state, buf, s->dev, 8, DEV_E));
            rc = MPI_Send(buf, 8, MPI_BYTE, peer, tag, c);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(buf, 8, MPI_BYTE, peer, tag, c, MPI_STATUS_IGNORE);
            if (s)
                DEV_OP(s, s->ops->to_device(s->state, s->dev, buf, 8, DEV_E));
        } else {
            rc = MPI_Recv(buf, 8, MPI_BYTE, peer, tag, c, MPI_STATUS_IGNORE);
            if (s) {
                DEV_OP(s, s->ops->to_device(s->state, s->dev, buf, 8, DEV_E));
                DEV_OP(s, s->ops->to_host(s->state, buf, s->dev, 8, DEV_E));
            }
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(buf, 8, MPI_BYTE, peer, tag, c);
        }
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, what, err);
    }
    return 0;
}

/* Staged ping-pong: each one-way trip is D2H (8 bytes), MPI, H2D; iters round trips. */
static int staged_trips(void *pair, rt_err *err)
{
    dev_side *s = pair;
    return pingpong_trips(s->c, s->peer, s->first, s->iters, TAG_DEV_PING, s->pinned, s,
                          "device-buffer ping-pong", err);
}

/* Staged stream: the sender copies each message D2H into its own pinned slot and sends it at once
 * (the copy of the next overlaps the send of this one); the receiver copies each message H2D as
 * it lands; then the receiver's acknowledgement. */
static int staged_window(void *pair, rt_err *err)
{
    dev_side *s = pair;
    char *pin = s->pinned;
    MPI_Request *req = s->req;
    int rc = MPI_SUCCESS;
    const char *what = "";
    char ack = 0;
    if (s->first) {
        for (int w = 0; w < s->window && rc == MPI_SUCCESS; ++w) {
            char *slot = pin + (size_t)w * s->msg;
            DEV_OP(s, s->ops->to_host(s->state, slot, s->dev, s->msg, DEV_E));
            what = "MPI_Isend (staged)";
            rc = MPI_Isend(slot, (int)s->msg, MPI_BYTE, s->peer, TAG_DEV_DATA, s->c, &req[w]);
        }
        if (rc == MPI_SUCCESS) {
            what = "MPI_Waitall (staged)";
            rc = MPI_Waitall(s->window, req, MPI_STATUSES_IGNORE);
        }
        if (rc == MPI_SUCCESS) {
            what = "acknowledgement (staged)";
            rc = MPI_Recv(&ack, 1, MPI_BYTE, s->peer, TAG_DEV_ACK, s->c, MPI_STATUS_IGNORE);
        }
    } else {
        for (int w = 0; w < s->window && rc == MPI_SUCCESS; ++w) {
            what = "MPI_Irecv (staged)";
            rc = MPI_Irecv(pin + (size_t)w * s->msg, (int)s->msg, MPI_BYTE, s->peer, TAG_DEV_DATA,
                           s->c, &req[w]);
        }
        for (int w = 0; w < s->window && rc == MPI_SUCCESS; ++w) {
            what = "MPI_Wait (staged)";
            rc = MPI_Wait(&req[w], MPI_STATUS_IGNORE);
            DEV_OP(s, s->ops->to_device(s->state, s->dev, pin + (size_t)w * s->msg, s->msg, DEV_E));
        }
        if (rc == MPI_SUCCESS) {
            what = "acknowledgement (staged)";
            rc = MPI_Send(&ack, 1, MPI_BYTE, s->peer, TAG_DEV_ACK, s->c);
        }
    }
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, what, err);
}

/* Latency (half the best round trip) and bandwidth (bytes / time until the acknowledgement) of
 * the staged path. */
static int staged_measure(dev_side *s, int reps, double *lat_s, double *gbs, rt_err *err)
{
    double best = 0;
    if (best_rep(staged_trips, s, reps, &best, err) != 0)
        return -1;
    *lat_s = best / (2.0 * s->iters);
    s->req = malloc(sizeof *s->req * (size_t)s->window);
    if (!s->req)
        return rt_err_set(err, "probe: out of memory for %d MPI requests", s->window);
    const int rc = best_rep(staged_window, s, reps, &best, err);
    free(s->req);
    s->req = NULL;
    if (rc != 0)
        return -1;
    *gbs = (double)s->msg * s->window / best / 1e9;
    return 0;
}

/* IPC ping-pong: 8 bytes copied into the partner's buffer, then a 1-byte MPI token tells it so;
 * the partner answers the same way; iters round trips. */
static int ipc_trips(void *pair, rt_err *err)
{
    dev_side *s = pair;
    char token = 0;
    for (int i = 0; i < s->iters; ++i) {
        int rc = MPI_SUCCESS;
        if (!s->first)
            rc = MPI_Recv(&token, 1, MPI_BYTE, s->peer, TAG_DEV_PING, s->c, MPI_STATUS_IGNORE);
        DEV_OP(s, s->ops->device_copy(s->state, s->peer_map, s->dev, 8, DEV_E));
        if (rc == MPI_SUCCESS)
            rc = MPI_Send(&token, 1, MPI_BYTE, s->peer, TAG_DEV_PING, s->c);
        if (s->first && rc == MPI_SUCCESS)
            rc = MPI_Recv(&token, 1, MPI_BYTE, s->peer, TAG_DEV_PING, s->c, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "IPC ping-pong", err);
    }
    return 0;
}

/* IPC stream: window copies of msg bytes into the partner's buffer, then the token, then the
 * partner's acknowledgement. */
static int ipc_window(void *pair, rt_err *err)
{
    dev_side *s = pair;
    char token = 0;
    int rc = MPI_SUCCESS;
    if (s->first) {
        for (int w = 0; w < s->window; ++w)
            DEV_OP(s, s->ops->device_copy(s->state, s->peer_map, s->dev, s->msg, DEV_E));
        rc = MPI_Send(&token, 1, MPI_BYTE, s->peer, TAG_DEV_DATA, s->c);
        if (rc == MPI_SUCCESS)
            rc = MPI_Recv(&token, 1, MPI_BYTE, s->peer, TAG_DEV_ACK, s->c, MPI_STATUS_IGNORE);
    } else {
        rc = MPI_Recv(&token, 1, MPI_BYTE, s->peer, TAG_DEV_DATA, s->c, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Send(&token, 1, MPI_BYTE, s->peer, TAG_DEV_ACK, s->c);
    }
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, "IPC stream", err);
}

/* Latency and bandwidth of the IPC path, as staged_measure. */
static int ipc_measure(dev_side *s, int reps, double *lat_s, double *gbs, rt_err *err)
{
    double best = 0;
    if (best_rep(ipc_trips, s, reps, &best, err) != 0)
        return -1;
    *lat_s = best / (2.0 * s->iters);
    if (best_rep(ipc_window, s, reps, &best, err) != 0)
        return -1;
    *gbs = (double)s->msg * s->window / best / 1e9;
    return 0;
}

/* What the two ranks of a pair tell each other before IPC: can I map your buffer? */
typedef struct ipc_offer {
    int ok; /* 1: handle valid */
    unsigned char handle[RT_PROBE_IPC_HANDLE_BYTES];
    char host[MPI_MAX_PROCESSOR_NAME];
    char why[RT_ERR_MSG_MAX];
} ipc_offer;

typedef struct ipc_answer {
    int ok; /* 1: opened */
    char why[RT_ERR_MSG_MAX];
} ipc_answer;

/* Exchanges handles and maps the partner's buffer. *usable: both sides mapped (then measure);
 * else why_out says why not (a soft outcome). */
static int ipc_connect(dev_side *s, int *usable, char *why_out, size_t why_len, rt_err *err)
{
    ipc_offer mine, theirs;
    memset(&mine, 0, sizeof mine);
    int len = 0;
    if (MPI_Get_processor_name(mine.host, &len) != MPI_SUCCESS)
        snprintf(mine.host, sizeof mine.host, "?");
    if (s->ok) {
        rt_err e;
        rt_err_clear(&e);
        mine.ok = s->ops->ipc_export(s->state, s->dev, mine.handle, &e) == 0;
        if (!mine.ok)
            snprintf(mine.why, sizeof mine.why, "export: %s", e.msg);
    } else {
        snprintf(mine.why, sizeof mine.why, "no buffer to export");
    }
    int rc =
        MPI_Sendrecv(&mine, (int)sizeof mine, MPI_BYTE, s->peer, TAG_DEV_SETUP, &theirs,
                     (int)sizeof theirs, MPI_BYTE, s->peer, TAG_DEV_SETUP, s->c, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "IPC handle exchange", err);
    theirs.host[sizeof theirs.host - 1] = '\0';
    theirs.why[sizeof theirs.why - 1] = '\0';
    ipc_answer ans = {0, ""}, back;
    if (strcmp(mine.host, theirs.host) != 0) {
        /* Emulated node tiers may put a pair on two hosts: CUDA IPC needs one. */
        snprintf(ans.why, sizeof ans.why, "the ranks run on different hosts (%s, %s)", mine.host,
                 theirs.host);
    } else if (!theirs.ok) {
        snprintf(ans.why, sizeof ans.why, "rank %d: %s", s->peer, theirs.why);
    } else if (!mine.ok) {
        snprintf(ans.why, sizeof ans.why, "%s", mine.why);
    } else {
        /* The handle came from the partner process: this process never opens its own. */
        rt_err e;
        rt_err_clear(&e);
        ans.ok = s->ops->ipc_open(s->state, theirs.handle, &s->peer_map, &e) == 0;
        if (!ans.ok) {
            s->peer_map = NULL;
            snprintf(ans.why, sizeof ans.why, "open: %s", e.msg);
        }
    }
    rc = MPI_Sendrecv(&ans, (int)sizeof ans, MPI_BYTE, s->peer, TAG_DEV_SETUP, &back,
                      (int)sizeof back, MPI_BYTE, s->peer, TAG_DEV_SETUP, s->c, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "IPC answer exchange", err);
    back.why[sizeof back.why - 1] = '\0';
    *usable = ans.ok && back.ok;
    if (!ans.ok)
        snprintf(why_out, why_len, "%s", ans.why);
    else if (!back.ok)
        snprintf(why_out, why_len, "rank %d: %s", s->peer, back.why);
    return 0;
}

static void dev_side_free(dev_side *s)
{
    rt_err e;
    rt_err_clear(&e);
    if (s->peer_map && s->ops->ipc_close(s->state, s->peer_map, &e) != 0)
        dev_note(s, &e);
    if (s->dev && s->ops->dev_free(s->state, s->dev, &e) != 0)
        dev_note(s, &e);
    if (s->pinned && s->ops->pinned_free(s->state, s->pinned, &e) != 0)
        dev_note(s, &e);
    s->peer_map = s->dev = s->pinned = NULL;
}

static int ops_complete(const rt_probe_devbuf_ops *o)
{
    return o && o->dev_alloc && o->dev_free && o->pinned_alloc && o->pinned_free && o->to_host &&
           o->to_device && o->device_copy && o->ipc_export && o->ipc_open && o->ipc_close;
}

/* Agreement after each phase: the first failed rank's message, with the rank named. */
static int agree(rt_comm *comm, int ok, const char *msg, const char *phase, rt_err *err)
{
    int all_ok = 0, failed = -1;
    char text[RT_ERR_MSG_MAX];
    if (rt_comm_all_ok_msg(comm, ok, msg, &all_ok, &failed, text, sizeof text) != 0)
        return rt_err_set(err, "probe: failure agreement failed: %s", rt_comm_last_error(comm));
    if (!all_ok)
        return rt_err_set(err, "probe: device-buffer MPI (%s) failed on rank %d: %s", phase, failed,
                          text);
    return 0;
}

int rt_probe_mpi_device(const rt_probe_opts *opt, void *comm_ptr, rt_probe_devnet_result *res,
                        rt_err *err)
{
    memset(res, 0, sizeof *res);
    rt_comm *comm = comm_ptr;
    if (!comm)
        return rt_err_set(err, "probe: the device-buffer MPI probe needs a communicator");
    const int me = rt_comm_world_rank(comm), size = rt_comm_world_size(comm);
    if (size < 2) {
        snprintf(res->skipped, sizeof res->skipped, "one rank: no pair to measure");
        return 0;
    }
    int all_have = 0, lacking = -1;
    if (rt_comm_all_ok(comm, ops_complete(opt->devbuf), &all_have, &lacking) != 0)
        return rt_err_set(err, "probe: %s", rt_comm_last_error(comm));
    if (!all_have) {
        snprintf(res->skipped, sizeof res->skipped, "rank %d has no GPU backend", lacking);
        return 0;
    }
    probe_plan pl;
    if (plan(opt, comm, 8, &pl, err) != 0)
        return -1;
    res->message_bytes = pl.msg;
    const MPI_Comm world = rt_comm_mpi(comm, RT_COMM_WORLD);

    /* Per tier: staged latency, staged GB/s, IPC latency, IPC GB/s (0: not measured). */
    double out[4 * RT_TIER_COUNT] = {0};
    int rc;
    char skipped[RT_ERR_MSG_MAX] = "";
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        if (pl.partner[t] < 0)
            continue;
        res->partner[t] = pl.partner[t];
        const int in_pair = me == 0 || me == pl.partner[t];
        dev_side s;
        memset(&s, 0, sizeof s);
        s.ops = opt->devbuf;
        s.state = opt->gpu_state;
        s.c = world;
        s.peer = me == 0 ? pl.partner[t] : 0;
        s.first = me == 0;
        s.msg = pl.msg;
        s.window = pl.window;
        s.iters = pl.iters;
        s.ok = 1;
        if (in_pair) {
            DEV_OP(&s, s.ops->dev_alloc(s.state, pl.msg, &s.dev, DEV_E));
            DEV_OP(&s, s.ops->pinned_alloc(s.state, pl.msg * (size_t)pl.window, &s.pinned, DEV_E));
            if (s.ok)
                memset(s.pinned, 1, pl.msg * (size_t)pl.window);
            DEV_OP(&s, s.ops->to_device(s.state, s.dev, s.pinned, pl.msg, DEV_E));
        }
        char where[RT_ERR_MSG_MAX];
        snprintf(where, sizeof where, "%s tier, ranks 0 and %d, setup",
                 rt_machine_tier_name((rt_net_tier)t), pl.partner[t]);
        if (agree(comm, s.ok, s.why, where, err) != 0) {
            dev_side_free(&s);
            return -1;
        }
        int mpi_ok = 1;
        rt_err local;
        rt_err_clear(&local);
        double lat = 0, gbs = 0;
        if (in_pair) {
            mpi_ok = staged_measure(&s, pl.reps, &lat, &gbs, &local) == 0;
            if (me == 0 && mpi_ok && s.ok) {
                out[4 * t] = lat * 1e6;
                out[4 * t + 1] = gbs;
            }
        }
        snprintf(where, sizeof where, "%s tier, ranks 0 and %d, staged",
                 rt_machine_tier_name((rt_net_tier)t), pl.partner[t]);
        if (agree(comm, mpi_ok && s.ok, mpi_ok ? s.why : local.msg, where, err) != 0) {
            dev_side_free(&s);
            return -1;
        }
        /* CUDA IPC: only between processes of one node. */
        if (t != RT_TIER_GLOBAL) {
            if (in_pair) {
                int usable = 0;
                char why[RT_ERR_MSG_MAX] = "";
                mpi_ok = ipc_connect(&s, &usable, why, sizeof why, &local) == 0;
                if (mpi_ok && usable)
                    mpi_ok = ipc_measure(&s, pl.reps, &lat, &gbs, &local) == 0;
                if (me == 0 && mpi_ok && s.ok && usable) {
                    out[4 * t + 2] = lat * 1e6;
                    out[4 * t + 3] = gbs;
                }
                if (me == 0 && mpi_ok && !usable && !skipped[0])
                    snprintf(skipped, sizeof skipped, "ipc not measured on the %s tier: %s",
                             rt_machine_tier_name((rt_net_tier)t), why);
            }
            snprintf(where, sizeof where, "%s tier, ranks 0 and %d, ipc",
                     rt_machine_tier_name((rt_net_tier)t), pl.partner[t]);
            if (agree(comm, mpi_ok && s.ok, mpi_ok ? s.why : local.msg, where, err) != 0) {
                dev_side_free(&s);
                return -1;
            }
        }
        dev_side_free(&s);
        snprintf(where, sizeof where, "%s tier, ranks 0 and %d, release",
                 rt_machine_tier_name((rt_net_tier)t), pl.partner[t]);
        if (agree(comm, s.ok, s.why, where, err) != 0)
            return -1;
        /* Pairs run one at a time, so no two measurements share the links. */
        if (rt_probe_idle_barrier(comm, err) != 0)
            return -1;
    }
    rc = MPI_Bcast(out, 4 * RT_TIER_COUNT, MPI_DOUBLE, 0, world);
    if (rc == MPI_SUCCESS)
        rc = MPI_Bcast(skipped, (int)sizeof skipped, MPI_CHAR, 0, world);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Bcast", err);
    res->measured = 1;
    snprintf(res->skipped, sizeof res->skipped, "%s", skipped);
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        res->staged_latency_us[t] = out[4 * t];
        res->staged_gbs[t] = out[4 * t + 1];
        res->have_staged[t] = out[4 * t + 1] > 0;
        res->ipc_latency_us[t] = out[4 * t + 2];
        res->ipc_gbs[t] = out[4 * t + 3];
        res->have_ipc[t] = out[4 * t + 3] > 0;
    }
    return 0;
}
