#include "eigen_graph.h"

#include <stdlib.h>
#include <string.h>

#include "rt_registry.h"

void eg_graph_init(eg_graph_cache *c)
{
    memset(c, 0, sizeof *c);
}

void eg_graph_free(eg_graph_cache *c, const eg_dev *dev)
{
    for (int i = 0; i < c->n_seg; ++i) {
        if (c->seg[i].graph && dev->ops->graph_destroy)
            dev->ops->graph_destroy(dev->impl, c->seg[i].graph);
        free(c->seg[i].ops);
    }
    free(c->seg);
    free(c->scratch);
    free(c->acquired);
    memset(c, 0, sizeof *c);
}

void eg_graph_reset_stats(eg_graph_cache *c)
{
    memset(&c->st, 0, sizeof c->st);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    return h;
}

/* A hash of what eg_bound_op_same compares (doubles by value: 0.0 and -0.0 compare equal and must
 * hash alike, hence the + 0.0). */
static uint64_t hash_ops(const eg_bound_op *b, int n)
{
    uint64_t h = (uint64_t)n;
    for (int i = 0; i < n; ++i) {
        const eg_op *op = &b[i].op;
        const double scal[2] = {op->alpha + 0.0, op->beta + 0.0};
        uint64_t bits[2];
        memcpy(bits, scal, sizeof bits);
        h = mix(h, (uint64_t)op->kind);
        h = mix(h, (uint64_t)op->m);
        h = mix(h, (uint64_t)op->n);
        h = mix(h, (uint64_t)op->k);
        h = mix(h, (uint64_t)op->nnz);
        h = mix(h, bits[0]);
        h = mix(h, bits[1]);
        for (int k = 0; k < 3; ++k) {
            h = mix(h, (uint64_t)(uintptr_t)b[i].base[k]);
            h = mix(h, (uint64_t)op->row[k]);
            h = mix(h, (uint64_t)op->col[k]);
            h = mix(h, (uint64_t)op->ld[k]);
        }
    }
    return h;
}

static eg_graph_seg *lookup(eg_graph_cache *c, uint64_t h, const eg_bound_op *b, int n)
{
    for (int i = 0; i < c->n_seg; ++i) {
        eg_graph_seg *s = &c->seg[i];
        if (s->hash != h || s->n_ops != n)
            continue;
        int same = 1;
        for (int k = 0; k < n && same; ++k)
            same = eg_bound_op_same(&s->ops[k], &b[k]);
        if (same)
            return s;
    }
    return NULL;
}

static int remember(eg_graph_cache *c, uint64_t h, const eg_bound_op *b, int n, rt_err *err)
{
    if (c->n_seg == EG_GRAPH_MAX_SEGMENTS)
        return 0;
    if (c->n_seg == 0) {
        c->seg = calloc(EG_GRAPH_MAX_SEGMENTS, sizeof *c->seg);
        if (!c->seg)
            return rt_err_set(err, "graph schedule: out of memory for the segment cache");
    }
    eg_bound_op *copy = malloc((size_t)(n ? n : 1) * sizeof *copy);
    if (!copy)
        return rt_err_set(err, "graph schedule: out of memory for a segment of %d operations", n);
    memcpy(copy, b, (size_t)n * sizeof *copy);
    eg_graph_seg *s = &c->seg[c->n_seg++];
    s->hash = h;
    s->n_ops = n;
    s->ops = copy;
    s->captured = 0;
    s->graph = NULL;
    return 0;
}

static int run_list(const eg_dev *dev, const eg_bound_op *b, int n, rt_err *err)
{
    for (int i = 0; i < n; ++i)
        if (eg_bound_op_run(dev, &b[i], err) != 0)
            return -1;
    return 0;
}

/* Captures the segment's operations into a graph (a device without graphs keeps the list). */
static int capture(const eg_dev *dev, eg_graph_seg *s, rt_err *err)
{
    if (!dev->ops->capture_begin) {
        s->captured = 1;
        return 0;
    }
    if (dev->ops->capture_begin(dev->impl, err) != 0)
        return -1;
    const int rc = run_list(dev, s->ops, s->n_ops, err);
    rt_err ignored;
    void *g = NULL;
    if (rc != 0) {
        dev->ops->capture_end(dev->impl, 0, &g, &ignored);
        return rt_err_prefix(err, "graph schedule: capturing a segment of %d operations", s->n_ops);
    }
    if (dev->ops->capture_end(dev->impl, 1, &g, err) != 0)
        return -1;
    s->graph = g;
    s->captured = 1;
    return 0;
}

