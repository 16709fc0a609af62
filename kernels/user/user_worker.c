#define _GNU_SOURCE
#include "user_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_clock.h"
#include "rt_registry.h"

extern char **environ;

struct user_worker {
    pid_t pid;
    int sock;
    int dead; /* killed or exited: nothing more is asked of it */
    char what[160];
};

int user_block_create(size_t size, user_block *b, rt_err *err)
{
    memset(b, 0, sizeof *b);
    b->fd = -1;
    b->fd = memfd_create("rooftune-user-args", MFD_CLOEXEC);
    if (b->fd < 0)
        return rt_err_set(err, "memfd_create failed: %s", strerror(errno));
    if (ftruncate(b->fd, (off_t)size) != 0) {
        const int e = errno;
        close(b->fd);
        b->fd = -1;
        return rt_err_set(err, "cannot size the argument block to %zu bytes: %s", size,
                          strerror(e));
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
    if (p == MAP_FAILED) {
        const int e = errno;
        close(b->fd);
        b->fd = -1;
        return rt_err_set(err, "cannot map a %zu-byte argument block: %s", size, strerror(e));
    }
    b->base = p;
    b->size = size;
    return 0;
}

void user_block_free(user_block *b)
{
    if (b->base)
        munmap(b->base, b->size);
    if (b->fd >= 0)
        close(b->fd);
    b->base = NULL;
    b->fd = -1;
}

static void describe_status(int st, char *buf, size_t len)
{
    if (WIFSIGNALED(st))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (WIFEXITED(st))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
    else
        snprintf(buf, len, "ended");
}

/* The worker is gone: reap it and say how it went. -1, or RT_INTERRUPTED when SIGINT or SIGTERM
 * ended it: the worker is in rooftune's process group, so the terminal's Ctrl-C reaches both, and
 * whether that was the run's own interrupt only the runner knows (rt_registry.h). */
static int worker_died(user_worker *w, const char *during, rt_err *err)
{
    int st = 0;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
        ;
    w->dead = 1;
    char how[160];
    describe_status(st, how, sizeof how);
    rt_err_set(err, "%s: the worker process %s %s%s", w->what, how, during,
               WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV
                   ? " (the kernel touched memory it does not own: an out-of-bounds "
                     "access beyond the guard zones, or a bad pointer)"
                   : "");
    return WIFSIGNALED(st) && (WTERMSIG(st) == SIGINT || WTERMSIG(st) == SIGTERM) ? RT_INTERRUPTED
                                                                                  : -1;
}

static int kill_worker(user_worker *w)
{
    kill(w->pid, SIGKILL);
    int st;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
        ;
    w->dead = 1;
    return 0;
}

/* Reads exactly n bytes before the deadline. 0, 1 on timeout, 2 when the worker closed its end. */
static int read_until(user_worker *w, void *buf, size_t n, double deadline)
{
    size_t got = 0;
    while (got < n) {
        const double left = deadline - rt_clock_now();
        if (left <= 0)
            return 1;
        struct pollfd p = {.fd = w->sock, .events = POLLIN};
        const double ms = ceil(left * 1e3);
        const int r = poll(&p, 1, ms > 1e9 ? 1000000000 : (int)ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            continue; /* the deadline test above decides */
        const ssize_t k = recv(w->sock, (char *)buf + got, n - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return 2;
        got += (size_t)k;
    }
    return 0;
}

static int send_byte(user_worker *w, char c)
{
    for (;;) {
        const ssize_t k = send(w->sock, &c, 1, MSG_NOSIGNAL);
        if (k == 1)
            return 0;
        if (k < 0 && errno == EINTR)
            continue;
        return -1;
    }
}

int user_worker_start(const char *worker_path, const char *object, const user_block *b,
                      const size_t *offsets, int n_args, const char *what, double timeout_s,
                      user_worker **out, rt_err *err)
{
    *out = NULL;
    if (n_args < 0 || n_args > USER_WORKER_MAX_ARGS)
        return rt_err_set(err, "%s: %d arguments (at most %d)", what, n_args, USER_WORKER_MAX_ARGS);
    if (access(worker_path, X_OK) != 0)
        return rt_err_set(err,
                          "%s: the worker program %s cannot be run: %s (it is built beside "
                          "rooftune)",
                          what, worker_path, strerror(errno));
    user_worker *w = calloc(1, sizeof *w);
    if (!w)
        return rt_err_set(err, "%s: out of memory", what);
    snprintf(w->what, sizeof w->what, "%s", what);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        free(w);
        return rt_err_set(err, "%s: socketpair failed: %s", what, strerror(errno));
    }
    /* Above the fds the worker expects, so dup2 onto 3 and 4 never meets its own source. */
    const int block_fd = fcntl(b->fd, F_DUPFD_CLOEXEC, 16);
    const int child_sock = fcntl(sv[1], F_DUPFD_CLOEXEC, 16);
    close(sv[1]);
    w->sock = sv[0];
    char size_text[32], n_text[16], off_text[USER_WORKER_MAX_ARGS][32];
    char *argv[USER_WORKER_MAX_ARGS + 6];
    int n = 0;
    argv[n++] = (char *)worker_path;
    argv[n++] = (char *)object;
    snprintf(size_text, sizeof size_text, "%zu", b->size);
    argv[n++] = size_text;
    snprintf(n_text, sizeof n_text, "%d", n_args);
    argv[n++] = n_text;
    for (int i = 0; i < n_args; ++i) {
        snprintf(off_text[i], sizeof off_text[i], "%zu", offsets[i]);
        argv[n++] = off_text[i];
    }
    argv[n] = NULL;
    int rc = -1;
    if (block_fd >= 0 && child_sock >= 0) {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, block_fd, USER_WORKER_FD_BLOCK);
        posix_spawn_file_actions_adddup2(&fa, child_sock, USER_WORKER_FD_SOCKET);
        rc = posix_spawn(&w->pid, worker_path, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
    }
    if (block_fd >= 0)
        close(block_fd);
    if (child_sock >= 0)
        close(child_sock);
    if (rc != 0) {
        close(w->sock);
        free(w);
        return rt_err_set(err, "%s: cannot start the worker %s: %s", what, worker_path,
                          rc > 0 ? strerror(rc) : "no file descriptors");
    }
    char c = 0;
    const int r = read_until(w, &c, 1, rt_clock_now() + (timeout_s > 10 ? timeout_s : 10));
    if (r == 0 && c == USER_WORKER_READY) {
        *out = w;
        return 0;
    }
    rc = -1;
    if (r == 0 && c == USER_WORKER_FAILED) {
        char msg[1024] = "";
        size_t used = 0;
        while (used + 1 < sizeof msg) {
            const ssize_t k = recv(w->sock, msg + used, sizeof msg - 1 - used, 0);
            if (k <= 0)
                break;
            used += (size_t)k;
        }
        msg[used] = '\0';
        kill_worker(w);
        rt_err_set(err, "%s: %s", what, msg);
    } else if (r == 1) {
        kill_worker(w);
        rt_err_set(err, "%s: the worker did not start within %.3g s", what,
                   timeout_s > 10 ? timeout_s : 10);
    } else {
        rc = worker_died(w, "while loading the kernel", err);
    }
    close(w->sock);
    free(w);
    return rc;
}

int user_worker_run(user_worker *w, double timeout_s, double *seconds, rt_err *err)
{
    *seconds = -1.0;
    if (w->dead)
        return rt_err_set(err, "%s: the worker process is gone (an earlier execution failed)",
                          w->what);
    if (send_byte(w, USER_WORKER_RUN) != 0)
        return worker_died(w, "before it was asked to run", err);
    double t = 0;
    const int r = read_until(w, &t, sizeof t, rt_clock_now() + timeout_s);
    if (r == 1) {
        kill_worker(w);
        return rt_err_set(err,
                          "timeout: one execution of %s ran longer than measure.point_timeout_s "
                          "= %.3g s; its worker process was killed",
                          w->what, timeout_s);
    }
    if (r == 2)
        return worker_died(w, "during an execution", err);
    *seconds = t;
    return 0;
}

void user_worker_stop(user_worker *w)
{
    if (!w)
        return;
    if (!w->dead) {
        send_byte(w, USER_WORKER_QUIT);
        char c;
        /* The worker closes its end when it goes; a wedged one is killed. */
        if (read_until(w, &c, 1, rt_clock_now() + 1.0) == 1)
            kill(w->pid, SIGKILL);
        int st;
        while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    close(w->sock);
    free(w);
}
