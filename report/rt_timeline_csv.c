/* rt_timeline_csv: the timeline's CSV, written and read back; see rt_timeline_csv.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_timeline_csv.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "rt_csv.h"
#include "rt_infile.h"
#include "rt_outfile.h"

#define N_FIELDS 8
/* A row is eight short fields; a longer line is not one (a binary file, a CSV of something else).
 */
#define LINE_MAX_BYTES 1024

static const char *const field_names[N_FIELDS] = {"point", "device",   "stream", "kind",
                                                  "name",  "start_ns", "end_ns", "bytes"};

void rt_timeline_csv_write(FILE *f, const rt_timeline_list *l)
{
    fprintf(f, "%s\n", RT_TIMELINE_CSV_HEADER);
    for (int64_t i = 0; i < l->n; ++i) {
        const rt_timeline_record *r = &l->v[i];
        rt_csv_text(f, r->point);
        fprintf(f, ",%d,%u,%s,", r->device, (unsigned)r->stream, rt_timeline_kind_name(r->kind));
        rt_csv_text(f, r->name);
        fprintf(f, ",%llu,%llu,%llu\n", (unsigned long long)r->start_ns,
                (unsigned long long)r->end_ns, (unsigned long long)r->bytes);
    }
}

int rt_timeline_csv_save(const char *path, const rt_timeline_list *l, rt_err *err)
{
    rt_outfile o = RT_OUTFILE_NONE;
    if (rt_outfile_open(&o, path, err) != 0)
        return rt_err_prefix(err, "timeline");
    rt_timeline_csv_write(o.f, l);
    if (rt_outfile_commit(&o, err) != 0)
        return rt_err_prefix(err, "timeline");
    return 0;
}

/* Splits line (no line break) into N_FIELDS fields in place, RFC 4180 quoting undone. Returns the
 * number of fields found (more than N_FIELDS counts as N_FIELDS + 1), or -1 when a quoted field is
 * not closed or text follows its closing quote. */
static int split(char *line, char *field[N_FIELDS])
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *start = p, *out = p;
        if (*p == '"') {
            ++p;
            for (;;) {
                if (*p == '\0')
                    return -1;
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    ++p;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            if (*p != ',' && *p != '\0')
                return -1;
        } else {
            while (*p != ',' && *p != '\0')
                ++p;
            out = p;
        }
        const char end = *p;
        *out = '\0';
        if (n < N_FIELDS)
            field[n] = start;
        ++n;
        if (end == '\0')
            break;
        ++p;
    }
    return n > N_FIELDS ? N_FIELDS + 1 : n;
}

/* A decimal number in [0, max], digits only. */
static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
    if (!s[0] || strspn(s, "0123456789") != strlen(s) || strlen(s) > 20)
        return -1;
    errno = 0;
    const unsigned long long x = strtoull(s, NULL, 10);
    if (errno == ERANGE || x > max)
        return -1;
    *v = (uint64_t)x;
    return 0;
}

/* One row into r; err says which column is wrong and why (the caller adds path:line). */
static int parse_row(char *line, rt_timeline_record *r, rt_err *err)
{
    char *f[N_FIELDS];
    const int n = split(line, f);
    if (n < 0)
        return rt_err_set(err, "a quoted field is not closed, or text follows its closing quote");
    if (n != N_FIELDS)
        return rt_err_set(err, "%s%d field(s), expected %d (%s)", n > N_FIELDS ? "more than " : "",
                          n > N_FIELDS ? N_FIELDS : n, N_FIELDS, RT_TIMELINE_CSV_HEADER);
    memset(r, 0, sizeof *r);
    if (strlen(f[0]) >= sizeof r->point)
        return rt_err_set(err, "column point: '%.40s...' is longer than a point key", f[0]);
    snprintf(r->point, sizeof r->point, "%s", f[0]);
    uint64_t v[4];
    const int cols[4] = {1, 2, 5, 6};
    const uint64_t max[4] = {RT_TIMELINE_DEVICE_MAX, UINT32_MAX, UINT64_MAX, UINT64_MAX};
    for (int k = 0; k < 4; ++k)
        if (parse_u64(f[cols[k]], max[k], &v[k]) != 0)
            return rt_err_set(err, "column %s: '%.40s' is not a whole number from 0 to %llu",
                              field_names[cols[k]], f[cols[k]], (unsigned long long)max[k]);
    if (parse_u64(f[7], UINT64_MAX, &r->bytes) != 0)
        return rt_err_set(err, "column bytes: '%.40s' is not a whole number of bytes", f[7]);
    if (rt_timeline_kind_parse(f[3], &r->kind) != 0)
        return rt_err_set(err, "column kind: '%.40s' is none of kernel, h2d, d2h, d2d, p2p", f[3]);
    r->device = (int)v[0];
    r->stream = (uint32_t)v[1];
    r->start_ns = v[2];
    r->end_ns = v[3];
    if (r->end_ns < r->start_ns)
        return rt_err_set(err, "end_ns %llu is before start_ns %llu", (unsigned long long)v[3],
                          (unsigned long long)v[2]);
    rt_timeline_set_name(r->name, f[4]);
    return 0;
}

int rt_timeline_csv_load(const char *path, rt_timeline_list *l, rt_err *err)
{
    int fd = -1;
    int64_t size = 0;
    if (rt_infile_open(path, "a timeline CSV", &fd, &size, err) != 0)
        return -1;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        const int e = errno;
        close(fd);
        return rt_err_set(err, "cannot read %s: %s", path, strerror(e));
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int rc = 0;
    ssize_t len;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        ++lineno;
        if ((size_t)len != strlen(line)) {
            rc = rt_err_set(err, "%s:%ld: a NUL byte: not a timeline CSV", path, lineno);
            break;
        }
        if (len > LINE_MAX_BYTES) {
            rc = rt_err_set(err,
                            "%s:%ld: a line of %zd bytes, longer than a timeline record "
                            "can be (%d): not a timeline CSV",
                            path, lineno, len, LINE_MAX_BYTES);
            break;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (lineno == 1) {
            for (ssize_t k = 0; k < len; ++k) /* quoted below: keep the message printable */
                line[k] = line[k] < 0x20 || line[k] > 0x7e ? '?' : line[k];
            if (strcmp(line, RT_TIMELINE_CSV_HEADER) != 0)
                rc =
                    rt_err_set(err, "%s:1: not a timeline CSV: the first line is '%.60s', not '%s'",
                               path, line, RT_TIMELINE_CSV_HEADER);
            continue;
        }
        if (len == 0)
            continue; /* a blank line (an editor's last line) holds no record */
        rt_timeline_record r;
        if (parse_row(line, &r, err) != 0 || rt_timeline_add(l, &r, err) != 0)
            rc = rt_err_prefix(err, "%s:%ld", path, lineno);
    }
    if (rc == 0 && ferror(f))
        rc = rt_err_set(err, "cannot read %s: %s", path, strerror(errno));
    if (rc == 0 && lineno == 0)
        rc = rt_err_set(err, "%s is empty: not a timeline CSV (no header '%s')", path,
                        RT_TIMELINE_CSV_HEADER);
    free(line);
    fclose(f);
    return rc;
}
