#include "spmm_tiled.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "spmm_bank_order.h"

/* Shared-memory banks of 4-byte words: the keys of bank_order = 1 (with bank_lanes 8, four
 * passes of 8 keys each). */
#define BANKS 32

/* ---------------------------------------------------------------------------------------------
 * Small helpers */

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Stored entry i's shared-memory offset, in whichever index width the plan has. */
static void set_entry_slot(rt_tiled_plan *pl, int64_t i, int64_t slot)
{
    if (pl->index16)
        pl->index16[i] = (uint16_t)slot;
    else
        pl->index32[i] = (int32_t)slot;
}

/* Allocates n elements of size bytes (at least one, so an empty array is still non-NULL and a
 * NULL always means failure); zeroed when zero is set. */
static void *alloc_array(int64_t n, size_t size, int zero, const char *what, rt_err *err)
{
    const int64_t count = n > 0 ? n : 1;
    if ((uint64_t)count > SIZE_MAX / size) {
        rt_err_set(err,
                   "tiled plan: %s would need %" PRId64 " elements of %zu bytes, more than "
                   "this machine can address",
                   what, count, size);
        return NULL;
    }
    void *p = zero ? calloc((size_t)count, size) : malloc((size_t)count * size);
    if (!p)
        rt_err_set(err,
                   "tiled plan: out of memory for %s (%" PRId64 " elements, %.1f MiB); "
                   "a larger buffsize or ELL staging needs less",
                   what, count, (double)count * (double)size / 1048576.0);
    return p;
}

static void insertion_sort(int32_t *keys, int64_t n)
{
    for (int64_t i = 1; i < n; ++i) {
        const int32_t key = keys[i];
        int64_t j = i - 1;
        while (j >= 0 && keys[j] > key) {
            keys[j + 1] = keys[j];
            --j;
        }
        keys[j + 1] = key;
    }
}

/* Sorts non-negative column indices with an LSD radix sort on bytes (as many byte passes as
 * the largest column needs), so sorting is linear in the block's nonzeros. tmp holds n. */
static void sort_columns(int32_t *keys, int64_t n, int32_t *tmp, int64_t cols)
{
    if (n < 64) {
        insertion_sort(keys, n);
        return;
    }
    int passes = 1;
    while (passes < 4 && (uint64_t)(cols - 1) >> (8 * passes))
        ++passes;
    int32_t *src = keys, *dst = tmp;
    for (int pass = 0; pass < passes; ++pass) {
        int64_t count[257];
        memset(count, 0, sizeof count);
        const int shift = 8 * pass;
        for (int64_t i = 0; i < n; ++i)
            ++count[(((uint32_t)src[i]) >> shift & 0xffu) + 1];
        for (int d = 0; d < 256; ++d)
            count[d + 1] += count[d];
        for (int64_t i = 0; i < n; ++i)
            dst[count[((uint32_t)src[i]) >> shift & 0xffu]++] = src[i];
        int32_t *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != keys)
        memcpy(keys, src, (size_t)n * sizeof *keys);
}

static int64_t unique_sorted(int32_t *keys, int64_t n)
{
    int64_t out = 0;
    for (int64_t i = 0; i < n; ++i)
        if (out == 0 || keys[out - 1] != keys[i])
            keys[out++] = keys[i];
    return out;
}

/* Position of col in the sorted array fp[lo, hi), or -1. */
static int64_t find_sorted(const int32_t *fp, int64_t lo, int64_t hi, int32_t col)
{
    const int64_t end = hi;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (fp[mid] < col)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < end && fp[lo] == col) ? lo : -1;
}

static int check_params(const rt_tiled_params *p, rt_err *err)
{
    if (p->block_size < 1)
        return rt_err_set(err, "tiled plan: block_size = %d must be at least 1", p->block_size);
    if (p->warp_size < 1)
        return rt_err_set(err, "tiled plan: warp_size = %d must be at least 1", p->warp_size);
    if (p->use_ell != 0 && p->use_ell != 1)
        return rt_err_set(err, "tiled plan: use_ell = %d must be 0 (CSR) or 1 (ELL)", p->use_ell);
    if (p->use_ell && p->block_size % p->warp_size != 0)
        return rt_err_set(err,
                          "tiled plan: block_size = %d is not a multiple of warp_size = %d, "
                          "which ELL staging (one slice per warp) requires",
                          p->block_size, p->warp_size);
    if (p->buffsize < 1)
        return rt_err_set(err, "tiled plan: buffsize = %" PRId64 " must be at least 1 slot",
                          p->buffsize);
    if (p->buffsize > INT32_MAX)
        return rt_err_set(err,
                          "tiled plan: buffsize = %" PRId64 " exceeds %d slots (offsets "
                          "are 32-bit)",
                          p->buffsize, INT32_MAX);
    if (p->index_bytes != 2 && p->index_bytes != 4)
        return rt_err_set(err, "tiled plan: index_bytes = %d must be 2 or 4", p->index_bytes);
    if (p->index_bytes == 2 && p->buffsize > 65536)
        return rt_err_set(err,
                          "tiled plan: index_bytes = 2 cannot address buffsize = %" PRId64
                          " slots (at most 65536); use index_bytes = 4 or a smaller buffer",
                          p->buffsize);
    if (p->bank_order != 0 && p->bank_order != 1)
        return rt_err_set(err, "tiled plan: bank_order = %d must be 0 (A's order) or 1 (banks)",
                          p->bank_order);
    if (p->bank_order && !p->use_ell)
        return rt_err_set(err, "tiled plan: bank_order = 1 orders ELL rows; it needs use_ell = 1");
    if (p->bank_lanes != 0 && p->bank_lanes != 8 && p->bank_lanes != BANKS)
        return rt_err_set(err,
                          "tiled plan: bank_lanes = %d must be 0 or 32 (4-byte reads) or 8 "
                          "(16-byte reads)",
                          p->bank_lanes);
    if (p->bank_lanes == 8 && p->warp_size != BANKS)
        return rt_err_set(err, "tiled plan: bank_lanes = 8 needs warp_size = %d, not %d", BANKS,
                          p->warp_size);
    return 0;
}

