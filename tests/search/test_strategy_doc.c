/* The strategy section of docs/guides/tuning.md is the strategy table's own description
 * (rt_strategy_describe, Markdown): this test fails when the page and the table disagree, and
 * `test_strategy_doc DOC --write` rewrites the section between its two markers from the table. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_strategy_table.h"
#include "rt_test.h"

#define BEGIN                                                                                      \
    "<!-- strategies: begin (written from harness/search by test_strategy_doc --write) -->\n"
#define END "<!-- strategies: end -->\n"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    char chunk[4096];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (n + got + 1 > cap) {
            cap = 2 * (n + got + 1);
            char *grown = realloc(buf, cap);
            if (!grown) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = grown;
        }
        memcpy(buf + n, chunk, got);
        n += got;
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_strategy_doc docs/guides/tuning.md [--write]\n");
        return 2;
    }
    size_t len = 0;
    char *doc = slurp(argv[1], &len);
    RT_CHECK_MSG(doc != NULL, "cannot read %s", argv[1]);
    if (!doc)
        return RT_TEST_RESULT();
    char *begin = strstr(doc, BEGIN);
    char *end = begin ? strstr(begin, END) : NULL;
    RT_CHECK_MSG(begin && end, "%s: no strategy section (the markers %s and %s)", argv[1],
                 "'<!-- strategies: begin ...'", "'<!-- strategies: end -->'");
    char *want = NULL;
    size_t want_len = 0;
    FILE *mem = open_memstream(&want, &want_len);
    if (mem) {
        rt_strategy_describe(mem, "", 1);
        fclose(mem);
    }
    RT_CHECK(want != NULL);
    if (begin && end && want) {
        char *body = begin + strlen(BEGIN);
        const size_t body_len = (size_t)(end - body);
        if (argc > 2 && strcmp(argv[2], "--write") == 0) {
            FILE *f = fopen(argv[1], "wb");
            RT_CHECK(f != NULL);
            if (f) {
                fwrite(doc, 1, (size_t)(body - doc), f);
                fputs(want, f);
                fputs(end, f);
                fclose(f);
                printf("rewrote the strategy section of %s\n", argv[1]);
            }
        } else {
            RT_CHECK_MSG(body_len == want_len && memcmp(body, want, want_len) == 0,
                         "%s: the strategy section differs from the strategy table; rewrite it "
                         "with `build/tests/search/test_strategy_doc %s --write`; the table "
                         "says:\n%s",
                         argv[1], argv[1], want);
        }
    }
    free(want);
    free(doc);
    return RT_TEST_RESULT();
}
