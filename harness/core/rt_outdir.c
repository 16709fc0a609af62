/* rt_outdir: mkdir -p that can be undone; see rt_outdir.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_outdir.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_path.h"

int rt_outdir_make(rt_outdir *d, const char *dir, rt_err *err)
{
    memset(d, 0, sizeof *d);
    if (!dir || !*dir)
        return rt_err_set(err, "no output folder named");
    char path[RT_OUTDIR_PATH_MAX];
    if (rt_path_format(d->dir, sizeof d->dir, err, "%s", dir) != 0 ||
        rt_path_format(path, sizeof path, err, "%s", dir) != 0)
        return rt_err_prefix(err, "output folder");
    /* Each missing ancestor in turn, outermost first, as `mkdir -p` does. */
    for (char *slash = strchr(path + 1, '/');; slash = strchr(slash + 1, '/')) {
        if (slash)
            *slash = '\0';
        if (path[0] && mkdir(path, 0777) == 0) {
            if (!d->top[0])
                memcpy(d->top, path, strlen(path) + 1);
        } else if (path[0] && errno != EEXIST) {
            const int e = errno;
            rt_outdir_undo(d);
            return rt_err_set(err, "cannot create the folder '%s': %s", path, strerror(e));
        }
        if (!slash)
            break;
        *slash = '/';
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rt_outdir_undo(d);
        return rt_err_set(err, "cannot write into '%s': it exists and is not a folder", dir);
    }
    return 0;
}

void rt_outdir_undo(const rt_outdir *d)
{
    if (!d->top[0])
        return;
    char path[RT_OUTDIR_PATH_MAX];
    memcpy(path, d->dir, sizeof path);
    const size_t top_len = strlen(d->top);
    /* Innermost first; rmdir fails on a folder that holds anything, which ends the walk. */
    for (;;) {
        size_t n = strlen(path);
        while (n > 1 && path[n - 1] == '/')
            path[--n] = '\0';
        if (n < top_len || rmdir(path) != 0 || n == top_len)
            return;
        char *slash = strrchr(path, '/');
        if (!slash)
            return;
        *slash = '\0';
    }
}
