#include "rt_workers.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_clock.h"
#include "rt_interrupt.h"
#include "rt_phases.h"
#include "rt_point_wire.h"
#include "rt_prune.h"

/* Points a worker may have in flight: the one it measures and the next, so it never waits for the
 * coordinator between two points. A coordinator that measures too (MPI ranks) answers only
 * between its own points, so its workers may hold one more: on 2 x H200 a rank with two waited
 * 10.04 s of its 60 s for the coordinator's points to end (results/tuning/parallel/h200-x2). */
#define DEPTH       2
#define DEPTH_LOCAL 3
#define DEPTH_MAX   DEPTH_LOCAL
#define MSG_MAGIC   0x52544d53u /* "RTMS" */

enum {
    MSG_ASSIGN = 1,
    MSG_RESULT,
    MSG_FAILED,
    MSG_DROPPED,
    MSG_END,
    MSG_BYE,
    MSG_STATS,
    MSG_MATRIX
};

/* MATRIX's fixed part, after the head (index: the matrix); the failure's text follows it. */
typedef struct matrix_body {
    int64_t rows, cols, nnz;
    double load_s;
} matrix_body;

/* Every message starts with this; RESULT carries a packed point after it, FAILED a message,
 * STATS the worker's phase record (rt_phases_pack). */
typedef struct msg_head {
    uint32_t magic, type;
    uint64_t sweep;          /* which sweep of the walk (both sides count them) */
    int64_t index;           /* the point's index in the sweep's space */
    double best, best_bound; /* ASSIGN: the sweep's best time so far and its bound */
    double group_best;       /* ASSIGN: its abort group's best time so far (NaN: no group) */
    int32_t a, b;            /* END: stop; BYE: failed; STATS: compiles, cache hits */
} msg_head;

struct rt_workers {
    rt_wire *wire;
    int is_coordinator;
    /* coordinator */
    int first_peer, n, local;
    int early_end; /* a worker may leave a sweep before the others */
    int *in_flight;
    int64_t (*queue)[DEPTH_MAX]; /* each worker's points in flight, oldest first */
    /* The sweep each worker is in (it was told END of every one before): its points in flight
     * are that sweep's. Under the coordinator's sweep w->sweep, a worker is in it, in the sweep
     * still open before it (tail_no, its last points still in flight), or past it (it left it
     * early and waits for the next, early_end). */
    uint64_t *pos;
    /* Who is served first: the workers in the order they left their last sweep (the first to
     * leave has built the next sweep's matrix and inputs first). */
    int *order;
    /* early_end: the sweep before the coordinator's, left open while its last points are in
     * flight (its workers', who get the coordinator's sweep once theirs are back); NULL: none.
     * Between two rt_workers_coordinate calls it is the last one's sweep (tail_no == sweep). */
    rt_sweep_run *tail;
    uint64_t tail_no;
    /* worker */
    int coordinator;
    int bye_seen;
    int broken; /* a run error: every further point is answered FAILED with it */
    char broken_msg[RT_ERR_MSG_MAX];
    int64_t current; /* the point being measured, for the sink */
    int sent;        /* the sink sent it */
    uint64_t sweep;
    int has_kept; /* a MATRIX that came before its walk reached it */
    rt_workers_matrix kept;
    /* Messages read ahead of their turn (drain_ahead: the ASSIGNs that wait while a point is
     * measured, whose compiles start now), oldest first; a receive that failed while draining is
     * the error of the receive whose turn it would have been. */
    struct received *pending;
    int n_pending;
    int drain_failed;
    rt_err drain_err;
    /* worker: called as a matrix built ahead comes (rt_workers_on_matrix) */
    int (*on_matrix)(void *ctx, const rt_workers_matrix *mx, rt_err *err);
    void *on_matrix_ctx;
    /* coordinator: called as its loop turns (rt_workers_on_idle) */
    int (*idle)(void *ctx, rt_err *err);
    void *idle_ctx;
};

static const char *type_name(uint32_t t)
{
    static const char *const names[] = {"?",   "ASSIGN", "RESULT", "FAILED", "DROPPED",
                                        "END", "BYE",    "STATS",  "MATRIX"};
    return t < sizeof names / sizeof names[0] ? names[t] : "?";
}

