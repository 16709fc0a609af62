/* user_diag: compiler messages about a user's source, made to point at the user's file:line.
 *
 * NVRTC names a line as "path(12): error: ..."; rooftune rewrites it as "path:12: error: ..."
 * (the form editors and cc use) and keeps the lines that say what stopped the build, so a point's
 * reason (512 characters in the store) carries them rather than the log's boilerplate. */
#ifndef USER_DIAG_H
#define USER_DIAG_H

#include <stddef.h>

/* Rewrites every "<source>(N): " of text into "<source>:N: " (into out, len bytes). */
void user_diag_rewrite(const char *text, const char *source, char *out, size_t len);

/* The error lines of a compiler's log, joined by "; " (the first len - 1 characters); the log's
 * start when it has none. */
void user_diag_errors(const char *log, char *out, size_t len);

/* What a point's reason says of a failure to get a CUDA variant: for an NVRTC error
 * (rt_cuda_nvrtc.h's message) the user's file:line and the error lines, "NVRTC could not compile
 * <source>: <errors>"; any other failure (a module that does not load, an entry it lacks) as it
 * is. */
void user_diag_nvrtc(const char *source, const char *msg, char *out, size_t len);

#endif
