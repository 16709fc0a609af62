#include "rt_comm_rma.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rt_rma_win {
    rt_comm *comm;
    MPI_Comm mpi; /* world (owned by comm): the communicator the MPI window spans */
    MPI_Win win;
    int locked; /* inside the lock_all epoch */
    void *base;
    size_t local_bytes;
    int rank, size;
    size_t *bytes_of; /* window size of every rank of the level */
    int *world_of;    /* world rank of every rank of the level */
    rt_rma_stats stats;
    char name[64];
};

static int mpi_fail(rt_err *err, int rc, const char *win, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error code %d", rc);
    return rt_err_set(err, "window '%s': %s failed: %s", win, what, text);
}

/* Every rank learns whether all succeeded, and which rank failed first, so a failure on one rank
 * never leaves the others waiting in the next collective. */
static int level_agree(MPI_Comm mpi, int ok, int world_rank, int *first_bad)
{
    const int mine = ok ? INT_MAX : world_rank;
    int lowest = INT_MAX;
    if (MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, mpi) != MPI_SUCCESS) {
        *first_bad = -1;
        return 0;
    }
    *first_bad = lowest == INT_MAX ? -1 : lowest;
    return lowest == INT_MAX;
}

int rt_rma_win_create(rt_comm *comm, rt_comm_level level, size_t local_bytes, const char *name,
                      rt_rma_win **out, rt_err *err)
{
    *out = NULL;
    const char *wname = name ? name : "unnamed";
    if (!comm)
        return rt_err_set(err, "window '%s': no communication layer given", wname);
    if (rt_comm_start(comm, err) != 0)
        return rt_err_prefix(err, "window '%s'", wname);
    MPI_Comm level_mpi = rt_comm_mpi(comm, level);
    if (level_mpi == MPI_COMM_NULL)
        return rt_err_set(err, "window '%s': unknown communication level %d", wname, (int)level);
    /* The MPI window spans world even for a narrower level (see the header): Open MPI names the
     * shared-memory segment of a window after its communicator's context id, which disjoint groups
     * of one level (emulated nodes, sockets of one node) share, so their windows would collide. */
    MPI_Comm mpi = rt_comm_mpi(comm, RT_COMM_WORLD);
    const int me_world = rt_comm_world_rank(comm);

    rt_rma_win *w = calloc(1, sizeof *w);
    int ok = w != NULL;
    if (w) {
        w->comm = comm;
        w->mpi = mpi;
        w->win = MPI_WIN_NULL;
        w->rank = rt_comm_rank(comm, level);
        w->size = rt_comm_size(comm, level);
        w->local_bytes = local_bytes;
        snprintf(w->name, sizeof w->name, "%s", wname);
        w->bytes_of = calloc((size_t)w->size, sizeof *w->bytes_of);
        w->world_of = calloc((size_t)w->size, sizeof *w->world_of);
        ok = w->bytes_of && w->world_of;
    }
    /* MPI_Aint is signed: a local size beyond its range cannot be exposed. */
    if (ok && local_bytes > (size_t)(((unsigned long long)1 << 62)))
        ok = 0;
    int first_bad = -1;
    if (!level_agree(mpi, ok, me_world, &first_bad)) {
        if (w) {
            free(w->bytes_of);
            free(w->world_of);
            free(w);
        }
        return rt_err_set(err,
                          "window '%s': rank %d could not prepare %zu bytes (out of memory "
                          "or too large)",
                          wname, first_bad, local_bytes);
    }

    /* Sizes and world ranks of every member, for range checks and the traffic tiers. */
    unsigned long long mine_size = local_bytes, *sizes = malloc((size_t)w->size * sizeof *sizes);
    int rc = sizes ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allgather(&mine_size, 1, MPI_UNSIGNED_LONG_LONG, sizes, 1, MPI_UNSIGNED_LONG_LONG,
                           level_mpi);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allgather(&me_world, 1, MPI_INT, w->world_of, 1, MPI_INT, level_mpi);
    if (rc == MPI_SUCCESS)
        for (int r = 0; r < w->size; ++r)
            w->bytes_of[r] = (size_t)sizes[r];
    free(sizes);
    if (!level_agree(mpi, rc == MPI_SUCCESS, me_world, &first_bad)) {
        free(w->bytes_of);
        free(w->world_of);
        free(w);
        return rt_err_set(err, "window '%s': exchanging window sizes failed (rank %d)", wname,
                          first_bad);
    }

    /* A zero-byte window still needs a valid base pointer argument. */
    rc = MPI_Win_allocate((MPI_Aint)local_bytes, 1, MPI_INFO_NULL, mpi, &w->base, &w->win);
    if (!level_agree(mpi, rc == MPI_SUCCESS, me_world, &first_bad)) {
        rt_err tmp;
        if (rc != MPI_SUCCESS)
            mpi_fail(&tmp, rc, wname, "MPI_Win_allocate");
        else
            rt_err_set(&tmp, "window '%s': MPI_Win_allocate failed on rank %d", wname, first_bad);
        if (w->win != MPI_WIN_NULL)
            MPI_Win_free(&w->win);
        free(w->bytes_of);
        free(w->world_of);
        free(w);
        return rt_err_set(err, "%s (%zu bytes on this rank; first failing rank %d)", tmp.msg,
                          local_bytes, first_bad);
    }
    MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
    if (local_bytes > 0)
        memset(w->base, 0, local_bytes);
    else
        w->base = NULL;
    rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win);
    if (rc == MPI_SUCCESS)
        w->locked = 1;
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_sync(w->win);
    /* The zeroes must be public before anyone reads or updates them. */
    const int rc_barrier = MPI_Barrier(mpi);
    if (!level_agree(mpi, rc == MPI_SUCCESS && rc_barrier == MPI_SUCCESS, me_world, &first_bad)) {
        rt_err tmp;
        mpi_fail(&tmp, rc != MPI_SUCCESS ? rc : rc_barrier, wname, "starting the epoch");
        rt_rma_win_free(w);
        return rt_err_set(err, "%s (first failing rank %d)", tmp.msg, first_bad);
    }
    *out = w;
    return 0;
}

