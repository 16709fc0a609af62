/* rt_test: the minimal check macros the C unit tests share. A test program runs its cases, prints
 * each failed check with file:line, and exits non-zero when any check failed. */
#ifndef RT_TEST_H
#define RT_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rt_test_failures = 0;

#define RT_CHECK(cond)                                                                             \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            ++rt_test_failures;                                                                    \
        }                                                                                          \
    } while (0)

#define RT_CHECK_MSG(cond, ...)                                                                    \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            ++rt_test_failures;                                                                    \
        }                                                                                          \
    } while (0)

/* True when haystack contains needle (for checking error messages). */
static inline int rt_test_contains(const char *haystack, const char *needle)
{
    return haystack && needle && strstr(haystack, needle) != NULL;
}

/* The whole of dir/name as a NUL-terminated string, its length in *size when size is not NULL;
 * NULL when it cannot be read. The caller frees it. */
static inline char *rt_test_read_file(const char *dir, const char *name, long *size)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)len + 1);
    if (data && fread(data, 1, (size_t)len, f) != (size_t)len) {
        free(data);
        data = NULL;
    }
    fclose(f);
    if (data) {
        data[len] = '\0';
        if (size)
            *size = len;
    }
    return data;
}

/* Writes text to path, replacing the file; 0, or -1 with the failure counted. */
static inline int rt_test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    const int ok = f && fputs(text, f) >= 0;
    const int closed = f && fclose(f) == 0;
    RT_CHECK_MSG(ok && closed, "cannot write %s", path);
    return ok && closed ? 0 : -1;
}

#define RT_TEST_RESULT() (rt_test_failures == 0 ? 0 : 1)

#endif
