/* rt_cacheflush: evicts the host caches before a cold-mode repetition of a CPU kernel.
 *
 * There is no portable user-space instruction that empties a cache, so the flush streams through a
 * private buffer larger than the last-level cache: it writes one word per cache line (so the lines
 * are owned and dirty) and reads them back, leaving the kernel's data evicted. The buffer belongs
 * to the object: each runner (and each rank) owns its own, nothing is global.
 *
 * Limits worth knowing: one thread does the streaming, so it evicts the shared last-level cache and
 * the calling core's private caches, not the private L1/L2 of other cores that an OpenMP kernel
 * used; those are small next to the LLC and are normally overwritten by the kernel's own startup.
 */
#ifndef RT_CACHEFLUSH_H
#define RT_CACHEFLUSH_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

#define RT_CACHEFLUSH_DEFAULT_BYTES ((size_t)64 << 20) /* when the LLC size cannot be found */
#define RT_CACHEFLUSH_MAX_BYTES     ((size_t)1 << 30)

typedef struct rt_cacheflush rt_cacheflush;

/* Size of the last-level cache seen from CPU 0. Reads the highest-level data/unified cache under
 * sysfs_cache_dir (NULL: /sys/devices/system/cpu/cpu0/cache), falling back to
 * sysconf(_SC_LEVEL3_CACHE_SIZE)/(_SC_LEVEL2_CACHE_SIZE) when sysfs is absent or unreadable.
 * Returns 0 with *bytes > 0 and source naming where it came from (e.g. "sysfs L3" or "sysconf L3"),
 * or -1 when nothing could be found (*bytes = 0). */
int rt_cacheflush_detect_llc(const char *sysfs_cache_dir, int64_t *bytes, char *source,
                             size_t source_len);

/* Creates a flusher with a buffer of `bytes` (0: twice the detected LLC, or
 * RT_CACHEFLUSH_DEFAULT_BYTES when the LLC size is unknown; capped at RT_CACHEFLUSH_MAX_BYTES).
 * Fails with a message when the buffer cannot be allocated or bytes is below one page. */
int rt_cacheflush_create(size_t bytes, rt_cacheflush **out, rt_err *err);

/* Streams through the buffer once (write then read every line). Cannot fail. */
void rt_cacheflush_flush(rt_cacheflush *cf);

/* Buffer size in bytes. */
size_t rt_cacheflush_bytes(const rt_cacheflush *cf);

/* How the size was chosen, e.g. "2 x 32.0 MiB (sysfs L3)", "explicit", "default (LLC unknown)". */
const char *rt_cacheflush_origin(const rt_cacheflush *cf);

/* A value that depends on every line read in the last flush; tests use it to see that a flush
 * really touched the buffer, and it keeps the compiler from discarding the reads. */
uint64_t rt_cacheflush_checksum(const rt_cacheflush *cf);

void rt_cacheflush_free(rt_cacheflush *cf);

#endif
