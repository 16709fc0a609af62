/* rt_infile: regular files only, opened without waiting; see rt_infile.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_infile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rt_infile_open(const char *path, const char *what, int *fd, int64_t *size, rt_err *err)
{
    *fd = -1;
    *size = 0;
    const int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (f < 0)
        return rt_err_set(err, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(f, &st) != 0) {
        const int e = errno;
        close(f);
        return rt_err_set(err, "cannot open %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return rt_err_set(err, "cannot read %s as %s: it is %s, not a regular file", path, what,
                          S_ISDIR(st.st_mode)    ? "a folder"
                          : S_ISFIFO(st.st_mode) ? "a FIFO"
                          : S_ISCHR(st.st_mode)  ? "a character device"
                                                 : "a special file");
    }
    const int flags = fcntl(f, F_GETFL);
    if (flags >= 0)
        fcntl(f, F_SETFL, flags & ~O_NONBLOCK);
    *fd = f;
    *size = (int64_t)st.st_size;
    return 0;
}