static int send_head(rt_workers *w, int peer, const msg_head *h, const void *tail, size_t n,
                     rt_err *err)
{
    char small[sizeof *h + 640];
    char *buf = sizeof *h + n <= sizeof small ? small : malloc(sizeof *h + n);
    if (!buf)
        return rt_err_set(err, "out of memory for a parallel tuning message");
    memcpy(buf, h, sizeof *h);
    if (n > 0)
        memcpy(buf + sizeof *h, tail, n);
    const int rc = rt_wire_send(w->wire, peer, buf, sizeof *h + n, err);
    if (buf != small)
        free(buf);
    return rc;
}

static int send_simple(rt_workers *w, int peer, uint32_t type, int64_t index, int32_t a, int32_t b,
                       rt_err *err)
{
    const msg_head h = {
        .magic = MSG_MAGIC, .type = type, .sweep = w->sweep, .index = index, .a = a, .b = b};
    return send_head(w, peer, &h, NULL, 0, err);
}

/* A message as it arrived: its sender, its head, the bytes after it (inside raw) and the file
 * descriptor that came with it (-1: none; msg_free closes one not taken). */
typedef struct received {
    int peer;
    msg_head h;
    void *raw;
    const char *tail;
    size_t tail_n;
    int fd;
} received;

static void msg_free(received *m)
{
    free(m->raw);
    m->raw = NULL;
    if (m->fd >= 0)
        close(m->fd);
    m->fd = -1;
}

/* The next message (waiting when wait is set): 1 with it in *m (release it with msg_free), 0
 * when none is waiting, -1 on error. */
static int recv_msg(rt_workers *w, int wait, received *m, rt_err *err)
{
    memset(m, 0, sizeof *m);
    m->fd = -1;
    size_t n = 0;
    const int got = rt_wire_recv(w->wire, wait, &m->peer, &m->raw, &n, err);
    if (got <= 0)
        return got;
    m->fd = rt_wire_take_fd(w->wire);
    if (n < sizeof m->h) {
        msg_free(m);
        return rt_err_set(err, "parallel tuning: a message of %zu bytes from peer %d", n, m->peer);
    }
    memcpy(&m->h, m->raw, sizeof m->h);
    if (m->h.magic != MSG_MAGIC) {
        msg_free(m);
        return rt_err_set(err, "parallel tuning: peer %d sent a message that is not ours", m->peer);
    }
    m->tail = (const char *)m->raw + sizeof m->h;
    m->tail_n = n - sizeof m->h;
    return 1;
}

/* Worker: the next message in its turn: one read ahead first (drain_ahead), else recv_msg. */
static int next_msg(rt_workers *w, int wait, received *m, rt_err *err)
{
    if (w->n_pending > 0) {
        *m = w->pending[0];
        memmove(w->pending, w->pending + 1, (size_t)(w->n_pending - 1) * sizeof *w->pending);
        w->n_pending--;
        return 1;
    }
    if (w->drain_failed) {
        w->drain_failed = 0;
        *err = w->drain_err;
        return -1;
    }
    return recv_msg(w, wait, m, err);
}

static rt_workers *workers_new(rt_wire *wire, rt_err *err)
{
    rt_workers *w = calloc(1, sizeof *w);
    if (!w) {
        rt_err_set(err, "out of memory for parallel tuning");
        return NULL;
    }
    w->wire = wire;
    return w;
}

int rt_workers_coordinator(rt_wire *wire, int first_peer, int n, int local, int early_end,
                           rt_workers **out, rt_err *err)
{
    rt_workers *w = workers_new(wire, err);
    if (!w)
        return -1;
    w->is_coordinator = 1;
    w->first_peer = first_peer;
    w->n = n;
    w->local = local;
    w->early_end = early_end;
    const size_t slots = (size_t)(n > 0 ? n : 1);
    w->in_flight = calloc(slots, sizeof *w->in_flight);
    w->queue = calloc(slots, sizeof *w->queue);
    w->pos = calloc(slots, sizeof *w->pos);
    w->order = calloc(slots, sizeof *w->order);
    if (!w->in_flight || !w->queue || !w->pos || !w->order) {
        rt_workers_free(w);
        return rt_err_set(err, "out of memory for %d parallel workers", n);
    }
    for (int k = 0; k < n; ++k) {
        w->order[k] = k;
        w->pos[k] = 1; /* the first sweep */
    }
    *out = w;
    return 0;
}

int rt_workers_worker(rt_wire *wire, int coordinator, rt_workers **out, rt_err *err)
{
    rt_workers *w = workers_new(wire, err);
    if (!w)
        return -1;
    w->pending = calloc(DEPTH_MAX, sizeof *w->pending);
    if (!w->pending) {
        rt_workers_free(w);
        return rt_err_set(err, "out of memory for a parallel worker");
    }
    w->coordinator = coordinator;
    *out = w;
    return 0;
}

