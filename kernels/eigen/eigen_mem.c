#include "eigen_mem.h"

#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_registry.h"

void eg_mem_init(eg_mem *m, eg_dev dev)
{
    memset(m, 0, sizeof *m);
    m->dev = dev;
}

size_t eg_mem_total_bytes(const eg_mem *m)
{
    size_t sum = 0;
    for (int i = 0; i < m->n_obj; ++i)
        sum += eg_pool_rounded(m->obj[i].bytes);
    return sum;
}

int eg_mem_open(eg_mem *m, size_t budget, rt_err *err)
{
    if (budget == 0)
        budget = eg_mem_total_bytes(m);
    m->budget = budget;
    if (eg_pool_init(&m->pool, budget, err) != 0)
        return -1;
    if (m->dev.ops->pool_create(m->dev.impl, budget, &m->base, err) != 0) {
        eg_pool_free_all(&m->pool);
        m->base = NULL;
        return rt_err_prefix(err, "memory manager pool of %zu bytes", budget);
    }
    return 0;
}

void eg_mem_destroy(eg_mem *m)
{
    if (m->base)
        m->dev.ops->pool_destroy(m->dev.impl, m->base);
    eg_pool_free_all(&m->pool);
    free(m->obj);
    memset(m, 0, sizeof *m);
}

int eg_mem_add(eg_mem *m, void *host, size_t bytes, const char *what, int64_t tag, rt_err *err)
{
    if (m->n_obj == m->cap_obj) {
        const int cap = m->cap_obj ? 2 * m->cap_obj : 256;
        eg_obj *grown = realloc(m->obj, (size_t)cap * sizeof *grown);
        if (!grown)
            return rt_err_set(err, "memory manager: out of memory for the tile map");
        m->obj = grown;
        m->cap_obj = cap;
    }
    eg_obj *o = &m->obj[m->n_obj];
    memset(o, 0, sizeof *o);
    o->host = host;
    o->bytes = bytes;
    o->what = what;
    o->tag = tag;
    o->host_valid = 1;
    o->inf_host_valid = 1;
    return m->n_obj++;
}

static void *dev_addr(const eg_mem *m, const eg_obj *o)
{
    return (char *)m->base + o->off;
}

static int write_back(eg_mem *m, eg_obj *o, rt_err *err)
{
    if (o->host_valid || !o->resident)
        return 0;
    if (m->dev.ops->d2h(m->dev.impl, o->host, dev_addr(m, o), o->bytes, err) != 0)
        return rt_err_prefix(err, "write-back of %s %lld", o->what, (long long)o->tag);
    m->st.d2h_bytes += (double)o->bytes;
    m->st.d2h_copies++;
    o->host_valid = 1;
    return 0;
}

static int drop(eg_mem *m, int id, rt_err *err)
{
    eg_obj *o = &m->obj[id];
    if (eg_pool_release(&m->pool, o->off, o->bytes, err) != 0)
        return -1;
    m->st.resident_bytes -= eg_pool_rounded(o->bytes);
    o->resident = 0;
    return 0;
}

/* The unpinned resident tile loaded first, or -1. */
static int fifo_victim(const eg_mem *m)
{
    int best = -1;
    for (int i = 0; i < m->n_obj; ++i) {
        const eg_obj *o = &m->obj[i];
        if (o->resident && o->pins == 0 && (best < 0 || o->loaded < m->obj[best].loaded))
            best = i;
    }
    return best;
}

