/* fdopen() and fcntl() are POSIX 2008, beyond C11. */
#define _POSIX_C_SOURCE 200809L

#include "rt_mmio.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rt_infile.h"
#include "rt_memcheck.h"
#include "rt_outfile.h"

typedef enum mm_format { MM_COORDINATE, MM_ARRAY } mm_format;
typedef enum mm_field { MM_REAL, MM_INTEGER, MM_PATTERN } mm_field;
typedef enum mm_symmetry { MM_GENERAL, MM_SYMMETRIC, MM_SKEW } mm_symmetry;

/* Bytes the reader needs per stored entry at its peak: the COO triplet (24), the row-bucketed
 * copy inside rt_csr_from_coo (16) and the final CSR entry (12). */
#define MM_BYTES_PER_ENTRY 52.0
/* Per row: CSR offsets plus the bucket offsets and cursors of rt_csr_from_coo. */
#define MM_BYTES_PER_ROW 24.0
#define MM_MAX_FIELDS    8
/* Lines are read in pieces of MM_CHUNK bytes; a Matrix Market line (a banner, a comment, an entry
 * of three numbers) never comes near MM_LINE_MAX. */
#define MM_CHUNK    4096
#define MM_LINE_MAX (1 << 20)

typedef struct mm_reader {
    FILE *f;
    const char *name;
    double max_bytes; /* memory the reader may use; 0: this host's physical memory */
    char *line;
    size_t cap;
    int64_t lineno;
} mm_reader;

typedef struct mm_header {
    mm_format format;
    mm_field field;
    mm_symmetry symmetry;
    int64_t rows, cols, declared; /* declared: entries the file promises */
    int64_t size_line;
} mm_header;

typedef struct mm_coo {
    int64_t n, cap;
    int64_t *ri, *ci;
    double *v;
} mm_coo;

/* Reads the next line into r->line without its line terminator. *eof is set at end of file.
 * A line is read in pieces of at most MM_CHUNK bytes and may not exceed MM_LINE_MAX, so a file of
 * zero bytes or one endless line fails at its first piece instead of being read whole into
 * memory. fgets stops only at a line break, the end of the file or a full piece: a piece that
 * ends otherwise, or holds nothing at all, hides a NUL byte. */