void rt_workers_free(rt_workers *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->n_pending; ++i)
        msg_free(&w->pending[i]);
    free(w->pending);
    free(w->in_flight);
    free(w->queue);
    free(w->pos);
    free(w->order);
    rt_sweep_free(w->tail);
    if (w->has_kept && w->kept.fd >= 0)
        close(w->kept.fd);
    free(w);
}

/* ---------------------------------------------------------------------------------------------
 * Coordinator */

/* The worker's oldest point in flight leaves the queue; it must be the one the message names. */
static int take_point(rt_workers *w, int k, int64_t index, rt_err *err)
{
    if (w->in_flight[k] == 0 || w->queue[k][0] != index)
        return rt_err_set(err,
                          "parallel tuning: worker %d answered for point %lld, which it was not "
                          "measuring",
                          k + w->first_peer, (long long)index);
    for (int d = 1; d < w->in_flight[k]; ++d)
        w->queue[k][d - 1] = w->queue[k][d];
    w->in_flight[k]--;
    return 0;
}

static int depth(const rt_workers *w)
{
    return w->local ? DEPTH_LOCAL : DEPTH;
}

/* Whether a worker with `have` points in flight gets another now: the first always; the second
 * while the sweep has at least a point left for every measuring process (the workers, and the
 * coordinator when it measures), so the last points go to idle workers and not into a queue
 * behind a running point (the sweep's tail). What is left is an upper bound (the budget less
 * what is done or in flight: stored, infeasible and pruned candidates take nothing from it), so
 * second points stop late rather than early. */
static int has_room(const rt_workers *w, const rt_sweep_run *sw, int have)
{
    if (have == 0)
        return 1;
    const int64_t left = sw->budget - sw->counted - sw->in_flight;
    /* The third point (a measuring coordinator's workers) only while a point is left for every
     * process twice over, so a queue of two never forms in the sweep's tail. */
    return have < depth(w) && left >= (int64_t)(w->n + w->local) * have;
}

/* Hands out points of the coordinator's sweep breadth first: every worker in it its first point
 * before any gets a second, so a sweep of few points is spread over every worker; among workers
 * with as many points, those that left their last sweep first are served first. */
static int hand_out(rt_workers *w, rt_sweep_run *sw, int *failed, rt_err *failure, rt_err *err)
{
    /* a point budget counts the older sweep's points in flight too */
    sw->elsewhere = w->tail ? w->tail->in_flight : 0;
    for (int have = 0; have < depth(w); ++have)
        for (int j = 0; j < w->n && !*failed; ++j) {
            const int k = w->order[j];
            if (w->pos[k] != w->sweep || w->in_flight[k] != have || !has_room(w, sw, have))
                continue;
            int64_t index;
            rt_params params;
            const int rc = rt_sweep_next(sw, &index, &params, failure);
            if (rc < 0)
                *failed = 1;
            if (rc != 1)
                return 0;
            const msg_head h = {.magic = MSG_MAGIC,
                                .type = MSG_ASSIGN,
                                .sweep = w->sweep,
                                .index = index,
                                .best = sw->best,
                                .best_bound = sw->prune.best_bound,
                                .group_best = sw->tgt.group_best ? *sw->tgt.group_best : NAN};
            if (send_head(w, w->first_peer + k, &h, NULL, 0, err) != 0) {
                rt_sweep_drop(sw, index);
                return -1;
            }
            w->queue[k][w->in_flight[k]++] = index;
        }
    return 0;
}

/* END of worker k's sweep (stop: whether the run ends): it is in the next one now, and is served
 * after the workers that left theirs before it. */
static int end_worker(rt_workers *w, int k, int stop, rt_err *err)
{
    const msg_head h = {
        .magic = MSG_MAGIC, .type = MSG_END, .sweep = w->pos[k], .index = -1, .a = stop};
    w->pos[k]++;
    int j = 0;
    while (w->order[j] != k)
        ++j;
    memmove(&w->order[j], &w->order[j + 1], (size_t)(w->n - 1 - j) * sizeof *w->order);
    w->order[w->n - 1] = k;
    return send_head(w, w->first_peer + k, &h, NULL, 0, err);
}

/* The open sweep worker k is in (its points' sweep): the coordinator's (sw, which may be NULL
 * between two sweeps) or the one left open before it; NULL: none open. */
