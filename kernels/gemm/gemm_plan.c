#include "gemm_plan.h"

#include "rt_registry.h" /* RT_INFEASIBLE */

static int64_t ceil_div(int64_t a, int64_t b)
{
    return b > 0 ? (a + b - 1) / b : 0;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

int64_t gemm_count_mod(int64_t n, int64_t m, int64_t r)
{
    if (m <= 0 || r < 0 || n <= r)
        return 0;
    return (n - 1 - r) / m + 1;
}

/* C tiles of a block on one GPU plus (l + 1) chunks of inputs: the least a GPU must hold. */
static int64_t least_tiles(int64_t b, int64_t cg, int64_t d, int l)
{
    return b * cg + (int64_t)(l + 1) * (b + cg) * d;
}

/* The paper's rule for d: the largest divisor of kt whose chunks fit beside the C block, at most
 * kt / min(kt, GEMM_MIN_CHUNKS) so a block has that many chunks to pipeline (one chunk of all of
 * k would make its products wait for every load). */
static int64_t rule_depth(int64_t kt, int64_t b, int64_t cg, int l, int64_t budget)
{
    const int64_t cap = kt / min64(kt, GEMM_MIN_CHUNKS);
    for (int64_t d = cap; d >= 1; --d)
        if (kt % d == 0 && (budget <= 0 || least_tiles(b, cg, d, l) <= budget))
            return d;
    return 0;
}

/* The block grid of b x c, with the last block row cut into pl->split sub-blocks. */
static void set_blocks(gemm_plan *pl, int64_t b, int64_t c)
{
    const int64_t rmax = ceil_div(pl->mt, pl->p), cmax = ceil_div(pl->nt, pl->q);
    const int64_t cmax_g = ceil_div(cmax, pl->G) * pl->G; /* c stays a multiple of G */
    pl->b = min64(b, rmax);
    pl->c = min64(c, cmax_g);
    pl->cg = pl->c / pl->G;
    pl->xf = ceil_div(rmax, pl->b) - 1;
    pl->bl = rmax - pl->xf * pl->b;
    pl->bs = ceil_div(pl->bl, pl->split);
    pl->xs = ceil_div(pl->bl, pl->bs); /* <= split: no empty sub-block */
    pl->X = pl->xf + pl->xs;
    pl->Y = ceil_div(cmax, pl->c);
}

int gemm_plan_make(const gemm_plan_req *req, gemm_plan *pl, rt_err *err)
{
    if (req->mt < 1 || req->nt < 1 || req->kt < 1)
        return rt_err_set(err, "gemm plan: %lld x %lld x %lld tiles is not a product",
                          (long long)req->mt, (long long)req->nt, (long long)req->kt);
    if (req->p < 1 || req->q < 1 || req->G < 1)
        return rt_err_set(err, "gemm plan: a %d x %d grid with %d GPU(s) per process is not valid",
                          req->p, req->q, req->G);
    if (req->b < 0 || req->c < 0 || req->d < 0)
        return rt_err_set(err, "gemm plan: b, c and d must be >= 0 (0: the paper's rule)");
    if (req->split < 0)
        return rt_err_set(err, "gemm plan: tail_split = %lld must be >= 1 (1: no split)",
                          (long long)req->split);
    if (req->t < 0 || (req->t > 0 && (req->m < 1 || req->n < 1 || req->k < 1)))
        return rt_err_set(err, "gemm plan: sizes %lld x %lld x %lld in tiles of %lld are not valid",
                          (long long)req->m, (long long)req->n, (long long)req->k,
                          (long long)req->t);
    *pl = (gemm_plan){.mt = req->mt,
                      .nt = req->nt,
                      .kt = req->kt,
                      .p = req->p,
                      .q = req->q,
                      .G = req->G,
                      .split = req->split > 1 ? req->split : 1,
                      .budget_tiles = req->budget_tiles,
                      .ipc = req->ipc != 0,
                      .m = req->m,
                      .n = req->n,
                      .k = req->k,
                      .t = req->t};
    const int64_t T = req->budget_tiles;
    const int64_t G = req->G;
    const int64_t rmax = ceil_div(pl->mt, pl->p), cmax = ceil_div(pl->nt, pl->q);
    int64_t b = req->b, c = req->c;
    if (b == 0 && c != 0)
        b = c;
    if (c == 0 && b != 0)
        c = b;
    const int auto_bc = b == 0;
    if (!auto_bc && c % G != 0) {
        rt_err_set(err,
                   "c = %lld is not a multiple of the %lld GPU(s) per process: every GPU must get "
                   "c/G columns of a block",
                   (long long)c, (long long)G);
        return RT_INFEASIBLE;
    }
    /* Paper's rule: b = c, the C block of one GPU (b x c/G tiles) in at most 3/4 of its memory;
     * the whole of C when it fits. Shrunk until a chunk of depth 1 fits too (the whole of C can
     * fit in 3/4 of the budget and still leave no room for a chunk beside it). */
    int whole = auto_bc && (T <= 0 || 4 * rmax * ceil_div(cmax, G) <= 3 * T);
    int64_t s = G;
    while (auto_bc && T > 0 && 4 * (s + G) * ((s + G) / G) <= 3 * T)
        s += G;
    if (!auto_bc)
        set_blocks(pl, b, c);
    else if (whole)
        set_blocks(pl, rmax, cmax + G);
    else
        set_blocks(pl, s, s);
    for (;;) {
        /* The rule counts the blocks before the split: the split changes the order, not the
         * memory, so a point with and one without it share their pools. */
        pl->l = req->l >= 0 ? req->l : ((pl->xf + 1) * pl->Y == 1 ? 1 : 2);
        pl->d = req->d > 0 ? min64(req->d, pl->kt) : rule_depth(pl->kt, pl->b, pl->cg, pl->l, T);
        if (pl->d > 0 || !auto_bc)
            break;
        if (whole)
            whole = 0; /* no depth fits beside all of C: the largest block of 3/4 instead */
        else if (s > G)
            s -= G; /* no depth fits beside this block: take a smaller one */
        else
            break;
        set_blocks(pl, s, s);
    }
    if (pl->d == 0)
        pl->d = 1;
    pl->Z = ceil_div(pl->kt, pl->d);
    const int64_t least = least_tiles(pl->b, pl->cg, pl->d, pl->l);
    if (T > 0 && least > T) {
        rt_err_set(err,
                   "gpu_mem_budget of %lld tiles is too small: a block of %lld x %lld C "
                   "tiles per GPU and %d chunk(s) of %lld A + %lld B tiles (b = %lld, "
                   "c = %lld, d = %lld, l = %d) need %lld tiles",
                   (long long)T, (long long)pl->b, (long long)pl->cg, pl->l + 1,
                   (long long)(pl->b * pl->d), (long long)(pl->cg * pl->d), (long long)pl->b,
                   (long long)pl->c, (long long)pl->d, pl->l, (long long)least);
        return RT_INFEASIBLE;
    }
    /* Pools: what each matrix needs to stay on the GPU, at least (l + 1) chunks each. */
    const int64_t min_a = (int64_t)(pl->l + 1) * pl->b * pl->d;
    const int64_t min_b = (int64_t)(pl->l + 1) * pl->cg * pl->d;
    const int64_t need_a = max64(rmax * pl->kt, min_a);
    const int64_t need_b_all = max64(ceil_div(cmax, G) * pl->kt, min_b);
    const int64_t need_b_col = max64(pl->cg * pl->kt, min_b);
    const int64_t rest = T - pl->b * pl->cg;
    if (T <= 0 || need_a + need_b_all <= rest) {
        pl->mem_case = 'a';
        pl->pool_a = need_a;
        pl->pool_b = need_b_all;
    } else if (need_b_col + min_a <= rest) {
        pl->mem_case = 'b';
        pl->pool_b = need_b_col;
        pl->pool_a = min64(rest - need_b_col, need_a);
    } else {
        pl->mem_case = 'c';
        pl->pool_a = min_a;
        pl->pool_b = min64(rest - min_a, need_b_all);
    }
    return 0;
}

int64_t gemm_plan_rows(const gemm_plan *pl, int u)
{
    return gemm_count_mod(pl->mt, pl->p, u);
}

int64_t gemm_plan_cols(const gemm_plan *pl, int v)
{
    return gemm_count_mod(pl->nt, pl->q, v);
}

int64_t gemm_plan_block_row0(const gemm_plan *pl, int64_t x)
{
    return x < pl->xf ? x * pl->b : pl->xf * pl->b + (x - pl->xf) * pl->bs;
}

int64_t gemm_plan_block_span(const gemm_plan *pl, int64_t x)
{
    return x < pl->xf ? pl->b : min64(pl->bs, pl->bl - (x - pl->xf) * pl->bs);
}

int64_t gemm_plan_block_slot0(const gemm_plan *pl, int64_t x)
{
    return x < pl->xf ? 0 : (x - pl->xf) * pl->bs;
}

int64_t gemm_plan_block_rows(const gemm_plan *pl, int u, int64_t x)
{
    const int64_t left = gemm_plan_rows(pl, u) - gemm_plan_block_row0(pl, x);
    return left <= 0 ? 0 : min64(left, gemm_plan_block_span(pl, x));
}

int64_t gemm_plan_block_cols(const gemm_plan *pl, int v, int64_t y)
{
    const int64_t left = gemm_plan_cols(pl, v) - y * pl->c;
    return left <= 0 ? 0 : min64(left, pl->c);
}

int64_t gemm_plan_block_cols_gpu(const gemm_plan *pl, int v, int64_t y, int g)
{
    const int64_t lo = y * pl->c, hi = lo + gemm_plan_block_cols(pl, v, y);
    return gemm_count_mod(hi, pl->G, g) - gemm_count_mod(lo, pl->G, g);
}

int64_t gemm_plan_chunk_k0(const gemm_plan *pl, int64_t z)
{
    return z * pl->d;
}

int64_t gemm_plan_chunk_depth(const gemm_plan *pl, int64_t z)
{
    return min64(pl->d, pl->kt - z * pl->d);
}

int64_t gemm_plan_chunks(const gemm_plan *pl)
{
    return pl->X * pl->Y * pl->Z;
}

void gemm_plan_chunk_at(const gemm_plan *pl, int64_t s, int64_t *y, int64_t *x, int64_t *z)
{
    *z = s % pl->Z;
    *x = (s / pl->Z) % pl->X;
    *y = s / (pl->Z * pl->X);
}

/* Block columns in which GPU g (or, g < 0, any GPU) of process column v has columns. */
static int64_t busy_block_cols(const gemm_plan *pl, int v, int g)
{
    int64_t n = 0;
    for (int64_t y = 0; y < pl->Y; ++y)
        n += (g < 0 ? gemm_plan_block_cols(pl, v, y) : gemm_plan_block_cols_gpu(pl, v, y, g)) > 0;
    return n;
}

/* Block rows (sub-blocks included) in which process row u has rows: the first ones. */
static int64_t busy_block_rows(const gemm_plan *pl, int u)
{
    int64_t n = 0;
    while (n < pl->X && gemm_plan_block_rows(pl, u, n) > 0)
        ++n;
    return n;
}

/* The tail of GPU g of process (u, v): its C tiles in the last block it computes in (the last
 * block row of u, the last block column where g has columns). */
static int64_t tail_tiles(const gemm_plan *pl, int u, int v, int g, int64_t *x, int64_t *y)
{
    *x = busy_block_rows(pl, u) - 1;
    for (*y = pl->Y - 1; *y >= 0 && gemm_plan_block_cols_gpu(pl, v, *y, g) == 0; --*y)
        ;
    if (*x < 0 || *y < 0)
        return 0;
    return gemm_plan_block_rows(pl, u, *x) * gemm_plan_block_cols_gpu(pl, v, *y, g);
}

/* An A tile is reused from one block column to the next only when the pool holds all the A
 * tiles of the process row (LRU over a cyclic sweep hits only then); likewise a B tile from one
 * block row to the next only when the pool holds the GPU's B tiles of the block column. */
void gemm_model_gpu(const gemm_plan *pl, int u, int v, int g, gemm_gpu_counts *out)
{
    *out = (gemm_gpu_counts){0};
    const int64_t rows = gemm_plan_rows(pl, u);
    if (rows == 0)
        return;
    const int64_t a_all = rows * pl->kt;
    const int64_t yg = busy_block_cols(pl, v, g);
    if (yg > 0)
        out->a_loads = (double)(pl->pool_a >= a_all ? a_all : yg * a_all);
    const int64_t xu = busy_block_rows(pl, u);
    int64_t cols = 0;
    for (int64_t y = 0; y < pl->Y; ++y) {
        const int64_t cy = gemm_plan_block_cols_gpu(pl, v, y, g);
        const int64_t nb = cy * pl->kt;
        out->b_loads += (double)(pl->pool_b >= nb ? nb : xu * nb);
        cols += cy;
    }
    out->c_writes = (double)(rows * cols);
    int64_t tx, ty;
    out->c_tail = (double)tail_tiles(pl, u, v, g, &tx, &ty);
    out->total = out->a_loads + out->b_loads + out->c_writes;
}

/* Elements along tile i of a dimension of n elements in tiles of t (t = 0: one per tile). */
static double tile_elems(int64_t n, int64_t t, int64_t i)
{
    return t > 0 ? (double)min64(t, n - i * t) : 1.0;
}

/* Elements of the tile rows of process row u (the rows of its A and C tiles). */
static double rows_elems(const gemm_plan *pl, int u)
{
    double e = 0.0;
    for (int64_t i = u; i < pl->mt; i += pl->p)
        e += tile_elems(pl->m, pl->t, i);
    return e;
}

/* Elements of the columns of process column v in block column y (all of its GPUs' with g < 0,
 * else GPU g's: local columns jl with jl mod G = g). */
static double block_cols_elems(const gemm_plan *pl, int v, int64_t y, int g)
{
    double e = 0.0;
    const int64_t bc = gemm_plan_block_cols(pl, v, y);
    for (int64_t jb = 0; jb < bc; ++jb)
        if (g < 0 || jb % pl->G == g)
            e += tile_elems(pl->n, pl->t, v + (int64_t)pl->q * (y * pl->c + jb));
    return e;
}

static int same_node(const int *tier_of, int rank)
{
    return !tier_of || tier_of[rank] != RT_TIER_GLOBAL;
}

/* With ipc, whether process (u, v) pulls a tile of A owned by process column w (same row) in
 * block column y from the owner's GPU: a node peer that computes in the block (it holds the tile
 * for the chunk). Else the tile comes over MPI. */
static int ipc_a(const gemm_plan *pl, const int *tier_of, int u, int w, int64_t y)
{
    return pl->ipc && same_node(tier_of, u * pl->q + w) && gemm_plan_block_cols(pl, w, y) > 0;
}

/* The same for a tile of B owned by process row w (same column v) in block row x. */
static int ipc_b(const gemm_plan *pl, const int *tier_of, int w, int v, int64_t x)
{
    return pl->ipc && same_node(tier_of, w * pl->q + v) && gemm_plan_block_rows(pl, w, x) > 0;
}

/* An A tile missed by every GPU that computes in a chunk (those with columns in the block) comes
 * in once, from host memory or a node peer's GPU, and goes on to the others device to device; A
 * is loaded at every block column, or once (the first) when the pool holds the process row. A B
 * tile belongs to one GPU, loaded at every block row, or once per block column when the pool holds
 * the GPU's B tiles of the block column. Tiles over MPI are received for every chunk that needs
 * them (whatever the caches hold); ipc tiles are pulled only on a miss. */
void gemm_model_process(const gemm_plan *pl, int u, int v, const int *tier_of,
                        gemm_proc_counts *out)
{
    *out = (gemm_proc_counts){0};
    const int64_t rows = gemm_plan_rows(pl, u), cols = gemm_plan_cols(pl, v);
    const int64_t kq = gemm_count_mod(pl->kt, pl->q, v), kp = gemm_count_mod(pl->kt, pl->p, u);
    const int64_t xu = busy_block_rows(pl, u);
    const double rel = rows_elems(pl, u);
    if (rows > 0 && cols > 0) {
        const int holds = pl->pool_a >= rows * pl->kt;
        for (int64_t y = 0; y < pl->Y; ++y) {
            const int64_t bc = gemm_plan_block_cols(pl, v, y);
            if (bc == 0)
                continue;
            const double others = (double)(min64(pl->G, bc) - 1); /* GPUs fed device to device */
            const double cel = block_cols_elems(pl, v, y, -1);
            for (int64_t k = 0; k < pl->kt; ++k) {
                const int w = (int)(k % pl->q);
                const int ipc = w != v && ipc_a(pl, tier_of, u, w, y);
                const double el = rel * tile_elems(pl->k, pl->t, k);
                if (w != v && !ipc)
                    out->recv_a += (double)rows;
                if (!holds || y == 0) {
                    if (ipc) {
                        out->ipc_a += (double)rows;
                        out->el_ipc += el;
                    } else {
                        out->h2d_a += (double)rows;
                        out->el_h2d += el;
                    }
                    out->d2d_a += (double)rows * others;
                    out->el_d2d += el * others;
                }
                /* B of block column y received for every block row that computes. */
                const int wb = (int)(k % pl->p);
                for (int64_t x = 0; x < xu && wb != u; ++x)
                    if (!ipc_b(pl, tier_of, wb, v, x))
                        out->recv_b += (double)bc;
            }
            for (int g = 0; g < pl->G; ++g) {
                const int64_t cy = gemm_plan_block_cols_gpu(pl, v, y, g);
                if (cy == 0)
                    continue;
                const double gel = block_cols_elems(pl, v, y, g);
                const int holds_b = pl->pool_b >= cy * pl->kt;
                for (int64_t x = 0; x < (holds_b ? 1 : xu); ++x)
                    for (int64_t k = 0; k < pl->kt; ++k) {
                        const int w = (int)(k % pl->p);
                        const double el = gel * tile_elems(pl->k, pl->t, k);
                        if (w != u && ipc_b(pl, tier_of, w, v, x)) {
                            out->ipc_b += (double)cy;
                            out->el_ipc += el;
                        } else {
                            out->h2d_b += (double)cy;
                            out->el_h2d += el;
                        }
                    }
            }
            out->el_d2h += rel * cel;
        }
        out->d2h_c = (double)(rows * cols);
        for (int g = 0; g < pl->G; ++g) {
            int64_t tx, ty;
            const int64_t n = tail_tiles(pl, u, v, g, &tx, &ty);
            if (n == 0)
                continue;
            const int64_t r0 = gemm_plan_block_row0(pl, tx);
            double re = 0.0;
            for (int64_t il = r0; il < r0 + gemm_plan_block_rows(pl, u, tx); ++il)
                re += tile_elems(pl->m, pl->t, u + (int64_t)pl->p * il);
            out->d2h_tail += (double)n;
            out->el_tail += re * block_cols_elems(pl, v, ty, g);
        }
    }
    /* Sends: own A tiles go, at every block (x, y), to the other processes of the row that have
     * columns in y; own B tiles to the other processes of the column that have rows in x; except
     * those that pull them from this process's GPU (ipc). */
    for (int64_t y = 0; y < pl->Y; ++y) {
        for (int w = 0; w < pl->q; ++w) {
            /* w pulls from here when this process computes in the block (it holds the tiles). */
            if (w == v || gemm_plan_block_cols(pl, w, y) == 0 ||
                (pl->ipc && same_node(tier_of, u * pl->q + w) &&
                 gemm_plan_block_cols(pl, v, y) > 0))
                continue;
            const double n = (double)(rows * kq);
            out->sent_a += n;
            out->sent_tier[tier_of ? tier_of[u * pl->q + w] : 0] += n;
        }
        const int64_t cy = gemm_plan_block_cols(pl, v, y);
        for (int64_t x = 0; x < pl->X; ++x)
            for (int w = 0; w < pl->p; ++w) {
                if (w == u || gemm_plan_block_rows(pl, w, x) == 0 ||
                    (pl->ipc && same_node(tier_of, w * pl->q + v) &&
                     gemm_plan_block_rows(pl, u, x) > 0))
                    continue;
                const double n = (double)(cy * kp);
                out->sent_b += n;
                out->sent_tier[tier_of ? tier_of[w * pl->q + v] : 0] += n;
            }
    }
    out->sent_msgs = out->sent_a + out->sent_b;
}

double gemm_eq1(const gemm_plan *pl)
{
    const double M = (double)pl->mt, N = (double)pl->nt, K = (double)pl->kt;
    const double p = pl->p, q = pl->q, G = pl->G, b = (double)pl->b, c = (double)pl->c;
    const double cw = M * N / (p * q * G);
    const double a_once = M * K / p, b_once = K * N / (q * G);
    /* B passes per block column: M / (b p) block rows, the last one as xs sub-blocks. */
    const double xb = M / (b * p) + (double)(pl->xs - 1);
    switch (pl->mem_case) {
    case 'a': return a_once + b_once + cw;
    case 'b': return N / (c * q) * a_once + b_once + cw;
    default: return N / (c * q) * a_once + xb * b_once + cw;
    }
}

double gemm_eq_recv(const gemm_plan *pl)
{
    const double p = pl->p, q = pl->q, b = (double)pl->b, c = (double)pl->c;
    const double X = (double)pl->mt / (b * p), Y = (double)pl->nt / (c * q);
    const double xb = X + (double)(pl->xs - 1); /* B is received per (sub-)block row */
    return (b * (1.0 - 1.0 / q) * X + c * (1.0 - 1.0 / p) * xb) * (double)pl->kt * Y;
}