static int next_line(mm_reader *r, int *eof, rt_err *err)
{
    size_t len = 0;
    *eof = 0;
    for (;;) {
        if (r->cap < len + MM_CHUNK + 1) {
            const size_t cap = len + MM_CHUNK + 1;
            char *grown = realloc(r->line, cap);
            if (!grown)
                return rt_err_set(err, "%s:%" PRId64 ": out of memory reading a line", r->name,
                                  r->lineno + 1);
            r->line = grown;
            r->cap = cap;
        }
        errno = 0;
        if (!fgets(r->line + len, MM_CHUNK + 1, r->f)) {
            if (ferror(r->f))
                return rt_err_set(err, "%s:%" PRId64 ": read error: %s", r->name, r->lineno + 1,
                                  errno ? strerror(errno) : "I/O error");
            if (len == 0) {
                *eof = 1;
                return 0;
            }
            break; /* the last line has no line break */
        }
        const size_t got = strlen(r->line + len);
        const int newline = got > 0 && r->line[len + got - 1] == '\n';
        if (got == 0 || (!newline && got < MM_CHUNK && !feof(r->f)))
            return rt_err_set(err,
                              "%s:%" PRId64 ": line contains a NUL byte (is this a binary file?)",
                              r->name, r->lineno + 1);
        len += got;
        if (newline || feof(r->f))
            break;
        if (len >= MM_LINE_MAX)
            return rt_err_set(err,
                              "%s:%" PRId64 ": line is longer than %d bytes (is this a Matrix "
                              "Market file?)",
                              r->name, r->lineno + 1, MM_LINE_MAX);
    }
    r->lineno++;
    while (len > 0 && (r->line[len - 1] == '\n' || r->line[len - 1] == '\r'))
        r->line[--len] = '\0';
    return 0;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Blank lines and '%' comments carry no data. */
static int is_skippable(const char *s)
{
    while (is_space(*s))
        ++s;
    return *s == '\0' || *s == '%';
}

/* Splits s in place on whitespace; returns the field count (tok holds at most max of them, the
 * count keeps going so that "too many fields" can be reported with the real number). */
static int split_fields(char *s, char **tok, int max)
{
    int n = 0;
    while (*s) {
        while (is_space(*s))
            ++s;
        if (!*s)
            break;
        if (n < max)
            tok[n] = s;
        ++n;
        while (*s && !is_space(*s))
            ++s;
        if (*s)
            *s++ = '\0';
    }
    return n;
}

/* A short, printable excerpt of a line for messages. */
static void excerpt(const char *s, char *out, size_t len)
{
    size_t o = 0;
    for (; *s && o + 4 < len; ++s)
        out[o++] = isprint((unsigned char)*s) ? *s : '?';
    if (*s && o + 4 >= len) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

/* Decimal integer with an optional sign; the whole token must be digits. Hand-written because
 * indices are most of a Matrix Market file and strtoll's locale and base handling was the
 * reader's largest cost after strtod. */
/* True for an optional sign then digits only: a number parse_int64 refuses is then too large. */
static int looks_integer(const char *tok)
{
    const char *p = tok + (*tok == '-' || *tok == '+');
    if (*p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9')
        ++p;
    return *p == '\0';
}

static int parse_int64(const char *tok, int64_t *out)
{
    const char *p = tok;
    const int negative = *p == '-';
    if (*p == '-' || *p == '+')
        ++p;
    if (*p < '0' || *p > '9')
        return -1;
    uint64_t x = 0;
    /* The magnitude may reach 2^63 only for a negative number. */
    const uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *p >= '0' && *p <= '9'; ++p) {
        const uint64_t digit = (uint64_t)(*p - '0');
        if (x > (limit - digit) / 10)
            return -1;
        x = x * 10 + digit;
    }
    if (*p != '\0')
        return -1;
    *out = negative ? (int64_t)(0 - x) : (int64_t)x;
    return 0;
}

static int parse_real(const char *tok, double *out)
{
    char *end = NULL;
    errno = 0;
    const double x = strtod(tok, &end);
    if (end == tok || *end != '\0' || !isfinite(x))
        return -1;
    *out = x;
    return 0;
}

static const char banner_usage[] =
    "'%%MatrixMarket matrix <coordinate|array> <real|integer|pattern> "
    "<general|symmetric|skew-symmetric>'";

static int parse_banner(mm_reader *r, mm_header *h, rt_err *err)
{
    int eof = 0;
    if (next_line(r, &eof, err) != 0)
        return -1;
    if (eof)
        return rt_err_set(err, "%s:1: empty file: expected the Matrix Market banner %s", r->name,
                          banner_usage);
    char shown[80];
    excerpt(r->line, shown, sizeof shown);
    if (strncasecmp(r->line, "%%MatrixMarket", 14) != 0)
        return rt_err_set(err, "%s:1: missing Matrix Market banner: expected %s, found '%s'",
                          r->name, banner_usage, shown);
    char *tok[MM_MAX_FIELDS];
    const int n = split_fields(r->line, tok, MM_MAX_FIELDS);
    if (n != 5 || strcasecmp(tok[0], "%%MatrixMarket") != 0)
        return rt_err_set(err, "%s:1: garbled banner '%s': expected 5 words, %s", r->name, shown,
                          banner_usage);
    if (strcasecmp(tok[1], "matrix") != 0)
        return rt_err_set(err, "%s:1: banner object '%s' is not supported (only 'matrix')", r->name,
                          tok[1]);
    if (strcasecmp(tok[2], "coordinate") == 0)
        h->format = MM_COORDINATE;
    else if (strcasecmp(tok[2], "array") == 0)
        h->format = MM_ARRAY;
    else
        return rt_err_set(err, "%s:1: banner format '%s' is not 'coordinate' or 'array'", r->name,
                          tok[2]);
    if (strcasecmp(tok[3], "real") == 0 || strcasecmp(tok[3], "double") == 0)
        h->field = MM_REAL;
    else if (strcasecmp(tok[3], "integer") == 0)
        h->field = MM_INTEGER;
    else if (strcasecmp(tok[3], "pattern") == 0)
        h->field = MM_PATTERN;
    else if (strcasecmp(tok[3], "complex") == 0)
        return rt_err_set(err,
                          "%s:1: complex matrices are not supported (rooftune kernels are "
                          "real-valued); convert the file to real first",
                          r->name);
    else
        return rt_err_set(err, "%s:1: banner field '%s' is not 'real', 'integer' or 'pattern'",
                          r->name, tok[3]);
    if (strcasecmp(tok[4], "general") == 0)
        h->symmetry = MM_GENERAL;
    else if (strcasecmp(tok[4], "symmetric") == 0)
        h->symmetry = MM_SYMMETRIC;
    else if (strcasecmp(tok[4], "skew-symmetric") == 0)
        h->symmetry = MM_SKEW;
    else if (strcasecmp(tok[4], "hermitian") == 0)
        return rt_err_set(err,
                          "%s:1: hermitian matrices are not supported (they are complex); "
                          "convert the file to real symmetric first",
                          r->name);
    else
        return rt_err_set(err,
                          "%s:1: banner symmetry '%s' is not 'general', 'symmetric' or "
                          "'skew-symmetric'",
                          r->name, tok[4]);
    if (h->field == MM_PATTERN && h->format == MM_ARRAY)
        return rt_err_set(err,
                          "%s:1: 'array pattern' is not a valid combination (a dense array "
                          "has values)",
                          r->name);
    if (h->field == MM_PATTERN && h->symmetry == MM_SKEW)
        return rt_err_set(err,
                          "%s:1: 'pattern skew-symmetric' is not a valid combination (a "
                          "pattern has no signs to flip)",
                          r->name);
    return 0;
}

/* Parses "rows cols nonzeros" (coordinate) or "rows cols" (array) and checks that what it
 * implies fits before anything is allocated. */
static int parse_size_line(mm_reader *r, mm_header *h, rt_err *err)
{
    const int coord = h->format == MM_COORDINATE;
    const char *usage = coord ? "'rows cols nonzeros'" : "'rows cols'";
    int eof = 0;
    do {
        if (next_line(r, &eof, err) != 0)
            return -1;
        if (eof)
            return rt_err_set(err, "%s:%" PRId64 ": file ends before the size line %s", r->name,
                              r->lineno, usage);
    } while (is_skippable(r->line));
    h->size_line = r->lineno;
    char *tok[MM_MAX_FIELDS];
    const int n = split_fields(r->line, tok, MM_MAX_FIELDS);
    const int want = coord ? 3 : 2;
    if (n != want)
        return rt_err_set(err,
                          "%s:%" PRId64 ": size line must be %s (%d numbers), found %d field%s",
                          r->name, r->lineno, usage, want, n, n == 1 ? "" : "s");
    static const char *const names[3] = {"rows", "cols", "nonzeros"};
    int64_t v[3] = {0, 0, 0};
    for (int k = 0; k < want; ++k) {
        if (parse_int64(tok[k], &v[k]) != 0)
            return rt_err_set(err, "%s:%" PRId64 ": size line: %s '%s' is %s", r->name, r->lineno,
                              names[k], tok[k],
                              looks_integer(tok[k]) ? "beyond the 64-bit integer range"
                                                    : "not an integer");
        if (v[k] < 0)
            return rt_err_set(err, "%s:%" PRId64 ": size line: %s = %" PRId64 " is negative",
                              r->name, r->lineno, names[k], v[k]);
    }
    if (v[0] == 0 || v[1] == 0)
        return rt_err_set(err,
                          "%s:%" PRId64 ": size line: a %" PRId64 " x %" PRId64
                          " matrix has nothing to multiply",
                          r->name, r->lineno, v[0], v[1]);
    h->rows = v[0];
    h->cols = v[1];
    if (h->cols > INT32_MAX)
        return rt_err_set(err,
                          "%s:%" PRId64 ": %" PRId64 " columns exceed the limit of %d "
                          "(CSR column indices are 32-bit)",
                          r->name, r->lineno, h->cols, INT32_MAX);
    if (h->rows >= INT64_MAX / 64)
        return rt_err_set(err, "%s:%" PRId64 ": %" PRId64 " rows is beyond any usable size",
                          r->name, r->lineno, h->rows);
    if (h->symmetry != MM_GENERAL && h->rows != h->cols)
        return rt_err_set(err,
                          "%s:%" PRId64 ": a %s matrix must be square, but the size line "
                          "declares %" PRId64 " x %" PRId64,
                          r->name, r->lineno,
                          h->symmetry == MM_SKEW ? "skew-symmetric" : "symmetric", h->rows,
                          h->cols);
    /* Sizes are multiplied in double: exact enough to compare with memory, and cannot wrap. */
    double entries;
    if (coord) {
        h->declared = v[2];
        entries = (double)h->declared;
    } else {
        const double m = (double)h->rows, nn = (double)h->cols;
        entries = h->symmetry == MM_GENERAL     ? m * nn
                  : h->symmetry == MM_SYMMETRIC ? nn * (nn + 1) / 2
                                                : nn * (nn - 1) / 2;
        if (entries > (double)(INT64_MAX / 4))
            return rt_err_set(err,
                              "%s:%" PRId64 ": a dense %" PRId64 " x %" PRId64 " array is beyond "
                              "any usable size",
                              r->name, r->lineno, h->rows, h->cols);
        h->declared = (int64_t)entries;
    }
    const double stored = h->symmetry == MM_GENERAL ? entries : 2.0 * entries;
    char what[160];
    snprintf(what, sizeof what, "a %" PRId64 " x %" PRId64 " matrix with %" PRId64 " %s", h->rows,
             h->cols, h->declared, coord ? "declared nonzeros" : "array entries");
    if (rt_memcheck_fits_within(stored * MM_BYTES_PER_ENTRY +
                                    ((double)h->rows + 1) * MM_BYTES_PER_ROW,
                                r->max_bytes, what, err) != 0)
        return rt_err_prefix(err, "%s:%" PRId64 ": size line refused", r->name, r->lineno);
    return 0;
}

static int coo_init(mm_coo *c, double capacity, const mm_reader *r, rt_err *err)
{
    memset(c, 0, sizeof *c);
    const int64_t cap = (int64_t)capacity;
    const size_t count = cap > 0 ? (size_t)cap : 1;
    c->ri = malloc(count * sizeof *c->ri);
    c->ci = malloc(count * sizeof *c->ci);
    c->v = malloc(count * sizeof *c->v);
    if (!c->ri || !c->ci || !c->v) {
        free(c->ri);
        free(c->ci);
        free(c->v);
        memset(c, 0, sizeof *c);
        return rt_err_set(err,
                          "%s: out of memory: cannot allocate %zu bytes for %" PRId64 " entries",
                          r->name, count * (2 * sizeof(int64_t) + sizeof(double)), cap);
    }
    c->cap = cap;
    return 0;
}

static void coo_free(mm_coo *c)
{
    free(c->ri);
    free(c->ci);
    free(c->v);
    memset(c, 0, sizeof *c);
}

/* Room for one more entry line: the entry, and its mirror for the symmetric kinds. The capacity is
 * the declared count, or, for a regular file, the entry lines the rest of the file can hold
 * (entries_that_fit) when that is smaller: both bound what read_entries accepts, so this never
 * fails; it guards the writes in coo_add should either bound ever be computed wrongly. */
static int coo_has_room(const mm_coo *c, const mm_header *h, const mm_reader *r, rt_err *err)
{
    const int64_t need = h->symmetry == MM_GENERAL ? 1 : 2;
    if (c->n + need <= c->cap)
        return 0;
    return rt_err_set(err, "%s:%" PRId64 ": more entries than the %" PRId64 " reserved for them",
                      r->name, r->lineno, c->cap);
}

/* Adds (i, j, x) and, for the symmetric kinds, its mirror (reserved for both). */
static void coo_add(mm_coo *c, const mm_header *h, int64_t i, int64_t j, double x)
{
    c->ri[c->n] = i;
    c->ci[c->n] = j;
    c->v[c->n] = x;
    c->n++;
    if (h->symmetry != MM_GENERAL && i != j) {
        c->ri[c->n] = j;
        c->ci[c->n] = i;
        c->v[c->n] = h->symmetry == MM_SKEW ? -x : x;
        c->n++;
    }
}

static int parse_value(const mm_reader *r, const mm_header *h, const char *tok, double *x,
                       rt_err *err)
{
    if (h->field == MM_INTEGER) {
        int64_t k;
        if (parse_int64(tok, &k) != 0)
            return rt_err_set(err,
                              "%s:%" PRId64 ": value '%s' is not an integer (the banner says "
                              "'integer')",
                              r->name, r->lineno, tok);
        *x = (double)k;
        return 0;
    }
    if (parse_real(tok, x) != 0)
        return rt_err_set(err, "%s:%" PRId64 ": value '%s' is not a finite real number", r->name,
                          r->lineno, tok);
    return 0;
}

static int parse_index(const mm_reader *r, const char *what, const char *tok, int64_t bound,
                       int64_t *out, rt_err *err)
{
    int64_t k;
    if (parse_int64(tok, &k) != 0)
        return rt_err_set(err, "%s:%" PRId64 ": %s index '%s' is not an integer", r->name,
                          r->lineno, what, tok);
    if (k < 1 || k > bound)
        return rt_err_set(err, "%s:%" PRId64 ": %s index %" PRId64 " is outside 1..%" PRId64 "%s",
                          r->name, r->lineno, what, k, bound,
                          k == 0 ? " (Matrix Market indices start at 1)"
                                 : " (the size declared on the size line)");
    *out = k - 1;
    return 0;
}

/* Reads the entry lines; stops with an error at the first line that is not what it should be. */
static int read_entries(mm_reader *r, const mm_header *h, mm_coo *c, rt_err *err)
{
    const int coord = h->format == MM_COORDINATE;
    const int want = coord ? (h->field == MM_PATTERN ? 2 : 3) : 1;
    const char *usage =
        coord ? (h->field == MM_PATTERN ? "'row col'" : "'row col value'") : "'value'";
    /* Array order: column by column; symmetric arrays store the lower triangle only. */
    int64_t ai = h->symmetry == MM_SKEW ? 1 : 0, aj = 0;
    int64_t seen = 0;
    for (;;) {
        int eof = 0;
        if (next_line(r, &eof, err) != 0)
            return -1;
        if (eof)
            break;
        if (is_skippable(r->line))
            continue;
        if (seen == h->declared) {
            char shown[80];
            excerpt(r->line, shown, sizeof shown);
            return rt_err_set(err,
                              "%s:%" PRId64 ": more entries than the %" PRId64 " declared on "
                              "line %" PRId64 " (found '%s' after the last one)",
                              r->name, r->lineno, h->declared, h->size_line, shown);
        }
        char *tok[MM_MAX_FIELDS];
        const int n = split_fields(r->line, tok, MM_MAX_FIELDS);
        if (n != want)
            return rt_err_set(err, "%s:%" PRId64 ": expected %d field%s %s, found %d", r->name,
                              r->lineno, want, want == 1 ? "" : "s", usage, n);
        if (coo_has_room(c, h, r, err) != 0)
            return -1;
        double x = 1.0;
        if (coord) {
            int64_t i = 0, j = 0; /* set by parse_index; = 0 quiets -O3 -Wmaybe-uninitialized */
            if (parse_index(r, "row", tok[0], h->rows, &i, err) != 0 ||
                parse_index(r, "column", tok[1], h->cols, &j, err) != 0)
                return -1;
            if (h->field != MM_PATTERN && parse_value(r, h, tok[2], &x, err) != 0)
                return -1;
            if (h->symmetry == MM_SKEW && i == j && x != 0.0)
                return rt_err_set(err,
                                  "%s:%" PRId64 ": skew-symmetric matrix has a nonzero "
                                  "diagonal entry (%" PRId64 ", %" PRId64 ") = %g; its diagonal "
                                  "must be zero",
                                  r->name, r->lineno, i + 1, j + 1, x);
            coo_add(c, h, i, j, x);
        } else {
            if (parse_value(r, h, tok[0], &x, err) != 0)
                return -1;
            if (x != 0.0)
                coo_add(c, h, ai, aj, x);
            if (++ai == h->rows) {
                ++aj;
                ai = h->symmetry == MM_GENERAL ? 0 : h->symmetry == MM_SYMMETRIC ? aj : aj + 1;
            }
        }
        ++seen;
    }
    if (seen < h->declared)
        return rt_err_set(err,
                          "%s:%" PRId64 ": file ends after %" PRId64 " of the %" PRId64
                          " entries declared on line %" PRId64 " (truncated file?)",
                          r->name, r->lineno, seen, h->declared, h->size_line);
    return 0;
}

/* The most entry lines the rest of a regular file can hold: an entry of `fields` numbers takes at
 * least 2 * fields - 1 bytes plus a line break. -1 when the stream's length is unknown. */
static double entries_that_fit(FILE *f, int fields)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        return -1.0;
    const off_t at = ftello(f);
    if (at < 0 || at > st.st_size)
        return -1.0;
    return ((double)(st.st_size - at) + 1.0) / (2.0 * fields);
}

int rt_mmio_read_stream(FILE *f, const char *name, rt_csr *out, rt_err *err)
{
    return rt_mmio_read_stream_within(f, name, 0.0, out, err);
}

int rt_mmio_read_stream_within(FILE *f, const char *name, double max_bytes, rt_csr *out,
                               rt_err *err)
{
    memset(out, 0, sizeof *out);
    mm_reader r = {.f = f, .name = name ? name : "(stream)", .max_bytes = max_bytes};
    mm_header h;
    memset(&h, 0, sizeof h);
    mm_coo c;
    memset(&c, 0, sizeof c);
    int rc = -1;
    if (parse_banner(&r, &h, err) != 0 || parse_size_line(&r, &h, err) != 0)
        goto done;
    const int fields = h.format == MM_ARRAY ? 1 : h.field == MM_PATTERN ? 2 : 3;
    const double room = entries_that_fit(f, fields);
    const double lines = room >= 0.0 && room < (double)h.declared ? room : (double)h.declared;
    const double capacity = h.symmetry == MM_GENERAL ? lines : 2.0 * lines;
    if (coo_init(&c, capacity, &r, err) != 0 || read_entries(&r, &h, &c, err) != 0)
        goto done;
    if (rt_csr_from_coo(out, h.rows, h.cols, c.n, c.ri, c.ci, c.v, err) != 0) {
        rt_err_prefix(err, "%s", r.name);
        goto done;
    }
    rc = 0;
done:
    coo_free(&c);
    free(r.line);
    return rc;
}

int rt_mmio_read(const char *path, rt_csr *out, rt_err *err)
{
    return rt_mmio_read_within(path, 0.0, out, err);
}

int rt_mmio_read_within(const char *path, double max_bytes, rt_csr *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    /* A regular file only: a FIFO without a writer would block forever, and the reader sizes
     * its arrays by what the rest of the file can hold. */
    int fd = -1;
    int64_t size = 0;
    if (rt_infile_open(path, "a Matrix Market file", &fd, &size, err) != 0)
        return -1;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return rt_err_set(err, "%s: cannot open Matrix Market file: %s", path, strerror(errno));
    }
    const int rc = rt_mmio_read_stream_within(f, path, max_bytes, out, err);
    fclose(f);
    return rc;
}

