#define _GNU_SOURCE /* SCM_RIGHTS, MSG_CMSG_CLOEXEC */
#include "rt_wire.h"

#include <errno.h>
#include <mpi.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "rt_comm.h"

/* The tag of every parallel-tuning message ("RT"): collectives never match a tag. */
#define WIRE_TAG 0x5254

/* Over MPI a message travels in frames of at most this many bytes, the first led by the
 * message's length (8 bytes). A message above the MPI library's eager limit (Open MPI's shared
 * memory: 4 KiB; a measured point is 69 KiB) waits at the receiver's MPI_Recv until the sender
 * enters MPI again when the transport cannot copy it alone (Open MPI's shared memory without its
 * single-copy mechanism, as in a container without ptrace rights), and a worker rank enters MPI
 * only between its points: the coordinator rank stood still while a worker measured, and every
 * worker with it once their queues ran dry (the ranks4 run of issue 35 on 4 x H200: all four
 * ranks started their next points together at 10.94 s, rank 0 idle since 9.83 s). Frames below
 * the eager limit arrive whole at the receiver without the sender's help. */
#define WIRE_FRAME 2048

/* A message sent over MPI: its frames' requests and the bytes they send. */
typedef struct pending_send {
    MPI_Request *req;
    int n_req;
    void *data;
} pending_send;

/* A message from one peer whose frames are still coming. */
typedef struct partial {
    char *buf;
    size_t len, got;
} partial;

struct rt_wire {
    int is_mpi;
    /* MPI */
    struct rt_comm *owner; /* its world communicator is taken at the first message */
    MPI_Comm comm;
    pending_send *pending;
    int n_pending, cap_pending;
    partial *parts; /* per world rank */
    int n_parts;
    /* sockets */
    int *fds;
    int n_fds, first_peer;
    int next_poll; /* where the next poll starts, so no peer is always served last */
    int got_fd;    /* the descriptor that came with the last message received, -1: none */
};

static int mpi_fail(rt_err *err, int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error code %d", rc);
    return rt_err_set(err, "%s failed: %s", what, text);
}

int rt_wire_open_mpi(struct rt_comm *comm, rt_wire **out, rt_err *err)
{
    rt_wire *w = calloc(1, sizeof *w);
    const int ranks = rt_comm_world_size(comm);
    partial *parts = calloc((size_t)(ranks > 0 ? ranks : 1), sizeof *parts);
    if (!w || !parts) {
        free(w);
        free(parts);
        return rt_err_set(err, "out of memory for the parallel tuning messages");
    }
    w->is_mpi = 1;
    w->got_fd = -1;
    w->owner = comm;
    w->comm = MPI_COMM_NULL;
    w->parts = parts;
    w->n_parts = ranks;
    *out = w;
    return 0;
}

/* The world communicator, at the first message: a job of one rank alone sends none, and so
 * starts no MPI (rt_comm.h). */
static int mpi_comm(rt_wire *w, rt_err *err)
{
    if (w->comm != MPI_COMM_NULL)
        return 0;
    if (rt_comm_start(w->owner, err) != 0)
        return rt_err_prefix(err, "parallel tuning messages");
    w->comm = rt_comm_mpi(w->owner, RT_COMM_WORLD);
    return 0;
}

int rt_wire_open_sockets(const int *fds, int n, int first_peer, rt_wire **out, rt_err *err)
{
    rt_wire *w = calloc(1, sizeof *w);
    int *copy = calloc((size_t)(n > 0 ? n : 1), sizeof *copy);
    if (!w || !copy) {
        free(w);
        free(copy);
        return rt_err_set(err, "out of memory for the parallel tuning messages");
    }
    memcpy(copy, fds, (size_t)n * sizeof *fds);
    w->fds = copy;
    w->n_fds = n;
    w->first_peer = first_peer;
    w->got_fd = -1;
    *out = w;
    return 0;
}

/* Completed MPI sends give their buffers back; wait_all waits for the others too. */
static int reap_sends(rt_wire *w, int wait_all, rt_err *err)
{
    int kept = 0;
    for (int i = 0; i < w->n_pending; ++i) {
        pending_send *ps = &w->pending[i];
        int done = 0;
        const int rc = wait_all ? MPI_Waitall(ps->n_req, ps->req, MPI_STATUSES_IGNORE)
                                : MPI_Testall(ps->n_req, ps->req, &done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "completing a parallel tuning message");
        if (wait_all || done) {
            free(ps->req);
            free(ps->data);
        } else {
            w->pending[kept++] = *ps;
        }
    }
    w->n_pending = kept;
    return 0;
}

