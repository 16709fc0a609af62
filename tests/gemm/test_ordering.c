/* The GPU engine's ordering proven race-free on the CPU: gemm_tiled.c's schedule runs over the
 * engine the GPU uses (kernels/gemm/gemm_async.c: its streams, events and waits) on a simulated
 * device whose streams and events are vector clocks (a copy or product on a stream happens after
 * what came before on that stream, after what the host did before issuing it, and after the
 * events the stream waited for; an event is what its stream had done when it was recorded, and a
 * wait sees the event's last record when it is issued, as cudaStreamWaitEvent does). Every copy
 * and product reads and writes slots; a read must happen after the write of what it reads, a write
 * after the reads and the write of what it overwrites, else a race is counted. Under mpirun with
 * every rank on one node (or two), the ranks' slots and interprocess events live in an MPI
 * shared-memory window, so ipc pulls and the done messages are checked across processes. Besides
 * the races, every record and wait is checked against the rules of events (gemm_async.h): the
 * event exists (created; a node peer's only once shared), a GPU records only its own events (at
 * its chunk's ring position), an interprocess event is waited for only by the streams of the GPU it
 * belongs to (a plain one by any: CUDA allows an event of another device), and a wait sees the
 * record it names (the chunk's, for the per-chunk kinds; a record at all, for the others). Then
 * devices that drop one kind of wait (CUDA's streams would then race), and schedules that break one
 * rule of events (the one that crashed libcuda on 4 x H100 among them), must be reported: the
 * checks fire. Args: the ranks per (emulated) node. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_async.h"
#include "gemm_family.h"
#include "gemm_plan.h"
#include "gemm_tiled.h"
#include "rt_comm.h"
#include "rt_registry.h"
#include "rt_test.h"

typedef int32_t vc_t;

/* The rules of events (gemm_async.h) a record or wait can break. */
enum {
    RULE_UNCREATED,   /* waits for an event never created */
    RULE_ACROSS,      /* waits for an interprocess event of another GPU */
    RULE_OTHER_CHUNK, /* waits for an event whose last record is another chunk's */
    RULE_UNRECORDED,  /* waits for an event never recorded */
    RULE_REC_BAD,     /* records an event never created, or a node peer's */
    RULE_REC_OTHER,   /* records another GPU's event */
    RULE_REC_RING,    /* records a chunk's event at another chunk's ring position */
    RULE_N
};
static const char *const rule_text[RULE_N] = {
    "waits for an event never created (or a node peer's not shared)",
    "waits for an interprocess event of another GPU (libcuda crashed on this)",
    "waits for an event whose last record is another chunk's",
    "waits for an event never recorded (CUDA: the wait orders nothing)",
    "records an event never created, or a node peer's",
    "records another GPU's event (cudaEventRecord needs its device)",
    "records a chunk's event at another chunk's ring position",
};

/* Test hooks: waits the device leaves out (DROP_*), or events it waits for in place of the
 * schedule's (BREAK_*): another GPU's interprocess LOADED instead of its plain COPIED (what
 * loads_begin did when libcuda crashed), a node peer's events imported on the last GPU only (as
 * the engine then opened them), a chunk's event before that chunk recorded it, an event past those
 * created; or a record of the next GPU's event (BREAK_RECORD_OTHER). */
enum {
    DROP_NONE,
    DROP_READY,
    DROP_COMPUTED,
    DROP_PEER_OWN,
    DROP_PEER_LOADED,
    DROP_CFREE,
    BREAK_LOADED_ACROSS,
    BREAK_VIA_LAST,
    BREAK_EARLY,
    BREAK_UNCREATED,
    BREAK_RECORD_OTHER
};

typedef struct sim {
    int gpus, n_ev, l, drop;
    int64_t slots, cslots;
    int P, me, T, V; /* world ranks, this one, timelines per rank, clock length */
    vc_t *stream;    /* [gpus][GEMM_ST_N][V] */
    vc_t *host;      /* [V] */
    vc_t *ready, *cdone, *cfree, *computed, *copied, *marks; /* local events, [..][V] */
    /* What each local event's last record was: the chunk for the per-chunk kinds (-1: none),
     * a count for the others; per kind, [gpus][gemm_async_events(kind)]. */
    int64_t *rec[GEMM_EV_KINDS];
    vc_t *shared; /* own/loaded events and slot states of this rank (below), local or in win */
    size_t shared_len;
    /* Shared: this rank's part, and every node peer's (after share). */
    int shared_on;
    MPI_Win win;
    vc_t **peer; /* per node rank: its part */
    int n_node, me_node;
    int64_t races, misuses[RULE_N];
    char first[256], first_misuse[RULE_N][200];
} sim;