void rt_rma_win_free(rt_rma_win *w)
{
    if (!w)
        return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && w->win != MPI_WIN_NULL) {
        if (w->locked)
            MPI_Win_unlock_all(w->win);
        MPI_Win_free(&w->win);
    }
    free(w->bytes_of);
    free(w->world_of);
    free(w);
}

void *rt_rma_local(rt_rma_win *w)
{
    return w->base;
}

size_t rt_rma_local_bytes(const rt_rma_win *w)
{
    return w->local_bytes;
}

size_t rt_rma_bytes_of(const rt_rma_win *w, int target)
{
    return (target >= 0 && target < w->size) ? w->bytes_of[target] : 0;
}

int rt_rma_rank(const rt_rma_win *w)
{
    return w->rank;
}

int rt_rma_size(const rt_rma_win *w)
{
    return w->size;
}

int rt_rma_world_rank(const rt_rma_win *w, int target)
{
    return (target >= 0 && target < w->size) ? w->world_of[target] : -1;
}

const char *rt_rma_name(const rt_rma_win *w)
{
    return w->name;
}

rt_comm *rt_rma_comm(const rt_rma_win *w)
{
    return w->comm;
}

/* Target and byte range inside the target's window. */
static int check_range(const rt_rma_win *w, int target, size_t offset, size_t bytes,
                       const char *what, rt_err *err)
{
    if (target < 0 || target >= w->size)
        return rt_err_set(err, "window '%s': %s: target rank %d is not in this %d-rank window",
                          w->name, what, target, w->size);
    const size_t have = w->bytes_of[target];
    if (offset > have || bytes > have - offset)
        return rt_err_set(err,
                          "window '%s': %s of %zu bytes at offset %zu on rank %d is outside "
                          "that rank's %zu bytes",
                          w->name, what, bytes, offset, w->world_of[target], have);
    return 0;
}

/* One MPI operation of `bytes` to `target`: the window's statistics, and the rank's per-tier
 * counters unless the target is this rank. */
static int count(rt_rma_win *w, int target, int64_t bytes, rt_err *err)
{
    if (target == w->rank) {
        w->stats.self_bytes += bytes;
        w->stats.self_ops += 1;
        return 0;
    }
    const int world = w->world_of[target];
    const int tier = rt_comm_tier_of(w->comm, world);
    if (tier < 0)
        return rt_err_set(err, "window '%s': rank %d has no network tier", w->name, world);
    w->stats.bytes[tier] += bytes;
    w->stats.ops[tier] += 1;
    return rt_comm_count_to(w->comm, world, bytes, err);
}