static int mpi_send(rt_wire *w, int peer, const void *data, size_t n, rt_err *err)
{
    if (n > (size_t)INT32_MAX)
        return rt_err_set(err, "a parallel tuning message of %zu bytes is too long", n);
    if (mpi_comm(w, err) != 0 || reap_sends(w, 0, err) != 0)
        return -1;
    if (w->n_pending == w->cap_pending) {
        const int cap = w->cap_pending ? 2 * w->cap_pending : 8;
        pending_send *p = realloc(w->pending, (size_t)cap * sizeof *p);
        if (!p)
            return rt_err_set(err, "out of memory for the parallel tuning messages");
        w->pending = p;
        w->cap_pending = cap;
    }
    /* The length, then the bytes, cut into frames. */
    const uint64_t len = n;
    const size_t total = sizeof len + n;
    const int frames = (int)((total + WIRE_FRAME - 1) / WIRE_FRAME);
    char *copy = malloc(total);
    MPI_Request *req = malloc((size_t)frames * sizeof *req);
    if (!copy || !req) {
        free(copy);
        free(req);
        return rt_err_set(err, "out of memory for a parallel tuning message");
    }
    memcpy(copy, &len, sizeof len);
    if (n > 0)
        memcpy(copy + sizeof len, data, n);
    pending_send *ps = &w->pending[w->n_pending];
    for (int f = 0; f < frames; ++f) {
        const size_t off = (size_t)f * WIRE_FRAME;
        const size_t part = total - off < WIRE_FRAME ? total - off : WIRE_FRAME;
        const int rc = MPI_Isend(copy + off, (int)part, MPI_BYTE, peer, WIRE_TAG, w->comm, &req[f]);
        if (rc != MPI_SUCCESS) {
            /* The frames sent go on; the receiver sees a message cut short and fails it. */
            MPI_Waitall(f, req, MPI_STATUSES_IGNORE);
            free(copy);
            free(req);
            return mpi_fail(err, rc, "sending a parallel tuning message");
        }
    }
    ps->req = req;
    ps->n_req = frames;
    ps->data = copy;
    w->n_pending++;
    return 0;
}

/* One frame from `src` into its message; 1 when that completed the message (handed out in *data,
 * *n), 0 when more frames are to come. */
static int take_frame(rt_wire *w, int src, const char *frame, size_t count, void **data, size_t *n,
                      rt_err *err)
{
    if (src < 0 || src >= w->n_parts)
        return rt_err_set(err, "parallel tuning: a message from rank %d, not of this job", src);
    partial *p = &w->parts[src];
    if (!p->buf) {
        uint64_t len = 0;
        if (count < sizeof len)
            return rt_err_set(err, "parallel tuning: rank %d sent a frame of %zu bytes", src,
                              count);
        memcpy(&len, frame, sizeof len);
        if (len > ((uint64_t)1 << 31))
            return rt_err_set(err, "parallel tuning: rank %d sent a message of %llu bytes", src,
                              (unsigned long long)len);
        p->buf = malloc(len > 0 ? (size_t)len : 1);
        if (!p->buf)
            return rt_err_set(err, "out of memory for a parallel tuning message");
        p->len = (size_t)len;
        p->got = 0;
        frame += sizeof len;
        count -= sizeof len;
    }
    if (count > p->len - p->got)
        return rt_err_set(err,
                          "parallel tuning: rank %d sent %zu bytes more than its message of %zu",
                          src, count - (p->len - p->got), p->len);
    memcpy(p->buf + p->got, frame, count);
    p->got += count;
    if (p->got < p->len)
        return 0;
    *data = p->buf;
    *n = p->len;
    p->buf = NULL;
    return 1;
}