/* Layout of a rank's shared part: own [G][n_ev][V], loaded [G][n_ev][V], slot writes
 * [G][slots][V], slot reads [G][slots][V], the chunk of own's and loaded's last records
 * [2][G][n_ev] (-1: none). */
static vc_t *part_own(const sim *s, vc_t *base, int g, int64_t i)
{
    return base + ((size_t)g * (size_t)s->n_ev + (size_t)i) * (size_t)s->V;
}
static vc_t *part_loaded(const sim *s, vc_t *base, int g, int64_t i)
{
    return base + ((size_t)(s->gpus + g) * (size_t)s->n_ev + (size_t)i) * (size_t)s->V;
}
static vc_t *part_write(const sim *s, vc_t *base, int g, int64_t slot)
{
    return base + ((size_t)2 * (size_t)s->gpus * (size_t)s->n_ev + (size_t)g * (size_t)s->slots +
                   (size_t)slot) *
                      (size_t)s->V;
}
static vc_t *part_read(const sim *s, vc_t *base, int g, int64_t slot)
{
    return part_write(s, base, g, slot) + (size_t)s->gpus * (size_t)s->slots * (size_t)s->V;
}
static vc_t *part_seq(const sim *s, vc_t *base, gemm_ev_kind kind, int g, int64_t i)
{
    return part_read(s, base, 0, 0) + (size_t)s->gpus * (size_t)s->slots * (size_t)s->V +
           ((size_t)(kind == GEMM_EV_LOADED) * (size_t)s->gpus + (size_t)g) * (size_t)s->n_ev +
           (size_t)i;
}

static void join(vc_t *dst, const vc_t *src, int n)
{
    for (int i = 0; i < n; ++i)
        if (src[i] > dst[i])
            dst[i] = src[i];
}

static int leq(const vc_t *a, const vc_t *b, int n)
{
    for (int i = 0; i < n; ++i)
        if (a[i] > b[i])
            return 0;
    return 1;
}

static vc_t *stream_vc(sim *s, int g, int st)
{
    return s->stream + ((size_t)g * GEMM_ST_N + (size_t)st) * (size_t)s->V;
}

static vc_t *event_vc(sim *s, gemm_ev ev)
{
    const size_t V = (size_t)s->V;
    if (ev.kind == GEMM_EV_OWN || ev.kind == GEMM_EV_LOADED) {
        vc_t *base = s->shared;
        if (ev.peer >= 0) {
            if (!s->shared_on || ev.peer >= s->n_node)
                return NULL;
            base = s->peer[ev.peer];
        }
        return ev.kind == GEMM_EV_OWN ? part_own(s, base, ev.g, ev.index)
                                      : part_loaded(s, base, ev.g, ev.index);
    }
    switch (ev.kind) {
    case GEMM_EV_READY: return s->ready + ((size_t)ev.g * (size_t)s->slots + (size_t)ev.index) * V;
    case GEMM_EV_CDONE: return s->cdone + ((size_t)ev.g * (size_t)s->cslots + (size_t)ev.index) * V;
    case GEMM_EV_CFREE: return s->cfree + ((size_t)ev.g * (size_t)s->cslots + (size_t)ev.index) * V;
    case GEMM_EV_COMPUTED:
        return s->computed +
               ((size_t)ev.g * (size_t)s->n_ev * GEMM_ASYNC_COMPUTE + (size_t)ev.index) * V;
    case GEMM_EV_COPIED: return s->copied + ((size_t)ev.g * (size_t)s->n_ev + (size_t)ev.index) * V;
    default: return s->marks + ((size_t)ev.g * 2 + (ev.kind == GEMM_EV_P2P_MARK)) * V;
    }
}

static const char *kind_name(gemm_ev_kind kind)
{
    static const char *const names[GEMM_EV_KINDS] = {
        "READY", "CDONE", "CFREE", "COMPUTED", "OWN", "LOADED", "COPIED", "H2D_MARK", "P2P_MARK"};
    return kind >= 0 && kind < GEMM_EV_KINDS ? names[kind] : "?";
}