int rt_rma_rget(rt_rma_win *w, void *dst, size_t bytes, int target, size_t offset, rt_rma_req *req,
                rt_err *err)
{
    req->n = 0;
    if (check_range(w, target, offset, bytes, "get", err) != 0)
        return -1;
    if (bytes == 0)
        return 0;
    if (!dst)
        return rt_err_set(err, "window '%s': get of %zu bytes into a NULL buffer", w->name, bytes);
    const size_t pieces = (bytes + RT_RMA_PIECE_BYTES - 1) / RT_RMA_PIECE_BYTES;
    if (pieces > RT_RMA_REQ_PIECES)
        return rt_err_set(err,
                          "window '%s': a get of %zu bytes exceeds the %d GiB one request "
                          "can carry",
                          w->name, bytes, RT_RMA_REQ_PIECES);
    unsigned char *d = dst;
    for (size_t off = 0; off < bytes; off += RT_RMA_PIECE_BYTES) {
        const size_t n = bytes - off < RT_RMA_PIECE_BYTES ? bytes - off : RT_RMA_PIECE_BYTES;
        const int rc =
            MPI_Rget(d + off, (int)n, MPI_BYTE, w->world_of[target], (MPI_Aint)(offset + off),
                     (int)n, MPI_BYTE, w->win, &req->req[req->n]);
        if (rc != MPI_SUCCESS) {
            rt_err ignored;
            rt_rma_wait(req, &ignored); /* never leave pieces in flight behind an error */
            return mpi_fail(err, rc, w->name, "MPI_Rget");
        }
        req->n++;
    }
    return count(w, target, (int64_t)bytes, err);
}

int rt_rma_get(rt_rma_win *w, void *dst, size_t bytes, int target, size_t offset, rt_err *err)
{
    rt_rma_req req;
    if (rt_rma_rget(w, dst, bytes, target, offset, &req, err) != 0)
        return -1;
    return rt_rma_wait(&req, err);
}

int rt_rma_wait(rt_rma_req *req, rt_err *err)
{
    if (req->n <= 0) {
        req->n = 0;
        return 0;
    }
    const int rc = MPI_Waitall(req->n, req->req, MPI_STATUSES_IGNORE);
    req->n = 0;
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        return rt_err_set(err, "completing a one-sided get failed: %s", text);
    }
    return 0;
}

int rt_rma_test(rt_rma_req *req, int *done, rt_err *err)
{
    *done = 1;
    if (req->n <= 0) {
        req->n = 0;
        return 0;
    }
    int flag = 0;
    const int rc = MPI_Testall(req->n, req->req, &flag, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) {
        req->n = 0;
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        return rt_err_set(err, "testing a one-sided get failed: %s", text);
    }
    *done = flag;
    if (flag)
        req->n = 0;
    return 0;
}

int rt_rma_put(rt_rma_win *w, const void *src, size_t bytes, int target, size_t offset, rt_err *err)
{
    if (check_range(w, target, offset, bytes, "put", err) != 0)
        return -1;
    if (bytes == 0)
        return 0;
    if (!src)
        return rt_err_set(err, "window '%s': put of %zu bytes from a NULL buffer", w->name, bytes);
    const unsigned char *s = src;
    for (size_t off = 0; off < bytes; off += RT_RMA_PIECE_BYTES) {
        const size_t n = bytes - off < RT_RMA_PIECE_BYTES ? bytes - off : RT_RMA_PIECE_BYTES;
        const int rc = MPI_Put(s + off, (int)n, MPI_BYTE, w->world_of[target],
                               (MPI_Aint)(offset + off), (int)n, MPI_BYTE, w->win);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, w->name, "MPI_Put");
    }
    /* The caller may reuse src at once: complete the put locally (not yet at the target). */
    const int rc = MPI_Win_flush_local(w->world_of[target], w->win);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, w->name, "MPI_Win_flush_local");
    return count(w, target, (int64_t)bytes, err);
}

static MPI_Datatype mpi_type(rt_rma_type t, size_t *elem)
{
    switch (t) {
    case RT_RMA_I64: *elem = 8; return MPI_INT64_T;
    case RT_RMA_F32: *elem = 4; return MPI_FLOAT;
    case RT_RMA_F64: *elem = 8; return MPI_DOUBLE;
    }
    *elem = 0;
    return MPI_DATATYPE_NULL;
}

