#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* _SC_LEVEL*_CACHE_SIZE are glibc extensions */
#include "rt_cacheflush.h"
#include "rt_path.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Stride of the streaming loops. 64 bytes is the line size of every current x86 and most Arm
 * cores; a machine with larger lines is still flushed, only with more work than necessary. */
#define LINE_BYTES 64

struct rt_cacheflush {
    uint64_t *buf;
    size_t bytes;
    uint64_t pass;
    uint64_t checksum;
    char origin[96];
};

/* Reads a small text file into buf (trimmed); -1 when it cannot be read or is empty. */
static int read_small_file(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    const size_t got = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[got] = '\0';
    size_t end = got;
    while (end > 0 && isspace((unsigned char)buf[end - 1]))
        buf[--end] = '\0';
    return end > 0 ? 0 : -1;
}

/* Parses a sysfs cache size such as "32768K", "1M" or "512": -1 on anything else. */
static int parse_cache_size(const char *text, int64_t *bytes)
{
    char *end = NULL;
    errno = 0;
    const long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || v <= 0)
        return -1;
    int shift = 0;
    switch (*end) {
    case 'K':
    case 'k': shift = 10; break;
    case 'M':
    case 'm': shift = 20; break;
    case 'G':
    case 'g': shift = 30; break;
    default: break;
    }
    if (shift)
        ++end;
    const int64_t mult = (int64_t)1 << shift;
    if (*end != '\0' || v > INT64_MAX / mult)
        return -1;
    *bytes = (int64_t)v * mult;
    return 0;
}

static int detect_sysfs(const char *dir, int64_t *bytes, int *level_out)
{
    int best_level = 0;
    int64_t best = 0;
    /* index0..indexN are dense in practice; stop at the first missing one after a generous bound
     * rather than reading the directory, which keeps this free of dirent portability concerns. */
    for (int idx = 0; idx < 16; ++idx) {
        char path[1024], text[64];
        if (rt_path_format(path, sizeof path, NULL, "%s/index%d/type", dir, idx) != 0)
            return -1; /* a cut path would read another file: not detected */
        if (read_small_file(path, text, sizeof text) != 0)
            continue;
        if (strcmp(text, "Data") != 0 && strcmp(text, "Unified") != 0)
            continue;
        if (rt_path_format(path, sizeof path, NULL, "%s/index%d/level", dir, idx) != 0)
            return -1; /* a cut path would read another file: not detected */
        if (read_small_file(path, text, sizeof text) != 0)
            continue;
        char *end = NULL;
        const long level = strtol(text, &end, 10);
        if (end == text || *end != '\0' || level < 1 || level > 8)
            continue;
        if (rt_path_format(path, sizeof path, NULL, "%s/index%d/size", dir, idx) != 0)
            return -1; /* a cut path would read another file: not detected */
        int64_t size = 0;
        if (read_small_file(path, text, sizeof text) != 0 || parse_cache_size(text, &size) != 0)
            continue;
        if (level > best_level || (level == best_level && size > best)) {
            best_level = (int)level;
            best = size;
        }
    }
    if (best <= 0)
        return -1;
    *bytes = best;
    *level_out = best_level;
    return 0;
}

int rt_cacheflush_detect_llc(const char *sysfs_cache_dir, int64_t *bytes, char *source,
                             size_t source_len)
{
    const char *dir = sysfs_cache_dir ? sysfs_cache_dir : "/sys/devices/system/cpu/cpu0/cache";
    int level = 0;
    *bytes = 0;
    if (detect_sysfs(dir, bytes, &level) == 0) {
        if (source && source_len)
            snprintf(source, source_len, "sysfs L%d", level);
        return 0;
    }
    /* glibc's sysconf reports the LLC of the whole package (summed over L3 slices on some
     * machines), so it is only the fallback: a larger buffer flushes no worse, just slower. */
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    if (sysfs_cache_dir == NULL) {
        const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (l3 > 0) {
            *bytes = l3;
            if (source && source_len)
                snprintf(source, source_len, "sysconf L3");
            return 0;
        }
        const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        if (l2 > 0) {
            *bytes = l2;
            if (source && source_len)
                snprintf(source, source_len, "sysconf L2");
            return 0;
        }
    }
#endif
    if (source && source_len)
        snprintf(source, source_len, "unknown");
    return -1;
}