static void misuse(sim *s, int rule, int g, int st, gemm_ev ev)
{
    if (s->misuses[rule]++ == 0)
        snprintf(s->first_misuse[rule], sizeof s->first_misuse[rule],
                 "rank %d GPU %d stream %d: %s[%lld] of %s GPU %d (via GPU %d, chunk %lld)", s->me,
                 g, st, kind_name(ev.kind), (long long)ev.index,
                 ev.peer >= 0 ? "a node peer's" : "this process's", ev.g, ev.via,
                 (long long)ev.seq);
}

/* The record state of an event: the last record's chunk (per-chunk kinds, -1 none) or count;
 * NULL for a node peer's (its own part of the window). */
static int64_t *rec_of(sim *s, gemm_ev ev)
{
    if (ev.peer >= 0 || ev.kind == GEMM_EV_OWN || ev.kind == GEMM_EV_LOADED)
        return NULL;
    const int64_t n = gemm_async_events(ev.kind, s->slots, s->cslots, s->l);
    return s->rec[ev.kind] + (size_t)ev.g * (size_t)n + (size_t)ev.index;
}

/* Whether ev names an event the device created (a node peer's: once shared). The device's events
 * live from its creation to its end, and nothing of the schedule runs outside that (gemm_async_dev
 * has no call that destroys one), so an index past those created is the way to name one that is
 * not there. */
static int exists(const sim *s, gemm_ev ev)
{
    if (ev.kind < 0 || ev.kind >= GEMM_EV_KINDS || ev.g < 0 || ev.g >= s->gpus || ev.index < 0 ||
        ev.index >= gemm_async_events(ev.kind, s->slots, s->cslots, s->l))
        return 0;
    if (ev.peer < 0)
        return 1;
    return gemm_ev_interprocess(ev.kind) && s->shared_on && ev.peer < s->n_node &&
           ev.peer != s->me_node && ev.via >= 0 && ev.via < s->gpus;
}

/* The chunk of the last record of an existing event, or its record count (other kinds). */
static int64_t last_record(sim *s, gemm_ev ev)
{
    if (gemm_ev_interprocess(ev.kind))
        return *part_seq(s, ev.peer >= 0 ? s->peer[ev.peer] : s->shared, ev.kind, ev.g, ev.index);
    return *rec_of(s, ev);
}

/* A wait (g >= 0: by stream st of GPU g; g < 0: the host) against the rules of events; 0 when it
 * may proceed. */
static int check_wait(sim *s, int g, int st, gemm_ev ev)
{
    if (!exists(s, ev)) {
        misuse(s, RULE_UNCREATED, g, st, ev);
        return -1;
    }
    if (g >= 0 && gemm_ev_interprocess(ev.kind) && (ev.peer >= 0 ? ev.via : ev.g) != g)
        misuse(s, RULE_ACROSS, g, st, ev);
    const int64_t last = last_record(s, ev);
    if (gemm_ev_per_chunk(ev.kind) ? last != ev.seq : last == 0)
        misuse(s, gemm_ev_per_chunk(ev.kind) && last >= 0 ? RULE_OTHER_CHUNK : RULE_UNRECORDED, g,
               st, ev);
    return 0;
}

/* An operation on stream st of GPU g: after its stream's past and the host's; its own tick. */
static const vc_t *tick(sim *s, int g, int st)
{
    vc_t *v = stream_vc(s, g, st);
    join(v, s->host, s->V);
    v[s->me * s->T + 1 + g * GEMM_ST_N + st]++;
    return v;
}

static void race(sim *s, const char *what, int g, int64_t slot)
{
    if (s->races++ == 0)
        snprintf(s->first, sizeof s->first, "rank %d: %s of GPU %d slot %lld", s->me, what, g,
                 (long long)slot);
}

static void do_read(sim *s, vc_t *base, int g, int64_t slot, const vc_t *op, const char *what)
{
    if (!leq(part_write(s, base, g, slot), op, s->V))
        race(s, what, g, slot);
    join(part_read(s, base, g, slot), op, s->V);
}