static int launch(const eg_dev *dev, const eg_graph_seg *s, rt_err *err)
{
    if (!dev->ops->graph_launch)
        return run_list(dev, s->ops, s->n_ops, err);
    return dev->ops->graph_launch(dev->impl, s->graph, err);
}

static int grow(void **p, int *cap, int need, size_t elem, rt_err *err)
{
    if (need <= *cap)
        return 0;
    int cap2 = *cap ? *cap : 64;
    while (cap2 < need)
        cap2 *= 2;
    void *g = realloc(*p, (size_t)cap2 * elem);
    if (!g)
        return rt_err_set(err, "graph schedule: out of memory for %d entries", cap2);
    *p = g;
    *cap = cap2;
    return 0;
}

/* Binds the operations of tasks order[0..n) with all their operands acquired at once. */
static int bind_segment(const eg_dag *d, const int *order, int n, eg_mem *m, eg_graph_cache *c,
                        int *n_ops, int *n_acq, rt_err *err)
{
    int ops = 0, acq = 0;
    for (int i = 0; i < n; ++i)
        ops += d->task[order[i]].n_ops, acq += d->task[order[i]].n_operands;
    if (grow((void **)&c->scratch, &c->cap_scratch, ops, sizeof *c->scratch, err) != 0 ||
        grow((void **)&c->acquired, &c->cap_acquired, acq, sizeof *c->acquired, err) != 0)
        return -1;
    *n_ops = 0;
    *n_acq = 0;
    for (int i = 0; i < n; ++i) {
        const eg_task *t = &d->task[order[i]];
        void *ptr[EG_MAX_OPERANDS];
        for (int k = 0; k < t->n_operands; ++k) {
            const int rc = eg_mem_acquire(m, t->operand[k].obj, t->operand[k].mode, &ptr[k], err);
            if (rc != 0) {
                rt_err_prefix(err, "task %s (tile %lld)", t->name, (long long)t->tile);
                return rc;
            }
            c->acquired[(*n_acq)++] = t->operand[k].obj;
        }
        for (int k = 0; k < t->n_ops; ++k)
            eg_op_bind(&t->op[k], ptr, &c->scratch[(*n_ops)++]);
    }
    return 0;
}

static int run_segment(const eg_dag *d, const int *order, int n, eg_mem *m, eg_graph_cache *c,
                       rt_err *err)
{
    int n_ops = 0, n_acq = 0;
    int rc = bind_segment(d, order, n, m, c, &n_ops, &n_acq, err);
    if (rc == 0) {
        c->st.segments++;
        const uint64_t h = hash_ops(c->scratch, n_ops);
        eg_graph_seg *s = lookup(c, h, c->scratch, n_ops);
        if (!s) {
            c->st.eager++;
            rc = remember(c, h, c->scratch, n_ops, err);
            if (rc == 0)
                rc = run_list(&m->dev, c->scratch, n_ops, err);
        } else {
            if (!s->captured) {
                rc = capture(&m->dev, s, err);
                if (rc == 0)
                    c->st.captures++;
            }
            if (rc == 0)
                rc = launch(&m->dev, s, err);
            if (rc == 0)
                c->st.launches++;
        }
    }
    for (int k = 0; k < n_acq; ++k)
        eg_mem_release(m, c->acquired[k]);
    return rc;
}

int eg_graph_execute(const eg_dag *d, const int *order, eg_mem *m, eg_graph_cache *c, rt_err *err)
{
    int i = 0;
    while (i < d->n) {
        const eg_task *t = &d->task[order[i]];
        if (t->host) {
            if (eg_dag_run_host_task(t, m, err) != 0)
                return -1;
            ++i;
            continue;
        }
        int j = i;
        while (j < d->n && !d->task[order[j]].host)
            ++j;
        const int rc = run_segment(d, order + i, j - i, m, c, err);
        if (rc != 0)
            return rc;
        i = j;
    }
    return 0;
}
