#include "rt_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void rt_err_clear(rt_err *err)
{
    if (err)
        err->msg[0] = '\0';
}

int rt_err_set(rt_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int rt_err_prefix(rt_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char prefix[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char old[RT_ERR_MSG_MAX];
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
    return -1;
}
