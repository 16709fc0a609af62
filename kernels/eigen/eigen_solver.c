#include "eigen_solver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eigen_solver_impl.h"
#include "rt_registry.h"

int eg_solver_parse(const char *s)
{
    if (strcmp(s, "lobpcg") == 0)
        return EG_LOBPCG;
    if (strcmp(s, "lanczos") == 0)
        return EG_LANCZOS;
    return -1;
}

const char *eg_solver_name(eg_solver_kind k)
{
    return k == EG_LOBPCG ? "lobpcg" : "lanczos";
}

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

double eg_start_value(uint64_t seed, int64_t row, int64_t col)
{
    const uint64_t x = mix(mix(mix(seed ^ 0xE16E) ^ (uint64_t)row) ^ (uint64_t)col);
    return (double)(x >> 11) * 0x1.0p-52 - 1.0;
}

eg_ref eg_ref_tile(const eg_bvec *v, int64_t i, int64_t col)
{
    eg_ref r = {v->obj[i], 0, col, v->width};
    return r;
}

eg_ref eg_ref_small(const eg_small *m, int64_t row, int64_t col)
{
    eg_ref r = {m->obj, row, col, m->cols};
    return r;
}

static void set_slot(eg_op *op, int k, int slot, eg_ref r)
{
    op->s[k] = slot;
    op->row[k] = r.row;
    op->col[k] = r.col;
    op->ld[k] = r.ld;
}

void eg_op_gemm_nn(eg_op *op, int64_t t, int64_t r, int64_t w, double alpha, int su, eg_ref u,
                   int sm, eg_ref m, double beta, int sz, eg_ref z)
{
    memset(op, 0, sizeof *op);
    op->kind = EG_OP_GEMM_NN;
    op->m = t;
    op->k = r;
    op->n = w;
    op->alpha = alpha;
    op->beta = beta;
    set_slot(op, 0, sz, z);
    set_slot(op, 1, su, u);
    set_slot(op, 2, sm, m);
}

void eg_op_gemm_tn(eg_op *op, int64_t t, int64_t r1, int64_t r2, int su, eg_ref u, int sv, eg_ref v,
                   double beta, int sg, eg_ref g)
{
    memset(op, 0, sizeof *op);
    op->kind = EG_OP_GEMM_TN;
    op->m = r1;
    op->n = r2;
    op->k = t;
    op->alpha = 1.0;
    op->beta = beta;
    set_slot(op, 0, sg, g);
    set_slot(op, 1, su, u);
    set_slot(op, 2, sv, v);
}

void eg_op_geam(eg_op *op, int64_t t, int64_t w, double alpha, int su, eg_ref u, double beta,
                int sv, eg_ref v, int sz, eg_ref z)
{
    memset(op, 0, sizeof *op);
    op->kind = EG_OP_GEAM;
    op->m = t;
    op->n = w;
    op->alpha = alpha;
    op->beta = beta;
    set_slot(op, 0, sz, z);
    set_slot(op, 1, su, u);
    set_slot(op, 2, sv, v);
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
        memset(&t, 0, sizeof t);
        t.name = "spmm";
        t.tile = i;
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
        memset(&t, 0, sizeof t);
        t.name = "spmm (empty rows)";
        t.tile = i;
        const int sy = eg_task_operand(&t, y->obj[i], EG_WRITE);
        const eg_ref ry = eg_ref_tile(y, i, ycol);
        eg_op_geam(&t.op[t.n_ops++], eg_tile_rows(til, i), ncols, 0.0, sy, ry, 0.0, sy, ry, sy, ry);
        last = eg_dag_add(&s->dag, &t, err);
    }
    return last;
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

int eg_solver_exec(eg_solver *s, rt_err *err)
{
    if (s->dag.n > s->order_cap) {
        int *grown = realloc(s->order, (size_t)s->dag.n * sizeof *grown);
        if (!grown)
            return rt_err_set(err, "eigen: out of memory ordering %d tasks", s->dag.n);
        s->order = grown;
        s->order_cap = s->dag.n;
    }
    if (eg_dag_order(&s->dag, s->cfg.sched, s->order, err) != 0)
        return -1;
    s->tasks += s->dag.n;
    return eg_dag_execute(&s->dag, s->order, s->cfg.sched, &s->mem, err);
}

static double norm_inf(const rt_csr *a)
{
    double best = 0.0;
    for (int64_t r = 0; r < a->rows; ++r) {
        double sum = 0.0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
            sum += fabs(a->val[e]);
        if (sum > best)
            best = sum;
    }
    return best;
}

void eg_solver_destroy(eg_solver *s)
{
    if (!s)
        return;
    if (s->free_algo)
        s->free_algo(s);
    eg_dag_free(&s->dag);
    eg_small_free(&s->token);
    eg_tiling_free(&s->til);
    eg_mem_destroy(&s->mem);
    free(s->order);
    free(s);
}