static rt_sweep_run *sweep_of(const rt_workers *w, rt_sweep_run *sw, int k)
{
    if (w->tail && w->pos[k] == w->tail_no)
        return w->tail;
    return w->pos[k] == w->sweep ? sw : NULL;
}

/* Points in flight in sweep `no`. */
static int64_t in_flight_of(const rt_workers *w, uint64_t no)
{
    int64_t n = 0;
    for (int k = 0; k < w->n; ++k)
        n += w->pos[k] == no ? w->in_flight[k] : 0;
    return n;
}

/* early_end: a worker with nothing in flight leaves a sweep that will hand out nothing more (the
 * sweep left open always: it was kept so) and walks on to the next matrix and inputs while the
 * others finish, or takes the coordinator's sweep's points (sw NULL: none is being handed out).
 * The run's fate is not known yet: a later failure or stop reaches it as BYE in its next sweep.
 * The sweep left open closes with its last worker. */
static int end_idle_workers(rt_workers *w, rt_sweep_run *sw, int failed, rt_err *err)
{
    if (!w->early_end || failed)
        return 0;
    for (int k = 0; k < w->n; ++k) {
        if (w->in_flight[k] != 0)
            continue;
        if (w->tail && w->pos[k] == w->tail_no && end_worker(w, k, w->tail->m->stop, err) != 0)
            return -1;
        if (sw && w->pos[k] == w->sweep && rt_sweep_finished(sw) &&
            end_worker(w, k, sw->m->stop, err) != 0)
            return -1;
    }
    int in_tail = 0;
    for (int k = 0; w->tail && k < w->n; ++k)
        in_tail |= w->pos[k] == w->tail_no;
    if (w->tail && !in_tail) {
        rt_sweep_free(w->tail);
        w->tail = NULL;
    }
    return 0;
}

/* One message from a worker, in its open sweep. */
static int on_message(rt_workers *w, rt_sweep_run *sw, const received *m, int *failed,
                      rt_err *failure, rt_err *err)
{
    const int peer = m->peer;
    const msg_head *h = &m->h;
    const char *tail = m->tail;
    const size_t tail_n = m->tail_n;
    const int k = peer - w->first_peer;
    if (k < 0 || k >= w->n)
        return rt_err_set(err, "parallel tuning: a message from peer %d, not a worker", peer);
    rt_sweep_run *its = sweep_of(w, sw, k);
    if (h->sweep != w->pos[k] || !its)
        return rt_err_set(err, "parallel tuning: worker %d is in sweep %llu, the run in %llu", peer,
                          (unsigned long long)h->sweep, (unsigned long long)w->pos[k]);
    if (h->type != MSG_RESULT && h->type != MSG_FAILED && h->type != MSG_DROPPED)
        return rt_err_set(err, "parallel tuning: worker %d sent %s during a sweep", peer,
                          type_name(h->type));
    if (take_point(w, k, h->index, err) != 0)
        return -1;
    if (h->type == MSG_RESULT) {
        rt_point_wire pw;
        if (rt_point_wire_unpack(tail, tail_n, &pw, err) != 0)
            return rt_err_prefix(err, "from worker %d", peer);
        const int rc = rt_sweep_record(its, h->index, &pw.res, err);
        rt_point_wire_free(&pw);
        return rc;
    }
    rt_sweep_drop(its, h->index);
    /* A worker drops a point that a signal stopped (its inputs, or its kernel's child process
     * ended by the group's Ctrl-C): that signal reached this process too, and no record may come
     * after it to notice (rt_measure_record checks after each), so the run stops here, marked
     * interrupted; a rerun measures the point. */
    if (h->type == MSG_DROPPED && rt_interrupt_signal() != 0) {
        its->m->stop = 1;
        its->m->interrupted_by = rt_interrupt_signal();
    }
    if (h->type == MSG_FAILED && !*failed) {
        *failed = 1;
        rt_err_set(failure, "worker %d: %.*s", peer, (int)tail_n, tail);
    }
    return 0;
}

/* Every message waiting (waiting for one when wait is set), each in its worker's open sweep. */
static int take_messages(rt_workers *w, rt_sweep_run *sw, int wait, int *failed, rt_err *failure,
                         rt_err *err)
{
    for (;; wait = 0) {
        received m;
        const int got = recv_msg(w, wait, &m, err);
        if (got <= 0)
            return got;
        const int rc = on_message(w, sw, &m, failed, failure, err);
        msg_free(&m);
        if (rc != 0)
            return -1;
    }
}

/* The end of the open sweeps on every worker still in one (stop: whether the run goes on), the
 * sweep left open closed. */
