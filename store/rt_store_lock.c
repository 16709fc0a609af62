/* rt_store_lock: flock() on the database file; see rt_store_lock.h. */
#define _DEFAULT_SOURCE
#include "rt_store_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct rt_store_lock {
    int fd;
    int created; /* 1: this lock made the file */
    dev_t dev;
    ino_t ino;
    char path[4096];
};

/* The pid holding a flock on (dev, ino), from /proc/locks ("1: FLOCK ADVISORY WRITE 123
 * 08:01:4567 0 EOF": major and minor in hex, the inode in decimal); 0 when it cannot be told. */
static long lock_holder(dev_t dev, ino_t ino)
{
    FILE *f = fopen("/proc/locks", "r");
    if (!f)
        return 0;
    char line[256];
    long pid = 0;
    while (!pid && fgets(line, sizeof line, f)) {
        char kind[16], mode[16], access[16];
        long p = 0;
        unsigned maj = 0, min = 0;
        unsigned long long inode = 0;
        if (sscanf(line, "%*d: %15s %15s %15s %ld %x:%x:%llu", kind, mode, access, &p, &maj, &min,
                   &inode) == 7 &&
            strcmp(kind, "FLOCK") == 0 && maj == major(dev) && min == minor(dev) &&
            inode == (unsigned long long)ino && p > 0)
            pid = p;
    }
    fclose(f);
    return pid;
}

int rt_store_lock_acquire(const char *db_path, rt_store_lock **out, rt_err *err)
{
    *out = NULL;
    if (!db_path || !*db_path)
        return rt_err_set(err, "store lock: no store path given");
    rt_store_lock *lock = calloc(1, sizeof *lock);
    if (!lock)
        return rt_err_set(err, "store lock: out of memory");
    if (snprintf(lock->path, sizeof lock->path, "%s", db_path) >= (int)sizeof lock->path) {
        free(lock);
        return rt_err_set(err, "store path is longer than %zu characters: '%.80s...'",
                          sizeof lock->path - 1, db_path);
    }
    /* O_NONBLOCK: a FIFO given as the store must fail here, not wait for a writer. */
    int fd = open(db_path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        fd = open(db_path, O_RDWR | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
        lock->created = fd >= 0;
        if (fd < 0 && errno == EEXIST) /* made meanwhile by another process */
            fd = open(db_path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    }
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        const int e = errno;
        rt_err_set(err, "cannot open the store %s for writing: %s", db_path, strerror(e));
        if (fd >= 0)
            close(fd);
        free(lock);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        free(lock);
        return rt_err_set(err,
                          "the store %s is not a regular file (a device, a FIFO or a folder); "
                          "name a new file or an existing store",
                          db_path);
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        const long pid = e == EWOULDBLOCK ? lock_holder(st.st_dev, st.st_ino) : 0;
        /* flock is local: the holder runs on this host. */
        char host[128] = "";
        gethostname(host, sizeof host - 1);
        if (e == EWOULDBLOCK && pid > 0)
            rt_err_set(err,
                       "another rooftune run (pid %ld on %s) is writing to the store %s (or to "
                       "the same file under another name): wait for it to end, or give this run "
                       "another --db",
                       pid, host, db_path);
        else if (e == EWOULDBLOCK)
            rt_err_set(err,
                       "another rooftune run is writing to the store %s (or to the same file "
                       "under another name): wait for it to end, or give this run another --db",
                       db_path);
        else
            rt_err_set(err, "cannot lock the store %s: %s", db_path, strerror(e));
        close(fd);
        free(lock);
        return -1;
    }
    const int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    lock->fd = fd;
    lock->dev = st.st_dev;
    lock->ino = st.st_ino;
    *out = lock;
    return 0;
}

void rt_store_lock_release(rt_store_lock *lock)
{
    if (!lock)
        return;
    /* Still empty and still the file this lock made: nothing was stored, so nothing is left. */
    struct stat st, now;
    if (lock->created && fstat(lock->fd, &st) == 0 && st.st_size == 0 &&
        stat(lock->path, &now) == 0 && now.st_dev == lock->dev && now.st_ino == lock->ino)
        unlink(lock->path);
    flock(lock->fd, LOCK_UN);
    close(lock->fd);
    free(lock);
}