static int mpi_recv(rt_wire *w, int wait, int *peer, void **data, size_t *n, rt_err *err)
{
    if (mpi_comm(w, err) != 0 || reap_sends(w, 0, err) != 0)
        return -1;
    for (;;) {
        MPI_Status st;
        int rc;
        if (wait) {
            rc = MPI_Probe(MPI_ANY_SOURCE, WIRE_TAG, w->comm, &st);
        } else {
            int flag = 0;
            rc = MPI_Iprobe(MPI_ANY_SOURCE, WIRE_TAG, w->comm, &flag, &st);
            if (rc == MPI_SUCCESS && !flag)
                return 0;
        }
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "waiting for a parallel tuning message");
        int count = 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (count < 0 || count > WIRE_FRAME)
            return rt_err_set(err, "parallel tuning: rank %d sent a frame of %d bytes (at most %d)",
                              st.MPI_SOURCE, count, WIRE_FRAME);
        char frame[WIRE_FRAME];
        rc = MPI_Recv(frame, count, MPI_BYTE, st.MPI_SOURCE, WIRE_TAG, w->comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "receiving a parallel tuning message");
        const int got = take_frame(w, st.MPI_SOURCE, frame, (size_t)count, data, n, err);
        if (got != 0) {
            *peer = st.MPI_SOURCE;
            return got;
        }
        /* The message's next frames were sent with its first: they follow at once. */
    }
}

/* Socket frames: the length as 8 bytes, then the bytes. */
static int write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        const ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* 1 when all n bytes came, 0 at the end of the stream before the first, -1 on an error (or an end
 * in the middle). */
static int read_all(int fd, void *data, size_t n)
{
    char *p = data;
    size_t got = 0;
    while (got < n) {
        const ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return got == 0 ? 0 : -1;
        if (r < 0)
            return -1;
        got += (size_t)r;
    }
    return 1;
}

/* The frame's length with a descriptor beside it (SCM_RIGHTS): the kernel hands the receiver a
 * descriptor of its own for the same open file. */
static int write_len_fd(int sock, uint64_t len, int fd)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = {.iov_base = &len, .iov_len = sizeof len};
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    ssize_t w;
    do
        w = sendmsg(sock, &mh, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w <= 0)
        return -1;
    /* The descriptor went with the first byte; the rest of the length goes plain. */
    return (size_t)w == sizeof len ? 0 : write_all(sock, (const char *)&len + w, sizeof len - w);
}

static int socket_send(rt_wire *w, int peer, const void *data, size_t n, int fd, rt_err *err)
{
    const int i = peer - w->first_peer;
    if (i < 0 || i >= w->n_fds || w->fds[i] < 0)
        return rt_err_set(err, "parallel tuning: no peer %d%s", peer,
                          i >= 0 && i < w->n_fds ? " (it has said its last word)" : "");
    const uint64_t len = n;
    if ((fd >= 0 ? write_len_fd(w->fds[i], len, fd) : write_all(w->fds[i], &len, sizeof len)) !=
            0 ||
        write_all(w->fds[i], data, n) != 0)
        return rt_err_set(err, "parallel tuning: sending to peer %d failed: %s", peer,
                          errno == EPIPE ? "it closed the connection" : strerror(errno));
    return 0;
}

/* A frame's length, and the descriptor that came with it (*fd, -1: none): read_all's contract.
 * A frame is read whole before the next, so a descriptor always arrives with its own frame. */
static int read_len_fd(int sock, uint64_t *len, int *fd)
{
    *fd = -1;
    char *p = (char *)len;
    size_t got = 0;
    while (got < sizeof *len) {
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } ctl;
        struct iovec iov = {.iov_base = p + got, .iov_len = sizeof *len - got};
        struct msghdr mh = {.msg_iov = &iov,
                            .msg_iovlen = 1,
                            .msg_control = ctl.buf,
                            .msg_controllen = sizeof ctl.buf};
        const ssize_t r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        if (r < 0 && errno == EINTR)
            continue;
        for (struct cmsghdr *c = r > 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
                c->cmsg_len >= CMSG_LEN(sizeof(int))) {
                int in;
                memcpy(&in, CMSG_DATA(c), sizeof in);
                if (*fd >= 0)
                    close(*fd); /* one per frame: a second is not ours to keep */
                *fd = in;
            }
        if (r == 0 || r < 0) {
            if (*fd >= 0)
                close(*fd);
            *fd = -1;
            return r == 0 && got == 0 ? 0 : -1;
        }
        got += (size_t)r;
    }
    return 1;
}

static void drop_fd(rt_wire *w)
{
    if (w->got_fd >= 0)
        close(w->got_fd);
    w->got_fd = -1;
}