static void end_open_sweeps(rt_workers *w, int stop, rt_err *err)
{
    for (int k = 0; k < w->n; ++k)
        if (w->pos[k] <= w->sweep)
            end_worker(w, k, stop, err);
    rt_sweep_free(w->tail);
    w->tail = NULL;
}

int rt_workers_coordinate(rt_workers *w, rt_sweep_run *sw, rt_err *err)
{
    w->sweep++;
    int failed = 0;
    rt_err failure;
    rt_err_clear(&failure);
    int rc = 0;
    for (;;) {
        /* the older sweep's workers whose last point came back join this one first */
        if (end_idle_workers(w, NULL, failed, err) != 0 ||
            hand_out(w, sw, &failed, &failure, err) != 0) {
            rc = -1;
            break;
        }
        int local_ran = 0;
        if (w->local && !failed) {
            int64_t index;
            rt_params params;
            const int got = rt_sweep_next(sw, &index, &params, &failure);
            if (got < 0 || (got == 1 && rt_sweep_measure(sw, index, &params, &failure) != 0))
                failed = 1;
            local_ran = got == 1;
        }
        if (end_idle_workers(w, sw, failed, err) != 0) {
            rc = -1;
            break;
        }
        if (w->idle && w->idle(w->idle_ctx, err) != 0) {
            rc = -1;
            break;
        }
        int busy = 0;
        for (int k = 0; k < w->n; ++k)
            busy += w->in_flight[k];
        if (busy == 0 && !local_ran)
            break;
        /* Worker processes: a sweep that hands out nothing more is left open with its last
         * points in flight, once the one before it has closed, and the walk goes on to the next
         * sweep, whose points go to the workers as they leave this one (a failure or a stop
         * waits for every point instead). */
        if (w->early_end && !w->tail && !failed && !sw->m->stop && rt_sweep_finished(sw))
            break;
        /* Wait for a result unless there is a local point to measure; then take what came. */
        if (take_messages(w, sw, !local_ran && busy > 0, &failed, &failure, err) != 0) {
            rc = -1;
            break;
        }
    }
    const int stop = rc != 0 || failed || sw->m->stop;
    if (!stop && in_flight_of(w, w->sweep) > 0) { /* left open: the workers' until it is over */
        w->tail = sw;
        w->tail_no = w->sweep;
        return 0;
    }
    /* The sweep ends on every worker still in it; whether the run goes on is decided here. */
    rt_err ignored;
    end_open_sweeps(w, stop, rc != 0 ? &ignored : err);
    rt_sweep_free(sw);
    if (rc == 0 && failed) {
        *err = failure;
        rc = -1;
    }
    return rc;
}

int rt_workers_drain(rt_workers *w, rt_err *err)
{
    if (!w || !w->is_coordinator || !w->tail)
        return 0;
    int failed = 0;
    rt_err failure;
    rt_err_clear(&failure);
    const rt_measure_ctx *m = w->tail->m;
    int rc = 0;
    /* each worker leaves the sweep as its last point is back; the last one closes it */
    while (rc == 0 && w->tail && in_flight_of(w, w->tail_no) > 0)
        if (take_messages(w, NULL, 1, &failed, &failure, err) != 0 ||
            end_idle_workers(w, NULL, failed, err) != 0)
            rc = -1;
    const int stop = rc != 0 || failed || m->stop;
    rt_err ignored;
    end_open_sweeps(w, stop, rc != 0 ? &ignored : err);
    if (rc == 0 && failed) {
        *err = failure;
        rc = -1;
    }
    return rc;
}

int rt_workers_tail_matrix(const rt_workers *w)
{
    return w && w->tail ? w->tail->s->matrix_index : -1;
}

void rt_workers_own_groups(rt_workers *w)
{
    if (w && w->tail)
        rt_sweep_own_group(w->tail);
}

/* ---------------------------------------------------------------------------------------------
 * Matrices in shared memory (gpus mode) */

void rt_workers_on_idle(rt_workers *w, int (*fn)(void *ctx, rt_err *err), void *ctx)
{
    w->idle = fn;
    w->idle_ctx = ctx;
}

void rt_workers_on_matrix(rt_workers *w,
                          int (*fn)(void *ctx, const rt_workers_matrix *mx, rt_err *err), void *ctx)
{
    w->on_matrix = fn;
    w->on_matrix_ctx = ctx;
}