static void do_write(sim *s, int g, int64_t slot, const vc_t *op, const char *what)
{
    if (!leq(part_write(s, s->shared, g, slot), op, s->V) ||
        !leq(part_read(s, s->shared, g, slot), op, s->V))
        race(s, what, g, slot);
    memcpy(part_write(s, s->shared, g, slot), op, (size_t)s->V * sizeof(vc_t));
    memset(part_read(s, s->shared, g, slot), 0, (size_t)s->V * sizeof(vc_t));
}

static void *host_alloc(void *dev, size_t bytes)
{
    (void)dev;
    return malloc(bytes);
}

static int host_pin(void *dev, void *p, size_t bytes, rt_err *err)
{
    (void)dev;
    (void)p;
    (void)bytes;
    (void)err;
    return 0;
}

static void host_free(void *dev, void *p)
{
    (void)dev;
    free(p);
}

static int share(void *dev, MPI_Comm node, rt_err *err)
{
    sim *s = dev;
    MPI_Comm_size(node, &s->n_node);
    MPI_Comm_rank(node, &s->me_node);
    vc_t *base = NULL;
    if (MPI_Win_allocate_shared((MPI_Aint)(s->shared_len * sizeof(vc_t)), sizeof(vc_t),
                                MPI_INFO_NULL, node, &base, &s->win) != MPI_SUCCESS)
        return rt_err_set(err, "sim: MPI_Win_allocate_shared failed");
    MPI_Win_lock_all(MPI_MODE_NOCHECK, s->win);
    memcpy(base, s->shared, s->shared_len * sizeof(vc_t));
    free(s->shared);
    s->shared = base;
    s->shared_on = 1;
    s->peer = calloc((size_t)s->n_node, sizeof *s->peer);
    for (int r = 0; r < s->n_node; ++r) {
        MPI_Aint size = 0;
        int disp = 0;
        MPI_Win_shared_query(s->win, r, &size, &disp, &s->peer[r]);
    }
    MPI_Win_sync(s->win);
    MPI_Barrier(node);
    return 0;
}

static void sync_shared(sim *s)
{
    if (s->shared_on)
        MPI_Win_sync(s->win);
}

static int dropped(const sim *s, int st, gemm_ev ev)
{
    switch (s->drop) {
    case DROP_READY: return ev.kind == GEMM_EV_READY;
    case DROP_COMPUTED: return ev.kind == GEMM_EV_COMPUTED;
    case DROP_PEER_OWN: return ev.peer >= 0 && ev.kind == GEMM_EV_OWN;
    case DROP_PEER_LOADED: return ev.peer >= 0 && ev.kind == GEMM_EV_LOADED;
    case DROP_CFREE: return ev.kind == GEMM_EV_CFREE;
    default: (void)st; return 0;
    }
}

static int record(void *dev, int g, int st, gemm_ev ev, rt_err *err)
{
    (void)err;
    sim *s = dev;
    if (s->drop == BREAK_RECORD_OTHER && ev.kind == GEMM_EV_COPIED)
        ev.g = (ev.g + 1) % s->gpus;
    if (!exists(s, ev) || ev.peer >= 0 || st < 0 || st >= GEMM_ST_N) {
        misuse(s, RULE_REC_BAD, g, st, ev);
        return 0;
    }
    if (ev.g != g) {
        misuse(s, RULE_REC_OTHER, g, st, ev);
        return 0;
    }
    const int64_t pos = ev.kind == GEMM_EV_COMPUTED ? ev.index / GEMM_ASYNC_COMPUTE : ev.index;
    if (gemm_ev_per_chunk(ev.kind) && (ev.seq < 0 || ev.seq % s->n_ev != pos))
        misuse(s, RULE_REC_RING, g, st, ev);
    vc_t *v = stream_vc(s, g, st);
    join(v, s->host, s->V);
    memcpy(event_vc(s, ev), v, (size_t)s->V * sizeof(vc_t));
    if (gemm_ev_interprocess(ev.kind)) {
        *part_seq(s, s->shared, ev.kind, ev.g, ev.index) = (vc_t)ev.seq;
        sync_shared(s); /* before the message that tells the peers */
    } else {
        int64_t *r = rec_of(s, ev);
        *r = gemm_ev_per_chunk(ev.kind) ? ev.seq : *r + 1;
    }
    return 0;
}