void rt_tiled_plan_free(rt_tiled_plan *plan)
{
    if (!plan)
        return;
    free(plan->buffdispl);
    free(plan->mapdispl);
    free(plan->map);
    free(plan->displ);
    free(plan->rowdispl);
    free(plan->index16);
    free(plan->index32);
    free(plan->value);
    memset(plan, 0, sizeof *plan);
}

/* ---------------------------------------------------------------------------------------------
 * Build */

/* Pass 1 for one block: its footprint, sorted and unique, written over fp (which has room for the
 * block's nonzeros); returns the footprint size. */
static int64_t block_footprint(const rt_csr *a, int64_t r0, int64_t r1, int32_t *fp,
                               int32_t *sort_tmp)
{
    const int64_t e0 = a->rowptr[r0], e1 = a->rowptr[r1];
    memcpy(fp, a->colidx + e0, (size_t)(e1 - e0) * sizeof *fp);
    sort_columns(fp, e1 - e0, sort_tmp, a->cols);
    return unique_sorted(fp, e1 - e0);
}

/* Pass 2 for one block: the entry counts per (stage, row) or ELL widths per (stage, warp), from
 * the slot (position in the block's footprint) of every nonzero, pos[e]. */
static void block_count(const rt_csr *a, const rt_tiled_plan *pl, int64_t b, const int32_t *pos)
{
    const int64_t bs = pl->p.block_size, buff = pl->p.buffsize;
    const int64_t s0 = pl->buffdispl[b];
    const int64_t r0 = b * bs, r1 = min64(r0 + bs, a->rows);
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t lr = r - r0;
        int64_t run_stage = -1, run_len = 0;
        for (int64_t e = a->rowptr[r]; e <= a->rowptr[r + 1]; ++e) {
            const int64_t stage = e < a->rowptr[r + 1] ? pos[e] / buff : -1;
            if (stage != run_stage) {
                if (run_len > 0) {
                    const int64_t s = s0 + run_stage;
                    if (pl->p.use_ell) {
                        int64_t *w = &pl->displ[1 + s * pl->warps_per_block + lr / pl->p.warp_size];
                        if (run_len > *w)
                            *w = run_len;
                    } else {
                        pl->rowdispl[1 + s * bs + lr] = run_len;
                    }
                }
                run_stage = stage;
                run_len = 0;
            }
            ++run_len;
        }
    }
}

/* Lanes per shared-memory pass under bank_order = 1 (bank_lanes 0 means 32). */
static int64_t pass_lanes(const rt_tiled_plan *pl)
{
    return pl->p.bank_lanes == 8 ? 8 : BANKS;
}

/* The pass of a lane's read: 4-byte reads take the whole warp in one pass. */
static int64_t pass_of(const rt_tiled_plan *pl, int64_t lane)
{
    return pl->p.bank_lanes == 8 ? lane / 8 : 0;
}

/* The bank key of lane's read of slot: its pass, and the bank (group) within the pass. */
static int32_t bank_key(const rt_tiled_plan *pl, int64_t lane, int64_t slot)
{
    const int64_t n = pass_lanes(pl);
    return (int32_t)(pass_of(pl, lane) * n + slot % n);
}

/* Pass 2b for one block with bank_order = 1: widens each (stage, warp) ELL slice from its longest
 * row to the slice's largest degree (spmm_bank_order.h), so the bank-ordered entries fit. */
static int block_bank_widths(const rt_csr *a, const rt_tiled_plan *pl, int64_t b,
                             const int32_t *pos)
{
    const int64_t bs = pl->p.block_size, buff = pl->p.buffsize, ws = pl->p.warp_size;
    const int64_t s0 = pl->buffdispl[b], nst = pl->buffdispl[b + 1] - s0;
    const int64_t r0 = b * bs, r1 = min64(r0 + bs, a->rows);
    const size_t cells = (size_t)max64(nst, 1) * BANKS; /* nonzeros per (stage, bank) of a warp */
    int64_t *count = malloc(cells * sizeof *count);
    if (!count)
        return -1;
    for (int64_t w0 = r0; w0 < r1; w0 += ws) {
        memset(count, 0, cells * sizeof *count);
        const int64_t w1 = min64(w0 + ws, r1);
        for (int64_t r = w0; r < w1; ++r)
            for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
                ++count[(pos[e] / buff) * BANKS + bank_key(pl, r - w0, pos[e] % buff)];
        for (int64_t st = 0; st < nst; ++st) {
            int64_t *width = &pl->displ[1 + (s0 + st) * pl->warps_per_block + (w0 - r0) / ws];
            for (int k = 0; k < BANKS; ++k)
                *width = max64(*width, count[st * BANKS + k]);
        }
    }
    free(count);
    return 0;
}

/* Pass 3 for one slice with bank_order = 1: the (stage s, warp of rows [w0, w1)) entries, each
 * lane's in the ELL row its colour names; cursor[lane] walks the lane's row stage by stage. */
typedef struct bank_scratch {
    int32_t *lane_of, *key_of, *step_of, *offset, *work;
    double *value;
    unsigned char *taken; /* width x warp_size: ELL cells holding an entry */
} bank_scratch;

