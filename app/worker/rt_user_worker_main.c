/* rooftune-user-worker: runs a user's C kernel for rooftune (kernels/user/user_worker.h has the
 * protocol). It maps the shared argument block, loads the built object, tells rooftune it is
 * ready, then calls the kernel once per request and answers with the call's time. It never
 * touches MPI or anything else of rooftune's: a kernel that hangs or crashes here takes only this
 * process with it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "user_worker.h"

typedef int (*call_fn)(void *const *args);

static int say(const void *buf, size_t n)
{
    return send(USER_WORKER_FD_SOCKET, buf, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

static int fail(const char *fmt, const char *detail)
{
    char msg[1024];
    msg[0] = USER_WORKER_FAILED;
    snprintf(msg + 1, sizeof msg - 1, fmt, detail);
    say(msg, strlen(msg));
    return 3;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fail("%s", "usage: rooftune-user-worker OBJECT BLOCK_BYTES N OFFSETS... (started "
                          "by rooftune)");
    char *end = NULL;
    const unsigned long long size = strtoull(argv[2], &end, 10);
    const long n = strtol(argv[3], NULL, 10);
    if (!end || *end || size == 0 || n < 0 || n > USER_WORKER_MAX_ARGS || argc != 4 + n)
        return fail("%s", "malformed arguments");
    unsigned char *base =
        mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, USER_WORKER_FD_BLOCK, 0);
    if (base == MAP_FAILED)
        return fail("cannot map the argument block: %s", strerror(errno));
    void *args[USER_WORKER_MAX_ARGS];
    for (long i = 0; i < n; ++i) {
        const unsigned long long off = strtoull(argv[4 + i], NULL, 10);
        if (off >= size)
            return fail("%s", "an argument lies outside the block");
        args[i] = base + off;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return fail("cannot load the built kernel: %s", dlerror());
    call_fn call = (call_fn)dlsym(lib, USER_CALL_SYMBOL);
    if (!call)
        return fail("the built kernel lacks %s", USER_CALL_SYMBOL);
    const char ready = USER_WORKER_READY;
    if (say(&ready, 1) != 0)
        return 4;
    for (;;) {
        char c;
        const ssize_t k = recv(USER_WORKER_FD_SOCKET, &c, 1, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0 || c == USER_WORKER_QUIT)
            return 0;
        if (c != USER_WORKER_RUN)
            return 5;
        const double t0 = now();
        call(args);
        const double t = now() - t0;
        if (say(&t, sizeof t) != 0)
            return 6;
    }
}
