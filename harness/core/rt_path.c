#define _POSIX_C_SOURCE 200809L
#include "rt_path.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rt_path_format(char *buf, size_t len, rt_err *err, const char *fmt, ...)
{
    if (!buf || len == 0)
        return rt_err_set(err, "path: no room to build it");
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (n < 0) {
        buf[0] = '\0';
        return rt_err_set(err, "path: cannot format it");
    }
    if ((size_t)n >= len) {
        /* Keep the start for the message, then leave no truncated path behind to be used. */
        const int shown = n < 120 ? n : 120;
        rt_err_set(err, "path too long (%d bytes, at most %zu): %.*s%s", n, len - 1, shown, buf,
                   n > shown ? "..." : "");
        buf[0] = '\0';
        return -1;
    }
    return 0;
}

int rt_path_exe_dir(char *buf, size_t len)
{
    if (!buf || len < 2)
        return -1;
    const ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
    return 0;
}

int rt_path_make_parent(const char *path, rt_err *err)
{
    char dir[PATH_MAX];
    if (rt_path_format(dir, sizeof dir, err, "%s", path) != 0)
        return -1;
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; ++p) {
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0777);
            *p = '/';
        }
    }
    mkdir(dir, 0777);
    return 0;
}

const char *rt_path_tail(const char *path, size_t room, int *cut)
{
    const size_t len = strlen(path);
    *cut = 0;
    if (len <= room)
        return path;
    *cut = 1;
    const size_t keep = room > 4 ? room - 4 : 0;
    const char *tail = path + len - keep;
    const char *slash = strchr(tail, '/');
    return slash ? slash : tail;
}

/* A path in a message ends where a file name cannot go on in practice: blanks, quotes,
 * brackets, separators, and the ':' before a line number. */
static int path_char(char c)
{
    return c && !strchr(" \t\n'\"(),;:", c);
}

void rt_path_fit_text(const char *text, char *out, size_t len)
{
    if (!out || len == 0)
        return;
    const size_t n = strlen(text);
    if (n < len) {
        memcpy(out, text, n + 1);
        return;
    }
    size_t o = 0;
    for (const char *p = text; *p && o + 1 < len;) {
        const int starts = *p == '/' && (p == text || !path_char(p[-1]));
        size_t plen = 0;
        if (starts)
            while (path_char(p[plen]))
                ++plen;
        if (starts && plen > 48) {
            /* the last two parts: back from the end over two '/' */
            size_t keep = plen, slashes = 0;
            while (keep > 0 && slashes < 2)
                if (p[--keep] == '/')
                    ++slashes;
            const int w = snprintf(out + o, len - o, "...%.*s", (int)(plen - keep), p + keep);
            o += w < 0 ? 0 : ((size_t)w < len - o ? (size_t)w : len - o - 1);
            p += plen;
            continue;
        }
        out[o++] = *p++;
    }
    out[o] = '\0';
}
