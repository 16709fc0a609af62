/* rt_outfile: temporary file, then rename; see rt_outfile.h. */
#define _GNU_SOURCE /* fopencookie, mkostemp */
#include "rt_outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_path.h"

/* Every byte the FILE hands down goes through here, so the first failure's errno is kept: by the
 * time fclose reports an error, errno may say something else or nothing. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t size)
{
    rt_outfile *o = cookie;
    size_t done = 0;
    while (done < size) {
        const ssize_t n = write(o->fd, buf + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (!o->write_errno)
                o->write_errno = n < 0 ? errno : EIO;
            return -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)size;
}

/* The descriptor is closed by commit or abort, after fsync. */
static int cookie_close(void *cookie)
{
    (void)cookie;
    return 0;
}

/* The mode a new file gets from open(..., 0666): what umask leaves of rw-rw-rw-. umask can only be
 * read by setting it, so it is set back at once (rooftune creates files from one thread). */
static mode_t new_file_mode(void)
{
    const mode_t mask = umask(022);
    umask(mask);
    return 0666 & ~mask;
}

/* "name" or "name (a link to path)", for messages. */
static const char *shown(const rt_outfile *o, char *buf, size_t len)
{
    if (strcmp(o->name, o->path) == 0)
        return o->name;
    snprintf(buf, len, "%s (a link to %s)", o->name, o->path);
    return buf;
}

/* The folder and the name of path ("." for a bare name). */
static int split_path(const char *path, char *dir, size_t dlen, const char **base, rt_err *err)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if (!**base)
        return rt_err_set(err, "cannot write %s: the name ends in '/' (a folder, not a file)",
                          path);
    if (!slash)
        return rt_path_format(dir, dlen, err, ".");
    if (slash == path)
        return rt_path_format(dir, dlen, err, "/");
    return rt_path_format(dir, dlen, err, "%.*s", (int)(slash - path), path);
}

static int open_in_place(rt_outfile *o, rt_err *err)
{
    /* O_NONBLOCK: a FIFO nobody reads fails with ENXIO here instead of blocking forever. */
    o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (o->fd < 0) {
        const int e = errno;
        char buf[2 * RT_OUTFILE_PATH_MAX + 32];
        if (e == ENXIO)
            return rt_err_set(err, "cannot write %s: it is a FIFO that no process is reading",
                              shown(o, buf, sizeof buf));
        return rt_err_set(err, "cannot write %s: %s", shown(o, buf, sizeof buf), strerror(e));
    }
    const int flags = fcntl(o->fd, F_GETFL);
    if (flags >= 0)
        fcntl(o->fd, F_SETFL, flags & ~O_NONBLOCK);
    return 0;
}

static int open_temporary(rt_outfile *o, mode_t mode, rt_err *err)
{
    char dir[RT_OUTFILE_PATH_MAX];
    const char *base = NULL;
    if (split_path(o->path, dir, sizeof dir, &base, err) != 0 ||
        rt_path_format(o->tmp, sizeof o->tmp, err, "%s/.%s.rt-XXXXXX", dir, base) != 0) {
        o->tmp[0] = '\0';
        return rt_err_prefix(err, "cannot write %s", o->name);
    }
    o->fd = mkostemp(o->tmp, O_CLOEXEC);
    if (o->fd < 0) {
        const int e = errno;
        o->tmp[0] = '\0';
        if (e == ENOENT || e == ENOTDIR)
            return rt_err_set(err, "cannot write %s: the folder '%s' does not exist", o->name, dir);
        return rt_err_set(err, "cannot write %s: cannot create a file in '%s': %s", o->name, dir,
                          strerror(e));
    }
    /* mkstemp makes the file private (0600); the result should look like any file the user
     * makes, or keep the permissions of the file it replaces. */
    if (fchmod(o->fd, mode) != 0) {
        const int e = errno;
        rt_outfile_abort(o);
        return rt_err_set(err, "cannot write %s: %s", o->name, strerror(e));
    }
    return 0;
}

