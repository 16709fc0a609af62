/* rt_csv: RFC 4180 fields and safe appends; see rt_csv.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_csv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void rt_csv_field(FILE *f, const char *s, size_t n)
{
    int needs_quotes = 0;
    for (size_t k = 0; k < n && !needs_quotes; ++k)
        needs_quotes = s[k] == ',' || s[k] == '"' || s[k] == '\r' || s[k] == '\n';
    if (!needs_quotes) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t k = 0; k < n; ++k) {
        if (s[k] == '"')
            fputc('"', f);
        fputc(s[k], f);
    }
    fputc('"', f);
}

void rt_csv_text(FILE *f, const char *s)
{
    rt_csv_field(f, s, strlen(s));
}

/* The whole of an existing regular file, or *len = 0 with *text NULL when there is none. */
static int read_existing(const char *path, char **text, size_t *len, int *refused, rt_err *err)
{
    *text = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : rt_err_set(err, "cannot read %s: %s", path, strerror(errno));
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0) {
        rc = rt_err_set(err, "cannot read %s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        /* a device or a FIFO: nothing to keep, the rows are written to it as they come */
    } else if (st.st_size > RT_CSV_APPEND_MAX_BYTES) {
        *refused = 1;
        rc = rt_err_set(err, "%s holds %lld bytes, more than the %lld a CSV to append to may hold",
                        path, (long long)st.st_size, RT_CSV_APPEND_MAX_BYTES);
    } else if (st.st_size > 0) {
        char *buf = malloc((size_t)st.st_size + 1);
        size_t got = 0;
        while (buf && got < (size_t)st.st_size) {
            const ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        if (!buf)
            rc = rt_err_set(err, "out of memory reading %s", path);
        else if (got != (size_t)st.st_size)
            rc = rt_err_set(err, "cannot read %s: it changed while being read", path);
        if (rc != 0) {
            free(buf);
        } else {
            buf[got] = '\0';
            *text = buf;
            *len = got;
        }
    }
    close(fd);
    return rc;
}

/* Quotes the start of a first line for a message: printable ASCII only, cut at 60 characters. */
static void excerpt(const char *s, size_t n, char *out, size_t len)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 4 < len && i < 60; ++i)
        out[k++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    if (n > 60 && k + 4 < len) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
}

int rt_csv_append_open(rt_outfile *o, const char *path, const char *header, int *refused,
                       rt_err *err)
{
    *refused = 0;
    o->f = NULL;
    char *old = NULL;
    size_t len = 0;
    if (read_existing(path, &old, &len, refused, err) != 0)
        return -1;
    if (old) {
        const char *nl = memchr(old, '\n', len);
        size_t first = nl ? (size_t)(nl - old) : len;
        if (first > 0 && old[first - 1] == '\r')
            --first;
        const int same = nl && first == strlen(header) && memcmp(old, header, first) == 0;
        if (!same || memchr(old, '\0', len) || old[len - 1] != '\n') {
            char quoted[80];
            excerpt(old, first, quoted, sizeof quoted);
            *refused = 1;
            if (same)
                rt_err_set(err,
                           "%s is not a whole CSV (a NUL byte, or no line break at its end); "
                           "refusing to append to it",
                           path);
            else
                rt_err_set(err,
                           "%s is not a CSV of this command (its first line is '%s', not this "
                           "command's header); refusing to append to it: name a new file",
                           path, quoted);
            free(old);
            return -1;
        }
    }
    if (rt_outfile_open(o, path, err) != 0) {
        free(old);
        return -1;
    }
    if (old)
        fwrite(old, 1, len, o->f);
    else
        fprintf(o->f, "%s\n", header);
    free(old);
    return 0;
}
