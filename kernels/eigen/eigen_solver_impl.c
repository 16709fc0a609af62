#include "eigen_solver_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rt_registry.h"

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void set_slot(eg_op *op, int k, int slot, eg_ref r)
{
    op->s[k] = slot;
    op->row[k] = r.row;
    op->col[k] = r.col;
    op->ld[k] = r.ld;
}

int eg_add_host(eg_solver *s, const char *name, eg_host_fn fn, const eg_small *reads,
                int64_t n_reads, const eg_small *const *writes, int n_writes, rt_err *err)
{
    int64_t done = 0;
    eg_dag_next_call(&s->dag);
    while (n_reads - done > EG_MAX_OPERANDS - 1 - n_writes) {
        eg_task t;
        memset(&t, 0, sizeof t);
        t.name = "gather partials";
        t.host = eg_host_noop;
        t.tile = done;
        for (int k = 0; k < EG_MAX_OPERANDS - 1 && done < n_reads; ++k, ++done)
            eg_task_operand(&t, reads[done].obj, EG_READ);
        eg_task_operand(&t, s->token.obj, EG_WRITE); /* orders the gathers before the solve */
        if (eg_dag_add(&s->dag, &t, err) < 0)
            return -1;
    }
    eg_task t;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.host = fn;
    t.host_ctx = s;
    for (; done < n_reads; ++done)
        eg_task_operand(&t, reads[done].obj, EG_READ);
    eg_task_operand(&t, s->token.obj, EG_RW); /* host tasks run in program order */
    for (int w = 0; w < n_writes; ++w)
        eg_task_operand(&t, writes[w]->obj, EG_WRITE);
    return eg_dag_add(&s->dag, &t, err) < 0 ? -1 : 0;
}

/* A host task that only brings partial buffers to the host (the operand list of one task is
 * short, so a reduction over many tiles gathers its partials in groups first). */
int eg_host_noop(void *ctx, int64_t arg, rt_err *err)
{
    (void)ctx;
    (void)arg;
    (void)err;
    return 0;
}

int eg_add_reduce(eg_solver *s, const char *name, const eg_small *parts, int64_t n, int64_t rows,
                  const eg_small *sum, rt_err *err)
{
    for (int64_t i = 0; i < n; ++i) {
        eg_task t;
        eg_task_init(&t, name, i);
        const int ss = eg_task_operand(&t, sum->obj, i == 0 ? EG_WRITE : EG_RW);
        const int sp = eg_task_operand(&t, parts[i].obj, EG_READ);
        const eg_ref rs = eg_ref_small(sum, 0, 0), rp = eg_ref_small(&parts[i], 0, 0);
        if (i == 0) /* sum = p_0 (beta 0: the stale sum is never read) */
            eg_op_geam(&t.op[t.n_ops++], rows, sum->cols, 1.0, sp, rp, 0.0, sp, rp, ss, rs);
        else /* sum = sum + p_i, in place */
            eg_op_geam(&t.op[t.n_ops++], rows, sum->cols, 1.0, ss, rs, 1.0, sp, rp, ss, rs);
        if (eg_dag_add(&s->dag, &t, err) < 0)
            return -1;
    }
    return 0;
}

/* A dense operation `kind` (GEAM or a GEMM) of m x n results, inner size k (0 for GEAM), with its
 * scalars: the output in slot 0, the two inputs in slots 1 and 2. */
static void op_dense(eg_op *op, eg_op_kind kind, int64_t m, int64_t n, int64_t k, double alpha,
                     double beta, int s_out, eg_ref out, int s_in1, eg_ref in1, int s_in2,
                     eg_ref in2)
{
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->m = m;
    op->n = n;
    op->k = k;
    op->alpha = alpha;
    op->beta = beta;
    set_slot(op, 0, s_out, out);
    set_slot(op, 1, s_in1, in1);
    set_slot(op, 2, s_in2, in2);
}

void eg_op_geam(eg_op *op, int64_t t, int64_t w, double alpha, int su, eg_ref u, double beta,
                int sv, eg_ref v, int sz, eg_ref z)
{
    op_dense(op, EG_OP_GEAM, t, w, 0, alpha, beta, sz, z, su, u, sv, v);
}

void eg_op_gemm_nn(eg_op *op, int64_t t, int64_t r, int64_t w, double alpha, int su, eg_ref u,
                   int sm, eg_ref m, double beta, int sz, eg_ref z)
{
    op_dense(op, EG_OP_GEMM_NN, t, w, r, alpha, beta, sz, z, su, u, sm, m);
}

