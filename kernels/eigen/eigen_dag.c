#include "eigen_dag.h"

#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_registry.h"

int eg_schedule_parse(const char *s)
{
    if (strcmp(s, "kbk") == 0)
        return EG_SCHED_KBK;
    if (strcmp(s, "dag") == 0)
        return EG_SCHED_DAG;
    if (strcmp(s, "graph") == 0)
        return EG_SCHED_GRAPH;
    return -1;
}

int eg_dag_init(eg_dag *d, int n_obj, rt_err *err)
{
    memset(d, 0, sizeof *d);
    d->n_obj = n_obj;
    d->last_writer = malloc((size_t)(n_obj ? n_obj : 1) * sizeof *d->last_writer);
    d->readers = calloc((size_t)(n_obj ? n_obj : 1), sizeof *d->readers);
    d->n_readers = calloc((size_t)(n_obj ? n_obj : 1), sizeof *d->n_readers);
    d->cap_readers = calloc((size_t)(n_obj ? n_obj : 1), sizeof *d->cap_readers);
    if (!d->last_writer || !d->readers || !d->n_readers || !d->cap_readers) {
        eg_dag_free(d);
        return rt_err_set(err, "task graph: out of memory for %d tiles", n_obj);
    }
    eg_dag_clear(d);
    return 0;
}

void eg_dag_free(eg_dag *d)
{
    for (int i = 0; i < d->cap; ++i)
        free(d->task[i].succ);
    free(d->task);
    if (d->readers)
        for (int i = 0; i < d->n_obj; ++i)
            free(d->readers[i]);
    free(d->readers);
    free(d->n_readers);
    free(d->cap_readers);
    free(d->last_writer);
    memset(d, 0, sizeof *d);
}

void eg_dag_clear(eg_dag *d)
{
    for (int i = 0; i < d->n; ++i) {
        d->task[i].n_succ = 0;
        d->task[i].n_pred = 0;
    }
    d->n = 0;
    d->call = 0;
    for (int i = 0; i < d->n_obj; ++i) {
        d->last_writer[i] = -1;
        d->n_readers[i] = 0;
    }
}

void eg_dag_next_call(eg_dag *d)
{
    d->call++;
}

static int add_edge(eg_dag *d, int from, int to, rt_err *err)
{
    if (from < 0 || from == to)
        return 0;
    eg_task *f = &d->task[from];
    for (int i = 0; i < f->n_succ; ++i)
        if (f->succ[i] == to)
            return 0;
    if (f->n_succ == f->cap_succ) {
        const int cap = f->cap_succ ? 2 * f->cap_succ : 4;
        int *grown = realloc(f->succ, (size_t)cap * sizeof *grown);
        if (!grown)
            return rt_err_set(err, "task graph: out of memory for edges");
        f->succ = grown;
        f->cap_succ = cap;
    }
    f->succ[f->n_succ++] = to;
    d->task[to].n_pred++;
    return 0;
}

static int add_reader(eg_dag *d, int obj, int t, rt_err *err)
{
    if (d->n_readers[obj] == d->cap_readers[obj]) {
        const int cap = d->cap_readers[obj] ? 2 * d->cap_readers[obj] : 4;
        int *grown = realloc(d->readers[obj], (size_t)cap * sizeof *grown);
        if (!grown)
            return rt_err_set(err, "task graph: out of memory for readers");
        d->readers[obj] = grown;
        d->cap_readers[obj] = cap;
    }
    d->readers[obj][d->n_readers[obj]++] = t;
    return 0;
}