int rt_cacheflush_create(size_t bytes, rt_cacheflush **out, rt_err *err)
{
    *out = NULL;
    char origin[96];
    if (bytes == 0) {
        int64_t llc = 0;
        char source[32];
        if (rt_cacheflush_detect_llc(NULL, &llc, source, sizeof source) == 0) {
            bytes = (size_t)llc * 2;
            if (bytes > RT_CACHEFLUSH_MAX_BYTES)
                bytes = RT_CACHEFLUSH_MAX_BYTES;
            snprintf(origin, sizeof origin, "2 x %.1f MiB LLC (%s)", (double)llc / (1 << 20),
                     source);
        } else {
            bytes = RT_CACHEFLUSH_DEFAULT_BYTES;
            snprintf(origin, sizeof origin, "default %zu MiB (LLC size unknown)", bytes >> 20);
        }
    } else {
        if (bytes < 4096)
            return rt_err_set(err,
                              "cache flush buffer of %zu bytes is too small to evict "
                              "anything; use at least 4096 bytes or 0 for automatic",
                              bytes);
        if (bytes > RT_CACHEFLUSH_MAX_BYTES)
            return rt_err_set(err,
                              "cache flush buffer of %zu bytes exceeds the limit of %zu "
                              "bytes",
                              bytes, RT_CACHEFLUSH_MAX_BYTES);
        snprintf(origin, sizeof origin, "explicit %zu bytes", bytes);
    }
    bytes -= bytes % LINE_BYTES;

    rt_cacheflush *cf = calloc(1, sizeof *cf);
    if (!cf)
        return rt_err_set(err, "out of memory for the cache flush object");
    cf->buf = malloc(bytes);
    if (!cf->buf) {
        free(cf);
        return rt_err_set(err,
                          "cannot allocate the %zu-byte cache flush buffer (cold mode); "
                          "use hot mode or free memory",
                          bytes);
    }
    cf->bytes = bytes;
    snprintf(cf->origin, sizeof cf->origin, "%s", origin);
    /* Touch every page now so the first timed cold repetition does not also pay page faults. */
    rt_cacheflush_flush(cf);
    *out = cf;
    return 0;
}

void rt_cacheflush_flush(rt_cacheflush *cf)
{
    const size_t step = LINE_BYTES / sizeof(uint64_t);
    const size_t words = cf->bytes / sizeof(uint64_t);
    uint64_t *const buf = cf->buf;
    const uint64_t pass = ++cf->pass;
    /* A value that changes every pass, so the stores are never redundant and no page stays the
     * shared zero page. Plain stores (not memset) because large memsets may use non-temporal
     * stores that bypass the very cache we are trying to fill. */
    for (size_t w = 0; w < words; w += step)
        buf[w] = pass ^ (uint64_t)w;
    /* Volatile reads: otherwise the compiler may compute the sum from the values it just stored
     * and skip the loads. */
    const volatile uint64_t *const readback = buf;
    uint64_t sum = 0;
    for (size_t w = 0; w < words; w += step)
        sum += readback[w];
    cf->checksum = sum;
}

size_t rt_cacheflush_bytes(const rt_cacheflush *cf)
{
    return cf->bytes;
}

const char *rt_cacheflush_origin(const rt_cacheflush *cf)
{
    return cf->origin;
}

uint64_t rt_cacheflush_checksum(const rt_cacheflush *cf)
{
    return cf->checksum;
}

void rt_cacheflush_free(rt_cacheflush *cf)
{
    if (!cf)
        return;
    free(cf->buf);
    free(cf);
}