int rt_workers_send_matrix(rt_workers *w, const rt_workers_matrix *mx, rt_err *err)
{
    const size_t text = mx->fd >= 0 ? 0 : strlen(mx->failed);
    char buf[sizeof(msg_head) + sizeof(matrix_body) + RT_ERR_MSG_MAX];
    const msg_head h = {
        .magic = MSG_MAGIC, .type = MSG_MATRIX, .sweep = w->sweep, .index = mx->index};
    const matrix_body b = {
        .rows = mx->rows, .cols = mx->cols, .nnz = mx->nnz, .load_s = mx->load_s};
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, &b, sizeof b);
    memcpy(buf + sizeof h + sizeof b, mx->failed, text);
    const size_t n = sizeof h + sizeof b + text;
    for (int k = 0; k < w->n; ++k) {
        const int peer = w->first_peer + k;
        if ((mx->fd >= 0 ? rt_wire_send_fd(w->wire, peer, buf, n, mx->fd, err)
                         : rt_wire_send(w->wire, peer, buf, n, err)) != 0)
            return rt_err_prefix(err, "matrix %d to worker %d", mx->index, peer);
    }
    return 0;
}

/* A MATRIX message as the walk needs it (its fd taken from m). */
static int unpack_matrix(received *m, rt_workers_matrix *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    out->fd = -1;
    matrix_body b;
    if (m->tail_n < sizeof b)
        return rt_err_set(err, "parallel tuning: a MATRIX message of %zu bytes", m->tail_n);
    memcpy(&b, m->tail, sizeof b);
    const size_t text = m->tail_n - sizeof b;
    if (m->h.index < 0 || m->h.index > INT32_MAX || text >= sizeof out->failed ||
        (m->fd < 0) != (text > 0))
        return rt_err_set(err,
                          "parallel tuning: a MATRIX message for matrix %lld with %s and %zu "
                          "byte(s) of failure",
                          (long long)m->h.index, m->fd >= 0 ? "a matrix" : "no matrix", text);
    out->index = (int)m->h.index;
    out->rows = b.rows;
    out->cols = b.cols;
    out->nnz = b.nnz;
    out->load_s = b.load_s;
    memcpy(out->failed, m->tail + sizeof b, text);
    out->failed[text] = '\0';
    out->fd = m->fd;
    m->fd = -1;
    return 0;
}

/* Worker: a matrix that came before the walk reached it (the coordinator sends the next one as
 * soon as it is built, at most one ahead of the walk). */
static int keep_matrix(rt_workers *w, received *m, rt_err *err)
{
    if (w->has_kept)
        return rt_err_set(err,
                          "parallel tuning: matrix %lld came while matrix %d was still waiting "
                          "for this worker's walk",
                          (long long)m->h.index, w->kept.index);
    if (unpack_matrix(m, &w->kept, err) != 0)
        return -1;
    w->has_kept = 1;
    return w->on_matrix ? w->on_matrix(w->on_matrix_ctx, &w->kept, err) : 0;
}

