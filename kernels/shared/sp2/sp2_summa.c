#include "sp2_summa.h"

#include <mpi.h>

#include "rt_clock.h"
#include "sp2_multiply.h"

static MPI_Datatype mpi_value_type(rt_precision p)
{
    return p == RT_FP32 ? MPI_FLOAT : MPI_DOUBLE;
}

static int bcast_block(sp2_state *s, void *buf, int64_t bytes, MPI_Comm comm, int root,
                       int root_world, rt_err *err)
{
    const int64_t piece = (int64_t)1 << 30;
    for (int64_t off = 0; off < bytes; off += piece) {
        const int64_t n = bytes - off < piece ? bytes - off : piece;
        const int rc = MPI_Bcast((unsigned char *)buf + off, (int)n, MPI_BYTE, root, comm);
        if (rc != MPI_SUCCESS)
            return rt_err_set(err, "MPI_Bcast of a %lld-byte tile failed (code %d)",
                              (long long)bytes, rc);
    }
    /* Counted by the receiver, like a get: the bytes that came to this rank. */
    if (root_world != s->L.me)
        return rt_comm_count_to(s->comm, root_world, bytes, err);
    return 0;
}

/* Broadcasts tile (ti, tj) of D over comm: the root sends the block in its window, the others
 * receive it into stage; *blk is where the tile is afterwards. */
static int bcast_tile(sp2_state *s, const sp2_dmat *D, int ti, int tj, int i_am_root,
                      unsigned char *stage, MPI_Comm comm, int root, int root_world,
                      const void **blk, rt_err *err)
{
    const sp2_tile_info *e = sp2_dmat_info(D, ti, tj);
    void *buf = i_am_root ? (void *)(D->local + e->offset) : (void *)stage;
    if (bcast_block(s, buf, e->bytes, comm, root, root_world, err) != 0)
        return -1;
    *blk = buf;
    return 0;
}

/* Broadcasts the n B tiles (k0 + t dk, j0 + t dj) down this rank's process column from process
 * row rr_root into blk_b[t]; a tile whose column k of A is empty is skipped (blk_b[t] = NULL).
 * SUMMA walks j at a fixed k, stationary-A SUMMA walks k at a fixed j. */
static int bcast_b_tiles(sp2_state *s, int n, int k0, int dk, int j0, int dj, int rr_root,
                         rt_err *err)
{
    const sp2_layout *L = &s->L;
    for (int t = 0; t < n; ++t) {
        const int k = k0 + t * dk, j = j0 + t * dj;
        s->blk_b[t] = NULL;
        if (s->col_nonempty[k] &&
            bcast_tile(s, &s->B, k, j, L->myr == rr_root, s->bc_b + (int64_t)t * s->B.max_bytes,
                       s->col_comm, rr_root, rr_root * L->pc + L->myc, &s->blk_b[t], err) != 0)
            return -1;
    }
    return 0;
}

int sp2_summa_loop(sp2_state *s, rt_err *err)
{
    const sp2_layout *L = &s->L;
    const int R = L->refine;
    for (int k = 0; k < L->KT; ++k) {
        const int rc_root = k % L->pc, rr_root = k % L->pr;
        double t0 = rt_clock_now();
        for (int t = 0; t < R; ++t) {
            const int i = L->myr + t * L->pr;
            s->blk_a[t] = NULL;
            if (sp2_dmat_info(&s->A, i, k)->nnz > 0 &&
                bcast_tile(s, &s->A, i, k, L->myc == rc_root, s->bc_a + (int64_t)t * s->A.max_bytes,
                           s->row_comm, rc_root, L->myr * L->pc + rc_root, &s->blk_a[t], err) != 0)
                return -1;
        }
        if (bcast_b_tiles(s, R, k, 0, L->myc, L->pc, rr_root, err) != 0)
            return -1;
        s->run.comm += rt_clock_now() - t0;
        for (int ta = 0; ta < R; ++ta)
            for (int tb = 0; tb < R; ++tb) {
                if (!s->blk_a[ta] || !s->blk_b[tb])
                    continue;
                const sp2_item it = {L->myr + ta * L->pr, L->myc + tb * L->pc, k, 0};
                if (sp2_multiply(s, &it, s->blk_a[ta], s->blk_b[tb], err) != 0)
                    return -1;
            }
    }
    return 0;
}

/* Stationary-A SUMMA: B^T-distributed B broadcast down process columns, partial C reduced along
 * process rows to the owner of each C tile. SpMM only (dense partials). */
int sp2_summa_a_loop(sp2_state *s, rt_err *err)
{
    const sp2_layout *L = &s->L;
    const int nk = L->KT / L->pc;
    const MPI_Datatype dt = mpi_value_type(s->prec);
    for (int j = 0; j < L->NT; ++j) {
        const int rr_root = j % L->pr, rc_root = j % L->pc;
        double t0 = rt_clock_now();
        if (bcast_b_tiles(s, nk, L->myc, L->pc, j, 0, rr_root, err) != 0)
            return -1;
        s->run.comm += rt_clock_now() - t0;
        for (int ti = 0; ti < L->refine; ++ti) {
            const int i = L->myr + ti * L->pr;
            const int64_t rows = sp2_c_rows(s, i), cols = sp2_c_cols(s, j);
            int n = 0;
            for (int t = 0; t < nk; ++t) {
                const int k = L->myc + t * L->pc;
                const sp2_tile_info *e = sp2_dmat_info(&s->A, i, k);
                if (!s->blk_b[t] || e->nnz == 0)
                    continue;
                sp2_operand_make(&s->ops_a[n], &s->A, i, k, s->A.local + e->offset);
                sp2_operand_make(&s->ops_b[n], &s->B, k, j, s->blk_b[t]);
                s->stage_flops[k] += 2.0 * (double)e->nnz * (double)cols;
                ++n;
            }
            double f = 0.0;
            sp2_etimes et = {0.0, 0.0};
            const int erc = s->eng->spmm_partial(s->es, n, s->ops_a, s->ops_b, rows, cols,
                                                 s->part_dense, &f, &et, err);
            sp2_add_etimes(s, &et);
            if (erc != 0)
                return -1;
            s->run_flops += f;
            const double t1 = rt_clock_now();
            const int ci = i * L->NT + j;
            const int root = L->myc == rc_root;
            void *recv = root ? sp2_c_tile_ptr(s, s->c_slot[ci]) : NULL;
            const int rc = MPI_Reduce(s->part_dense, recv, (int)(rows * cols), dt, MPI_SUM, rc_root,
                                      s->row_comm);
            if (rc != MPI_SUCCESS)
                return rt_err_set(err, "MPI_Reduce of C tile (%d, %d) failed (code %d)", i, j, rc);
            if (root)
                for (int c = 0; c < L->pc; ++c)
                    if (c != L->myc && rt_comm_count_to(s->comm, L->myr * L->pc + c,
                                                        rows * cols * (int64_t)s->eb, err) != 0)
                        return -1;
            s->run.accum += rt_clock_now() - t1;
        }
    }
    return 0;
}
