#include "rt_path.h"

#include <stdarg.h>
#include <stdio.h>

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
