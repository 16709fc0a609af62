/* rt_timeline_stats: the numbers that say whether a timeline's copies overlapped its kernels, per
 * point and GPU (`rooftune figures --timeline` prints them beside the figure).
 *
 * For each kind of record (kernel, h2d, d2h, d2d, p2p) the busy time is the length of the union of
 * its intervals on that GPU (two streams copying at once count once). The copy time is the union
 * of every copy, whatever its direction; kernels while copying is the length of the intersection
 * of the kernels' union with the copies' union: the time at least one kernel ran on the GPU while
 * at least one copy was in flight on it. The overlap share is that over the copy time: 1 when
 * every copy was hidden behind a kernel, 0 when copies and kernels took turns. The head is the
 * time from the GPU's first record to its first kernel's start (the first tiles coming in before
 * any product), the tail from its last kernel's end to its last record (results going out after
 * the last product): the fixed costs a schedule pays at its ends, which no overlap share shows.
 * All in integer nanoseconds, exactly as CUPTI stamped them. */
#ifndef RT_TIMELINE_STATS_H
#define RT_TIMELINE_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_timeline.h"

typedef struct rt_timeline_gpu_stats {
    char point[RT_TIMELINE_POINT_MAX];
    int device;
    uint64_t first_ns, last_ns;               /* the earliest start and latest end on this GPU */
    int64_t count[RT_TIMELINE_KIND_COUNT];    /* records of each kind */
    uint64_t busy_ns[RT_TIMELINE_KIND_COUNT]; /* union of each kind's intervals */
    uint64_t bytes[RT_TIMELINE_KIND_COUNT];   /* bytes the copies of each kind moved */
    uint64_t copy_busy_ns;                    /* union of every copy */
    uint64_t kernel_while_copy_ns;            /* |kernels' union ∩ copies' union| */
    double overlap_share;      /* kernel_while_copy_ns / copy_busy_ns; NAN without copies */
    uint64_t head_ns, tail_ns; /* before the first kernel, after the last; 0 without kernels */
} rt_timeline_gpu_stats;

/* One entry per (point, device) of l, points in the order they first appear, devices ascending
 * within a point; *out is malloc'ed (free it), *n its length (0 for an empty list). */
int rt_timeline_stats_compute(const rt_timeline_list *l, rt_timeline_gpu_stats **out, int *n,
                              rt_err *err);

/* The text summary: a block per entry (busy time, records and bytes of each kind, copy time,
 * kernels while copying, overlap share, head and tail), times in milliseconds. source names the
 * CSV. */
void rt_timeline_stats_write(FILE *f, const char *source, const rt_timeline_gpu_stats *s, int n);

#endif