int rt_rma_accumulate(rt_rma_win *w, const void *src, size_t count_elems, rt_rma_type type,
                      int target, size_t offset, rt_err *err)
{
    size_t elem = 0;
    MPI_Datatype dt = mpi_type(type, &elem);
    if (dt == MPI_DATATYPE_NULL)
        return rt_err_set(err, "window '%s': accumulate: unknown element type %d", w->name,
                          (int)type);
    if (count_elems > SIZE_MAX / elem)
        return rt_err_set(err, "window '%s': accumulate of %zu elements overflows", w->name,
                          count_elems);
    const size_t bytes = count_elems * elem;
    if (check_range(w, target, offset, bytes, "accumulate", err) != 0)
        return -1;
    if (offset % elem != 0)
        return rt_err_set(err,
                          "window '%s': accumulate at offset %zu is not aligned to its %zu-byte "
                          "elements",
                          w->name, offset, elem);
    if (bytes == 0)
        return 0;
    if (!src)
        return rt_err_set(err, "window '%s': accumulate from a NULL buffer", w->name);
    const size_t per = RT_RMA_PIECE_BYTES / elem;
    const unsigned char *s = src;
    for (size_t done = 0; done < count_elems; done += per) {
        const size_t n = count_elems - done < per ? count_elems - done : per;
        const int rc =
            MPI_Accumulate(s + done * elem, (int)n, dt, w->world_of[target],
                           (MPI_Aint)(offset + done * elem), (int)n, dt, MPI_SUM, w->win);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, w->name, "MPI_Accumulate");
    }
    const int rc = MPI_Win_flush_local(w->world_of[target], w->win);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, w->name, "MPI_Win_flush_local");
    return count(w, target, (int64_t)bytes, err);
}

int rt_rma_flush(rt_rma_win *w, int target, rt_err *err)
{
    if (target < 0 || target >= w->size)
        return rt_err_set(err, "window '%s': flush: target rank %d is not in this %d-rank window",
                          w->name, target, w->size);
    const int rc = MPI_Win_flush(w->world_of[target], w->win);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, rc, w->name, "MPI_Win_flush");
}

int rt_rma_flush_all(rt_rma_win *w, rt_err *err)
{
    const int rc = MPI_Win_flush_all(w->win);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, rc, w->name, "MPI_Win_flush_all");
}

/* One 64-bit atomic, completed before returning. */
static int atomic64(rt_rma_win *w, int target, size_t offset, int64_t operand, int64_t *result,
                    MPI_Op op, const char *what, int64_t bytes, rt_err *err)
{
    if (check_range(w, target, offset, 8, what, err) != 0)
        return -1;
    if (offset % 8 != 0)
        return rt_err_set(err, "window '%s': %s at offset %zu is not 8-byte aligned", w->name, what,
                          offset);
    int64_t old = 0;
    const int world = w->world_of[target];
    int rc = MPI_Fetch_and_op(&operand, &old, MPI_INT64_T, world, (MPI_Aint)offset, op, w->win);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, w->name, "MPI_Fetch_and_op");
    rc = MPI_Win_flush(world, w->win);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, w->name, "MPI_Win_flush");
    if (result)
        *result = old;
    return count(w, target, bytes, err);
}

int rt_rma_fetch_add(rt_rma_win *w, int target, size_t offset, int64_t add, int64_t *old,
                     rt_err *err)
{
    return atomic64(w, target, offset, add, old, MPI_SUM, "fetch-and-add", 16, err);
}

int rt_rma_atomic_load(rt_rma_win *w, int target, size_t offset, int64_t *value, rt_err *err)
{
    /* The operand is ignored by MPI_NO_OP: only the value travels. */
    return atomic64(w, target, offset, 0, value, MPI_NO_OP, "atomic load", 8, err);
}

int rt_rma_atomic_store(rt_rma_win *w, int target, size_t offset, int64_t value, rt_err *err)
{
    return atomic64(w, target, offset, value, NULL, MPI_REPLACE, "atomic store", 8, err);
}

int rt_rma_sync(rt_rma_win *w, rt_err *err)
{
    const int rc = MPI_Win_sync(w->win);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, rc, w->name, "MPI_Win_sync");
}

void rt_rma_stats_read(const rt_rma_win *w, rt_rma_stats *out)
{
    *out = w->stats;
}

void rt_rma_stats_reset(rt_rma_win *w)
{
    memset(&w->stats, 0, sizeof w->stats);
}