static int slice_fill_banked(const rt_csr *a, rt_tiled_plan *pl, int64_t s, int64_t stage,
                             int64_t w0, int64_t w1, int64_t *cursor, const int32_t *pos,
                             bank_scratch *bsc, rt_err *err)
{
    const int64_t buff = pl->p.buffsize, ws = pl->p.warp_size;
    const int64_t slice = s * pl->warps_per_block + (w0 % pl->p.block_size) / ws;
    const int64_t first = pl->displ[slice], width = pl->displ[slice + 1] - first;
    int32_t n = 0;
    for (int64_t r = w0; r < w1; ++r) {
        int64_t *e = &cursor[r - w0];
        for (; *e < a->rowptr[r + 1] && pos[*e] / buff == stage; ++*e) {
            bsc->lane_of[n] = (int32_t)(r - w0);
            bsc->offset[n] = (int32_t)(pos[*e] % buff);
            bsc->key_of[n] = bank_key(pl, r - w0, bsc->offset[n]);
            bsc->value[n] = a->val[*e];
            ++n;
        }
    }
    if (n == 0)
        return 0;
    if (rt_bank_order_schedule(bsc->lane_of, bsc->key_of, n, (int32_t)ws, BANKS, (int32_t)width,
                               bsc->step_of, bsc->work, err) != 0)
        return -1;
    memset(bsc->taken, 0, (size_t)(width * ws));
    /* The slot the padding cells of ELL row m in pass p repeat: one that an entry of the same
     * row and pass reads (a broadcast), or, where the pass reads nothing, one of the row's. */
    const int64_t passes = pass_of(pl, ws - 1) + 1;
    int32_t *pad = bsc->work; /* width x passes, -1: none in that pass */
    for (int64_t c = 0; c < width * passes; ++c)
        pad[c] = -1;
    for (int32_t i = 0; i < n; ++i) {
        const int64_t m = bsc->step_of[i], lane = bsc->lane_of[i];
        const int64_t dst = (first + m) * ws + lane;
        bsc->taken[m * ws + lane] = 1;
        pad[m * passes + pass_of(pl, lane)] = bsc->offset[i];
        set_entry_slot(pl, dst, bsc->offset[i]);
        pl->value[dst] = bsc->value[i];
    }
    for (int64_t m = 0; m < width; ++m) {
        int32_t any = 0; /* every ELL row holds an entry (its width is the slice's degree) */
        for (int64_t p = 0; p < passes; ++p)
            if (pad[m * passes + p] >= 0)
                any = pad[m * passes + p];
        for (int64_t lane = 0; lane < ws; ++lane)
            if (!bsc->taken[m * ws + lane]) {
                const int32_t own = pad[m * passes + pass_of(pl, lane)];
                set_entry_slot(pl, (first + m) * ws + lane, own >= 0 ? own : any);
            }
    }
    return 0;
}

/* Pass 3 for one block with bank_order = 1. */
static int block_fill_banked(const rt_csr *a, rt_tiled_plan *pl, int64_t b, const int32_t *pos,
                             rt_err *err)
{
    const int64_t bs = pl->p.block_size, ws = pl->p.warp_size;
    const int64_t s0 = pl->buffdispl[b], s1 = pl->buffdispl[b + 1];
    const int64_t r0 = b * bs, r1 = min64(r0 + bs, a->rows);
    int64_t most = 1, widest = 1; /* a warp's nonzeros; a slice's ELL rows */
    for (int64_t w0 = r0; w0 < r1; w0 += ws)
        most = max64(most, a->rowptr[min64(w0 + ws, r1)] - a->rowptr[w0]);
    for (int64_t i = s0 * pl->warps_per_block; i < s1 * pl->warps_per_block; ++i)
        widest = max64(widest, pl->displ[i + 1] - pl->displ[i]);
    bank_scratch bsc = {
        .lane_of = malloc((size_t)most * sizeof(int32_t)),
        .key_of = malloc((size_t)most * sizeof(int32_t)),
        .step_of = malloc((size_t)most * sizeof(int32_t)),
        .offset = malloc((size_t)most * sizeof(int32_t)),
        .work = malloc((size_t)(ws + BANKS) * (size_t)(widest + 1) * sizeof(int32_t)),
        .value = malloc((size_t)most * sizeof(double)),
        .taken = malloc((size_t)(widest * ws)),
    };
    int64_t *cursor = malloc((size_t)ws * sizeof *cursor);
    int rc = 0;
    if (!bsc.lane_of || !bsc.key_of || !bsc.step_of || !bsc.offset || !bsc.work || !bsc.value ||
        !bsc.taken || !cursor)
        rc = rt_err_set(
            err, "tiled plan: out of memory ordering the ELL rows of block %" PRId64 " by banks",
            b);
    for (int64_t w0 = r0; w0 < r1 && rc == 0; w0 += ws) {
        const int64_t w1 = min64(w0 + ws, r1);
        for (int64_t r = w0; r < w1; ++r)
            cursor[r - w0] = a->rowptr[r];
        for (int64_t s = s0; s < s1 && rc == 0; ++s)
            rc = slice_fill_banked(a, pl, s, s - s0, w0, w1, cursor, pos, &bsc, err);
    }
    free(bsc.lane_of);
    free(bsc.key_of);
    free(bsc.step_of);
    free(bsc.offset);
    free(bsc.work);
    free(bsc.value);
    free(bsc.taken);
    free(cursor);
    return rc;
}

/* Pass 3 for one block: the entries themselves. */
static void block_fill(const rt_csr *a, rt_tiled_plan *pl, int64_t b, const int32_t *pos)
{
    const int64_t bs = pl->p.block_size, buff = pl->p.buffsize, ws = pl->p.warp_size;
    const int64_t s0 = pl->buffdispl[b];
    const int64_t r0 = b * bs, r1 = min64(r0 + bs, a->rows);
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t lr = r - r0;
        int64_t run_stage = -1, k = 0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {
            const int64_t stage = pos[e] / buff;
            const int64_t offset = pos[e] % buff;
            if (stage != run_stage) {
                run_stage = stage;
                k = 0;
            }
            const int64_t s = s0 + stage;
            int64_t dst;
            if (pl->p.use_ell)
                dst = (pl->displ[s * pl->warps_per_block + lr / ws] + k) * ws + lr % ws;
            else
                dst = pl->rowdispl[s * bs + lr] + k;
            ++k;
            set_entry_slot(pl, dst, offset);
            pl->value[dst] = a->val[e];
        }
    }
}

