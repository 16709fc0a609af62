#define _DEFAULT_SOURCE
#include "rt_store_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

struct rt_store_lock {
    int fd;
};

int rt_store_lock_acquire(const char *db_path, rt_store_lock **out, rt_err *err)
{
    *out = NULL;
    char *path = NULL;
    if (!db_path || !*db_path)
        return rt_err_set(err, "store lock: no store path given");
    const size_t len = strlen(db_path) + sizeof ".lock";
    path = malloc(len);
    if (!path)
        return rt_err_set(err, "store lock: out of memory");
    snprintf(path, len, "%s.lock", db_path);
    const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        rt_err_set(err, "cannot create the store's lock file %s: %s", path, strerror(errno));
        free(path);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        char holder[256] = "";
        const ssize_t n = read(fd, holder, sizeof holder - 1);
        holder[n > 0 ? n : 0] = '\0';
        holder[strcspn(holder, "\n")] = '\0';
        if (e == EWOULDBLOCK)
            rt_err_set(err,
                       "another rooftune run (%s) is writing to the store %s (lock %s): wait for "
                       "it to end, or give this run another --db",
                       holder[0] ? holder : "holder unknown", db_path, path);
        else
            rt_err_set(err, "cannot lock %s: %s", path, strerror(e));
        close(fd);
        free(path);
        return -1;
    }
    /* Who holds it, for the message of a run that finds it taken. */
    char me[256], host[128] = "";
    gethostname(host, sizeof host - 1);
    const int w = snprintf(me, sizeof me, "pid %ld on %s\n", (long)getpid(), host);
    if (ftruncate(fd, 0) != 0 || write(fd, me, (size_t)w) != w) {
        /* The lock holds without the note; only the other run's message gets poorer. */
    }
    free(path);
    rt_store_lock *lock = malloc(sizeof *lock);
    if (!lock) {
        close(fd);
        return rt_err_set(err, "store lock: out of memory");
    }
    lock->fd = fd;
    *out = lock;
    return 0;
}

void rt_store_lock_release(rt_store_lock *lock)
{
    if (!lock)
        return;
    flock(lock->fd, LOCK_UN);
    close(lock->fd);
    free(lock);
}