int rt_mmio_write_stream(FILE *f, const char *name, const rt_csr *m, rt_err *err)
{
    if (rt_csr_validate(m, err) != 0)
        return rt_err_prefix(err, "%s: refusing to write an invalid matrix", name);
    /* A NaN or infinity would make a file that no reader (this one included) accepts; check
     * before writing anything so a refused matrix leaves no half-written file behind. */
    for (int64_t r = 0; r < m->rows; ++r)
        for (int64_t k = m->rowptr[r]; k < m->rowptr[r + 1]; ++k)
            if (!isfinite(m->val[k]))
                return rt_err_set(err,
                                  "%s: entry (%" PRId64 ", %" PRId32 ") is %g; Matrix Market "
                                  "values must be finite",
                                  name, r + 1, m->colidx[k] + 1, m->val[k]);
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% written by rooftune\n");
    fprintf(f, "%" PRId64 " %" PRId64 " %" PRId64 "\n", m->rows, m->cols, m->nnz);
    for (int64_t r = 0; r < m->rows; ++r)
        for (int64_t k = m->rowptr[r]; k < m->rowptr[r + 1]; ++k)
            fprintf(f, "%" PRId64 " %" PRId32 " %.17g\n", r + 1, m->colidx[k] + 1, m->val[k]);
    if (fflush(f) != 0 || ferror(f))
        return rt_err_set(err, "%s: write failed: %s", name, strerror(errno));
    return 0;
}

int rt_mmio_write(const char *path, const rt_csr *m, rt_err *err)
{
    /* Written whole or not at all (rt_outfile): a refused matrix or a full disk leaves no file. */
    rt_outfile o;
    if (rt_outfile_open(&o, path, err) != 0)
        return rt_err_prefix(err, "Matrix Market file");
    if (rt_mmio_write_stream(o.f, path, m, err) != 0 && !o.write_errno) {
        rt_outfile_abort(&o); /* a matrix refused before anything was written */
        return -1;
    }
    return rt_outfile_commit(&o, err); /* a write that failed is reported here, with its reason */
}