/* The event a broken schedule (BREAK_*) would wait for in place of ev, on GPU g. */
static gemm_ev broken(const sim *s, int g, gemm_ev ev)
{
    switch (s->drop) {
    case BREAK_LOADED_ACROSS:
        if (ev.kind == GEMM_EV_COPIED && ev.g != g)
            ev.kind = GEMM_EV_LOADED;
        break;
    case BREAK_VIA_LAST:
        if (ev.peer >= 0)
            ev.via = s->gpus - 1;
        break;
    case BREAK_EARLY:
        if (gemm_ev_per_chunk(ev.kind))
            ev.seq += s->n_ev; /* the same ring position, a chunk not yet recorded there */
        break;
    case BREAK_UNCREATED:
        if (ev.kind == GEMM_EV_READY)
            ev.index += s->slots;
        break;
    default: break;
    }
    return ev;
}

static int wait(void *dev, int g, int st, gemm_ev ev, rt_err *err)
{
    (void)err;
    sim *s = dev;
    ev = broken(s, g, ev);
    if (ev.peer >= 0)
        sync_shared(s); /* after the message */
    if (check_wait(s, g, st, ev) != 0)
        return 0; /* nothing to join: the misuse is counted */
    if (!dropped(s, st, ev))
        join(stream_vc(s, g, st), event_vc(s, ev), s->V);
    return 0;
}

static int host_wait(void *dev, gemm_ev ev, rt_err *err)
{
    (void)err;
    sim *s = dev;
    if (check_wait(s, -1, -1, ev) == 0)
        join(s->host, event_vc(s, ev), s->V);
    return 0;
}

static int h2d(void *dev, int g, int st, int64_t slot, const void *src, size_t bytes, rt_err *err)
{
    (void)src;
    (void)bytes;
    (void)err;
    sim *s = dev;
    do_write(s, g, slot, tick(s, g, st), "a host copy overwrites a tile still in use");
    return 0;
}

static int d2d(void *dev, int g, int st, int64_t slot, int src_g, int64_t src_slot, size_t bytes,
               rt_err *err)
{
    (void)bytes;
    (void)err;
    sim *s = dev;
    const vc_t *op = tick(s, g, st);
    do_read(s, s->shared, src_g, src_slot, op, "a peer copy reads a tile not yet loaded");
    do_write(s, g, slot, op, "a peer copy overwrites a tile still in use");
    return 0;
}

static int pull(void *dev, int g, int st, int64_t slot, int peer, int src_g, int64_t src_slot,
                size_t bytes, rt_err *err)
{
    (void)bytes;
    sim *s = dev;
    if (!s->shared_on || peer < 0 || peer >= s->n_node)
        return rt_err_set(err, "sim: pull from node rank %d before sharing", peer);
    sync_shared(s);
    const vc_t *op = tick(s, g, st);
    do_read(s, s->peer[peer], src_g, src_slot, op,
            "an ipc pull reads a peer's tile not yet loaded");
    do_write(s, g, slot, op, "an ipc pull overwrites a tile still in use");
    return 0;
}

static int d2h(void *dev, int g, int st, void *dst, int64_t slot, size_t bytes, rt_err *err)
{
    (void)dst;
    (void)bytes;
    (void)err;
    sim *s = dev;
    do_read(s, s->shared, g, slot, tick(s, g, st), "a write-back reads C before its products");
    return 0;
}

static int tile_gemm(void *dev, int g, int st, int64_t cslot, int64_t aslot, int64_t bslot,
                     int64_t m, int64_t n, int64_t k, int accumulate, rt_err *err)
{
    (void)m;
    (void)n;
    (void)k;
    (void)err;
    sim *s = dev;
    const vc_t *op = tick(s, g, st);
    do_read(s, s->shared, g, aslot, op, "a product reads A before it is loaded");
    do_read(s, s->shared, g, bslot, op, "a product reads B before it is loaded");
    if (accumulate)
        do_read(s, s->shared, g, cslot, op, "a product reads C out of order");
    do_write(s, g, cslot, op, "a product overwrites C before its write-back");
    return 0;
}

/* Every stream drained. With ipc, gemm_tiled.c follows the finish with a barrier so that no
 * process overwrites its slots in the next execution while a peer still pulls from them: the
 * barrier's effect, every rank's drained clock known to all, stands here as a reduction. */
