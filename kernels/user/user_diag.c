#define _GNU_SOURCE
#include "user_diag.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "rt_path.h"

void user_diag_rewrite(const char *text, const char *source, char *out, size_t len)
{
    const size_t slen = strlen(source);
    size_t o = 0;
    for (const char *p = text; *p && o + 1 < len;) {
        if (slen > 0 && strncmp(p, source, slen) == 0 && p[slen] == '(' &&
            isdigit((unsigned char)p[slen + 1])) {
            const char *q = p + slen + 1;
            while (isdigit((unsigned char)*q))
                ++q;
            if (*q == ')') {
                const int w = snprintf(out + o, len - o, "%s:%.*s", source,
                                       (int)(q - (p + slen + 1)), p + slen + 1);
                if (w < 0 || (size_t)w >= len - o)
                    break;
                o += (size_t)w;
                p = q + 1;
                continue;
            }
        }
        out[o++] = *p++;
    }
    out[o < len ? o : len - 1] = '\0';
}

void user_diag_errors(const char *log, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *line = log; *line && used + 1 < len;) {
        const char *end = strchr(line, '\n');
        const size_t n = end ? (size_t)(end - line) : strlen(line);
        if (memmem(line, n, "error", 5) || memmem(line, n, "undefined reference", 19)) {
            const int w =
                snprintf(out + used, len - used, "%s%.*s", used ? "; " : "", (int)n, line);
            if (w < 0)
                break;
            used += (size_t)w < len - used ? (size_t)w : len - used - 1;
        }
        line = end ? end + 1 : line + n;
    }
    if (!out[0])
        snprintf(out, len, "%.*s", (int)(len > 300 ? 300 : len - 1), log);
}

void user_diag_nvrtc(const char *source, const char *msg, char *out, size_t len)
{
    char rewritten[4096], lines[1024];
    user_diag_rewrite(msg, source, rewritten, sizeof rewritten);
    /* The log follows NVRTC's error name; before it is rooftune's own description. A message
     * without one is not a compile error (the module did not load, the entry is not in it). */
    const char *log = strstr(rewritten, "NVRTC_ERROR");
    if (!log) {
        snprintf(out, len, "%s", rewritten);
        return;
    }
    user_diag_errors(log, lines, sizeof lines);
    /* a deep checkout's path, named in the heading and in every error line, must not push the
     * line number and the error past the reason's end */
    char whole[sizeof lines + 4200];
    snprintf(whole, sizeof whole, "NVRTC could not compile %s: %s", source, lines);
    rt_path_fit_text(whole, out, len);
}
