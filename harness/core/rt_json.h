/* rt_json: the one JSON string writer. Every JSON text the project writes (parameters and problems
 * recorded with a point, `rooftune export --format json`, the model-only rows) escapes its strings
 * here: '"' and '\' get a backslash, control characters become \u00XX (or \n, \r, \t with
 * RT_JSON_SHORT_CONTROLS), and with RT_JSON_CHECK_UTF8 a byte that does not start a valid UTF-8
 * sequence becomes \ufffd, so a parser never sees invalid text. */
#ifndef RT_JSON_H
#define RT_JSON_H

#include <stddef.h>
#include <stdio.h>

enum {
    RT_JSON_SHORT_CONTROLS = 1, /* \n, \r, \t instead of \u000a, \u000d, \u0009 */
    RT_JSON_CHECK_UTF8 = 2      /* invalid UTF-8 becomes \ufffd */
};

/* Receives the escaped text piece by piece (an escape sequence is never split); returns nonzero to
 * stop the writer. */
typedef int (*rt_json_sink)(void *ctx, const char *piece, size_t n);

/* Writes the body (without the quotes) of the JSON string for s[0..n) through sink. Returns 0, or
 * 1 when the sink stopped it. */
int rt_json_escape(const char *s, size_t n, unsigned flags, rt_json_sink sink, void *ctx);

/* The escaped body of the C string s into buf (always NUL-terminated when len > 0); a string that
 * does not fit is cut before the first piece that does not fit, never inside an escape. Returns
 * the length written. */
size_t rt_json_escape_to(const char *s, char *buf, size_t len);

/* Writes the C string s to f as a quoted JSON string. */
void rt_json_fputs(FILE *f, const char *s);

#endif