static int finish(void *dev, rt_err *err)
{
    sim *s = dev;
    for (int g = 0; g < s->gpus; ++g)
        for (int st = 0; st < GEMM_ST_N; ++st)
            join(s->host, stream_vc(s, g, st), s->V);
    if (s->shared_on && MPI_Allreduce(MPI_IN_PLACE, s->host, s->V, MPI_INT32_T, MPI_MAX,
                                      MPI_COMM_WORLD) != MPI_SUCCESS)
        return rt_err_set(err, "sim: the reduction standing for the barrier failed");
    return 0;
}

static const gemm_async_dev sim_dev = {
    .host_alloc = host_alloc,
    .host_pin = host_pin,
    .host_free = host_free,
    .share = share,
    .record = record,
    .wait = wait,
    .host_wait = host_wait,
    .h2d = h2d,
    .d2d = d2d,
    .pull = pull,
    .d2h = d2h,
    .gemm = tile_gemm,
    .finish = finish,
};

static sim *sim_create(const gemm_plan *pl, int drop)
{
    sim *s = calloc(1, sizeof *s);
    s->gpus = pl->G;
    s->l = (int)pl->l;
    s->n_ev = gemm_async_ring(pl->l);
    s->drop = drop;
    s->slots = gemm_tiled_slots(pl);
    s->cslots = pl->b * pl->cg;
    MPI_Comm_size(MPI_COMM_WORLD, &s->P);
    MPI_Comm_rank(MPI_COMM_WORLD, &s->me);
    s->T = 1 + s->gpus * GEMM_ST_N;
    s->V = s->P * s->T;
    const size_t V = (size_t)s->V, G = (size_t)s->gpus;
    s->stream = calloc(G * GEMM_ST_N * V, sizeof(vc_t));
    s->host = calloc(V, sizeof(vc_t));
    s->ready = calloc(G * (size_t)s->slots * V, sizeof(vc_t));
    s->cdone = calloc(G * (size_t)s->cslots * V, sizeof(vc_t));
    s->cfree = calloc(G * (size_t)s->cslots * V, sizeof(vc_t));
    s->computed = calloc(G * (size_t)s->n_ev * GEMM_ASYNC_COMPUTE * V, sizeof(vc_t));
    s->copied = calloc(G * (size_t)s->n_ev * V, sizeof(vc_t));
    s->marks = calloc(G * 2 * V, sizeof(vc_t));
    for (int k = 0; k < GEMM_EV_KINDS; ++k) {
        const size_t n = G * (size_t)gemm_async_events(k, s->slots, s->cslots, s->l);
        s->rec[k] = calloc(n, sizeof(int64_t));
        for (size_t i = 0; gemm_ev_per_chunk(k) && i < n; ++i)
            s->rec[k][i] = -1;
    }
    s->shared_len = (2 * G * (size_t)s->n_ev + 2 * G * (size_t)s->slots) * V + 2 * G * s->n_ev;
    s->shared = calloc(s->shared_len, sizeof(vc_t));
    for (int g = 0; g < s->gpus; ++g)
        for (int64_t i = 0; i < s->n_ev; ++i) {
            *part_seq(s, s->shared, GEMM_EV_OWN, g, i) = -1;
            *part_seq(s, s->shared, GEMM_EV_LOADED, g, i) = -1;
        }
    return s;
}

static void sim_free(sim *s)
{
    if (s->shared_on) {
        MPI_Win_unlock_all(s->win);
        MPI_Win_free(&s->win);
    } else {
        free(s->shared);
    }
    free(s->peer);
    free(s->stream);
    free(s->host);
    free(s->ready);
    free(s->cdone);
    free(s->cfree);
    free(s->computed);
    free(s->copied);
    free(s->marks);
    for (int k = 0; k < GEMM_EV_KINDS; ++k)
        free(s->rec[k]);
    free(s);
}

typedef struct tcase {
    int64_t n, t, b, d, budget;
    int G, l, ipc;
    int64_t split; /* tail_split (0: none) */
} tcase;

/* Runs a case twice on the simulated device; returns the races of all ranks, and their misuses
 * of events in *misuses (their first in first). */
