#include "rt_json.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at p (at most avail bytes), or 0 when it is not one. Rejects
 * overlong forms, surrogates and code points above U+10FFFF, as JSON parsers do. */
static size_t utf8_sequence(const unsigned char *p, size_t avail)
{
    const unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (avail < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t k = 2; k < len; ++k)
        if (p[k] < 0x80 || p[k] > 0xBF)
            return 0;
    return len;
}

int rt_json_escape(const char *s, size_t n, unsigned flags, rt_json_sink sink, void *ctx)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t k = 0;
    while (k < n) {
        const unsigned char c = p[k];
        char esc[6];
        const char *piece = esc;
        size_t len;
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            len = 2;
            ++k;
        } else if (c < 0x20) {
            const char *shortform = NULL;
            if (flags & RT_JSON_SHORT_CONTROLS)
                shortform = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
            if (shortform) {
                piece = shortform;
                len = 2;
            } else {
                memcpy(esc, "\\u00", 4);
                esc[4] = hex[c >> 4];
                esc[5] = hex[c & 15];
                len = 6;
            }
            ++k;
        } else if (flags & RT_JSON_CHECK_UTF8) {
            len = utf8_sequence(p + k, n - k);
            if (len == 0) {
                piece = "\\ufffd";
                len = 6;
                ++k;
            } else {
                piece = s + k;
                k += len;
            }
        } else {
            piece = s + k;
            len = 1;
            ++k;
        }
        if (sink(ctx, piece, len) != 0)
            return 1;
    }
    return 0;
}

/* A bounded buffer: a piece is taken only while it leaves room for the NUL and one byte more. */
typedef struct bounded_buf {
    char *buf;
    size_t len, used;
} bounded_buf;

static int put_bounded(void *ctx, const char *piece, size_t n)
{
    bounded_buf *b = ctx;
    if (b->used + n + 1 >= b->len)
        return 1;
    memcpy(b->buf + b->used, piece, n);
    b->used += n;
    return 0;
}

size_t rt_json_escape_to(const char *s, char *buf, size_t len)
{
    if (len == 0)
        return 0;
    bounded_buf b = {buf, len, 0};
    rt_json_escape(s, strlen(s), 0, put_bounded, &b);
    buf[b.used] = '\0';
    return b.used;
}

static int put_file(void *ctx, const char *piece, size_t n)
{
    fwrite(piece, 1, n, (FILE *)ctx);
    return 0;
}

void rt_json_fputs(FILE *f, const char *s)
{
    fputc('"', f);
    rt_json_escape(s, strlen(s), 0, put_file, f);
    fputc('"', f);
}