/* A column -> slot table of a->cols entries is used for the slots of nonzeros when it is at most
 * this big (per thread); wider matrices search each block's footprint instead. */
#define SLOT_TABLE_MAX_COLS (INT64_C(1) << 24)

/* The slot of every nonzero of block [r0, r1) in its footprint fp[0..nfp), into pos. With a table
 * (slot_of, a->cols entries) a lookup; without, a search that starts after the row's previous
 * slot (a row's columns increase, so do their slots). */
static void block_slots(const rt_csr *a, int64_t r0, int64_t r1, const int32_t *fp, int64_t nfp,
                        int32_t *slot_of, int32_t *pos)
{
    if (slot_of) {
        for (int64_t i = 0; i < nfp; ++i)
            slot_of[fp[i]] = (int32_t)i;
        for (int64_t e = a->rowptr[r0]; e < a->rowptr[r1]; ++e)
            pos[e] = slot_of[a->colidx[e]];
        return;
    }
    for (int64_t r = r0; r < r1; ++r) {
        int64_t lo = 0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {
            const int64_t slot = find_sorted(fp, lo, nfp, a->colidx[e]);
            pos[e] = (int32_t)slot;
            lo = slot + 1;
        }
    }
}

void rt_tiled_footprints_free(rt_tiled_footprints *f)
{
    if (!f)
        return;
    free(f->start);
    free(f->fp);
    free(f->pos);
    memset(f, 0, sizeof *f);
}

int rt_tiled_footprints_build(const rt_csr *a, int block_size, rt_tiled_footprints *out,
                              rt_err *err)
{
    if (!out)
        return rt_err_set(err, "tiled footprints: no output given");
    memset(out, 0, sizeof *out);
    if (!a)
        return rt_err_set(err, "tiled footprints: no matrix given");
    if (block_size < 1)
        return rt_err_set(err, "tiled plan: block_size = %d must be at least 1", block_size);
    if (rt_csr_validate(a, err) != 0)
        return rt_err_prefix(err, "tiled plan: matrix A is malformed");
    rt_tiled_footprints *f = out;
    f->rows = a->rows;
    f->cols = a->cols;
    f->nnz = a->nnz;
    f->block_size = block_size;
    const int64_t bs = block_size;
    f->nblocks = (a->rows + bs - 1) / bs;
    const int64_t nblocks = f->nblocks;
    f->start = alloc_array(nblocks + 1, sizeof *f->start, 1, "footprint offsets", err);
    /* Footprints in place during pass 1 (each fits in its block's nonzero range), then compacted
     * into f->fp; pos is that scratch. */
    f->pos = alloc_array(a->nnz, sizeof *f->pos, 0, "footprint scratch", err);
    if (!f->start || !f->pos)
        goto fail;

    int64_t max_block_nnz = 0;
    for (int64_t b = 0; b < nblocks; ++b) {
        const int64_t n = a->rowptr[min64((b + 1) * bs, a->rows)] - a->rowptr[b * bs];
        if (n > max_block_nnz)
            max_block_nnz = n;
    }
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        int32_t *sort_tmp =
            malloc((size_t)(max_block_nnz > 0 ? max_block_nnz : 1) * sizeof *sort_tmp);
        if (!sort_tmp)
            failed = 1;
#pragma omp for schedule(dynamic, 16)
        for (int64_t b = 0; b < nblocks; ++b) {
            if (!sort_tmp)
                continue;
            const int64_t r0 = b * bs, r1 = min64(r0 + bs, a->rows);
            f->start[b + 1] = block_footprint(a, r0, r1, f->pos + a->rowptr[r0], sort_tmp);
        }
        free(sort_tmp);
    }
    if (failed) {
        rt_err_set(err, "tiled plan: out of memory for sort buffers of %" PRId64 " entries",
                   max_block_nnz);
        goto fail;
    }
    for (int64_t b = 0; b < nblocks; ++b) {
        if (f->start[b + 1] > f->max_fp)
            f->max_fp = f->start[b + 1];
        f->start[b + 1] += f->start[b];
    }
    f->fp = alloc_array(f->start[nblocks], sizeof *f->fp, 0, "footprints", err);
    if (!f->fp)
        goto fail;
        /* Compact first (pos is overwritten below, block by block, after every copy is done). */
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t b = 0; b < nblocks; ++b)
        memcpy(f->fp + f->start[b], f->pos + a->rowptr[b * bs],
               (size_t)(f->start[b + 1] - f->start[b]) * sizeof *f->fp);
    const int table = a->cols <= SLOT_TABLE_MAX_COLS;
#pragma omp parallel
    {
        int32_t *slot_of = table ? malloc((size_t)(a->cols > 0 ? a->cols : 1) * sizeof *slot_of)
                                 : NULL; /* without one: the search */
#pragma omp for schedule(dynamic, 16)
        for (int64_t b = 0; b < nblocks; ++b) {
            const int64_t r0 = b * bs, r1 = min64(r0 + bs, a->rows);
            block_slots(a, r0, r1, f->fp + f->start[b], f->start[b + 1] - f->start[b], slot_of,
                        f->pos);
        }
        free(slot_of);
    }
    return 0;

fail:
    rt_tiled_footprints_free(f);
    return -1;
}

static int fill_plan(const rt_csr *a, const rt_tiled_params *p, const rt_tiled_footprints *f,
                     rt_tiled_plan *out, rt_err *err);

int rt_tiled_plan_build(const rt_csr *a, const rt_tiled_params *p, rt_tiled_plan *out, rt_err *err)
{
    if (!out)
        return rt_err_set(err, "tiled plan: no output plan given");
    memset(out, 0, sizeof *out);
    if (!a || !p)
        return rt_err_set(err, "tiled plan: no matrix or no parameters given");
    if (check_params(p, err) != 0)
        return -1;
    rt_tiled_footprints f;
    if (rt_tiled_footprints_build(a, p->block_size, &f, err) != 0)
        return -1;
    const int rc = fill_plan(a, p, &f, out, err);
    rt_tiled_footprints_free(&f);
    return rc;
}

