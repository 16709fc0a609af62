/* rt_timeline_stats: busy times and copy/kernel overlap per point and GPU; see the header. */
#include "rt_timeline_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A half-open interval [a, b) in nanoseconds. */
typedef struct span {
    uint64_t a, b;
} span;

static int span_order(const void *x, const void *y)
{
    const span *s = x, *t = y;
    return (s->a > t->a) - (s->a < t->a);
}

/* Sorts v and merges overlapping or touching spans in place: the union as disjoint spans in
 * order. Returns how many there are. */
static int64_t span_union(span *v, int64_t n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, span_order);
    int64_t m = 0;
    for (int64_t i = 1; i < n; ++i) {
        if (v[i].a <= v[m].b) {
            if (v[i].b > v[m].b)
                v[m].b = v[i].b;
        } else {
            v[++m] = v[i];
        }
    }
    return m + 1;
}

static uint64_t span_length(const span *v, int64_t n)
{
    uint64_t total = 0;
    for (int64_t i = 0; i < n; ++i)
        total += v[i].b - v[i].a;
    return total;
}

/* The length of the intersection of two unions (disjoint, ordered spans each). */
static uint64_t span_common(const span *x, int64_t nx, const span *y, int64_t ny)
{
    uint64_t total = 0;
    int64_t i = 0, j = 0;
    while (i < nx && j < ny) {
        const uint64_t lo = x[i].a > y[j].a ? x[i].a : y[j].a;
        const uint64_t hi = x[i].b < y[j].b ? x[i].b : y[j].b;
        if (hi > lo)
            total += hi - lo;
        if (x[i].b < y[j].b)
            ++i;
        else
            ++j;
    }
    return total;
}

/* Records are grouped by (point, in the order points first appear; device). */
typedef struct group_key {
    int64_t point; /* index of the record's point among the points, by first appearance */
    int device;
    int64_t record;
} group_key;

static int key_order(const void *x, const void *y)
{
    const group_key *s = x, *t = y;
    if (s->point != t->point)
        return (s->point > t->point) - (s->point < t->point);
    if (s->device != t->device)
        return (s->device > t->device) - (s->device < t->device);
    return (s->record > t->record) - (s->record < t->record);
}

/* The statistics of the records keys[0..n) (one point and device) into st. work has room for n
 * spans twice over. */
static void group_stats(const rt_timeline_list *l, const group_key *keys, int64_t n, span *work,
                        rt_timeline_gpu_stats *st)
{
    memset(st, 0, sizeof *st);
    const rt_timeline_record *first = &l->v[keys[0].record];
    snprintf(st->point, sizeof st->point, "%s", first->point);
    st->device = first->device;
    st->first_ns = UINT64_MAX;
    for (int64_t i = 0; i < n; ++i) {
        const rt_timeline_record *r = &l->v[keys[i].record];
        st->first_ns = r->start_ns < st->first_ns ? r->start_ns : st->first_ns;
        st->last_ns = r->end_ns > st->last_ns ? r->end_ns : st->last_ns;
        st->count[r->kind]++;
        st->bytes[r->kind] += r->bytes;
    }
    for (int k = 0; k < RT_TIMELINE_KIND_COUNT; ++k) {
        int64_t m = 0;
        for (int64_t i = 0; i < n; ++i) {
            const rt_timeline_record *r = &l->v[keys[i].record];
            if ((int)r->kind == k)
                work[m++] = (span){r->start_ns, r->end_ns};
        }
        st->busy_ns[k] = span_length(work, span_union(work, m));
    }
    span *kernels = work, *copies = work + n;
    int64_t nk = 0, nc = 0;
    for (int64_t i = 0; i < n; ++i) {
        const rt_timeline_record *r = &l->v[keys[i].record];
        if (r->kind == RT_TIMELINE_KERNEL)
            kernels[nk++] = (span){r->start_ns, r->end_ns};
        else
            copies[nc++] = (span){r->start_ns, r->end_ns};
    }
    nk = span_union(kernels, nk);
    nc = span_union(copies, nc);
    if (nk > 0) { /* the union is sorted: its first span starts first, its last ends last */
        st->head_ns = kernels[0].a - st->first_ns;
        st->tail_ns = st->last_ns - kernels[nk - 1].b;
    }
    st->copy_busy_ns = span_length(copies, nc);
    st->kernel_while_copy_ns = span_common(kernels, nk, copies, nc);
    st->overlap_share =
        st->copy_busy_ns > 0 ? (double)st->kernel_while_copy_ns / (double)st->copy_busy_ns : NAN;
}

