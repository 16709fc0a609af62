#define _POSIX_C_SOURCE 200809L
#include "sp2_queue.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"

/* Window layout (bytes): four counters, the flags, then the slots. */
enum { OFF_RESERVED = 0, OFF_CONSUMED = 8, OFF_ANNOUNCED = 16, OFF_FINISHED = 24, OFF_FLAGS = 32 };

/* A wait that makes no progress for this long is a bug or a dead peer: fail with the state rather
 * than hang the job. */
#define SP2_QUEUE_STALL_S 120.0

struct sp2_queue {
    rt_comm *comm;
    rt_rma_win *win;
    int P, me;
    int64_t slots;
    size_t payload;     /* largest message */
    size_t stride;      /* slot size: 8-byte length + payload, 8-byte aligned */
    int64_t consumed;   /* this rank's own consumed count (it alone writes it) */
    int64_t *sent;      /* per owner, this run */
    unsigned char *out; /* [8-byte length | payload] staging of the next push */
    sp2_queue_fn fn;
    void *ctx;
    sp2_queue_stats stats;
};

static size_t slot_offset(const sp2_queue *q, int64_t s)
{
    return OFF_FLAGS + (size_t)q->slots * 8 + (size_t)(s % q->slots) * q->stride;
}

static size_t flag_offset(const sp2_queue *q, int64_t s)
{
    return OFF_FLAGS + (size_t)(s % q->slots) * 8;
}

int sp2_queue_create(rt_comm *comm, size_t payload_bytes, int64_t slots, sp2_queue_fn fn, void *ctx,
                     sp2_queue **out, rt_err *err)
{
    *out = NULL;
    if (slots < 1 || payload_bytes < 1 || !fn)
        return rt_err_set(err,
                          "remote queue: needs at least one slot, a payload size and a "
                          "callback (slots = %lld, payload = %zu)",
                          (long long)slots, payload_bytes);
    sp2_queue *q = calloc(1, sizeof *q);
    const int P = rt_comm_world_size(comm);
    int ok = q != NULL;
    if (q) {
        q->comm = comm;
        q->P = P;
        q->me = rt_comm_world_rank(comm);
        q->slots = slots;
        q->payload = payload_bytes;
        q->stride = (8 + payload_bytes + 7) & ~(size_t)7;
        q->fn = fn;
        q->ctx = ctx;
        q->sent = calloc((size_t)P, sizeof *q->sent);
        q->out = malloc(q->stride);
        ok = q->sent && q->out;
    }
    if (!ok) {
        if (q) {
            free(q->sent);
            free(q->out);
        }
        free(q);
        q = NULL;
        rt_err_set(err, "remote queue: out of memory");
    }
    const size_t bytes = q ? OFF_FLAGS + (size_t)slots * 8 + (size_t)slots * q->stride : 0;
    /* Every rank must enter the window creation, so the failure is agreed on first. */
    int all_ok = 0, first = -1;
    if (rt_comm_all_ok(comm, ok, &all_ok, &first) != 0 || !all_ok) {
        if (q) {
            free(q->sent);
            free(q->out);
            free(q);
        }
        return ok ? rt_err_set(err, "remote queue: rank %d could not allocate its queue", first)
                  : -1;
    }
    if (rt_rma_win_create(comm, RT_COMM_WORLD, bytes, "remote accumulation queue", &q->win, err) !=
        0) {
        free(q->sent);
        free(q->out);
        free(q);
        return -1;
    }
    *out = q;
    return 0;
}

void sp2_queue_free(sp2_queue *q)
{
    if (!q)
        return;
    rt_rma_win_free(q->win);
    free(q->sent);
    free(q->out);
    free(q);
}

int sp2_queue_reset(sp2_queue *q, rt_err *err)
{
    unsigned char *base = rt_rma_local(q->win);
    /* Counters and flags only: stale payloads are never read (their flags no longer match). */
    memset(base, 0, OFF_FLAGS + (size_t)q->slots * 8);
    q->consumed = 0;
    memset(q->sent, 0, (size_t)q->P * sizeof *q->sent);
    memset(&q->stats, 0, sizeof q->stats);
    return rt_rma_sync(q->win, err);
}

void *sp2_queue_buffer(sp2_queue *q)
{
    return q->out + 8;
}

size_t sp2_queue_capacity(const sp2_queue *q)
{
    return q->payload;
}

static int handle(sp2_queue *q, const void *msg, size_t bytes, rt_err *err)
{
    const double t0 = rt_clock_now();
    const int rc = q->fn(q->ctx, msg, bytes, err);
    q->stats.handler_s += rt_clock_now() - t0;
    return rc;
}