int rt_tiled_plan_build_with(const rt_csr *a, const rt_tiled_params *p,
                             const rt_tiled_footprints *f, rt_tiled_plan *out, rt_err *err)
{
    if (!out)
        return rt_err_set(err, "tiled plan: no output plan given");
    memset(out, 0, sizeof *out);
    if (!a || !p || !f)
        return rt_err_set(err, "tiled plan: no matrix, parameters or footprints given");
    if (check_params(p, err) != 0)
        return -1;
    if (f->rows != a->rows || f->cols != a->cols || f->nnz != a->nnz ||
        f->block_size != p->block_size || !f->start || !f->pos || !f->fp)
        return rt_err_set(err,
                          "tiled plan: footprints of a %" PRId64 " x %" PRId64
                          " matrix with %" PRId64 " nonzeros in blocks of %d rows, given %" PRId64
                          " x %" PRId64 " with %" PRId64 " and block_size %d",
                          f->rows, f->cols, f->nnz, f->block_size, a->rows, a->cols, a->nnz,
                          p->block_size);
    return fill_plan(a, p, f, out, err);
}

/* The plan of a under p from a's footprints (checked by the callers: the same matrix, the same
 * block size, p within bounds). */
static int fill_plan(const rt_csr *a, const rt_tiled_params *p, const rt_tiled_footprints *f,
                     rt_tiled_plan *out, rt_err *err)
{
    rt_tiled_plan *pl = out;
    pl->rows = a->rows;
    pl->cols = a->cols;
    pl->nnz = a->nnz;
    pl->p = *p;
    const int64_t bs = p->block_size;
    pl->nblocks = f->nblocks;
    pl->warps_per_block = p->use_ell ? bs / p->warp_size : 0;
    const int64_t nblocks = pl->nblocks;
    const int32_t *pos = f->pos;
    int failed = 0;

    pl->buffdispl = alloc_array(nblocks + 1, sizeof *pl->buffdispl, 1, "buffdispl", err);
    if (!pl->buffdispl)
        goto fail;

    /* Stages per block, then where each stage's slots start in map. */
    for (int64_t b = 0; b < nblocks; ++b) {
        const int64_t ns = (f->start[b + 1] - f->start[b] + p->buffsize - 1) / p->buffsize;
        pl->buffdispl[b + 1] = pl->buffdispl[b] + ns;
        if (ns > pl->max_stages)
            pl->max_stages = ns;
    }
    pl->nstages = pl->buffdispl[nblocks];
    pl->mapdispl = alloc_array(pl->nstages + 1, sizeof *pl->mapdispl, 1, "mapdispl", err);
    if (!pl->mapdispl)
        goto fail;
    for (int64_t b = 0; b < nblocks; ++b) {
        int64_t left = f->start[b + 1] - f->start[b];
        for (int64_t s = pl->buffdispl[b]; s < pl->buffdispl[b + 1]; ++s) {
            const int64_t slots = min64(left, p->buffsize);
            pl->mapdispl[s + 1] = pl->mapdispl[s] + slots;
            left -= slots;
        }
    }
    pl->nmap = pl->mapdispl[pl->nstages];
    /* The stages of all blocks, in order, are the footprints of all blocks, in order. */
    pl->map = alloc_array(pl->nmap, sizeof *pl->map, 0, "map", err);
    if (!pl->map)
        goto fail;
    memcpy(pl->map, f->fp, (size_t)pl->nmap * sizeof *pl->map);
    if (p->use_ell) {
        pl->displ =
            alloc_array(pl->nstages * pl->warps_per_block + 1, sizeof *pl->displ, 1, "displ", err);
        if (!pl->displ)
            goto fail;
    } else {
        if (pl->nstages > (INT64_MAX - 1) / bs) {
            rt_err_set(
                err, "tiled plan: %" PRId64 " stages x block_size %" PRId64 " row offsets overflow",
                pl->nstages, bs);
            goto fail;
        }
        pl->rowdispl = alloc_array(pl->nstages * bs + 1, sizeof *pl->rowdispl, 1, "rowdispl", err);
        if (!pl->rowdispl)
            goto fail;
    }

    /* Pass 2: counts. */
#pragma omp parallel for schedule(dynamic, 16) reduction(| : failed)
    for (int64_t b = 0; b < nblocks; ++b) {
        block_count(a, pl, b, pos);
        if (p->bank_order && block_bank_widths(a, pl, b, pos) != 0)
            failed = 1;
    }
    if (failed) {
        rt_err_set(err, "tiled plan: out of memory counting the banks of a block's stages");
        goto fail;
    }

    /* Offsets from counts. */
    int64_t *offsets = p->use_ell ? pl->displ : pl->rowdispl;
    const int64_t n_offsets = p->use_ell ? pl->nstages * pl->warps_per_block : pl->nstages * bs;
    for (int64_t i = 0; i < n_offsets; ++i)
        offsets[i + 1] += offsets[i];
    pl->stored = p->use_ell ? offsets[n_offsets] * p->warp_size : offsets[n_offsets];

    /* Zeroed, so ELL padding is index 0, value 0 without a separate pass. */
    pl->value = alloc_array(pl->stored, sizeof *pl->value, 1, "values", err);
    if (p->index_bytes == 2)
        pl->index16 = alloc_array(pl->stored, sizeof *pl->index16, 1, "index16", err);
    else
        pl->index32 = alloc_array(pl->stored, sizeof *pl->index32, 1, "index32", err);
    if (!pl->value || (!pl->index16 && !pl->index32))
        goto fail;

    /* Pass 3: entries. The failure of the lowest block is the one reported. */
    int64_t bad_block = nblocks;
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t b = 0; b < nblocks; ++b) {
        if (!p->bank_order) {
            block_fill(a, pl, b, pos);
            continue;
        }
        rt_err local;
        rt_err_clear(&local);
        if (block_fill_banked(a, pl, b, pos, &local) != 0) {
#pragma omp critical(rt_tiled_fill_first)
            if (b < bad_block) {
                bad_block = b;
                if (err)
                    *err = local;
            }
        }
    }
    if (bad_block < nblocks)
        goto fail;
    return 0;

