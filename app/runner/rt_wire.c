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

/* A send in flight over MPI: its request and the copy of the bytes it sends. */
typedef struct pending_send {
    MPI_Request req;
    void *data;
} pending_send;

struct rt_wire {
    int is_mpi;
    /* MPI */
    MPI_Comm comm;
    pending_send *pending;
    int n_pending, cap_pending;
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
    if (!w)
        return rt_err_set(err, "out of memory for the parallel tuning messages");
    w->is_mpi = 1;
    w->got_fd = -1;
    w->comm = rt_comm_mpi(comm, RT_COMM_WORLD);
    *out = w;
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
        int done = 0;
        const int rc = wait_all ? MPI_Wait(&w->pending[i].req, MPI_STATUS_IGNORE)
                                : MPI_Test(&w->pending[i].req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "completing a parallel tuning message");
        if (wait_all || done)
            free(w->pending[i].data);
        else
            w->pending[kept++] = w->pending[i];
    }
    w->n_pending = kept;
    return 0;
}

static int mpi_send(rt_wire *w, int peer, const void *data, size_t n, rt_err *err)
{
    if (n > (size_t)INT32_MAX)
        return rt_err_set(err, "a parallel tuning message of %zu bytes is too long", n);
    if (reap_sends(w, 0, err) != 0)
        return -1;
    if (w->n_pending == w->cap_pending) {
        const int cap = w->cap_pending ? 2 * w->cap_pending : 8;
        pending_send *p = realloc(w->pending, (size_t)cap * sizeof *p);
        if (!p)
            return rt_err_set(err, "out of memory for the parallel tuning messages");
        w->pending = p;
        w->cap_pending = cap;
    }
    void *copy = malloc(n > 0 ? n : 1);
    if (!copy)
        return rt_err_set(err, "out of memory for a parallel tuning message");
    memcpy(copy, data, n);
    pending_send *ps = &w->pending[w->n_pending];
    const int rc = MPI_Isend(copy, (int)n, MPI_BYTE, peer, WIRE_TAG, w->comm, &ps->req);
    if (rc != MPI_SUCCESS) {
        free(copy);
        return mpi_fail(err, rc, "sending a parallel tuning message");
    }
    ps->data = copy;
    w->n_pending++;
    return 0;
}

static int mpi_recv(rt_wire *w, int wait, int *peer, void **data, size_t *n, rt_err *err)
{
    if (reap_sends(w, 0, err) != 0)
        return -1;
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
    void *buf = malloc(count > 0 ? (size_t)count : 1);
    if (!buf)
        return rt_err_set(err, "out of memory for a parallel tuning message of %d bytes", count);
    rc = MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, WIRE_TAG, w->comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        free(buf);
        return mpi_fail(err, rc, "receiving a parallel tuning message");
    }
    *peer = st.MPI_SOURCE;
    *data = buf;
    *n = (size_t)count;
    return 1;
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
    if (i < 0 || i >= w->n_fds)
        return rt_err_set(err, "parallel tuning: no peer %d", peer);
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
    for (int k = 0; k < count; ++k) {
        fds[k].fd = w->fds[(w->next_poll + k) % count];
        fds[k].events = POLLIN;
        fds[k].revents = 0;
    }
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

int rt_wire_flush(rt_wire *w, rt_err *err)
{
    return w->is_mpi ? reap_sends(w, 1, err) : 0;
}

void rt_wire_close(rt_wire *w)
{
    if (!w)
        return;
    if (w->is_mpi) {
        rt_err ignored;
        reap_sends(w, 1, &ignored);
        free(w->pending);
    }
    drop_fd(w);
    for (int i = 0; i < w->n_fds; ++i)
        close(w->fds[i]);
    free(w->fds);
    free(w);
}
