/* rt_error: explicit error returns that carry a message.
 *
 * Every fallible function in rooftune returns int (0 on success, -1 on failure) and takes an
 * rt_err* last; on failure it fills err->msg with a sentence a user can act on (naming the file,
 * line, parameter or rank at fault). Callers add context with rt_err_prefix as the error travels
 * up, so the message that reaches main reads "config.yaml:12:5: kernels[0].params: ...". */
#ifndef RT_ERROR_H
#define RT_ERROR_H

#include <stddef.h>

#define RT_ERR_MSG_MAX 2048

typedef struct rt_err {
    char msg[RT_ERR_MSG_MAX];
} rt_err;

/* Clears the message. */
void rt_err_clear(rt_err *err);

/* Formats the message (printf-style) and returns -1, so a failing path can `return
 * rt_err_set(...)`. err may be NULL (the message is then dropped). */
int rt_err_set(rt_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prepends formatted context and ": " to an existing message; returns -1. */
int rt_err_prefix(rt_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