int eg_dag_add(eg_dag *d, const eg_task *t, rt_err *err)
{
    if (d->n == d->cap) {
        const int cap = d->cap ? 2 * d->cap : 256;
        eg_task *grown = realloc(d->task, (size_t)cap * sizeof *grown);
        if (!grown)
            return rt_err_set(err, "task graph: out of memory for %d tasks", cap);
        memset(grown + d->cap, 0, (size_t)(cap - d->cap) * sizeof *grown);
        d->task = grown;
        d->cap = cap;
    }
    const int id = d->n;
    eg_task *nt = &d->task[id];
    int *keep_succ = nt->succ;
    const int keep_cap = nt->cap_succ;
    *nt = *t;
    nt->succ = keep_succ;
    nt->cap_succ = keep_cap;
    nt->n_succ = 0;
    nt->n_pred = 0;
    nt->call = d->call;
    d->n++;
    for (int i = 0; i < t->n_operands; ++i) {
        const int o = t->operand[i].obj;
        if (o < 0 || o >= d->n_obj)
            return rt_err_set(err, "task graph: task %s names tile %d of %d", t->name, o, d->n_obj);
        if (add_edge(d, d->last_writer[o], id, err) != 0)
            return -1;
        if (t->operand[i].mode & EG_WRITE)
            for (int r = 0; r < d->n_readers[o]; ++r)
                if (add_edge(d, d->readers[o][r], id, err) != 0)
                    return -1;
    }
    for (int i = 0; i < t->n_operands; ++i) {
        const int o = t->operand[i].obj;
        if (t->operand[i].mode & EG_WRITE) {
            d->last_writer[o] = id;
            d->n_readers[o] = 0;
        } else if (add_reader(d, o, id, err) != 0) {
            return -1;
        }
    }
    return id;
}

int eg_dag_order(const eg_dag *d, eg_schedule s, int *order, rt_err *err)
{
    if (s == EG_SCHED_KBK) {
        for (int i = 0; i < d->n; ++i)
            order[i] = i;
        return 0;
    }
    /* Depth first: a stack of ready tasks; a finished task's newly ready successors go on top,
     * the earliest in program order last pushed so it runs first. */
    int *pred = malloc((size_t)(d->n ? d->n : 1) * sizeof *pred);
    int *stack = malloc((size_t)(d->n ? d->n : 1) * sizeof *stack);
    if (!pred || !stack) {
        free(pred);
        free(stack);
        return rt_err_set(err, "task graph: out of memory ordering %d tasks", d->n);
    }
    int top = 0, emitted = 0;
    for (int i = 0; i < d->n; ++i)
        pred[i] = d->task[i].n_pred;
    for (int i = d->n - 1; i >= 0; --i)
        if (pred[i] == 0)
            stack[top++] = i;
    while (top > 0) {
        const int t = stack[--top];
        order[emitted++] = t;
        const eg_task *tk = &d->task[t];
        /* successors were appended in program order; push the latest first */
        int ready[64];
        int n_ready = 0;
        for (int i = 0; i < tk->n_succ; ++i) {
            const int sidx = tk->succ[i];
            if (--pred[sidx] == 0) {
                if (n_ready < 64) {
                    ready[n_ready++] = sidx;
                } else {
                    stack[top++] = sidx;
                }
            }
        }
        /* sort the ready ones by program order, descending, then push */
        for (int a = 1; a < n_ready; ++a)
            for (int b = a; b > 0 && ready[b - 1] < ready[b]; --b) {
                const int tmp = ready[b];
                ready[b] = ready[b - 1];
                ready[b - 1] = tmp;
            }
        for (int a = 0; a < n_ready; ++a)
            stack[top++] = ready[a];
    }
    free(pred);
    free(stack);
    if (emitted != d->n)
        return rt_err_set(err, "task graph: a cycle (%d of %d tasks ordered)", emitted, d->n);
    return 0;
}

size_t eg_dag_max_operand_bytes(const eg_dag *d, const eg_mem *m, int *which)
{
    size_t best = 0;
    if (which)
        *which = -1;
    for (int i = 0; i < d->n; ++i) {
        const eg_task *t = &d->task[i];
        if (t->host)
            continue;
        size_t sum = 0;
        for (int k = 0; k < t->n_operands; ++k)
            sum += eg_pool_rounded(m->obj[t->operand[k].obj].bytes);
        if (sum > best) {
            best = sum;
            if (which)
                *which = i;
        }
    }
    return best;
}

void eg_op_bind(const eg_op *op, void *const *slot_ptr, eg_bound_op *out)
{
    memset(out, 0, sizeof *out);
    out->op = *op;
    for (int k = 0; k < 3; ++k)
        out->base[k] = slot_ptr[op->s[k]];
}

/* Field by field (not memcmp: the builders leave padding bytes undefined). Slot numbers are left
 * out: what matters is the memory they resolved to. */
int eg_bound_op_same(const eg_bound_op *a, const eg_bound_op *b)
{
    const eg_op *x = &a->op, *y = &b->op;
    if (x->kind != y->kind || x->m != y->m || x->n != y->n || x->k != y->k || x->nnz != y->nnz ||
        x->alpha != y->alpha || x->beta != y->beta)
        return 0;
    for (int k = 0; k < 3; ++k)
        if (a->base[k] != b->base[k] || x->row[k] != y->row[k] || x->col[k] != y->col[k] ||
            x->ld[k] != y->ld[k])
            return 0;
    return 1;
}