static int64_t run_case(rt_comm *comm, const tcase *c, int drop, char *first, size_t len,
                        int64_t *misuses)
{
    int rank = 0, P = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    gemm_inputs in = {.m = c->n, .n = c->n, .k = c->n, .prec = RT_FP64, .seed = 1};
    in.rank = rank;
    in.nranks = P;
    in.n_samples = in.m * in.n <= GEMM_ALL_ENTRIES ? in.m * in.n : GEMM_SAMPLES;
    in.sample0 = in.n_samples * rank / P;
    in.sample1 = in.n_samples * (rank + 1) / P;
    int p = 1;
    for (int r = 1; r * r <= P; ++r)
        if (P % r == 0)
            p = r;
    const int64_t nt = (c->n + c->t - 1) / c->t;
    const gemm_plan_req req = {.mt = nt,
                               .nt = nt,
                               .kt = nt,
                               .p = p,
                               .q = P / p,
                               .G = c->G,
                               .b = c->b,
                               .c = c->b,
                               .d = c->d,
                               .l = c->l,
                               .split = c->split,
                               .budget_tiles = c->budget,
                               .ipc = c->ipc,
                               .m = c->n,
                               .n = c->n,
                               .k = c->n,
                               .t = c->t};
    gemm_plan pl;
    rt_err err;
    rt_err_clear(&err);
    RT_CHECK_MSG(gemm_plan_make(&req, &pl, &err) == 0, "plan: %s", err.msg);
    sim *s = sim_create(&pl, drop);
    gemm_async *a = NULL;
    gemm_tiled *drv = NULL;
    int rc = gemm_async_create(&sim_dev, s, pl.G, gemm_tiled_slots(&pl), pl.l, &a, &err);
    if (rc == 0)
        rc = gemm_tiled_create(&in, &pl, c->t, comm, rank, -1, gemm_async_ops(), a, &drv, &err);
    rc = gemm_tiled_connect(rc == 0 ? drv : NULL, comm, rc, "ordering", &err);
    RT_CHECK_MSG(rc == 0, "setup: %s", err.msg);
    for (int x = 0; x < 2 && rc == 0; ++x) {
        rc = gemm_tiled_run(drv, &err);
        RT_CHECK_MSG(rc == 0, "run: %s", err.msg);
    }
    int64_t races = 0;
    MPI_Allreduce(&s->races, &races, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int64_t mine = 0;
    for (int r = 0; r < RULE_N; ++r)
        mine += s->misuses[r];
    MPI_Allreduce(&mine, misuses, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    /* Every rule this rank broke, with its first instance; else its first race. */
    size_t at = 0;
    for (int r = 0; r < RULE_N && at < len; ++r)
        if (s->misuses[r] > 0)
            at +=
                (size_t)snprintf(first + at, len - at, "%s[%lld x %s: first %s]", at > 0 ? " " : "",
                                 (long long)s->misuses[r], rule_text[r], s->first_misuse[r]);
    if (s->races > 0 && at == 0)
        snprintf(first, len, "%s", s->first);
    gemm_tiled_free(drv);
    gemm_async_free(a);
    sim_free(s);
    return races;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, P = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const int rpn = argc > 1 ? atoi(argv[1]) : P;
    rt_comm_opts opts = {.ranks_per_node = rpn, .ranks_per_socket = 0};
    rt_comm *comm = NULL;
    rt_err err;
    if (rt_comm_create(&opts, &comm, &err) != 0) {
        fprintf(stderr, "rt_comm_create: %s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* 12^3 tiles of 4 (and 10^3 ragged of 5), b = c = 2: budgets of everything (1000 tiles),
     * case (b) (40) and (c) (28, 20 with l = 1), G = 1, 2, lookahead 0..2, ipc and mpi. Then the
     * tail split: one block of all C in 3 and 4 sub-blocks (everything fits), b = c = 4 in case
     * (c) (36 and 48 tiles on 2 GPUs: B reloaded per sub-block) split 2 and 4, ragged split 2. */
    const tcase cases[] = {
        {48, 4, 2, 2, 1000, 1, 1, 1, 1},  {48, 4, 2, 2, 40, 1, 0, 1, 1},
        {48, 4, 2, 2, 40, 2, 2, 1, 1},    {48, 4, 2, 2, 28, 1, 2, 1, 1},
        {48, 4, 2, 2, 28, 2, 2, 1, 1},    {48, 4, 2, 1, 20, 1, 1, 1, 1},
        {48, 4, 2, 2, 28, 2, 2, 0, 1},    {45, 5, 2, 1, 4000, 2, 1, 1, 1},
        {45, 5, 2, 1, 30, 2, 1, 1, 1},    {48, 4, 12, 2, 1000, 1, 1, 1, 3},
        {48, 4, 12, 1, 1000, 2, 1, 1, 4}, {48, 4, 4, 2, 36, 2, 1, 1, 2},
        {48, 4, 4, 2, 48, 2, 2, 0, 4},    {45, 5, 4, 1, 4000, 2, 1, 1, 2},
    };
    const int n_cases = (int)(sizeof cases / sizeof cases[0]);
    char first[2048] = "";
    for (int i = 0; i < n_cases; ++i) {
        first[0] = '\0';
        int64_t misuses = 0;
        const int64_t races = run_case(comm, &cases[i], DROP_NONE, first, sizeof first, &misuses);
        RT_CHECK_MSG(races == 0 && misuses == 0,
                     "case %d (G %d, budget %lld, l %d, ipc %d, split %lld): %lld races, %lld "
                     "misused events; %s",
                     i, cases[i].G, (long long)cases[i].budget, cases[i].l, cases[i].ipc,
                     (long long)cases[i].split, (long long)races, (long long)misuses, first);
    }
    /* The checks fire: each wait left out makes the streams race somewhere (DROP_*); each broken
     * rule of events is reported as a misuse (BREAK_*: G = 2 with evictions, node peers for the
     * imports). */
    const struct {
        int hook, needs_peers, misuse; /* misuse: what must be reported (else races) */
        const char *name;
        tcase c;
    } mutants[] = {
        {DROP_READY, 0, 0, "no wait: products before tiles", {48, 4, 2, 2, 40, 2, 1, 1, 1}},
        {DROP_COMPUTED,
         0,
         0,
         "no wait: loads before evicted readers",
         {48, 4, 2, 2, 28, 1, 2, 1, 1}},
        {DROP_CFREE, 0, 0, "no wait: C products before write-back", {48, 4, 2, 2, 40, 1, 1, 1, 1}},
        {DROP_PEER_OWN, 1, 0, "no wait: pulls before owner's loads", {48, 4, 2, 2, 40, 1, 1, 1, 1}},
        {DROP_PEER_LOADED, 1, 0, "no wait: evictions before pulls", {48, 4, 2, 2, 28, 1, 2, 1, 1}},
        {BREAK_LOADED_ACROSS, 0, 1, "other GPU's LOADED waited", {48, 4, 2, 2, 28, 2, 2, 1, 1}},
        {BREAK_VIA_LAST, 1, 1, "peer events imported on one GPU", {48, 4, 2, 2, 28, 2, 2, 1, 1}},
        {BREAK_EARLY, 0, 1, "wait before its chunk's record", {48, 4, 2, 2, 28, 1, 2, 1, 1}},
        {BREAK_UNCREATED, 0, 1, "slot event never created waited", {48, 4, 2, 2, 40, 1, 1, 1, 1}},
        {BREAK_RECORD_OTHER, 0, 1, "next GPU's COPIED recorded", {48, 4, 2, 2, 28, 2, 2, 1, 1}},
    };
    int caught = 0, broke = 0;
    for (size_t i = 0; i < sizeof mutants / sizeof mutants[0]; ++i) {
        if (mutants[i].needs_peers && rpn < 2)
            continue;
        first[0] = '\0';
        int64_t misuses = 0;
        const int64_t races =
            run_case(comm, &mutants[i].c, mutants[i].hook, first, sizeof first, &misuses);
        const int fired = mutants[i].misuse ? misuses > 0 : races > 0;
        RT_CHECK_MSG(fired, "%s went unnoticed", mutants[i].name);
        if (rank == 0 && fired && mutants[i].misuse)
            printf("  caught: %s: %s\n", mutants[i].name, first);
        caught += fired && !mutants[i].misuse;
        broke += fired && mutants[i].misuse;
    }
    if (rank == 0)
        printf("gemm ordering on %d rank(s), %d per node: %d cases race-free with every event "
               "used by the rules, %d left-out waits and %d broken rules of events caught\n",
               P, rpn, n_cases, caught, broke);
    rt_comm_free(comm);
    const int result = RT_TEST_RESULT();
    MPI_Finalize();
    return result;
}
