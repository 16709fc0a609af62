#include "sp2_engine.h"

#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"

void sp2_operand_make(sp2_operand *op, const sp2_dmat *mat, int ti, int tj, const void *block)
{
    op->mat = mat;
    op->ti = ti;
    op->tj = tj;
    op->block = block;
    sp2_dmat_view(mat, ti, tj, block, &op->t);
}

/* ---------------------------------------------------------------------------------------------
 * The CPU engine: the multiplies of sp2_local.c on host memory, timed with the wall clock. */

typedef struct cpu_engine {
    rt_precision prec;
    sp2_spa spa; /* Gustavson's accumulator for SpGEMM (covers the widest C tile) */
    int have_spa;
} cpu_engine;

static void cpu_teardown(void *es)
{
    cpu_engine *e = es;
    if (!e)
        return;
    if (e->have_spa)
        sp2_spa_free(&e->spa);
    free(e);
}

static int cpu_setup(void *backend, const sp2_engine_setup *info, void **es, rt_err *err)
{
    (void)backend;
    cpu_engine *e = calloc(1, sizeof *e);
    *es = e;
    if (!e)
        return rt_err_set(err, "%s: out of memory for the CPU engine", info->kernel);
    e->prec = info->prec;
    if (info->spgemm) {
        if (sp2_spa_init(&e->spa, info->prec, info->max_c_cols, err) != 0)
            return -1;
        e->have_spa = 1;
    }
    return 0;
}

static int cpu_begin_run(void *es, rt_err *err)
{
    (void)es;
    (void)err;
    return 0;
}

static int cpu_spmm_acc(void *es, const sp2_operand *a, const sp2_operand *b, int c_slot, void *c,
                        double *flops, sp2_etimes *t, rt_err *err)
{
    (void)es;
    (void)c_slot;
    (void)err;
    const double t0 = rt_clock_now();
    *flops = sp2_spmm_acc(&a->t, &b->t, c, b->t.cols);
    t->compute += rt_clock_now() - t0;
    return 0;
}

static int cpu_spmm_partial(void *es, int n, const sp2_operand *a, const sp2_operand *b,
                            int64_t rows, int64_t cols, void *part, double *flops, sp2_etimes *t,
                            rt_err *err)
{
    cpu_engine *e = es;
    (void)err;
    *flops = 0.0;
    const double t0 = rt_clock_now();
    memset(part, 0, (size_t)(rows * cols) * rt_precision_bytes(e->prec));
    for (int q = 0; q < n; ++q)
        *flops += sp2_spmm_acc(&a[q].t, &b[q].t, part, cols);
    t->compute += rt_clock_now() - t0;
    return 0;
}

static int cpu_spgemm(void *es, const sp2_operand *a, const sp2_operand *b, sp2_csrbuf *out,
                      double *flops, sp2_etimes *t, rt_err *err)
{
    cpu_engine *e = es;
    const double t0 = rt_clock_now();
    const int rc = sp2_spgemm_tile(&a->t, &b->t, &e->spa, out, flops, err);
    t->compute += rt_clock_now() - t0;
    return rc;
}

static const sp2_engine cpu_engine_ops = {
    .name = "cpu",
    .stages = 0,
    .setup = cpu_setup,
    .teardown = cpu_teardown,
    .begin_run = cpu_begin_run,
    .spmm_acc = cpu_spmm_acc,
    .spmm_partial = cpu_spmm_partial,
    .spgemm = cpu_spgemm,
    .merge_c = NULL,
    .flush = NULL,
};

const sp2_engine *sp2_cpu_engine(void)
{
    return &cpu_engine_ops;
}