static double *at(const eg_bound_op *b, int k)
{
    return (double *)b->base[k] + b->op.row[k] * b->op.ld[k] + b->op.col[k];
}

int eg_bound_op_run(const eg_dev *dev, const eg_bound_op *b, rt_err *err)
{
    const eg_dev_ops *o = dev->ops;
    void *impl = dev->impl;
    const eg_op *op = &b->op;
    switch (op->kind) {
    case EG_OP_SPMM:
        return o->spmm(impl, b->base[1], op->m, op->k, op->nnz, at(b, 2), op->ld[2], op->n,
                       op->beta, at(b, 0), op->ld[0], err);
    case EG_OP_GEMM_NN:
        return o->gemm_nn(impl, op->m, op->k, op->n, op->alpha, at(b, 1), op->ld[1], at(b, 2),
                          op->ld[2], op->beta, at(b, 0), op->ld[0], err);
    case EG_OP_GEMM_TN:
        return o->gemm_tn(impl, op->k, op->m, op->n, op->alpha, at(b, 1), op->ld[1], at(b, 2),
                          op->ld[2], op->beta, at(b, 0), op->ld[0], err);
    case EG_OP_GEAM:
        return o->geam(impl, op->m, op->n, op->alpha, at(b, 1), op->ld[1], op->beta, at(b, 2),
                       op->ld[2], at(b, 0), op->ld[0], err);
    }
    return rt_err_set(err, "task graph: unknown operation %d", (int)op->kind);
}

int eg_dag_run_host_task(const eg_task *t, eg_mem *m, rt_err *err)
{
    for (int k = 0; k < t->n_operands; ++k)
        if ((t->operand[k].mode & EG_READ) && eg_mem_host_read(m, t->operand[k].obj, err) != 0)
            return -1;
    if (eg_mem_sync(m, err) != 0)
        return -1;
    const double t0 = rt_clock_now();
    const int rc = t->host(t->host_ctx, t->host_arg, err);
    m->st.host_task_s += rt_clock_now() - t0;
    if (rc != 0)
        return -1;
    for (int k = 0; k < t->n_operands; ++k)
        if (t->operand[k].mode & EG_WRITE)
            eg_mem_host_wrote(m, t->operand[k].obj);
    return 0;
}

static int run_task(const eg_task *t, eg_mem *m, rt_err *err)
{
    if (t->host)
        return eg_dag_run_host_task(t, m, err);
    void *ptr[EG_MAX_OPERANDS];
    int got = 0, rc = 0;
    for (; got < t->n_operands; ++got) {
        rc = eg_mem_acquire(m, t->operand[got].obj, t->operand[got].mode, &ptr[got], err);
        if (rc != 0)
            break;
    }
    for (int i = 0; i < t->n_ops && rc == 0; ++i) {
        eg_bound_op b;
        eg_op_bind(&t->op[i], ptr, &b);
        rc = eg_bound_op_run(&m->dev, &b, err);
    }
    for (int k = 0; k < got; ++k)
        eg_mem_release(m, t->operand[k].obj);
    if (rc != 0)
        rt_err_prefix(err, "task %s (tile %lld)", t->name, (long long)t->tile);
    return rc;
}

int eg_dag_execute(const eg_dag *d, const int *order, eg_schedule s, eg_mem *m, rt_err *err)
{
    if (s == EG_SCHED_GRAPH)
        return rt_err_set(err, "task graph: the graph schedule runs through eg_graph_execute");
    int call = -1;
    for (int i = 0; i < d->n; ++i) {
        const eg_task *t = &d->task[order[i]];
        if (s == EG_SCHED_KBK && t->call != call) {
            if (call >= 0 && eg_mem_flush(m, 1, err) != 0)
                return -1;
            call = t->call;
        }
        const int rc = run_task(t, m, err);
        if (rc != 0)
            return rc;
    }
    if (s == EG_SCHED_KBK && eg_mem_flush(m, 1, err) != 0)
        return -1;
    return 0;
}

void eg_task_init(eg_task *t, const char *name, int64_t tile)
{
    memset(t, 0, sizeof *t);
    t->name = name;
    t->tile = tile;
}