int sp2_queue_poll(sp2_queue *q, int64_t *handled, rt_err *err)
{
    int64_t n = 0;
    const unsigned char *base = rt_rma_local(q->win);
    for (;;) {
        int64_t flag = 0;
        if (rt_rma_atomic_load(q->win, q->me, flag_offset(q, q->consumed), &flag, err) != 0)
            return -1;
        if (flag != q->consumed + 1)
            break;
        /* The writer's put completed before its flag store: make it visible to our loads. */
        if (rt_rma_sync(q->win, err) != 0)
            return -1;
        const unsigned char *slot = base + slot_offset(q, q->consumed);
        int64_t len = 0;
        memcpy(&len, slot, 8);
        if (len < 0 || (size_t)len > q->payload)
            return rt_err_set(err,
                              "remote queue: slot %lld holds a message of %lld bytes, over the "
                              "%zu-byte capacity",
                              (long long)q->consumed, (long long)len, q->payload);
        if (handle(q, slot + 8, (size_t)len, err) != 0)
            return -1;
        q->consumed++;
        q->stats.popped++;
        ++n;
        /* Frees the slot for a writer waiting on it. */
        if (rt_rma_atomic_store(q->win, q->me, OFF_CONSUMED, q->consumed, err) != 0)
            return -1;
    }
    if (handled)
        *handled = n;
    return 0;
}

int sp2_queue_push(sp2_queue *q, int owner, size_t bytes, rt_err *err)
{
    if (bytes > q->payload)
        return rt_err_set(err, "remote queue: a %zu-byte message exceeds the %zu-byte slots", bytes,
                          q->payload);
    if (owner < 0 || owner >= q->P)
        return rt_err_set(err, "remote queue: owner rank %d is not in the %d-rank job", owner,
                          q->P);
    if (owner == q->me) {
        q->stats.self++;
        return handle(q, q->out + 8, bytes, err);
    }
    int64_t s = 0;
    if (rt_rma_fetch_add(q->win, owner, OFF_RESERVED, 1, &s, err) != 0)
        return -1;
    double last_progress = rt_clock_now();
    int waited = 0;
    for (;;) {
        int64_t consumed = 0;
        if (rt_rma_atomic_load(q->win, owner, OFF_CONSUMED, &consumed, err) != 0)
            return -1;
        if (s < consumed + q->slots)
            break;
        waited = 1;
        /* Keep our own queue moving while we wait for room in the owner's. */
        int64_t n = 0;
        if (sp2_queue_poll(q, &n, err) != 0)
            return -1;
        const double now = rt_clock_now();
        if (n > 0)
            last_progress = now;
        else
            sched_yield();
        if (now - last_progress > SP2_QUEUE_STALL_S)
            return rt_err_set(err,
                              "remote queue: waited %.0f s for a free slot in rank %d's queue "
                              "(slot %lld, %lld consumed there)",
                              SP2_QUEUE_STALL_S, owner, (long long)s, (long long)consumed);
    }
    q->stats.full_waits += waited;
    const int64_t len = (int64_t)bytes;
    memcpy(q->out, &len, 8);
    if (rt_rma_put(q->win, q->out, 8 + bytes, owner, slot_offset(q, s), err) != 0 ||
        rt_rma_flush(q->win, owner, err) != 0 ||
        rt_rma_atomic_store(q->win, owner, flag_offset(q, s), s + 1, err) != 0)
        return -1;
    q->sent[owner]++;
    q->stats.pushed++;
    return 0;
}

int sp2_queue_finish(sp2_queue *q, rt_err *err)
{
    /* Announced before finished: an owner that sees every writer finished reads a final total. */
    for (int d = 1; d < q->P; ++d) {
        const int o = (q->me + d) % q->P;
        if (rt_rma_fetch_add(q->win, o, OFF_ANNOUNCED, q->sent[o], NULL, err) != 0 ||
            rt_rma_fetch_add(q->win, o, OFF_FINISHED, 1, NULL, err) != 0)
            return -1;
    }
    return 0;
}

int sp2_queue_drain_all(sp2_queue *q, double *idle_s, rt_err *err)
{
    double idle = 0.0, last_progress = rt_clock_now();
    for (;;) {
        const double t0 = rt_clock_now();
        const double h0 = q->stats.handler_s;
        int64_t n = 0;
        if (sp2_queue_poll(q, &n, err) != 0)
            return -1;
        int64_t finished = 0, announced = -1;
        if (rt_rma_atomic_load(q->win, q->me, OFF_FINISHED, &finished, err) != 0)
            return -1;
        if (finished == q->P - 1) {
            if (rt_rma_atomic_load(q->win, q->me, OFF_ANNOUNCED, &announced, err) != 0)
                return -1;
            if (q->consumed == announced)
                break;
            if (q->consumed > announced)
                return rt_err_set(err,
                                  "remote queue: popped %lld messages but only %lld were "
                                  "announced",
                                  (long long)q->consumed, (long long)announced);
        }
        const double now = rt_clock_now();
        if (n > 0) {
            last_progress = now;
        } else {
            sched_yield();
            if (now - last_progress > SP2_QUEUE_STALL_S)
                return rt_err_set(err,
                                  "remote queue: waited %.0f s for messages (%lld popped, "
                                  "%lld of %d ranks finished, %lld announced)",
                                  SP2_QUEUE_STALL_S, (long long)q->consumed, (long long)finished,
                                  q->P - 1, (long long)announced);
        }
        idle += (rt_clock_now() - t0) - (q->stats.handler_s - h0);
    }
    if (idle_s)
        *idle_s = idle;
    return 0;
}

void sp2_queue_stats_read(const sp2_queue *q, sp2_queue_stats *out)
{
    *out = q->stats;
}

rt_rma_win *sp2_queue_window(sp2_queue *q)
{
    return q->win;
}