fail:
    rt_tiled_plan_free(pl);
    return -1;
}

/* ---------------------------------------------------------------------------------------------
 * Verify */

/* Matches one plan entry of row r against A; see rt_tiled_plan_verify for the padding rule.
 * *cursor is where in A's row the search looks first (one past the row's last match): a plan in
 * A's column order finds each entry there, and any other order falls back to the search, which
 * finds the same nonzero (a row's columns are distinct). */
static int match_entry(const rt_tiled_plan *pl, const rt_csr *a, unsigned char *matched, int64_t b,
                       int64_t s, int64_t r, int64_t slot, double v, int64_t *cursor, rt_err *err)
{
    const int64_t nslots = pl->mapdispl[s + 1] - pl->mapdispl[s];
    const int64_t local = s - pl->buffdispl[b];
    if (slot >= nslots)
        return rt_err_set(err,
                          "tiled plan: row %" PRId64 " (block %" PRId64 ", stage %" PRId64
                          ") has index %" PRId64 " but the stage stages only %" PRId64 " columns",
                          r, b, local, slot, nslots);
    const int32_t col = pl->map[pl->mapdispl[s] + slot];
    const int64_t e0 = a->rowptr[r], e1 = a->rowptr[r + 1];
    const int64_t c = *cursor;
    const int64_t hit =
        c >= e0 && c < e1 && a->colidx[c] == col ? c : find_sorted(a->colidx, e0, e1, col);
    if (hit >= 0 && !matched[hit] && a->val[hit] == v) {
        matched[hit] = 1;
        *cursor = hit + 1;
        return 0;
    }
    if (pl->p.use_ell && v == 0.0 && (slot == 0 || pl->p.bank_order))
        return 0; /* padding */
    if (hit < 0)
        return rt_err_set(err,
                          "tiled plan: row %" PRId64 " (block %" PRId64 ", stage %" PRId64
                          ") holds column %d, which row %" PRId64 " of A does not contain",
                          r, b, local, col, r);
    if (matched[hit])
        return rt_err_set(err,
                          "tiled plan: nonzero (%" PRId64 ", %d) of A appears more than "
                          "once (again in stage %" PRId64 " of block %" PRId64 ")",
                          r, col, local, b);
    return rt_err_set(err,
                      "tiled plan: nonzero (%" PRId64 ", %d) has value %.17g in the plan "
                      "but %.17g in A",
                      r, col, v, a->val[hit]);
}

static int64_t entry_slot(const rt_tiled_plan *pl, int64_t i)
{
    return pl->index16 ? (int64_t)pl->index16[i] : (int64_t)pl->index32[i];
}

/* Checks block b completely: its stages, map, entries and that every nonzero of its rows was
 * matched. cursor: block_size entries of scratch (match_entry's, per row of the block). */
static int verify_block(const rt_tiled_plan *pl, const rt_csr *a, unsigned char *matched, int64_t b,
                        int64_t *cursor, rt_err *err)
{
    const int64_t bs = pl->p.block_size, ws = pl->p.warp_size;
    const int64_t r0 = b * bs, r1 = min64(r0 + bs, a->rows);
    for (int64_t r = r0; r < r1; ++r)
        cursor[r - r0] = a->rowptr[r];
    for (int64_t s = pl->buffdispl[b]; s < pl->buffdispl[b + 1]; ++s) {
        const int64_t m0 = pl->mapdispl[s], m1 = pl->mapdispl[s + 1];
        const int64_t local = s - pl->buffdispl[b];
        if (m1 - m0 > pl->p.buffsize)
            return rt_err_set(err,
                              "tiled plan: stage %" PRId64 " of block %" PRId64 " stages %" PRId64
                              " columns, more than buffsize = %" PRId64,
                              local, b, m1 - m0, pl->p.buffsize);
        int32_t *cols = malloc((size_t)(m1 > m0 ? m1 - m0 : 1) * sizeof *cols);
        int32_t *tmp = malloc((size_t)(m1 > m0 ? m1 - m0 : 1) * sizeof *tmp);
        if (!cols || !tmp) {
            free(cols);
            free(tmp);
            return rt_err_set(err, "tiled plan verify: out of memory");
        }
        int bad_col = 0;
        for (int64_t i = m0; i < m1 && !bad_col; ++i)
            bad_col = pl->map[i] < 0 || pl->map[i] >= a->cols;
        int64_t distinct = 0;
        if (!bad_col) {
            memcpy(cols, pl->map + m0, (size_t)(m1 - m0) * sizeof *cols);
            sort_columns(cols, m1 - m0, tmp, a->cols);
            distinct = unique_sorted(cols, m1 - m0);
        }
        free(cols);
        free(tmp);
        if (bad_col)
            return rt_err_set(err,
                              "tiled plan: stage %" PRId64 " of block %" PRId64 " maps a "
                              "slot to a column outside 0..%" PRId64,
                              local, b, a->cols - 1);
        if (distinct != m1 - m0)
            return rt_err_set(err,
                              "tiled plan: stage %" PRId64 " of block %" PRId64 " stages "
                              "the same column in two slots",
                              local, b);

        if (pl->p.use_ell) {
            const int64_t wpb = pl->warps_per_block;
            for (int64_t w = 0; w < wpb; ++w) {
                const int64_t d0 = pl->displ[s * wpb + w], d1 = pl->displ[s * wpb + w + 1];
                for (int64_t m = d0; m < d1; ++m) {
                    for (int64_t lane = 0; lane < ws; ++lane) {
                        const int64_t r = r0 + w * ws + lane;
                        const int64_t i = m * ws + lane;
                        const int64_t slot = entry_slot(pl, i);
                        if (r >= a->rows) {
                            if ((slot != 0 && !pl->p.bank_order) || pl->value[i] != 0.0)
                                return rt_err_set(err,
                                                  "tiled plan: row %" PRId64 " lies past "
                                                  "the %" PRId64 " rows of A but holds an "
                                                  "entry that is not padding",
                                                  r, a->rows);
                            continue;
                        }
                        if (match_entry(pl, a, matched, b, s, r, slot, pl->value[i],
                                        &cursor[r - r0], err) != 0)
                            return -1;
                    }
                }
            }
        } else {
            for (int64_t lr = 0; lr < bs; ++lr) {
                const int64_t q0 = pl->rowdispl[s * bs + lr], q1 = pl->rowdispl[s * bs + lr + 1];
                const int64_t r = r0 + lr;
                if (r >= a->rows && q1 > q0)
                    return rt_err_set(err,
                                      "tiled plan: row %" PRId64 " lies past the %" PRId64
                                      " rows of A but holds %" PRId64 " entries",
                                      r, a->rows, q1 - q0);
                for (int64_t i = q0; i < q1; ++i)
                    if (match_entry(pl, a, matched, b, s, r, entry_slot(pl, i), pl->value[i],
                                    &cursor[lr], err) != 0)
                        return -1;
            }
        }
    }
    for (int64_t r = r0; r < r1; ++r)
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
            if (!matched[e])
                return rt_err_set(err,
                                  "tiled plan: nonzero (%" PRId64 ", %d) of A is missing "
                                  "from block %" PRId64,
                                  r, a->colidx[e], b);
    return 0;
}

