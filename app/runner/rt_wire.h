/* rt_wire: messages between the coordinator of parallel tuning and its workers (rt_workers.h),
 * over MPI (the ranks of the job: a peer is a world rank, the coordinator rank 0) or over
 * sockets (worker processes one rooftune started: a peer is 0 for the coordinator, 1..n for the
 * workers). A message is a run of bytes of any length; messages from one peer arrive whole and
 * in the order they were sent.
 *
 * Sends never wait for the receiver to be ready: over MPI they are nonblocking (their buffers are
 * kept until they complete; rt_wire_flush waits for them), over a socket the kernel buffers them,
 * so a worker goes on measuring while the coordinator is busy with a point of its own. Nor does
 * a receive wait for a sender that is busy measuring: over MPI a message goes in frames of 2 KiB,
 * below the eager limit of Open MPI's transports, which the receiver takes without the sender's
 * help. The world communicator is taken at the first message over MPI, so a job of one rank
 * alone that sends none starts no MPI (rt_comm.h). */
#ifndef RT_WIRE_H
#define RT_WIRE_H

#include <stddef.h>

#include "rt_error.h"

struct rt_comm;
typedef struct rt_wire rt_wire;

/* Messages over the job's world communicator (its own tag, so no collective is disturbed). */
int rt_wire_open_mpi(struct rt_comm *comm, rt_wire **out, rt_err *err);
/* Messages over connected sockets: fds[i] is peer first_peer + i. The wire closes them. */
#define RT_WIRE_MAX_SOCKETS 256
int rt_wire_open_sockets(const int *fds, int n, int first_peer, rt_wire **out, rt_err *err);

int rt_wire_send(rt_wire *w, int peer, const void *data, size_t n, rt_err *err);
/* A message with an open file descriptor beside it (sockets only: SCM_RIGHTS; the sender keeps
 * its own): how a coordinator hands its workers a matrix in shared memory. The receiver takes it
 * with rt_wire_take_fd after the message arrives. */
int rt_wire_send_fd(rt_wire *w, int peer, const void *data, size_t n, int fd, rt_err *err);
/* The descriptor that came with the last message received (the caller owns it now), -1 when
 * none did; one not taken is closed by the next receive. */
int rt_wire_take_fd(rt_wire *w);
/* The next message from any peer: 1 with *peer and *data (malloc'd: the caller frees it) of *n
 * bytes; 0 when wait is 0 and none has arrived; -1 on an error, a socket peer that closed its end
 * included ("peer 2 closed the connection"). */
int rt_wire_recv(rt_wire *w, int wait, int *peer, void **data, size_t *n, rt_err *err);
/* The peer has said its last word: its socket is closed and no longer read, so that its end of
 * the stream (a worker process exits as soon as it has answered) is not taken for a failure
 * while other peers are still awaited. Nothing over MPI. */
void rt_wire_forget(rt_wire *w, int peer);
/* Waits until every send in flight has completed. */
int rt_wire_flush(rt_wire *w, rt_err *err);
/* Frees the wire (sends still in flight are waited for; sockets closed). NULL is fine. */
void rt_wire_close(rt_wire *w);

#endif