static int socket_recv(rt_wire *w, int wait, int *peer, void **data, size_t *n, rt_err *err)
{
    struct pollfd fds[RT_WIRE_MAX_SOCKETS];
    if (w->n_fds > RT_WIRE_MAX_SOCKETS)
        return rt_err_set(err, "parallel tuning: %d workers, at most %d on one host", w->n_fds,
                          RT_WIRE_MAX_SOCKETS);
    const int count = w->n_fds;
    int open = 0;
    for (int k = 0; k < count; ++k) {
        fds[k].fd = w->fds[(w->next_poll + k) % count]; /* poll skips a forgotten peer's -1 */
        fds[k].events = POLLIN;
        fds[k].revents = 0;
        open += fds[k].fd >= 0;
    }
    if (open == 0)
        return wait ? rt_err_set(err, "parallel tuning: waiting for a message, no peer is left")
                    : 0;
    int ready;
    do
        ready = poll(fds, (nfds_t)count, wait ? -1 : 0);
    while (ready < 0 && errno == EINTR);
    if (ready < 0)
        return rt_err_set(err, "parallel tuning: poll failed: %s", strerror(errno));
    for (int k = 0; k < count; ++k) {
        if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        const int i = (w->next_poll + k) % count;
        w->next_poll = (i + 1) % count;
        *peer = w->first_peer + i;
        uint64_t len = 0;
        int fd = -1;
        const int got = read_len_fd(w->fds[i], &len, &fd);
        if (got <= 0)
            return rt_err_set(err, "parallel tuning: peer %d closed the connection", *peer);
        w->got_fd = fd; /* the caller takes it (rt_wire_take_fd) or the next receive closes it */
        if (len > ((uint64_t)1 << 31))
            return rt_err_set(err, "parallel tuning: peer %d sent a message of %llu bytes", *peer,
                              (unsigned long long)len);
        char *buf = malloc(len > 0 ? (size_t)len : 1);
        if (!buf)
            return rt_err_set(err, "out of memory for a parallel tuning message");
        if (read_all(w->fds[i], buf, (size_t)len) != 1 && len > 0) {
            free(buf);
            return rt_err_set(err, "parallel tuning: peer %d closed the connection mid-message",
                              *peer);
        }
        *data = buf;
        *n = (size_t)len;
        return 1;
    }
    return 0;
}

int rt_wire_send(rt_wire *w, int peer, const void *data, size_t n, rt_err *err)
{
    return w->is_mpi ? mpi_send(w, peer, data, n, err) : socket_send(w, peer, data, n, -1, err);
}

int rt_wire_send_fd(rt_wire *w, int peer, const void *data, size_t n, int fd, rt_err *err)
{
    if (w->is_mpi)
        return rt_err_set(err, "parallel tuning: a file descriptor cannot travel over MPI");
    if (fd < 0)
        return rt_err_set(err, "parallel tuning: no file descriptor to send to peer %d", peer);
    return socket_send(w, peer, data, n, fd, err);
}

int rt_wire_take_fd(rt_wire *w)
{
    const int fd = w->got_fd;
    w->got_fd = -1;
    return fd;
}

int rt_wire_recv(rt_wire *w, int wait, int *peer, void **data, size_t *n, rt_err *err)
{
    *data = NULL;
    *n = 0;
    drop_fd(w);
    return w->is_mpi ? mpi_recv(w, wait, peer, data, n, err)
                     : socket_recv(w, wait, peer, data, n, err);
}

void rt_wire_forget(rt_wire *w, int peer)
{
    const int i = peer - w->first_peer;
    if (w->is_mpi || i < 0 || i >= w->n_fds || w->fds[i] < 0)
        return;
    close(w->fds[i]);
    w->fds[i] = -1;
}

int rt_wire_flush(rt_wire *w, rt_err *err)
{
    return w->is_mpi && w->comm != MPI_COMM_NULL ? reap_sends(w, 1, err) : 0;
}

void rt_wire_close(rt_wire *w)
{
    if (!w)
        return;
    if (w->is_mpi) {
        rt_err ignored;
        reap_sends(w, 1, &ignored);
        free(w->pending);
        for (int i = 0; i < w->n_parts; ++i)
            free(w->parts[i].buf);
        free(w->parts);
    }
    drop_fd(w);
    for (int i = 0; i < w->n_fds; ++i)
        if (w->fds[i] >= 0)
            close(w->fds[i]);
    free(w->fds);
    free(w);
}