void eg_op_gemm_tn(eg_op *op, int64_t t, int64_t r1, int64_t r2, int su, eg_ref u, int sv, eg_ref v,
                   double beta, int sg, eg_ref g)
{
    op_dense(op, EG_OP_GEMM_TN, r1, r2, t, 1.0, beta, sg, g, su, u, sv, v);
}

eg_ref eg_ref_small(const eg_small *m, int64_t row, int64_t col)
{
    eg_ref r = {m->obj, row, col, m->cols};
    return r;
}

eg_ref eg_ref_tile(const eg_bvec *v, int64_t i, int64_t col)
{
    eg_ref r = {v->obj[i], 0, col, v->width};
    return r;
}

double eg_start_value(uint64_t seed, int64_t row, int64_t col)
{
    const uint64_t x = mix(mix(mix(seed ^ 0xE16E) ^ (uint64_t)row) ^ (uint64_t)col);
    return (double)(x >> 11) * 0x1.0p-52 - 1.0;
}

int eg_task_operand(eg_task *t, int obj, eg_mode mode)
{
    for (int k = 0; k < t->n_operands; ++k)
        if (t->operand[k].obj == obj) {
            t->operand[k].mode |= mode;
            return k;
        }
    t->operand[t->n_operands].obj = obj;
    t->operand[t->n_operands].mode = mode;
    return t->n_operands++;
}

int eg_task_spmm(eg_solver *s, int64_t i, const eg_bvec *x, int64_t xcol, const eg_bvec *y,
                 int64_t ycol, int64_t ncols, rt_err *err)
{
    const eg_tiling *til = &s->til;
    int last = -1;
    for (int64_t b = til->blk_ptr[i]; b < til->blk_ptr[i + 1]; ++b) {
        const eg_ablock *blk = &til->blocks[b];
        const int first = b == til->blk_ptr[i];
        eg_task t;
        eg_task_init(&t, "spmm", i);
        const int sy = eg_task_operand(&t, y->obj[i], first ? EG_WRITE : EG_RW);
        const int sa = eg_task_operand(&t, blk->obj, EG_READ);
        const int sx = eg_task_operand(&t, x->obj[blk->j], EG_READ);
        eg_op *op = &t.op[t.n_ops++];
        op->kind = EG_OP_SPMM;
        op->m = blk->rows;
        op->k = blk->cols;
        op->n = ncols;
        op->nnz = blk->nnz;
        op->beta = first ? 0.0 : 1.0;
        const eg_ref ry = eg_ref_tile(y, i, ycol), rx = eg_ref_tile(x, blk->j, xcol);
        const eg_ref ra = {blk->obj, 0, 0, 0};
        set_slot(op, 0, sy, ry);
        set_slot(op, 1, sa, ra);
        set_slot(op, 2, sx, rx);
        last = eg_dag_add(&s->dag, &t, err);
        if (last < 0)
            return -1;
    }
    if (til->blk_ptr[i] == til->blk_ptr[i + 1]) {
        /* An empty row tile: y_i = 0 (0 * y_i + 0 * y_i, so no stale value survives). */
        eg_task t;
        eg_task_init(&t, "spmm (empty rows)", i);
        const int sy = eg_task_operand(&t, y->obj[i], EG_WRITE);
        const eg_ref ry = eg_ref_tile(y, i, ycol);
        eg_op_geam(&t.op[t.n_ops++], eg_tile_rows(til, i), ncols, 0.0, sy, ry, 0.0, sy, ry, sy, ry);
        last = eg_dag_add(&s->dag, &t, err);
    }
    return last;
}

void *eg_algo_new(eg_solver *s, size_t bytes, int (*build)(eg_solver *, int64_t, rt_err *),
                  int (*start)(eg_solver *, rt_err *),
                  int (*finish)(eg_solver *, eg_result *, rt_err *), const char *who, rt_err *err)
{
    eg_algo *a = calloc(1, bytes);
    if (!a) {
        rt_err_set(err, "%s: out of memory", who);
        return NULL;
    }
    s->algo = a;
    s->build = build;
    s->start = start;
    s->finish = finish;
    s->free_algo = eg_algo_free;
    return a;
}

int eg_algo_buffers(eg_solver *s, const char *who, rt_err *err)
{
    const eg_algo *a = s->algo;
    return eg_buffers_init(&a->bufs, &s->til, &s->mem, who, err);
}

void eg_algo_free(eg_solver *s)
{
    eg_algo *a = s->algo;
    if (!a)
        return;
    eg_buffers_free(&a->bufs, s->til.ntiles);
    free(a);
    s->algo = NULL;
}