int rt_outfile_open(rt_outfile *o, const char *path, rt_err *err)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!path || !*path)
        return rt_err_set(err, "no output file named");
    if (rt_path_format(o->path, sizeof o->path, err, "%s", path) != 0 ||
        rt_path_format(o->name, sizeof o->name, err, "%s", path) != 0)
        return rt_err_prefix(err, "cannot write %s", path);
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* Replace what the link names, not the link; a dangling link is replaced by the file. */
        char target[PATH_MAX];
        if (realpath(path, target) &&
            rt_path_format(o->path, sizeof o->path, err, "%s", target) != 0)
            return rt_err_prefix(err, "cannot write %s", path);
    }
    mode_t mode = new_file_mode();
    int in_place = 0;
    if (stat(o->path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return rt_err_set(err, "cannot write %s: it is a folder", path);
        in_place = !S_ISREG(st.st_mode);
        o->existed = 1;
        mode = st.st_mode & 07777;
        /* The rename would replace a file its owner made read-only: refuse as open() would. */
        if (!in_place && access(o->path, W_OK) != 0)
            return rt_err_set(err, "cannot write %s: %s", o->name, strerror(errno));
    }
    if ((in_place ? open_in_place(o, err) : open_temporary(o, mode, err)) != 0)
        return -1;
    static const cookie_io_functions_t io = {
        .read = NULL, .write = cookie_write, .seek = NULL, .close = cookie_close};
    o->f = fopencookie(o, "w", io);
    if (!o->f) {
        const int e = errno;
        rt_outfile_abort(o);
        return rt_err_set(err, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

/* fsync of the folder that holds path: the rename is only durable once the folder is. Filesystems
 * that cannot sync a folder (EINVAL) are fine: there is nothing more to do on them. */
static int sync_folder(const char *path)
{
    char dir[RT_OUTFILE_PATH_MAX];
    const char *base = NULL;
    if (split_path(path, dir, sizeof dir, &base, NULL) != 0)
        return 0;
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    const int rc = fsync(fd) != 0 && errno != EINVAL && errno != EROFS ? errno : 0;
    close(fd);
    return rc;
}

int rt_outfile_commit(rt_outfile *o, rt_err *err)
{
    int e = 0;
    if (o->f) {
        const int flush_failed = fflush(o->f) != 0;
        const int had_error = ferror(o->f);
        fclose(o->f);
        o->f = NULL;
        if (flush_failed || had_error)
            e = o->write_errno ? o->write_errno : EIO;
    }
    /* Delayed allocation and network filesystems may report a full disk only here. */
    if (!e && o->tmp[0] && fsync(o->fd) != 0)
        e = errno;
    if (o->fd >= 0 && close(o->fd) != 0 && !e && errno != EINTR)
        e = errno;
    o->fd = -1;
    if (!e && o->tmp[0] && rename(o->tmp, o->path) != 0)
        e = errno;
    if (e) {
        const int staged = o->tmp[0] != '\0';
        if (staged)
            unlink(o->tmp);
        o->tmp[0] = '\0';
        char buf[2 * RT_OUTFILE_PATH_MAX + 32];
        return rt_err_set(err, "cannot write %s: %s%s", shown(o, buf, sizeof buf), strerror(e),
                          !staged      ? ""
                          : o->existed ? " (the file is left as it was)"
                                       : " (no file was made)");
    }
    if (o->tmp[0]) {
        o->tmp[0] = '\0';
        if ((e = sync_folder(o->path)) != 0)
            return rt_err_set(err, "wrote %s but could not sync its folder: %s", o->name,
                              strerror(e));
    }
    return 0;
}

void rt_outfile_abort(rt_outfile *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
}

int rt_outfile_write_all(const char *path, const void *data, size_t len, rt_err *err)
{
    rt_outfile o;
    if (rt_outfile_open(&o, path, err) != 0)
        return -1;
    if (len > 0 && fwrite(data, 1, len, o.f) != len) {
        /* commit reports the write error with its reason */
    }
    return rt_outfile_commit(&o, err);
}