/* The end of the group that starts at keys[i]: the first index past it. */
static int64_t group_end(const group_key *keys, int64_t n, int64_t i)
{
    int64_t j = i + 1;
    while (j < n && keys[j].point == keys[i].point && keys[j].device == keys[i].device)
        ++j;
    return j;
}

int rt_timeline_stats_compute(const rt_timeline_list *l, rt_timeline_gpu_stats **out, int *n,
                              rt_err *err)
{
    *out = NULL;
    *n = 0;
    if (l->n == 0)
        return 0;
    group_key *keys = malloc((size_t)l->n * sizeof *keys);
    int64_t *firsts = malloc((size_t)l->n * sizeof *firsts); /* each point's first record */
    span *work = malloc(2 * (size_t)l->n * sizeof *work);
    if (!keys || !firsts || !work) {
        free(keys);
        free(firsts);
        free(work);
        return rt_err_set(err, "timeline: out of memory for %lld records", (long long)l->n);
    }
    /* Points are few (one per traced point of a run): a linear search among them will do. */
    int64_t n_points = 0;
    for (int64_t i = 0; i < l->n; ++i) {
        int64_t p = 0;
        while (p < n_points && strcmp(l->v[firsts[p]].point, l->v[i].point) != 0)
            ++p;
        if (p == n_points)
            firsts[n_points++] = i;
        keys[i] = (group_key){.point = p, .device = l->v[i].device, .record = i};
    }
    free(firsts);
    qsort(keys, (size_t)l->n, sizeof *keys, key_order);
    int groups = 0;
    for (int64_t i = 0; i < l->n; i = group_end(keys, l->n, i))
        ++groups;
    rt_timeline_gpu_stats *st = calloc((size_t)groups, sizeof *st);
    if (!st) {
        free(keys);
        free(work);
        return rt_err_set(err, "timeline: out of memory for %d GPU summaries", groups);
    }
    int g = 0;
    for (int64_t i = 0, j; i < l->n; i = j) {
        j = group_end(keys, l->n, i);
        group_stats(l, keys + i, j - i, work, &st[g++]);
    }
    free(keys);
    free(work);
    *out = st;
    *n = groups;
    return 0;
}

static double ms(uint64_t ns)
{
    return (double)ns * 1e-6;
}

void rt_timeline_stats_write(FILE *f, const char *source, const rt_timeline_gpu_stats *s, int n)
{
    fprintf(f, "timeline summary of %s: %d point x GPU block(s)\n", source, n);
    for (int i = 0; i < n; ++i) {
        const rt_timeline_gpu_stats *st = &s[i];
        fprintf(f, "\npoint %s, GPU %d: %.3f ms from its first record to its last\n",
                st->point[0] ? st->point : "(none)", st->device, ms(st->last_ns - st->first_ns));
        fprintf(f, "  %-8s %8s %12s %16s\n", "engine", "records", "busy ms", "bytes");
        for (int k = 0; k < RT_TIMELINE_KIND_COUNT; ++k)
            fprintf(f, "  %-8s %8lld %12.3f %16llu\n", rt_timeline_kind_name((rt_timeline_kind)k),
                    (long long)st->count[k], ms(st->busy_ns[k]), (unsigned long long)st->bytes[k]);
        fprintf(f, "  copies (any direction) busy: %.3f ms\n", ms(st->copy_busy_ns));
        fprintf(f, "  kernels running while a copy is in flight: %.3f ms\n",
                ms(st->kernel_while_copy_ns));
        if (isnan(st->overlap_share))
            fprintf(f, "  overlap share: - (no copies on this GPU)\n");
        else
            fprintf(f, "  overlap share: %.3f (kernels while copying / copy busy time)\n",
                    st->overlap_share);
        if (st->count[RT_TIMELINE_KERNEL] > 0)
            fprintf(f,
                    "  before the first kernel: %.3f ms; after the last kernel: %.3f ms (%.1f%% "
                    "of the span)\n",
                    ms(st->head_ns), ms(st->tail_ns),
                    st->last_ns > st->first_ns ? 100.0 * (double)(st->head_ns + st->tail_ns) /
                                                     (double)(st->last_ns - st->first_ns)
                                               : 0.0);
        else
            fprintf(f, "  before the first kernel, after the last: - (no kernels on this GPU)\n");
    }
}
