/* rt_recorded_keys: a scan for duplicate object keys; see rt_recorded_keys.h. */
#include "rt_recorded_keys.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One key of an open object: its decoded text (in the arena) and where it was. */
typedef struct key_ref {
    size_t off, len; /* decoded text: arena[off .. off + len) */
    size_t at;       /* byte offset of the key in the JSON text */
} key_ref;

/* Open containers: for an object, the keys seen so far are keys[first .. n_keys); everything
 * the arena holds from arena_at on belongs to this container and goes when it closes. */
typedef struct frame {
    int is_object;
    size_t first, arena_at;
} frame;

typedef struct scan {
    const char *text;
    size_t len;
    frame *frames;
    size_t n_frames, cap_frames;
    key_ref *keys;
    size_t n_keys, cap_keys;
    char *arena;
    size_t n_arena, cap_arena;
} scan;

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t cap2 = *cap ? 2 * *cap : 64;
    while (cap2 < need)
        cap2 *= 2;
    void *q = realloc(*p, cap2 * size);
    if (!q)
        return -1;
    *p = q;
    *cap = cap2;
    return 0;
}

static int put_byte(scan *s, char c)
{
    if (grow((void **)&s->arena, &s->cap_arena, s->n_arena + 1, 1) != 0)
        return -1;
    s->arena[s->n_arena++] = c;
    return 0;
}

/* UTF-8 of a code point (surrogates and all, as they stand: equal escapes give equal bytes). */
static int put_code(scan *s, uint32_t c)
{
    if (c < 0x80)
        return put_byte(s, (char)c);
    if (c < 0x800)
        return put_byte(s, (char)(0xC0 | (c >> 6))) || put_byte(s, (char)(0x80 | (c & 0x3F)));
    return put_byte(s, (char)(0xE0 | (c >> 12))) || put_byte(s, (char)(0x80 | ((c >> 6) & 0x3F))) ||
           put_byte(s, (char)(0x80 | (c & 0x3F)));
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The string starting at text[*i] (its opening quote); decoded into the arena when keep. */
static int read_string(scan *s, size_t *i, int keep)
{
    const char quote = s->text[*i];
    size_t k = *i + 1;
    while (k < s->len && s->text[k] != quote) {
        char c = s->text[k];
        if (c == '\\' && k + 1 < s->len) {
            const char e = s->text[++k];
            uint32_t code = (unsigned char)e;
            switch (e) {
            case 'b': code = '\b'; break;
            case 'f': code = '\f'; break;
            case 'n': code = '\n'; break;
            case 'r': code = '\r'; break;
            case 't': code = '\t'; break;
            case 'u':
                code = 0;
                for (int h = 0; h < 4 && k + 1 < s->len && hex_value(s->text[k + 1]) >= 0; ++h)
                    code = code * 16 + (uint32_t)hex_value(s->text[++k]);
                break;
            default: break; /* \" \\ \/ and json-c's lenient others: the character itself */
            }
            if (keep && put_code(s, code) != 0)
                return -1;
        } else if (keep && put_byte(s, c) != 0) {
            return -1;
        }
        ++k;
    }
    *i = k + 1; /* past the closing quote */
    return 0;
}

static int key_cmp(const scan *s, const key_ref *a, const key_ref *b)
{
    const size_t n = a->len < b->len ? a->len : b->len;
    const int c = memcmp(s->arena + a->off, s->arena + b->off, n);
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

/* Sorts the object's keys in place (a shell sort: qsort's comparator could not see the arena)
 * and compares neighbours. */
static int check_object(scan *s, const char *path, size_t first, rt_err *err)
{
    const size_t n = s->n_keys - first;
    if (n < 2)
        return 0;
    key_ref *k = s->keys + first;
    for (size_t gap = n / 2; gap > 0; gap /= 2)
        for (size_t i = gap; i < n; ++i) {
            const key_ref t = k[i];
            size_t j = i;
            for (; j >= gap && key_cmp(s, &k[j - gap], &t) > 0; j -= gap)
                k[j] = k[j - gap];
            k[j] = t;
        }
    for (size_t i = 1; i < n; ++i)
        if (key_cmp(s, &k[i - 1], &k[i]) == 0) {
            const size_t a = k[i - 1].at < k[i].at ? k[i - 1].at : k[i].at;
            const size_t b = k[i - 1].at < k[i].at ? k[i].at : k[i - 1].at;
            char name[80];
            size_t m = 0;
            for (size_t c = 0; c < k[i].len && m + 4 < sizeof name; ++c) {
                const char ch = s->arena[k[i].off + c];
                name[m++] = ch >= 0x20 && ch < 0x7f ? ch : '?';
            }
            name[m] = '\0';
            return rt_err_set(err,
                              "%s: key \"%s\"%s appears twice in one object (at bytes %zu and "
                              "%zu); a JSON reader would keep only the last one",
                              path, name, m < k[i].len ? "..." : "", a, b);
        }
    return 0;
}

int rt_recorded_check_keys(const char *path, const char *text, size_t len, rt_err *err)
{
    scan s = {.text = text, .len = len};
    int rc = 0, oom = 0, expect_key = 0;
    size_t i = 0;
    while (rc == 0 && i < len) {
        const char c = text[i];
        if (c == '/' && i + 1 < len && text[i + 1] == '/') {
            while (i < len && text[i] != '\n')
                ++i;
        } else if (c == '/' && i + 1 < len && text[i + 1] == '*') {
            i += 2;
            while (i + 1 < len && !(text[i] == '*' && text[i + 1] == '/'))
                ++i;
            i += 2;
        } else if (c == '{' || c == '[') {
            if (grow((void **)&s.frames, &s.cap_frames, s.n_frames + 1, sizeof *s.frames) != 0) {
                rc = oom = -1;
                break;
            }
            s.frames[s.n_frames++] = (frame){c == '{', s.n_keys, s.n_arena};
            expect_key = c == '{';
            ++i;
        } else if (c == '}' || c == ']') {
            if (s.n_frames > 0) {
                const frame f = s.frames[--s.n_frames];
                if (f.is_object)
                    rc = check_object(&s, path, f.first, err);
                s.n_keys = f.first; /* the container's keys are done with */
                s.n_arena = f.arena_at;
            }
            expect_key = 0;
            ++i;
        } else if (c == ',') {
            expect_key = s.n_frames > 0 && s.frames[s.n_frames - 1].is_object;
            ++i;
        } else if (c == ':') {
            expect_key = 0;
            ++i;
        } else if (c == '"' || c == '\'') {
            const int is_key = expect_key;
            const size_t at = i, off = s.n_arena;
            if (read_string(&s, &i, is_key) != 0) {
                rc = oom = -1;
                break;
            }
            if (is_key) {
                if (grow((void **)&s.keys, &s.cap_keys, s.n_keys + 1, sizeof *s.keys) != 0) {
                    rc = oom = -1;
                    break;
                }
                s.keys[s.n_keys++] = (key_ref){off, s.n_arena - off, at};
            }
            expect_key = 0;
        } else {
            ++i; /* whitespace, numbers, bare words */
        }
    }
    if (oom)
        rt_err_set(err, "%s: out of memory checking the JSON's keys", path);
    free(s.frames);
    free(s.keys);
    free(s.arena);
    return rc;
}
