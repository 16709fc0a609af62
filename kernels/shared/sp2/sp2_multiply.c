#include "sp2_multiply.h"

#include "rt_clock.h"
#include "sp2_accum.h"

int sp2_multiply(sp2_state *s, const sp2_item *it, const void *ablk, const void *bblk, rt_err *err)
{
    sp2_operand a, b;
    sp2_operand_make(&a, &s->A, it->i, it->k, ablk);
    sp2_operand_make(&b, &s->B, it->k, it->j, bblk);
    const int ci = it->i * s->L.NT + it->j;
    const int owner = sp2_owner(&s->L, SP2_OWN_C, it->i, it->j);
    double flops = 0.0;
    sp2_etimes et = {0.0, 0.0};
    if (!s->spgemm) {
        if (owner == s->L.me) {
            const int slot = s->c_slot[ci];
            const int rc =
                s->eng->spmm_acc(s->es, &a, &b, slot, sp2_c_tile_ptr(s, slot), &flops, &et, err);
            sp2_add_etimes(s, &et);
            if (rc != 0)
                return -1;
        } else {
            const int rc = s->eng->spmm_partial(s->es, 1, &a, &b, a.t.rows, b.t.cols, s->part_dense,
                                                &flops, &et, err);
            sp2_add_etimes(s, &et);
            if (rc != 0)
                return -1;
            const double t1 = rt_clock_now(), h0 = sp2_handler_time(s);
            if (sp2_push_dense(s, owner, ci, s->part_dense, a.t.rows, b.t.cols, err) != 0)
                return -1;
            const double h = sp2_handler_time(s) - h0;
            s->run.comm += rt_clock_now() - t1 - h;
            s->run.accum += h;
        }
    } else {
        const int rc = s->eng->spgemm(s->es, &a, &b, &s->part, &flops, &et, err);
        sp2_add_etimes(s, &et);
        if (rc != 0)
            return -1;
        const double t1 = rt_clock_now();
        if (owner == s->L.me) {
            if (sp2_spacc_add_csr(&s->c_acc[s->c_slot[ci]], 0, s->part.rows, s->part.rowptr,
                                  s->part.colidx, s->part.val, err) != 0)
                return -1;
            s->run.accum += rt_clock_now() - t1;
        } else {
            const double h0 = sp2_handler_time(s);
            if (sp2_push_sparse(s, owner, ci, &s->part, err) != 0)
                return -1;
            const double h = sp2_handler_time(s) - h0;
            s->run.comm += rt_clock_now() - t1 - h;
            s->run.accum += h;
        }
    }
    s->run_flops += flops;
    s->stage_flops[it->k] += flops;
    return 0;
}
