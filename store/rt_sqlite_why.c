#define _GNU_SOURCE
#include "rt_sqlite_why.h"

#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The folder that holds path ("." for a bare name), in dir. */
static void parent_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* The length of path made absolute, as SQLite's unix VFS makes it before opening. */
static size_t absolute_length(const char *path)
{
    if (path[0] == '/')
        return strlen(path);
    char cwd[PATH_MAX];
    return (getcwd(cwd, sizeof cwd) ? strlen(cwd) + 1 : 0) + strlen(path);
}

void rt_sqlite_open_why(const char *path, struct sqlite3 *db, int rc, char *buf, size_t len)
{
    const char *what = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    const int sys = db ? sqlite3_system_errno(db) : 0;
    char dir[PATH_MAX];
    parent_of(path, dir, sizeof dir);
    const sqlite3_vfs *vfs = sqlite3_vfs_find(NULL);
    const size_t abs_len = absolute_length(path);
    if (vfs && abs_len > (size_t)vfs->mxPathname)
        snprintf(buf, len,
                 "%s: its absolute path is %zu characters, more than the %d SQLite accepts", what,
                 abs_len, vfs->mxPathname);
    else if (access(dir, F_OK) != 0)
        snprintf(buf, len, "%s: the folder '%s' does not exist", what, dir);
    else if (access(path, F_OK) != 0 && access(dir, W_OK | X_OK) != 0)
        snprintf(buf, len, "%s: cannot create a file in '%s': %s", what, dir, strerror(errno));
    else if (access(path, F_OK) == 0 && access(path, R_OK) != 0)
        snprintf(buf, len, "%s: cannot read it: %s", what, strerror(errno));
    else if (sys != 0)
        snprintf(buf, len, "%s: %s", what, strerror(sys));
    else
        snprintf(buf, len, "%s", what);
}