static int make_room(eg_mem *m, int id, rt_err *err)
{
    eg_obj *o = &m->obj[id];
    for (;;) {
        size_t off = 0;
        const int got = eg_pool_alloc(&m->pool, o->bytes, &off, err);
        if (got < 0)
            return -1;
        if (got == 0) {
            o->off = off;
            o->resident = 1;
            o->loaded = ++m->clock;
            m->st.resident_bytes += eg_pool_rounded(o->bytes);
            if (m->st.resident_bytes > m->st.peak_resident_bytes)
                m->st.peak_resident_bytes = m->st.resident_bytes;
            return 0;
        }
        const int v = fifo_victim(m);
        if (v < 0) {
            rt_err_set(err,
                       "gpu_mem_budget = %zu bytes cannot hold %s %lld (%zu bytes) beside the "
                       "%zu bytes of operands the running task has pinned",
                       m->budget, o->what, (long long)o->tag, o->bytes, m->st.resident_bytes);
            return RT_INFEASIBLE;
        }
        if (m->on_evict)
            m->on_evict(m->on_evict_user, v);
        if (write_back(m, &m->obj[v], err) != 0 || drop(m, v, err) != 0)
            return -1;
        m->st.evictions++;
    }
}

int eg_mem_acquire(eg_mem *m, int id, eg_mode mode, void **dptr, rt_err *err)
{
    eg_obj *o = &m->obj[id];
    if (!o->resident) {
        const int rc = make_room(m, id, err);
        if (rc != 0)
            return rc;
        if (mode & EG_READ) {
            if (!o->host_valid)
                return rt_err_set(err, "memory manager: %s %lld has no current copy", o->what,
                                  (long long)o->tag);
            if (m->dev.ops->h2d(m->dev.impl, dev_addr(m, o), o->host, o->bytes, err) != 0)
                return rt_err_prefix(err, "copy-in of %s %lld", o->what, (long long)o->tag);
            m->st.h2d_bytes += (double)o->bytes;
            m->st.h2d_copies++;
        }
    }
    if ((mode & EG_READ) && !o->inf_dev_valid) {
        m->st.compulsory_h2d += (double)o->bytes;
        o->inf_dev_valid = 1;
    }
    if (mode & EG_WRITE) {
        o->host_valid = 0;
        o->inf_dev_valid = 1;
        o->inf_host_valid = 0;
    }
    o->pins++;
    *dptr = dev_addr(m, o);
    return 0;
}

void eg_mem_release(eg_mem *m, int id)
{
    if (m->obj[id].pins > 0)
        m->obj[id].pins--;
}

int eg_mem_host_read(eg_mem *m, int id, rt_err *err)
{
    eg_obj *o = &m->obj[id];
    if (!o->inf_host_valid) {
        m->st.compulsory_d2h += (double)o->bytes;
        o->inf_host_valid = 1;
    }
    return write_back(m, o, err);
}

void eg_mem_host_wrote(eg_mem *m, int id)
{
    eg_obj *o = &m->obj[id];
    o->host_valid = 1;
    o->inf_host_valid = 1;
    o->inf_dev_valid = 0;
    if (o->resident && o->pins == 0)
        drop(m, id, NULL);
}

int eg_mem_sync(eg_mem *m, rt_err *err)
{
    const double t0 = rt_clock_now();
    const int rc = m->dev.ops->sync(m->dev.impl, err);
    m->st.syncs++;
    m->st.sync_wait_s += rt_clock_now() - t0;
    return rc;
}

int eg_mem_flush(eg_mem *m, int drop_too, rt_err *err)
{
    for (int i = 0; i < m->n_obj; ++i) {
        if (write_back(m, &m->obj[i], err) != 0)
            return -1;
        if (drop_too && m->obj[i].resident && m->obj[i].pins == 0 && drop(m, i, err) != 0)
            return -1;
    }
    return 0;
}

void eg_mem_reset(eg_mem *m)
{
    for (int i = 0; i < m->n_obj; ++i) {
        eg_obj *o = &m->obj[i];
        o->resident = 0;
        o->pins = 0;
        o->host_valid = 1;
        o->inf_dev_valid = 0;
        o->inf_host_valid = 1;
    }
    eg_pool_free_all(&m->pool);
    eg_pool_init(&m->pool, m->budget, NULL);
    memset(&m->st, 0, sizeof m->st);
    m->clock = 0;
}
