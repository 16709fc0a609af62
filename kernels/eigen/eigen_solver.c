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
    if (strcmp(s, "spmm") == 0)
        return EG_SPMM;
    if (strcmp(s, "xty") == 0)
        return EG_XTY;
    return -1;
}

const char *eg_solver_name(eg_solver_kind k)
{
    static const char *const names[] = {"lobpcg", "lanczos", "spmm", "xty"};
    return (unsigned)k < 4u ? names[k] : "unknown";
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
    if (s->cfg.sched == EG_SCHED_GRAPH)
        return eg_graph_execute(&s->dag, s->order, &s->mem, &s->graphs, err);
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
    eg_graph_free(&s->graphs, &s->mem.dev); /* its graphs live on the device */
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
    if (c->solver != EG_LOBPCG && c->solver != EG_LANCZOS)
        return rt_err_set(err, "eigen: %s is a microbenchmark, not a solver",
                          eg_solver_name(c->solver));
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

/* The graph schedule replays captured segments, so it needs segments that repeat with the same
 * device addresses: in core (nothing evicted or moved), and LOBPCG (a Lanczos step's operations
 * grow with the basis, so no segment ever repeats). */
static int check_graph(const eg_config *c, rt_err *err)
{
    if (c->sched != EG_SCHED_GRAPH)
        return 0;
    if (c->budget != 0) {
        rt_err_set(err,
                   "schedule graph runs in core only (gpu_mem_budget 0), not with a %zu-byte "
                   "pool: a captured graph fixes every tile's device address",
                   c->budget);
        return RT_INFEASIBLE;
    }
    if (c->solver != EG_LOBPCG) {
        rt_err_set(err, "schedule graph is for lobpcg: a Lanczos step's operations grow with the "
                        "basis, so no captured segment would ever be replayed");
        return RT_INFEASIBLE;
    }
    return 0;
}

int eg_solver_create(const rt_csr *a, const eg_config *cfg, eg_dev dev, eg_solver **out,
                     rt_err *err)
{
    *out = NULL;
    if (check_config(a, cfg, err) != 0)
        return -1;
    const int graph_rc = check_graph(cfg, err);
    if (graph_rc != 0)
        return graph_rc;
    eg_solver *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "eigen: out of memory for the solver");
    s->cfg = *cfg;
    s->a_norm_inf = norm_inf(a);
    eg_mem_init(&s->mem, dev);
    eg_graph_init(&s->graphs);
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
    eg_graph_reset_stats(&s->graphs);
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
    if (eg_mem_sync(&s->mem, err) != 0)
        return -1;
    if (s->finish(s, res, err) != 0)
        return -1;
    res->st = s->mem.st;
    res->tasks = s->tasks;
    res->iterations = s->cfg.iters;
    res->graph = s->graphs.st;
    res->max_rel_res = 0.0;
    for (int64_t j = 0; j < res->nev; ++j)
        if (!(res->rel_res[j] <= res->max_rel_res))
            res->max_rel_res = res->rel_res[j];
    return 0;
}