void eg_solver_sizes(const eg_solver *s, double *all_bytes, double *a_bytes, int64_t *ntiles)
{
    *all_bytes = (double)eg_mem_total_bytes(&s->mem);
    *a_bytes = s->til.a_bytes;
    *ntiles = s->til.ntiles;
}

static int check_config(const rt_csr *a, const eg_config *c, rt_err *err)
{
    if (c->solver == EG_LOBPCG && (c->block < 1 || c->block > 128))
        return rt_err_set(err, "eigen: block = %lld is outside 1..128", (long long)c->block);
    if (c->nev < 1 || c->nev > EG_NEV_MAX)
        return rt_err_set(err, "eigen: nev = %lld is outside 1..%d", (long long)c->nev, EG_NEV_MAX);
    if (c->solver == EG_LOBPCG && c->nev > c->block)
        return rt_err_set(err, "eigen: nev = %lld exceeds the LOBPCG block width %lld",
                          (long long)c->nev, (long long)c->block);
    if (c->iters < 1)
        return rt_err_set(err, "eigen: iters = %lld must be positive", (long long)c->iters);
    if (c->solver == EG_LANCZOS && c->nev > c->iters)
        return rt_err_set(err, "eigen: nev = %lld exceeds the %lld Lanczos steps",
                          (long long)c->nev, (long long)c->iters);
    const int64_t width = c->solver == EG_LOBPCG ? 3 * c->block : c->iters + 1;
    if (a->rows < width)
        return rt_err_set(err,
                          "eigen: the matrix has %lld rows, fewer than the %lld-column subspace "
                          "of %s",
                          (long long)a->rows, (long long)width, eg_solver_name(c->solver));
    return 0;
}

int eg_solver_create(const rt_csr *a, const eg_config *cfg, eg_dev dev, eg_solver **out,
                     rt_err *err)
{
    *out = NULL;
    if (check_config(a, cfg, err) != 0)
        return -1;
    eg_solver *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "eigen: out of memory for the solver");
    s->cfg = *cfg;
    s->a_norm_inf = norm_inf(a);
    eg_mem_init(&s->mem, dev);
    int rc = eg_tiling_build(&s->til, a, cfg->tile, &s->mem, err);
    if (rc == 0)
        rc = cfg->solver == EG_LOBPCG ? eg_lobpcg_setup(s, err) : eg_lanczos_setup(s, err);
    if (rc == 0)
        rc = eg_small_init(&s->token, 1, 1, "host ordering token", 0, &s->mem, err);
    if (rc == 0)
        rc = eg_dag_init(&s->dag, s->mem.n_obj, err);
    /* Feasibility before any pool exists: the widest task of a full iteration. */
    if (rc == 0)
        rc = s->build(s, cfg->iters > 1 ? 1 : 0, err);
    if (rc == 0) {
        int which = -1;
        const size_t need = eg_dag_max_operand_bytes(&s->dag, &s->mem, &which);
        if (cfg->budget != 0 && need > cfg->budget) {
            rt_err_set(err,
                       "gpu_mem_budget = %zu bytes is smaller than the %zu bytes the operands of "
                       "one task (%s, tile %lld) need at once",
                       cfg->budget, need, s->dag.task[which].name,
                       (long long)s->dag.task[which].tile);
            rc = RT_INFEASIBLE;
        }
    }
    if (rc == 0)
        rc = eg_mem_open(&s->mem, cfg->budget, err);
    if (rc != 0) {
        eg_solver_destroy(s);
        return rc;
    }
    *out = s;
    return 0;
}

int eg_solver_run(eg_solver *s, eg_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    eg_mem_reset(&s->mem);
    s->tasks = 0;
    if (s->start(s, err) != 0)
        return -1;
    for (int64_t it = 0; it <= s->cfg.iters; ++it) {
        /* iteration `iters` is the final residual check of the returned pairs */
        eg_dag_clear(&s->dag);
        int rc = s->build(s, it, err);
        if (rc == 0)
            rc = eg_solver_exec(s, err);
        if (rc != 0)
            return rc;
    }
    if (eg_mem_flush(&s->mem, 0, err) != 0)
        return -1;
    if (s->mem.dev.ops->sync(s->mem.dev.impl, err) != 0)
        return -1;
    if (s->finish(s, res, err) != 0)
        return -1;
    res->st = s->mem.st;
    res->tasks = s->tasks;
    res->iterations = s->cfg.iters;
    res->max_rel_res = 0.0;
    for (int64_t j = 0; j < res->nev; ++j)
        if (!(res->rel_res[j] <= res->max_rel_res))
            res->max_rel_res = res->rel_res[j];
    return 0;
}