int rt_workers_await_matrix(rt_workers *w, int index, rt_workers_matrix *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    out->fd = -1;
    while (!w->has_kept) {
        received m;
        if (next_msg(w, 1, &m, err) <= 0)
            return -1;
        if (m.h.type == MSG_BYE) { /* the run ended before this matrix */
            msg_free(&m);
            w->bye_seen = 1;
            out->bye = 1;
            return 0;
        }
        if (m.h.type != MSG_MATRIX) {
            const uint32_t type = m.h.type;
            msg_free(&m);
            return rt_err_set(err,
                              "parallel tuning: the coordinator sent %s while this worker "
                              "waited for matrix %d",
                              type_name(type), index);
        }
        const int rc = keep_matrix(w, &m, err);
        msg_free(&m);
        if (rc != 0)
            return -1;
    }
    if (w->kept.index != index)
        return rt_err_set(err,
                          "parallel tuning: the coordinator sent matrix %d, this worker's walk is "
                          "at matrix %d (the config walks differently here)",
                          w->kept.index, index);
    *out = w->kept;
    w->has_kept = 0;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Worker */

static int sink_send(void *ctx, const rt_measured *res, rt_err *err)
{
    rt_workers *w = ctx;
    void *bytes = NULL;
    size_t n = 0;
    if (rt_point_wire_pack(res, &bytes, &n, err) != 0)
        return -1;
    const msg_head h = {
        .magic = MSG_MAGIC, .type = MSG_RESULT, .sweep = w->sweep, .index = w->current};
    const int rc = send_head(w, w->coordinator, &h, bytes, n, err);
    free(bytes);
    w->sent = rc == 0;
    return rc;
}

static int send_failed(rt_workers *w, int64_t index, rt_err *err)
{
    const msg_head h = {.magic = MSG_MAGIC, .type = MSG_FAILED, .sweep = w->sweep, .index = index};
    return send_head(w, w->coordinator, &h, w->broken_msg, strlen(w->broken_msg), err);
}

/* As a point starts: the messages already in the socket are read without waiting (up to the
 * points a worker may hold, stopping after the first that is not an ASSIGN, so END, BYE and
 * MATRIX keep their place), kept for their turn, and the points of the ASSIGNs among them queue
 * their compiles (rt_measure_upcoming: the point about to run starts them once its inputs are
 * ready), which the pool then does while this point is measured. Nothing changes in what is
 * measured or in the order the messages are taken. */
static void drain_ahead(rt_workers *w, rt_measure_ctx *m, const rt_sweep *s,
                        const rt_measure_target *base)
{
    while (!w->drain_failed && w->n_pending < DEPTH_MAX &&
           (w->n_pending == 0 || w->pending[w->n_pending - 1].h.type == MSG_ASSIGN)) {
        received got;
        const int rc = recv_msg(w, 0, &got, &w->drain_err);
        if (rc < 0)
            w->drain_failed = 1;
        if (rc <= 0)
            break;
        w->pending[w->n_pending++] = got;
        if (got.h.type != MSG_ASSIGN || got.h.sweep != w->sweep)
            continue;
        rt_params params;
        int feasible = 0;
        rt_err ignored;
        if (rt_space_point(s->space, got.h.index, &params, &feasible, NULL, 0, &ignored) == 0 &&
            feasible)
            rt_measure_upcoming(m, base, &params);
    }
}

/* One point the coordinator handed out, measured here with what it knew of the sweep. */
static int serve_point(rt_workers *w, rt_measure_ctx *m, const rt_sweep *s,
                       const rt_measure_target *base, const msg_head *h, rt_run_summary *sum,
                       rt_err *err)
{
    if (!w->broken) {
        rt_params params;
        int feasible = 1;
        char why[512] = "";
        rt_err local;
        rt_err_clear(&local);
        rt_prune prune;
        rt_prune_init(&prune, m->cfg->search.prune_bound, 0);
        prune.best = isnan(h->best) ? INFINITY : h->best;
        prune.best_bound = h->best_bound;
        double best = prune.best, objective = INFINITY;
        double group_best = isnan(h->group_best) ? INFINITY : h->group_best;
        rt_measure_target t = *base;
        t.prune = m->cfg->search.prune_bound ? &prune : NULL;
        t.sweep_best = &best;
        /* the coordinator's group best, as the sweep's: what it knew when it handed the point */
        t.group_best = base->group_best ? &group_best : NULL;
        w->current = h->index;
        w->sent = 0;
        drain_ahead(w, m, s, base);
        if (rt_space_point(s->space, h->index, &params, &feasible, why, sizeof why, &local) != 0 ||
            rt_measure_run(m, &t, &params, feasible, why, &objective, sum, &local) != 0) {
            w->broken = 1;
            snprintf(w->broken_msg, sizeof w->broken_msg, "%s", local.msg);
        } else if (!w->sent) {
            /* A signal stopped the point's inputs: nothing was measured or sent. */
            return send_simple(w, w->coordinator, MSG_DROPPED, h->index, 0, 0, err);
        } else {
            return 0;
        }
    }
    return send_failed(w, h->index, err);
}

int rt_workers_serve(rt_workers *w, rt_measure_ctx *m, const rt_sweep *s,
                     const rt_measure_target *base, rt_run_summary *sum, rt_err *err)
{
    w->sweep++;
    /* The sweep's inputs now, while the coordinator still hands out another sweep's last points
     * or builds this one's matrix; the first point finds them built. */
    rt_measure_prepare(m, base);
    m->sink = sink_send;
    m->sink_ctx = w;
    int rc = 0;
    for (;;) {
        received got;
        if (next_msg(w, 1, &got, err) <= 0) {
            rc = -1;
            break;
        }
        if (got.h.type == MSG_MATRIX) { /* the next matrix, built ahead: kept for the walk */
            rc = keep_matrix(w, &got, err);
            msg_free(&got);
            if (rc != 0)
                break;
            continue;
        }
        const msg_head h = got.h;
        msg_free(&got);
        if (h.type == MSG_BYE) { /* the coordinator ended the run in the middle of a sweep */
            w->bye_seen = 1;
            m->stop = 1;
            break;
        }
        if (h.sweep != w->sweep) {
            rc = rt_err_set(err,
                            "parallel tuning: the coordinator is in sweep %llu, this worker "
                            "in %llu (the config walks differently here)",
                            (unsigned long long)h.sweep, (unsigned long long)w->sweep);
            /* The coordinator waits for this point: it learns why it will not come. */
            if (h.type == MSG_ASSIGN) {
                rt_err ignored;
                w->broken = 1;
                snprintf(w->broken_msg, sizeof w->broken_msg, "%s", err->msg);
                send_failed(w, h.index, &ignored);
            }
            break;
        }
        if (h.type == MSG_END) {
            /* The coordinator alone decides whether the run goes on (and reports why not). */
            m->stop = h.a != 0;
            break;
        }
        if (h.type != MSG_ASSIGN) {
            rc = rt_err_set(err, "parallel tuning: the coordinator sent %s during a sweep",
                            type_name(h.type));
            break;
        }
        if (serve_point(w, m, s, base, &h, sum, err) != 0) {
            rc = -1;
            break;
        }
    }
    m->sink = NULL;
    m->sink_ctx = NULL;
    if (rc == 0)
        rc = rt_wire_flush(w->wire, err);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * End of the run */

/* STATS with this worker's counts and phase record. */
static int send_stats(rt_workers *w, int compiles, int cache_hits, rt_phases *phases, rt_err *err)
{
    (void)rt_phases_add(phases, "bye", NULL, rt_clock_epoch(), NAN);
    void *bytes = NULL;
    size_t n = 0;
    if (phases && rt_phases_pack(phases, &bytes, &n, err) != 0)
        return -1;
    const msg_head h = {.magic = MSG_MAGIC,
                        .type = MSG_STATS,
                        .sweep = w->sweep,
                        .index = -1,
                        .a = compiles,
                        .b = cache_hits};
    const int rc = send_head(w, w->coordinator, &h, bytes, n, err);
    free(bytes);
    return rc;
}

int rt_workers_finish(rt_workers *w, int failed, int *compiles, int *cache_hits, rt_phases *phases,
                      rt_err *err)
{
    if (!w->is_coordinator) {
        while (!w->bye_seen) {
            received m;
            if (next_msg(w, 1, &m, err) <= 0)
                return -1;
            w->bye_seen = m.h.type == MSG_BYE;
            /* A point handed out after this worker's walk ended (its walk and the coordinator's
             * differ: a kernel unavailable here, a matrix that failed here only) is answered, so
             * the coordinator never waits for it. */
            if (m.h.type == MSG_ASSIGN) {
                if (!w->broken)
                    snprintf(w->broken_msg, sizeof w->broken_msg,
                             "this worker's walk of the config ended before the coordinator's (a "
                             "kernel, device or matrix differs here)");
                w->broken = 1;
                rt_err ignored;
                send_failed(w, m.h.index, &ignored);
            }
            msg_free(&m);
        }
        if (send_stats(w, *compiles, *cache_hits, phases, err) != 0)
            return -1;
        return rt_wire_flush(w->wire, err);
    }
    int rc = 0;
    for (int k = 0; k < w->n; ++k)
        if (send_simple(w, w->first_peer + k, MSG_BYE, -1, failed, 0, err) != 0)
            rc = -1;
    for (int answered = 0; rc == 0 && answered < w->n;) {
        received m;
        if (recv_msg(w, 1, &m, err) <= 0)
            return -1;
        /* After a sweep that failed, the points its workers were still measuring come back
         * now: they are not recorded (the run failed; a rerun measures them). */
        if (failed &&
            (m.h.type == MSG_RESULT || m.h.type == MSG_FAILED || m.h.type == MSG_DROPPED)) {
            msg_free(&m);
            continue;
        }
        if (m.h.type != MSG_STATS) {
            msg_free(&m);
            return rt_err_set(err, "parallel tuning: worker %d sent %s after the run", m.peer,
                              type_name(m.h.type));
        }
        /* Its last word: the worker may exit now, and its closed socket is no failure. */
        rt_wire_forget(w->wire, m.peer);
        *compiles += m.h.a;
        *cache_hits += m.h.b;
        if (phases && m.tail_n > 0 && rt_phases_merge(phases, m.tail, m.tail_n, err) != 0) {
            msg_free(&m);
            return rt_err_prefix(err, "parallel tuning: worker %d's phase record", m.peer);
        }
        msg_free(&m);
        ++answered;
    }
    if (rc == 0)
        rc = rt_wire_flush(w->wire, err);
    return rc;
}
