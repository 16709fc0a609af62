/* rt_cacheflush: last-level cache detection from sysfs (real and fabricated, garbage included) and
 * the flush object's life cycle. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_cacheflush.h"
#include "rt_test.h"

static void write_file(const char *dir, int index, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/index%d", dir, index);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/index%d/%s", dir, index, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

static void cache(const char *dir, int index, const char *type, const char *level, const char *size)
{
    write_file(dir, index, "type", type);
    write_file(dir, index, "level", level);
    write_file(dir, index, "size", size);
}

static void remove_tree(const char *dir)
{
    for (int i = 0; i < 16; ++i) {
        char path[1024];
        static const char *const names[] = {"type", "level", "size"};
        for (int k = 0; k < 3; ++k) {
            snprintf(path, sizeof path, "%s/index%d/%s", dir, i, names[k]);
            unlink(path);
        }
        snprintf(path, sizeof path, "%s/index%d", dir, i);
        rmdir(path);
    }
    rmdir(dir);
}

static void test_detect(void)
{
    char dir[] = "/tmp/rt_cacheflush_XXXXXX";
    if (!mkdtemp(dir)) {
        RT_CHECK_MSG(0, "mkdtemp failed");
        return;
    }
    int64_t bytes = -1;
    char source[64];

    /* Empty directory: nothing found, and no sysconf fallback for an explicit directory. */
    RT_CHECK(rt_cacheflush_detect_llc(dir, &bytes, source, sizeof source) != 0 && bytes == 0);

    cache(dir, 0, "Data\n", "1\n", "32K\n");
    cache(dir, 1, "Instruction\n", "1\n", "32K\n");
    cache(dir, 2, "Unified\n", "2\n", "1024K\n");
    RT_CHECK(rt_cacheflush_detect_llc(dir, &bytes, source, sizeof source) == 0);
    RT_CHECK(bytes == 1024 * 1024 && strcmp(source, "sysfs L2") == 0);

    cache(dir, 3, "Unified\n", "3\n", "32768K\n");
    RT_CHECK(rt_cacheflush_detect_llc(dir, &bytes, source, sizeof source) == 0);
    RT_CHECK(bytes == (int64_t)32 << 20 && strcmp(source, "sysfs L3") == 0);

    /* Garbage entries are ignored, whatever shape they take. */
    cache(dir, 4, "Unified", "4", "12Q");
    cache(dir, 5, "Unified", "4", "-5K");
    cache(dir, 6, "Unified", "banana", "64M");
    cache(dir, 7, "Unified", "4", "");
    cache(dir, 8, "\x01\xff", "4", "64M");
    cache(dir, 9, "Unified", "4", "99999999999999999999999G");
    cache(dir, 10, "Instruction", "4", "64M");
    RT_CHECK(rt_cacheflush_detect_llc(dir, &bytes, source, sizeof source) == 0);
    RT_CHECK_MSG(bytes == (int64_t)32 << 20, "%lld", (long long)bytes);

    /* A valid level-4 cache in M units wins. */
    cache(dir, 11, "Unified", "4", "128M");
    RT_CHECK(rt_cacheflush_detect_llc(dir, &bytes, source, sizeof source) == 0);
    RT_CHECK(bytes == (int64_t)128 << 20 && strcmp(source, "sysfs L4") == 0);
    remove_tree(dir);

    RT_CHECK(rt_cacheflush_detect_llc("/nonexistent/rooftune", &bytes, NULL, 0) != 0);
    /* The real machine: sysfs or sysconf, something positive is expected on Linux. */
    if (rt_cacheflush_detect_llc(NULL, &bytes, source, sizeof source) == 0)
        RT_CHECK(bytes > 0 && source[0] != '\0');
}

static void test_flush(void)
{
    rt_cacheflush *cf = NULL;
    rt_err err;
    RT_CHECK(rt_cacheflush_create((size_t)1 << 20, &cf, &err) == 0);
    if (cf) {
        RT_CHECK(rt_cacheflush_bytes(cf) == (size_t)1 << 20);
        RT_CHECK(rt_test_contains(rt_cacheflush_origin(cf), "explicit"));
        const uint64_t first = rt_cacheflush_checksum(cf);
        rt_cacheflush_flush(cf);
        const uint64_t second = rt_cacheflush_checksum(cf);
        rt_cacheflush_flush(cf);
        const uint64_t third = rt_cacheflush_checksum(cf);
        /* Each pass stores different values, so the read-back sums differ. */
        RT_CHECK(first != second && second != third);
        rt_cacheflush_free(cf);
    }
    /* Automatic size: at least the default when the LLC is unknown, twice the LLC otherwise. */
    cf = NULL;
    RT_CHECK_MSG(rt_cacheflush_create(0, &cf, &err) == 0, "%s", err.msg);
    if (cf) {
        RT_CHECK(rt_cacheflush_bytes(cf) >= ((size_t)1 << 20));
        RT_CHECK(rt_cacheflush_bytes(cf) <= RT_CACHEFLUSH_MAX_BYTES);
        RT_CHECK(rt_cacheflush_origin(cf)[0] != '\0');
        int64_t llc = 0;
        if (rt_cacheflush_detect_llc(NULL, &llc, NULL, 0) == 0 &&
            (size_t)llc * 2 <= RT_CACHEFLUSH_MAX_BYTES)
            RT_CHECK(rt_cacheflush_bytes(cf) >= (size_t)llc * 2 - 64);
        rt_cacheflush_free(cf);
    }
    cf = (rt_cacheflush *)0x1;
    RT_CHECK(rt_cacheflush_create(100, &cf, &err) != 0 && cf == NULL);
    RT_CHECK(rt_test_contains(err.msg, "too small"));
    RT_CHECK(rt_cacheflush_create(RT_CACHEFLUSH_MAX_BYTES + 1, &cf, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "exceeds"));
    rt_cacheflush_free(NULL);
}

int main(void)
{
    test_detect();
    test_flush();
    return RT_TEST_RESULT();
}
