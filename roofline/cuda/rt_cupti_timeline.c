/* rt_cupti_timeline: CUPTI activity records into rt_timeline records (see the header). */
#include "rt_cupti_timeline.h"

#include <cupti_activity.h>
#include <cupti_result.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CUPTI asks for buffers as it fills them; one holds over ten thousand records, so a point's
 * repetitions rarely need more than a few. CUPTI requires 8-byte alignment. */
#define BUFFER_BYTES ((size_t)4 << 20)
#define BUFFER_ALIGN 8
#define N_KINDS      3

static const CUpti_ActivityKind traced_kinds[N_KINDS] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2};

/* The state CUPTI's callback API forces on us (the header says why): where completed buffers'
 * records go, and what went wrong while they were parsed. Reset by every start and every stop. */
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int active;             /* between a start and its stop */
    rt_timeline_list *into; /* NULL: no timeline is being recorded (late buffers are dropped) */
    int failed;             /* a record could not be kept: err says why */
    rt_err err;
    uint64_t untimed; /* records CUPTI delivered with no timestamps */
} sink;

static int cupti_error(rt_err *err, CUptiResult rc, const char *call)
{
    const char *msg = NULL;
    if (cuptiGetResultString(rc, &msg) != CUPTI_SUCCESS || !msg)
        msg = "unknown CUPTI error";
    return rt_err_set(err, "timeline: CUPTI %s: %s", call, msg);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    /* A NULL buffer makes CUPTI drop records; stop reports the drop count. */
    *buffer = aligned_alloc(BUFFER_ALIGN, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0; /* as many as fit */
}

/* One copy kind of KIND_MEMCPY as a timeline kind; -1 for host-to-host and unknown copies, which
 * use no device engine. */
static int copy_kind(uint8_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return RT_TIMELINE_H2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return RT_TIMELINE_D2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return RT_TIMELINE_D2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return RT_TIMELINE_P2P;
    default: return -1;
    }
}

/* What every record kind has in common, into r. */
static void fill(rt_timeline_record *r, rt_timeline_kind kind, uint32_t device, uint32_t stream,
                 uint64_t start, uint64_t end, uint64_t bytes)
{
    r->kind = kind;
    r->device = (int)device;
    r->stream = stream;
    r->start_ns = start;
    r->end_ns = end;
    r->bytes = bytes;
}

/* The timeline record of one CUPTI record: 1 when it is one of ours, 0 when it is not. The
 * structure versions are those this CUPTI's header documents for each kind (CUDA 13:
 * CUpti_ActivityKernel10, CUpti_ActivityMemcpy6, CUpti_ActivityMemcpyPtoP4). */
static int convert(const CUpti_Activity *a, rt_timeline_record *r)
{
    memset(r, 0, sizeof *r);
    if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || a->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)a;
        fill(r, RT_TIMELINE_KERNEL, k->deviceId, k->streamId, k->start, k->end, 0);
        rt_timeline_set_name(r->name, k->name);
        return 1;
    }
    if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)a;
        const int kind = copy_kind(m->copyKind);
        if (kind >= 0)
            fill(r, (rt_timeline_kind)kind, m->deviceId, m->streamId, m->start, m->end, m->bytes);
        return kind >= 0;
    }
    if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY2) {
        const CUpti_ActivityMemcpyPtoP4 *p = (const CUpti_ActivityMemcpyPtoP4 *)a;
        fill(r, RT_TIMELINE_P2P, p->deviceId, p->streamId, p->start, p->end, p->bytes);
        return 1;
    }
    return 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    pthread_mutex_lock(&sink_lock);
    CUpti_Activity *a = NULL;
    while (sink.into && valid > 0 &&
           cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS) {
        rt_timeline_record r;
        if (!convert(a, &r))
            continue;
        if (r.start_ns == 0 && r.end_ns == 0) {
            ++sink.untimed;
            continue;
        }
        if (!sink.failed && rt_timeline_add(sink.into, &r, &sink.err) != 0)
            sink.failed = 1;
    }
    pthread_mutex_unlock(&sink_lock);
    free(buffer);
}

static void sink_reset(int active, rt_timeline_list *into)
{
    sink.active = active;
    sink.into = into;
    sink.failed = 0;
    sink.untimed = 0;
    rt_err_clear(&sink.err);
}

static void disable_kinds(int n)
{
    for (int k = 0; k < n; ++k)
        cuptiActivityDisable(traced_kinds[k]);
}

int rt_cupti_timeline_start(void *plugin_state, rt_timeline_list *into, rt_err *err)
{
    (void)plugin_state;
    if (!into)
        return rt_err_set(err, "timeline: started without a record list");
    pthread_mutex_lock(&sink_lock);
    const int busy = sink.active;
    if (!busy)
        sink_reset(1, into);
    pthread_mutex_unlock(&sink_lock);
    if (busy)
        return rt_err_set(err, "timeline: a timeline is being recorded already in this process");
    const char *call = "cuptiActivityRegisterCallbacks";
    CUptiResult rc = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    int enabled = 0;
    for (; rc == CUPTI_SUCCESS && enabled < N_KINDS; ++enabled) {
        call = "cuptiActivityEnable";
        rc = cuptiActivityEnable(traced_kinds[enabled]);
    }
    if (rc == CUPTI_SUCCESS) {
        size_t dropped = 0;
        cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped); /* resets the count for stop */
        return 0;
    }
    disable_kinds(enabled);
    pthread_mutex_lock(&sink_lock);
    sink_reset(0, NULL);
    pthread_mutex_unlock(&sink_lock);
    return cupti_error(err, rc, call);
}

int rt_cupti_timeline_stop(void *plugin_state, rt_err *err)
{
    (void)plugin_state;
    pthread_mutex_lock(&sink_lock);
    const int active = sink.active;
    pthread_mutex_unlock(&sink_lock);
    if (!active)
        return rt_err_set(err, "timeline: stopped without being started");
    /* First the buffers whose records are all complete, then (forced) the rest, which are not
     * full: the traced work has finished (the caller's contract), so their records are complete
     * too; one that is not would arrive without timestamps and be reported below. */
    CUptiResult flush_rc = cuptiActivityFlushAll(0);
    if (flush_rc == CUPTI_SUCCESS)
        flush_rc = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    disable_kinds(N_KINDS);
    size_t dropped = 0;
    const CUptiResult drop_rc = cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
    pthread_mutex_lock(&sink_lock);
    const int failed = sink.failed;
    const uint64_t untimed = sink.untimed;
    rt_err parse_err = sink.err;
    sink_reset(0, NULL);
    pthread_mutex_unlock(&sink_lock);
    if (flush_rc != CUPTI_SUCCESS)
        return cupti_error(err, flush_rc, "cuptiActivityFlushAll");
    if (failed) {
        *err = parse_err;
        return -1;
    }
    if (drop_rc == CUPTI_SUCCESS && dropped > 0)
        return rt_err_set(err,
                          "timeline: CUPTI dropped %zu record(s) for want of a buffer (out "
                          "of host memory?): the timeline would be incomplete",
                          dropped);
    if (untimed > 0)
        return rt_err_set(err,
                          "timeline: CUPTI delivered %llu record(s) without timestamps (it "
                          "could not collect them, e.g. for lack of device memory): the "
                          "timeline would be incomplete",
                          (unsigned long long)untimed);
    return 0;
}