/* Offsets start at 0, never decrease and end at `last`. */
static int check_offsets(const int64_t *o, int64_t n, int64_t last, const char *name, rt_err *err)
{
    if (!o)
        return rt_err_set(err, "tiled plan: %s is missing", name);
    if (o[0] != 0)
        return rt_err_set(err, "tiled plan: %s[0] = %" PRId64 ", not 0", name, o[0]);
    for (int64_t i = 0; i < n; ++i)
        if (o[i + 1] < o[i])
            return rt_err_set(err,
                              "tiled plan: %s decreases at %" PRId64 " (%" PRId64 " > %" PRId64 ")",
                              name, i, o[i], o[i + 1]);
    if (o[n] != last)
        return rt_err_set(err, "tiled plan: %s ends at %" PRId64 ", not %" PRId64, name, o[n],
                          last);
    return 0;
}

int rt_tiled_plan_verify(const rt_tiled_plan *plan, const rt_csr *a, rt_err *err)
{
    if (!plan || !a)
        return rt_err_set(err, "tiled plan verify: no plan or no matrix given");
    if (rt_csr_validate(a, err) != 0)
        return rt_err_prefix(err, "tiled plan verify: matrix A is malformed");
    if (check_params(&plan->p, err) != 0)
        return -1;
    if (plan->rows != a->rows || plan->cols != a->cols || plan->nnz != a->nnz)
        return rt_err_set(err,
                          "tiled plan: built for a %" PRId64 " x %" PRId64 " matrix with %" PRId64
                          " nonzeros, given %" PRId64 " x %" PRId64 " with %" PRId64,
                          plan->rows, plan->cols, plan->nnz, a->rows, a->cols, a->nnz);
    const int64_t bs = plan->p.block_size;
    if (plan->nblocks != (a->rows + bs - 1) / bs)
        return rt_err_set(err, "tiled plan: nblocks = %" PRId64 ", expected %" PRId64,
                          plan->nblocks, (a->rows + bs - 1) / bs);
    if (plan->nstages < 0)
        return rt_err_set(err, "tiled plan: nstages = %" PRId64 " is negative", plan->nstages);
    if (check_offsets(plan->buffdispl, plan->nblocks, plan->nstages, "buffdispl", err) != 0)
        return -1;
    if (!plan->mapdispl || !plan->map)
        return rt_err_set(err, "tiled plan: mapdispl or map is missing");
    if (check_offsets(plan->mapdispl, plan->nstages, plan->nmap, "mapdispl", err) != 0)
        return -1;
    if (plan->p.use_ell) {
        if (plan->warps_per_block != bs / plan->p.warp_size)
            return rt_err_set(err, "tiled plan: warps_per_block = %" PRId64 ", expected %" PRId64,
                              plan->warps_per_block, bs / plan->p.warp_size);
        const int64_t n = plan->nstages * plan->warps_per_block;
        if (!plan->displ)
            return rt_err_set(err, "tiled plan: displ is missing");
        if (plan->displ[n] * plan->p.warp_size != plan->stored)
            return rt_err_set(err,
                              "tiled plan: displ ends at %" PRId64 " ELL rows, which is not "
                              "stored / warp_size = %" PRId64 " / %d",
                              plan->displ[n], plan->stored, plan->p.warp_size);
        if (check_offsets(plan->displ, n, plan->displ[n], "displ", err) != 0)
            return -1;
    } else if (check_offsets(plan->rowdispl, plan->nstages * bs, plan->stored, "rowdispl", err) !=
               0) {
        return -1;
    }
    if ((plan->p.index_bytes == 2 && !plan->index16) ||
        (plan->p.index_bytes == 4 && !plan->index32) || !plan->value)
        return rt_err_set(err, "tiled plan: the index%d or value array is missing",
                          8 * plan->p.index_bytes);

    unsigned char *matched = calloc((size_t)(a->nnz > 0 ? a->nnz : 1), 1);
    if (!matched)
        return rt_err_set(err, "tiled plan verify: out of memory for %" PRId64 " flags", a->nnz);
    /* Blocks own disjoint rows, hence disjoint flags; the first failing block is re-checked
     * alone afterwards so the message is deterministic. */
    int64_t first_bad = plan->nblocks;
    int no_memory = 0;
#pragma omp parallel reduction(| : no_memory)
    {
        int64_t *cursor = malloc((size_t)bs * sizeof *cursor);
        if (!cursor)
            no_memory = 1;
#pragma omp for schedule(dynamic, 16)
        for (int64_t b = 0; b < plan->nblocks; ++b) {
            rt_err local;
            if (cursor && verify_block(plan, a, matched, b, cursor, &local) != 0) {
#pragma omp critical(rt_tiled_verify_first)
                if (b < first_bad)
                    first_bad = b;
            }
        }
        free(cursor);
    }
    int rc = 0;
    int64_t *cursor = malloc((size_t)bs * sizeof *cursor);
    if (no_memory || !cursor) {
        rc = rt_err_set(err, "tiled plan verify: out of memory for %" PRId64 " row cursors", bs);
    } else if (first_bad < plan->nblocks) {
        /* Clear the flags of the failing block's rows and re-run it for its message. */
        const int64_t r0 = first_bad * bs, r1 = min64(r0 + bs, a->rows);
        memset(matched + a->rowptr[r0], 0, (size_t)(a->rowptr[r1] - a->rowptr[r0]));
        verify_block(plan, a, matched, first_bad, cursor, err);
        rc = -1;
    }
    free(cursor);
    free(matched);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Metrics */

void rt_tiled_plan_metrics(const rt_tiled_plan *plan, rt_metrics *m)
{
    const double nnz = (double)plan->nnz;
    const double nmap = (double)plan->nmap;
    rt_metrics_add(m, "padding_overhead", "ratio",
                   plan->nnz > 0 ? (double)plan->stored / nnz - 1.0 : 0.0, 1);
    rt_metrics_add(m, "blocks", "count", (double)plan->nblocks, 1);
    rt_metrics_add(m, "stages", "count", (double)plan->nstages, 1);
    rt_metrics_add(m, "stages_per_block_avg", "count",
                   plan->nblocks > 0 ? (double)plan->nstages / (double)plan->nblocks : 0.0, 1);
    rt_metrics_add(m, "stages_per_block_max", "count", (double)plan->max_stages, 1);
    rt_metrics_add(m, "reuse_factor", "ratio", plan->nmap > 0 ? nnz / nmap : 0.0, 1);
    rt_metrics_add(m, "staged_entries", "count", nmap, 1);
    rt_metrics_add(m, "staged_bytes", "bytes", nmap * (double)sizeof(double), 1);
    const int64_t n_offsets = plan->p.use_ell ? plan->nstages * plan->warps_per_block
                                              : plan->nstages * plan->p.block_size;
    const double bytes = (double)(plan->nblocks + 1) * 8.0 + (double)(plan->nstages + 1) * 8.0 +
                         nmap * 4.0 + (double)(n_offsets + 1) * 8.0 +
                         (double)plan->stored * (double)(plan->p.index_bytes + 8);
    rt_metrics_add(m, "plan_bytes", "bytes", bytes, 1);
}

/* The fingerprint hashes 8-byte words in chunks of this many, the chunks in parallel; the chunks'
 * hashes are then combined in order, so the value does not depend on the number of threads. */
#define FP_CHUNK_WORDS (INT64_C(1) << 16)

static uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

/* One chunk's hash: four independent multiply-xor lanes (so the multiplies overlap), mixed. */
static uint64_t chunk_hash(const unsigned char *p, int64_t words, uint64_t seed)
{
    const uint64_t k = UINT64_C(0x9e3779b97f4a7c15);
    uint64_t h[4] = {seed, seed ^ k, seed + k, seed - k};
    for (int64_t i = 0; i < words; ++i) {
        uint64_t w;
        memcpy(&w, p + 8 * i, sizeof w);
        uint64_t *x = &h[i & 3];
        *x = (*x ^ w) * k;
        *x ^= *x >> 29;
    }
    return mix64(h[0] ^ mix64(h[1] ^ mix64(h[2] ^ mix64(h[3] ^ (uint64_t)words))));
}

/* A 64-bit hash of bytes[0..len) (a whole number of 8-byte words and a tail), seeded. */
static uint64_t bytes_hash(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    const int64_t words = (int64_t)(len / 8);
    const int64_t nchunks = (words + FP_CHUNK_WORDS - 1) / FP_CHUNK_WORDS;
    uint64_t h = mix64(seed ^ (uint64_t)len);
    uint64_t *part = malloc((size_t)(nchunks > 0 ? nchunks : 1) * sizeof *part);
    if (part) {
#pragma omp parallel for schedule(static)
        for (int64_t c = 0; c < nchunks; ++c) {
            const int64_t w0 = c * FP_CHUNK_WORDS;
            part[c] = chunk_hash(p + 8 * w0, min64(FP_CHUNK_WORDS, words - w0), (uint64_t)c);
        }
    }
    for (int64_t c = 0; c < nchunks; ++c) {
        const int64_t w0 = c * FP_CHUNK_WORDS;
        const uint64_t ch =
            part ? part[c] : chunk_hash(p + 8 * w0, min64(FP_CHUNK_WORDS, words - w0), (uint64_t)c);
        h = mix64(h ^ ch) + (uint64_t)c;
    }
    free(part);
    uint64_t tail = 0;
    memcpy(&tail, p + 8 * words, len % 8);
    return mix64(h ^ tail);
}

uint64_t rt_tiled_pattern_fingerprint(const rt_csr *a)
{
    uint64_t h = bytes_hash(a->rowptr, (size_t)(a->rows + 1) * sizeof(int64_t),
                            UINT64_C(0x1f83d9abfb41bd6b));
    if (a->nnz > 0)
        h = bytes_hash(a->colidx, (size_t)a->nnz * sizeof(int32_t), h);
    return h;
}
