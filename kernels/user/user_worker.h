/* user_worker: a user's C kernel runs in a worker process of its own (rooftune-user-worker,
 * app/worker/rt_user_worker_main.c), started fresh with exec for each point, so that
 *   - a kernel that hangs is stopped at measure.point_timeout_s (the worker is killed),
 *   - a kernel that crashes, or writes far out of bounds, takes only the worker down,
 *   - OpenMP in the kernel works (a fork()ed copy of an OpenMP process may deadlock).
 * The arguments live in one memory block both processes map (a memfd, laid out with guard zones
 * by user_guard.h): rooftune fills it, the worker's kernel works on it in place, rooftune reads
 * the outputs and checks the guards. The worker dlopen()s the built object (user_build.h) and, for
 * every run request, calls it once and answers with the time it took (CLOCK_MONOTONIC around the
 * call), so the IPC is not part of the sample.
 *
 * The worker's protocol, over a socket pair (send with MSG_NOSIGNAL: a dead worker is an error,
 * never a SIGPIPE): the worker sends USER_WORKER_READY once loaded, or USER_WORKER_FAILED and a
 * message; rooftune sends USER_WORKER_RUN (the worker answers with a double, seconds) or
 * USER_WORKER_QUIT. The worker finds the block at fd 3 and the socket at fd 4; its arguments are
 *     rooftune-user-worker OBJECT BLOCK_BYTES N OFFSET_0 ... OFFSET_N-1 */
#ifndef USER_WORKER_H
#define USER_WORKER_H

#include <stddef.h>

#include "rt_error.h"

#define USER_WORKER_READY     'k'
#define USER_WORKER_FAILED    'e'
#define USER_WORKER_RUN       'r'
#define USER_WORKER_QUIT      'q'
#define USER_WORKER_FD_BLOCK  3
#define USER_WORKER_FD_SOCKET 4
#define USER_WORKER_MAX_ARGS  64
/* The symbol every built object exports (user_build.h): int f(void *const *args). */
#define USER_CALL_SYMBOL "rooftune_user_call"

/* The shared block. */
typedef struct user_block {
    int fd;
    size_t size;
    unsigned char *base;
} user_block;

int user_block_create(size_t size, user_block *b, rt_err *err);
void user_block_free(user_block *b);

typedef struct user_worker user_worker;

/* Starts the worker on the object and waits (at most timeout_s) until it has loaded it; offsets
 * say where each argument is in the block. what names the kernel in messages. A worker ended by
 * SIGINT or SIGTERM returns RT_INTERRUPTED (rt_registry.h), any other failure -1. */
int user_worker_start(const char *worker_path, const char *object, const user_block *b,
                      const size_t *offsets, int n_args, const char *what, double timeout_s,
                      user_worker **out, rt_err *err);
/* One execution: *seconds is the worker's own time of the call. A worker that does not answer
 * within timeout_s is killed: the error then starts "timeout:". A worker that died says how
 * (RT_INTERRUPTED when SIGINT or SIGTERM ended it, else -1). After either, every later run fails
 * at once. */
int user_worker_run(user_worker *w, double timeout_s, double *seconds, rt_err *err);
/* Asks the worker to quit and reaps it (killed if it does not go within a second). NULL is fine. */
void user_worker_stop(user_worker *w);

#endif
