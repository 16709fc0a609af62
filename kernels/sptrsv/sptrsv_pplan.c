#include "sptrsv_pplan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Costs of the estimated schedule that orders the tickets (any positive costs give a topological
 * order; these are of the right size for a GPU so the order is a good one). */
#define EST_TASK_S  1e-6
#define EST_BPS     1e11
#define EST_LOCAL_S 1e-6
#define EST_LINK_S  3e-6
#define MAX_PARTS   64

#define ALLOC(ptr, count)  ((ptr) = malloc((size_t)((count) > 0 ? (count) : 1) * sizeof *(ptr)))
#define CALLOC(ptr, count) ((ptr) = calloc((size_t)((count) > 0 ? (count) : 1), sizeof *(ptr)))

void sptrsv_pplan_free(sptrsv_pplan *p)
{
    if (!p)
        return;
    void *all[] = {p->home,      p->parent,        p->leaf,         p->diag_task, p->ch_super,
                   p->ch_task,   p->ch_p0,         p->ch_p1,        p->ch_part,   p->ch_dep_ptr,
                   p->ch_dep,    p->ch_out_ptr,    p->ch_out,       p->task_part, p->task_step_ptr,
                   p->task_step, p->task_wait_ptr, p->task_wait,    p->task_key,  p->ticket_ptr,
                   p->ticket,    p->target,        p->xdst_ptr,     p->xdst,      p->recv_ptr,
                   p->recv_off,  p->red_off,       p->recv_doubles, p->owned,     p->tasks_of,
                   p->x_sent,    p->partials_sent, p->bytes_of,     p->link_bytes};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        free(all[i]);
    memset(p, 0, sizeof *p);
}

int sptrsv_pplan_block_part(const sptrsv_pplan *p, int home_i, int home_j)
{
    const int pc = p->grid_cols;
    return (home_i / pc) * pc + home_j % pc;
}

double sptrsv_pplan_step_bytes(const sptrsv_factor *f, const sptrsv_pplan *p, int64_t code)
{
    const double k = (double)p->o.nrhs;
    if (code >= 0) {
        const double nc = (double)sptrsv_ncols(f, code);
        const int64_t recvs = p->recv_ptr ? p->recv_ptr[code + 1] - p->recv_ptr[code] : 0;
        /* the inverse diagonal block; b, the partial sums and x; every partial received */
        return 8.0 * nc * nc + 8.0 * nc * k * (3.0 + (double)recvs);
    }
    const int64_t c = SPTRSV_PSTEP_ID(code), j = p->ch_super[c];
    const double rows = (double)(p->ch_p1[c] - p->ch_p0[c]), nc = (double)sptrsv_ncols(f, j);
    /* L's rows and their indices, x of the columns (forward) or of the rows (backward), and the
     * partial sums read and written (of the rows, or of the columns) */
    const double xs = p->o.backward ? rows : nc, sums = p->o.backward ? nc : rows;
    return 8.0 * rows * nc + 4.0 * rows + 8.0 * k * xs + 16.0 * k * sums;
}

static double subtree_weight(const sptrsv_factor *f, int64_t s)
{
    return 8.0 * (double)sptrsv_ncols(f, s) * (double)sptrsv_nrows(f, s) +
           4.0 * (double)sptrsv_nrows(f, s);
}

/* ---- homes ------------------------------------------------------------------------------- */

typedef struct node_heap {
    int64_t n;
    int64_t *s;
    const double *w;
} node_heap;

static void heap_push(node_heap *h, int64_t s)
{
    int64_t i = h->n++;
    while (i > 0) {
        const int64_t up = (i - 1) / 2;
        if (h->w[h->s[up]] > h->w[s] || (h->w[h->s[up]] == h->w[s] && h->s[up] < s))
            break;
        h->s[i] = h->s[up];
        i = up;
    }
    h->s[i] = s;
}

static int64_t heap_pop(node_heap *h)
{
    const int64_t top = h->s[0], last = h->s[--h->n];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && (h->w[h->s[c + 1]] > h->w[h->s[c]] ||
                             (h->w[h->s[c + 1]] == h->w[h->s[c]] && h->s[c + 1] < h->s[c])))
            ++c;
        if (h->w[last] > h->w[h->s[c]] || (h->w[last] == h->w[h->s[c]] && last < h->s[c]))
            break;
        h->s[i] = h->s[c];
        i = c;
    }
    h->s[i] = last;
    return top;
}

static int least_loaded(const double *load, int parts)
{
    int best = 0;
    for (int g = 1; g < parts; ++g)
        if (load[g] < load[best])
            best = g;
    return best;
}

typedef struct item {
    double w;
    int64_t s;   /* a subtree's root, or a top node */
    int subtree; /* 1: the whole subtree of s; 0: the chain group of s (same origin) */
} item;

static int by_weight(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return x->s < y->s ? -1 : x->s > y->s;
}

/* Subtree mapping: split the heaviest subtree into its root (a "top" node) and its children
 * until no subtree holds more than half a part's share, then deal subtrees and the top nodes'
 * chain groups (pieces of one CHOLMOD supernode stay together), heaviest first, to the least
 * loaded part. */
static int map_subtrees(const sptrsv_factor *f, sptrsv_pplan *p, const int64_t *child_ptr,
                        const int64_t *child, const double *wsub, rt_err *err)
{
    const int64_t ns = p->nsuper;
    const int P = p->o.parts;
    int64_t *heap_s = NULL, *stack = NULL;
    char *top = NULL;
    item *items = NULL;
    double *load = NULL, *group_w = NULL;
    int64_t *group_of = NULL;
    int rc = -1;
    ALLOC(heap_s, ns);
    ALLOC(stack, ns);
    CALLOC(top, ns);
    ALLOC(items, ns);
    CALLOC(load, P);
    CALLOC(group_w, ns);
    ALLOC(group_of, ns);
    if (!heap_s || !stack || !top || !items || !load || !group_w || !group_of) {
        rt_err_set(err, "sptrsv plan: out of memory");
        goto done;
    }
    double total = 0.0;
    node_heap h = {0, heap_s, wsub};
    for (int64_t s = 0; s < ns; ++s)
        if (p->parent[s] < 0) {
            heap_push(&h, s);
            total += wsub[s];
        }
    const double limit = total / (2.0 * P);
    while (h.n > 0 && wsub[h.s[0]] > limit && child_ptr[h.s[0] + 1] > child_ptr[h.s[0]]) {
        const int64_t s = heap_pop(&h);
        top[s] = 1;
        for (int64_t e = child_ptr[s]; e < child_ptr[s + 1]; ++e)
            heap_push(&h, child[e]);
    }
    int64_t ni = 0;
    for (int64_t i = 0; i < h.n; ++i)
        items[ni++] = (item){wsub[h.s[i]], h.s[i], 1};
    /* Chain groups of the top nodes: the representative is the group's first piece. */
    for (int64_t s = 0; s < ns; ++s) {
        if (!top[s])
            continue;
        const int64_t g =
            s > 0 && top[s - 1] && f->origin[s - 1] == f->origin[s] ? group_of[s - 1] : s;
        group_of[s] = g;
        group_w[g] += subtree_weight(f, s);
    }
    for (int64_t s = 0; s < ns; ++s)
        if (top[s] && group_of[s] == s)
            items[ni++] = (item){group_w[s], s, 0};
    qsort(items, (size_t)ni, sizeof *items, by_weight);
    for (int64_t i = 0; i < ni; ++i) {
        const int g = least_loaded(load, P);
        load[g] += items[i].w;
        if (!items[i].subtree) {
            for (int64_t s = items[i].s; s < ns && top[s] && group_of[s] == items[i].s; ++s)
                p->home[s] = g;
            continue;
        }
        int64_t sp = 0;
        stack[sp++] = items[i].s;
        while (sp > 0) {
            const int64_t s = stack[--sp];
            p->home[s] = g;
            for (int64_t e = child_ptr[s]; e < child_ptr[s + 1]; ++e)
                stack[sp++] = child[e];
        }
    }
    rc = 0;
done:
    free(heap_s);
    free(stack);
    free(top);
    free(items);
    free(load);
    free(group_w);
    free(group_of);
    return rc;
}

/* ---- the plan ---------------------------------------------------------------------------- */

typedef struct build_ctx {
    const sptrsv_factor *f;
    const sptrsv_dag *d;
    sptrsv_pplan *p;
    int64_t *child_ptr, *child;
    double *wsub;
    int64_t *first_desc;    /* postorder: the subtree of s is [first_desc[s], s] */
    int64_t *chunk_ptr;     /* nsuper + 1: the chunks of each supernode */
    int64_t *diag_pos;      /* nsuper: DIAG(s)'s position in its task */
    int64_t *chunk_pos;     /* nchunks: the chunk's position in its task */
    int64_t *sig_ptr, *sig; /* per supernode: the chunks that signal it */
    uint64_t *xmask;        /* per supernode: parts that need x_s */
} build_ctx;

static int tree(build_ctx *b, rt_err *err)
{
    const sptrsv_factor *f = b->f;
    sptrsv_pplan *p = b->p;
    const int64_t ns = p->nsuper;
    ALLOC(p->parent, ns);
    CALLOC(b->child_ptr, ns + 1);
    ALLOC(b->wsub, ns);
    ALLOC(b->first_desc, ns);
    int64_t *size = NULL, *lo = NULL;
    CALLOC(size, ns);
    ALLOC(lo, ns);
    if (!p->parent || !b->child_ptr || !b->wsub || !b->first_desc || !size || !lo) {
        free(size);
        free(lo);
        return rt_err_set(err, "sptrsv plan: out of memory");
    }
    for (int64_t s = 0; s < ns; ++s) {
        const int64_t below = f->rowstart[s] + sptrsv_ncols(f, s);
        p->parent[s] = below < f->rowstart[s + 1] ? b->d->col_super[f->rows[below]] : -1;
        if (p->parent[s] >= 0)
            b->child_ptr[p->parent[s] + 1]++;
        b->wsub[s] = subtree_weight(f, s);
        size[s] = 1;
        lo[s] = s;
    }
    for (int64_t s = 0; s < ns; ++s)
        b->child_ptr[s + 1] += b->child_ptr[s];
    ALLOC(b->child, b->child_ptr[ns]);
    int64_t *next = NULL;
    ALLOC(next, ns);
    if (!b->child || !next) {
        free(size);
        free(lo);
        free(next);
        return rt_err_set(err, "sptrsv plan: out of memory");
    }
    memcpy(next, b->child_ptr, (size_t)ns * sizeof *next);
    /* A parent has the larger index (its columns come after the child's), so one ascending
     * sweep accumulates every subtree. */
    for (int64_t s = 0; s < ns; ++s) {
        const int64_t q = p->parent[s];
        if (q < 0)
            continue;
        b->child[next[q]++] = s;
        b->wsub[q] += b->wsub[s];
        size[q] += size[s];
        if (lo[s] < lo[q])
            lo[q] = lo[s];
    }
    int postorder = 1;
    for (int64_t s = 0; s < ns; ++s) {
        b->first_desc[s] = lo[s];
        if (lo[s] != s - size[s] + 1)
            postorder = 0;
    }
    free(size);
    free(lo);
    free(next);
    if (!postorder && p->o.leaf_bytes > 0)
        return rt_err_set(err, "sptrsv plan: leaf_bytes needs the supernodes in postorder "
                               "(CHOLMOD's are; this factor's are not): use leaf_bytes 0");
    return 0;
}

static int homes(build_ctx *b, rt_err *err)
{
    sptrsv_pplan *p = b->p;
    const int64_t ns = p->nsuper;
    const int P = p->o.parts, pr = p->o.grid_rows, pc = p->grid_cols;
    ALLOC(p->home, ns);
    ALLOC(p->leaf, ns);
    if (!p->home || !p->leaf)
        return rt_err_set(err, "sptrsv plan: out of memory");
    if (p->o.map == SPTRSV_PMAP_SUBTREE && P > 1) {
        if (map_subtrees(b->f, p, b->child_ptr, b->child, b->wsub, err) != 0)
            return -1;
    } else {
        for (int64_t s = 0; s < ns; ++s)
            p->home[s] = (int)((s % pr) * pc + s % pc);
    }
    /* Leaf subtrees: the largest subtrees within leaf_bytes, each one task on its root's part. */
    for (int64_t s = 0; s < ns; ++s)
        p->leaf[s] = -1;
    if (p->o.leaf_bytes <= 0)
        return 0;
    for (int64_t s = ns - 1; s >= 0; --s) {
        if (p->leaf[s] >= 0 || b->wsub[s] > (double)p->o.leaf_bytes)
            continue;
        const int64_t q = p->parent[s];
        if (q >= 0 && b->wsub[q] <= (double)p->o.leaf_bytes)
            continue; /* its parent's subtree is the leaf task */
        for (int64_t t = b->first_desc[s]; t <= s; ++t) {
            p->leaf[t] = s; /* the root names the task for now */
            p->home[t] = p->home[s];
        }
    }
    return 0;
}

/* The rows below J in chunks: one part each, at most chunk_rows, the first successor's rows
 * apart (the chain step); a leaf supernode's rows are one chunk on its part. */
static int chunks(build_ctx *b, rt_err *err)
{
    const sptrsv_factor *f = b->f;
    const sptrsv_dag *d = b->d;
    sptrsv_pplan *p = b->p;
    const int64_t ns = p->nsuper, R = p->o.chunk_rows;
    CALLOC(b->chunk_ptr, ns + 1);
    if (!b->chunk_ptr)
        return rt_err_set(err, "sptrsv plan: out of memory");
    for (int pass = 0; pass < 2; ++pass) {
        int64_t c = 0;
        for (int64_t j = 0; j < ns; ++j) {
            const int64_t nc = sptrsv_ncols(f, j), nr = sptrsv_nrows(f, j), r0 = f->rowstart[j];
            if (pass == 0)
                b->chunk_ptr[j] = c;
            if (nr == nc)
                continue;
            if (p->leaf[j] >= 0) {
                if (pass == 1) {
                    p->ch_super[c] = j;
                    p->ch_p0[c] = (int32_t)nc;
                    p->ch_p1[c] = (int32_t)nr;
                    p->ch_part[c] = p->home[j];
                }
                ++c;
                continue;
            }
            const int64_t first_end = d->succ_rend[d->succ_ptr[j]] - r0;
            int64_t q = nc;
            while (q < nr) {
                const int part =
                    sptrsv_pplan_block_part(p, p->home[d->col_super[f->rows[r0 + q]]], p->home[j]);
                int64_t e = q + 1;
                const int64_t stop = q < first_end ? first_end : nr;
                while (e < stop && e - q < R &&
                       sptrsv_pplan_block_part(p, p->home[d->col_super[f->rows[r0 + e]]],
                                               p->home[j]) == part)
                    ++e;
                if (pass == 1) {
                    p->ch_super[c] = j;
                    p->ch_p0[c] = (int32_t)q;
                    p->ch_p1[c] = (int32_t)e;
                    p->ch_part[c] = part;
                }
                ++c;
                q = e;
            }
        }
        if (pass == 0) {
            b->chunk_ptr[ns] = c;
            p->nchunks = c;
            ALLOC(p->ch_super, c);
            ALLOC(p->ch_p0, c);
            ALLOC(p->ch_p1, c);
            ALLOC(p->ch_part, c);
            ALLOC(p->ch_task, c);
            if (!p->ch_super || !p->ch_p0 || !p->ch_p1 || !p->ch_part || !p->ch_task)
                return rt_err_set(err, "sptrsv plan: out of memory");
        }
    }
    return 0;
}

/* The chunk fused behind DIAG(s) in its task, or -1. */
static int64_t fused_chunk(const build_ctx *b, int64_t s)
{
    const sptrsv_pplan *p = b->p;
    const int64_t j = p->o.backward ? s - 1 : s;
    if (j < 0 || p->leaf[j] >= 0 || b->chunk_ptr[j] == b->chunk_ptr[j + 1])
        return -1;
    if (p->o.backward && p->parent[j] != s)
        return -1;
    const int64_t c = b->chunk_ptr[j];
    return p->ch_part[c] == p->home[s] ? c : -1;
}

static int tasks(build_ctx *b, rt_err *err)
{
    const sptrsv_factor *f = b->f;
    sptrsv_pplan *p = b->p;
    const int64_t ns = p->nsuper, nch = p->nchunks;
    int64_t nt = 0, nsteps = 0;
    int64_t *fused = NULL;
    ALLOC(fused, ns);
    if (!fused)
        return rt_err_set(err, "sptrsv plan: out of memory");
    char *used = calloc((size_t)(nch > 0 ? nch : 1), 1);
    if (!used) {
        free(fused);
        return rt_err_set(err, "sptrsv plan: out of memory");
    }
    /* Count: a task per leaf subtree, per other DIAG, per chunk not fused or in a leaf. */
    for (int64_t s = 0; s < ns; ++s) {
        fused[s] = p->leaf[s] >= 0 ? -1 : fused_chunk(b, s);
        if (fused[s] >= 0)
            used[fused[s]] = 1;
    }
    for (int64_t s = 0; s < ns; ++s) {
        if (p->leaf[s] == s || p->leaf[s] < 0)
            ++nt;
        nsteps += 1 + (b->chunk_ptr[s + 1] - b->chunk_ptr[s]);
    }
    for (int64_t c = 0; c < nch; ++c)
        if (!used[c] && p->leaf[p->ch_super[c]] < 0)
            ++nt;
    p->ntasks = nt;
    ALLOC(p->task_part, nt);
    CALLOC(p->task_step_ptr, nt + 1);
    ALLOC(p->task_step, nsteps);
    ALLOC(p->diag_task, ns);
    ALLOC(b->diag_pos, ns);
    ALLOC(b->chunk_pos, nch);
    if (!p->task_part || !p->task_step_ptr || !p->task_step || !p->diag_task || !b->diag_pos ||
        !b->chunk_pos) {
        free(fused);
        free(used);
        return rt_err_set(err, "sptrsv plan: out of memory");
    }
    int64_t t = 0, k = 0;
#define ADD_DIAG(s)                                                                                \
    do {                                                                                           \
        p->diag_task[s] = t;                                                                       \
        b->diag_pos[s] = k - p->task_step_ptr[t];                                                  \
        p->task_step[k++] = (s);                                                                   \
    } while (0)
#define ADD_CHUNK(c)                                                                               \
    do {                                                                                           \
        p->ch_task[c] = t;                                                                         \
        b->chunk_pos[c] = k - p->task_step_ptr[t];                                                 \
        p->task_step[k++] = SPTRSV_PSTEP_CHUNK(c);                                                 \
    } while (0)
    for (int64_t s = 0; s < ns; ++s) {
        if (p->leaf[s] >= 0 && p->leaf[s] != s)
            continue; /* inside a leaf task, added with its root */
        p->task_step_ptr[t] = k;
        p->task_part[t] = p->home[s];
        if (p->leaf[s] == s) {
            /* Forward: postorder, each DIAG before its rows' update; backward: the reverse, each
             * supernode's update (gathering from its ancestors) before its DIAG. */
            const int64_t lo = b->first_desc[s];
            for (int64_t q = 0; q <= s - lo; ++q) {
                const int64_t u = p->o.backward ? s - q : lo + q;
                if (!p->o.backward)
                    ADD_DIAG(u);
                for (int64_t c = b->chunk_ptr[u]; c < b->chunk_ptr[u + 1]; ++c)
                    ADD_CHUNK(c);
                if (p->o.backward)
                    ADD_DIAG(u);
            }
            for (int64_t u = lo; u <= s; ++u)
                p->leaf[u] = t;
            p->leaf_tasks++;
        } else {
            ADD_DIAG(s);
            if (fused[s] >= 0) {
                ADD_CHUNK(fused[s]);
                p->fused_steps++;
            }
        }
        p->task_step_ptr[++t] = k;
    }
    for (int64_t c = 0; c < nch; ++c) {
        if (used[c] || p->leaf[p->ch_super[c]] >= 0)
            continue;
        p->task_step_ptr[t] = k;
        p->task_part[t] = p->ch_part[c];
        ADD_CHUNK(c);
        p->task_step_ptr[++t] = k;
    }
#undef ADD_DIAG
#undef ADD_CHUNK
    free(fused);
    free(used);
    if (t != nt || k != nsteps)
        return rt_err_set(err,
                          "sptrsv plan: %" PRId64 " tasks and %" PRId64 " steps made, %" PRId64
                          " and %" PRId64 " counted (a plan bug)",
                          t, k, nt, nsteps);
    (void)f;
    return 0;
}

/* Adds the distinct supernodes of J's rows [p0, p1) to list (at *n). */
static void row_supernodes(const build_ctx *b, int64_t j, int32_t p0, int32_t p1, int64_t *list,
                           int64_t *n)
{
    const int64_t r0 = b->f->rowstart[j];
    int64_t prev = -1;
    for (int32_t q = p0; q < p1; ++q) {
        const int64_t s = b->d->col_super[b->f->rows[r0 + q]];
        if (s != prev)
            list[(*n)++] = s;
        prev = s;
    }
}

/* Deps and outs of every chunk, without what its own task provides (checked to come first). */
static int chunk_lists(build_ctx *b, rt_err *err)
{
    sptrsv_pplan *p = b->p;
    const int64_t nch = p->nchunks;
    int64_t *tmp = NULL;
    int64_t width = 1;
    for (int64_t c = 0; c < nch; ++c)
        if (p->ch_p1[c] - p->ch_p0[c] + 1 > width)
            width = p->ch_p1[c] - p->ch_p0[c] + 1;
    ALLOC(tmp, width);
    CALLOC(p->ch_dep_ptr, nch + 1);
    CALLOC(p->ch_out_ptr, nch + 1);
    if (!tmp || !p->ch_dep_ptr || !p->ch_out_ptr) {
        free(tmp);
        return rt_err_set(err, "sptrsv plan: out of memory");
    }
    for (int pass = 0; pass < 2; ++pass) {
        for (int64_t c = 0; c < nch; ++c) {
            const int64_t j = p->ch_super[c], t = p->ch_task[c], pos = b->chunk_pos[c];
            for (int side = 0; side < 2; ++side) { /* 0: deps, 1: outs */
                int64_t n = 0;
                /* forward: deps {J}, outs the rows' supernodes; backward the other way round */
                if ((side == 0) == !p->o.backward)
                    tmp[n++] = j;
                else
                    row_supernodes(b, j, p->ch_p0[c], p->ch_p1[c], tmp, &n);
                int64_t kept = 0;
                for (int64_t i = 0; i < n; ++i) {
                    const int64_t s = tmp[i];
                    if (p->diag_task[s] == t) {
                        const int ok = side == 0 ? b->diag_pos[s] < pos : b->diag_pos[s] > pos;
                        if (!ok) {
                            free(tmp);
                            return rt_err_set(err,
                                              "sptrsv plan: chunk %" PRId64 " of supernode %" PRId64
                                              " comes %s DIAG(%" PRId64
                                              ") in one task (a plan bug)",
                                              c, j, side == 0 ? "before" : "after", s);
                        }
                        continue;
                    }
                    if (pass == 1)
                        (side == 0
                             ? p->ch_dep
                             : p->ch_out)[(side == 0 ? p->ch_dep_ptr : p->ch_out_ptr)[c] + kept] =
                            s;
                    ++kept;
                }
                if (pass == 0)
                    (side == 0 ? p->ch_dep_ptr : p->ch_out_ptr)[c + 1] = kept;
            }
        }
        if (pass == 0) {
            for (int64_t c = 0; c < nch; ++c) {
                p->ch_dep_ptr[c + 1] += p->ch_dep_ptr[c];
                p->ch_out_ptr[c + 1] += p->ch_out_ptr[c];
            }
            ALLOC(p->ch_dep, p->ch_dep_ptr[nch]);
            ALLOC(p->ch_out, p->ch_out_ptr[nch]);
            if (!p->ch_dep || !p->ch_out) {
                free(tmp);
                return rt_err_set(err, "sptrsv plan: out of memory");
            }
        }
    }
    free(tmp);
    return 0;
}

/* Targets, reduction slots, x destinations, the chunks signalling each supernode, and every
 * task's waits. */
static int signals(build_ctx *b, rt_err *err)
{
    const sptrsv_factor *f = b->f;
    sptrsv_pplan *p = b->p;
    const int64_t ns = p->nsuper, nch = p->nchunks, nt = p->ntasks;
    const int P = p->o.parts;
    const int64_t k = p->o.nrhs;
    CALLOC(p->target, (int64_t)P * ns);
    ALLOC(p->red_off, (int64_t)P * ns);
    CALLOC(p->recv_ptr, ns + 1);
    CALLOC(p->recv_doubles, P);
    CALLOC(b->xmask, ns);
    CALLOC(p->xdst_ptr, ns + 1);
    CALLOC(b->sig_ptr, ns + 1);
    if (!p->target || !p->red_off || !p->recv_ptr || !p->recv_doubles || !b->xmask ||
        !p->xdst_ptr || !b->sig_ptr)
        return rt_err_set(err, "sptrsv plan: out of memory");
    for (int64_t c = 0; c < nch; ++c)
        for (int64_t e = p->ch_out_ptr[c]; e < p->ch_out_ptr[c + 1]; ++e) {
            p->target[(int64_t)p->ch_part[c] * ns + p->ch_out[e]]++;
            b->sig_ptr[p->ch_out[e] + 1]++;
        }
    for (int64_t s = 0; s < ns; ++s)
        b->sig_ptr[s + 1] += b->sig_ptr[s];
    ALLOC(b->sig, b->sig_ptr[ns]);
    int64_t *next = NULL;
    ALLOC(next, ns);
    if (!b->sig || !next) {
        free(next);
        return rt_err_set(err, "sptrsv plan: out of memory");
    }
    memcpy(next, b->sig_ptr, (size_t)ns * sizeof *next);
    for (int64_t c = 0; c < nch; ++c)
        for (int64_t e = p->ch_out_ptr[c]; e < p->ch_out_ptr[c + 1]; ++e)
            b->sig[next[p->ch_out[e]]++] = c;
    free(next);
    /* Reductions: one slot at the owner per other part that computes partial sums of s. */
    for (int64_t s = 0; s < ns; ++s) {
        const int h = p->home[s];
        p->recv_ptr[s + 1] = p->recv_ptr[s];
        for (int g = 0; g < P; ++g) {
            p->red_off[(int64_t)g * ns + s] = -1;
            if (g == h || p->target[(int64_t)g * ns + s] == 0)
                continue;
            p->recv_ptr[s + 1]++;
            p->target[(int64_t)h * ns + s]++;
            p->partial_messages++;
        }
    }
    ALLOC(p->recv_off, p->recv_ptr[ns]);
    if (!p->recv_off)
        return rt_err_set(err, "sptrsv plan: out of memory");
    for (int64_t s = 0; s < ns; ++s) {
        const int h = p->home[s];
        int64_t q = p->recv_ptr[s];
        for (int g = 0; g < P; ++g) {
            if (g == h || p->target[(int64_t)g * ns + s] == 0)
                continue;
            p->red_off[(int64_t)g * ns + s] = p->recv_doubles[h];
            p->recv_off[q++] = p->recv_doubles[h];
            p->recv_doubles[h] += sptrsv_ncols(f, s) * k;
        }
    }
    /* x destinations: parts other than the owner whose tasks wait for x_s. */
    for (int64_t c = 0; c < nch; ++c)
        for (int64_t e = p->ch_dep_ptr[c]; e < p->ch_dep_ptr[c + 1]; ++e) {
            const int64_t s = p->ch_dep[e];
            if (p->ch_part[c] != p->home[s])
                b->xmask[s] |= 1ULL << p->ch_part[c];
        }
    for (int64_t s = 0; s < ns; ++s)
        p->xdst_ptr[s + 1] = p->xdst_ptr[s] + __builtin_popcountll(b->xmask[s]);
    ALLOC(p->xdst, p->xdst_ptr[ns]);
    if (!p->xdst)
        return rt_err_set(err, "sptrsv plan: out of memory");
    for (int64_t s = 0; s < ns; ++s) {
        int64_t q = p->xdst_ptr[s];
        for (int g = 0; g < P; ++g)
            if (b->xmask[s] >> g & 1)
                p->xdst[q++] = g;
    }
    p->x_messages = p->xdst_ptr[ns];
    /* Waits: a DIAG with signals to come waits for its counter; a chunk for x it does not make. */
    CALLOC(p->task_wait_ptr, nt + 1);
    for (int pass = 0; pass < 2; ++pass) {
        for (int64_t t = 0; t < nt; ++t) {
            int64_t n = 0;
            for (int64_t q = p->task_step_ptr[t]; q < p->task_step_ptr[t + 1]; ++q) {
                const int64_t code = p->task_step[q];
                if (code >= 0) {
                    if (p->target[(int64_t)p->home[code] * ns + code] > 0) {
                        if (pass == 1)
                            p->task_wait[p->task_wait_ptr[t] + n] = -1 - code;
                        ++n;
                    }
                    continue;
                }
                const int64_t c = SPTRSV_PSTEP_ID(code);
                for (int64_t e = p->ch_dep_ptr[c]; e < p->ch_dep_ptr[c + 1]; ++e) {
                    int dup = 0; /* one wait per supernode in a task */
                    if (pass == 1)
                        for (int64_t i = 0; i < n && !dup; ++i)
                            dup = p->task_wait[p->task_wait_ptr[t] + i] == p->ch_dep[e];
                    if (dup)
                        continue;
                    if (pass == 1)
                        p->task_wait[p->task_wait_ptr[t] + n] = p->ch_dep[e];
                    ++n;
                }
            }
            /* The first pass counts duplicates too (an upper bound for the allocation); the
             * second drops them and packs each list behind the previous one. */
            p->task_wait_ptr[t + 1] = p->task_wait_ptr[t] + n;
        }
        if (pass == 0) {
            ALLOC(p->task_wait, p->task_wait_ptr[nt]);
            if (!p->task_wait)
                return rt_err_set(err, "sptrsv plan: out of memory");
        }
    }
    return 0;
}

/* The estimated (ASAP) schedule: tasks in a topological order (Kahn), each starting when its
 * waits are met. Its start times order the tickets. A cycle is a plan bug. */
static int order(build_ctx *b, rt_err *err)
{
    const sptrsv_factor *f = b->f;
    sptrsv_pplan *p = b->p;
    const int64_t ns = p->nsuper, nt = p->ntasks;
    const int P = p->o.parts;
    int64_t *indeg = NULL, *queue = NULL, *succ_ptr = NULL, *succ = NULL, *next = NULL;
    double *diag_end = NULL, *chunk_end = NULL;
    int rc = -1;
    CALLOC(indeg, nt);
    ALLOC(queue, nt);
    CALLOC(succ_ptr, nt + 1);
    ALLOC(diag_end, ns);
    ALLOC(chunk_end, p->nchunks);
    ALLOC(p->task_key, nt);
    if (!indeg || !queue || !succ_ptr || !diag_end || !chunk_end || !p->task_key) {
        rt_err_set(err, "sptrsv plan: out of memory");
        goto done;
    }
    /* Producer -> consumer edges (duplicates kept: counted and released alike). */
    for (int pass = 0; pass < 2; ++pass) {
        for (int64_t t = 0; t < nt; ++t)
            for (int64_t w = p->task_wait_ptr[t]; w < p->task_wait_ptr[t + 1]; ++w) {
                const int64_t code = p->task_wait[w];
                if (code >= 0) {
                    const int64_t u = p->diag_task[code];
                    if (pass == 0)
                        succ_ptr[u + 1]++;
                    else
                        succ[next[u]++] = t;
                    indeg[t] += pass == 0;
                    continue;
                }
                const int64_t s = -1 - code;
                for (int64_t e = b->sig_ptr[s]; e < b->sig_ptr[s + 1]; ++e) {
                    const int64_t u = p->ch_task[b->sig[e]];
                    if (pass == 0)
                        succ_ptr[u + 1]++;
                    else
                        succ[next[u]++] = t;
                    indeg[t] += pass == 0;
                }
            }
        if (pass == 0) {
            for (int64_t t = 0; t < nt; ++t)
                succ_ptr[t + 1] += succ_ptr[t];
            ALLOC(succ, succ_ptr[nt]);
            ALLOC(next, nt);
            if (!succ || !next) {
                rt_err_set(err, "sptrsv plan: out of memory");
                goto done;
            }
            memcpy(next, succ_ptr, (size_t)nt * sizeof *next);
        }
    }
    int64_t head = 0, tail = 0, seen = 0;
    for (int64_t t = 0; t < nt; ++t)
        if (indeg[t] == 0)
            queue[tail++] = t;
    while (head < tail) {
        const int64_t t = queue[head++];
        ++seen;
        const int g = p->task_part[t];
        double start = 0.0;
        for (int64_t w = p->task_wait_ptr[t]; w < p->task_wait_ptr[t + 1]; ++w) {
            const int64_t code = p->task_wait[w];
            if (code >= 0) {
                const double ready =
                    diag_end[code] + (p->home[code] == g ? EST_LOCAL_S : EST_LINK_S);
                if (ready > start)
                    start = ready;
                continue;
            }
            const int64_t s = -1 - code;
            for (int64_t e = b->sig_ptr[s]; e < b->sig_ptr[s + 1]; ++e) {
                const int64_t c = b->sig[e];
                const double ready =
                    chunk_end[c] + (p->ch_part[c] == p->home[s] ? EST_LOCAL_S : EST_LINK_S);
                if (ready > start)
                    start = ready;
            }
        }
        p->task_key[t] = start;
        double clock = start;
        for (int64_t q = p->task_step_ptr[t]; q < p->task_step_ptr[t + 1]; ++q) {
            const int64_t code = p->task_step[q];
            clock += EST_TASK_S + sptrsv_pplan_step_bytes(f, p, code) / EST_BPS;
            if (code >= 0)
                diag_end[code] = clock;
            else
                chunk_end[SPTRSV_PSTEP_ID(code)] = clock;
        }
        for (int64_t e = succ_ptr[t]; e < succ_ptr[t + 1]; ++e)
            if (--indeg[succ[e]] == 0)
                queue[tail++] = succ[e];
    }
    if (seen != nt) {
        rt_err_set(err,
                   "sptrsv plan: %" PRId64 " of %" PRId64
                   " tasks wait on each other in a cycle (a plan bug)",
                   nt - seen, nt);
        goto done;
    }
    (void)P;
    rc = 0;
done:
    free(indeg);
    free(queue);
    free(succ_ptr);
    free(succ);
    free(next);
    free(diag_end);
    free(chunk_end);
    return rc;
}

typedef struct keyed {
    double key;
    int64_t task;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->task < y->task ? -1 : x->task > y->task;
}

static int tickets_and_totals(build_ctx *b, rt_err *err)
{
    const sptrsv_factor *f = b->f;
    sptrsv_pplan *p = b->p;
    const int P = p->o.parts;
    const int64_t nt = p->ntasks, ns = p->nsuper, k = p->o.nrhs;
    CALLOC(p->ticket_ptr, P + 1);
    ALLOC(p->ticket, nt);
    CALLOC(p->owned, P);
    CALLOC(p->tasks_of, P);
    CALLOC(p->x_sent, P);
    CALLOC(p->partials_sent, P);
    CALLOC(p->bytes_of, P);
    CALLOC(p->link_bytes, P);
    if (!p->ticket_ptr || !p->ticket || !p->owned || !p->tasks_of || !p->x_sent ||
        !p->partials_sent || !p->bytes_of || !p->link_bytes)
        return rt_err_set(err, "sptrsv plan: out of memory");
    for (int64_t t = 0; t < nt; ++t)
        p->tasks_of[p->task_part[t]]++;
    for (int g = 0; g < P; ++g)
        p->ticket_ptr[g + 1] = p->ticket_ptr[g] + p->tasks_of[g];
    int64_t *next = NULL;
    ALLOC(next, P);
    if (!next)
        return rt_err_set(err, "sptrsv plan: out of memory");
    memcpy(next, p->ticket_ptr, (size_t)P * sizeof *next);
    for (int64_t t = 0; t < nt; ++t)
        p->ticket[next[p->task_part[t]]++] = t;
    free(next);
    keyed *tmp = NULL;
    ALLOC(tmp, nt);
    if (!tmp)
        return rt_err_set(err, "sptrsv plan: out of memory");
    for (int g = 0; g < P; ++g) {
        const int64_t t0 = p->ticket_ptr[g], m = p->tasks_of[g];
        for (int64_t i = 0; i < m; ++i)
            tmp[i] = (keyed){p->task_key[p->ticket[t0 + i]], p->ticket[t0 + i]};
        qsort(tmp, (size_t)m, sizeof *tmp, by_key);
        for (int64_t i = 0; i < m; ++i)
            p->ticket[t0 + i] = tmp[i].task;
    }
    free(tmp);
    for (int64_t t = 0; t < nt; ++t)
        for (int64_t q = p->task_step_ptr[t]; q < p->task_step_ptr[t + 1]; ++q)
            p->bytes_of[p->task_part[t]] += sptrsv_pplan_step_bytes(f, p, p->task_step[q]);
    for (int64_t s = 0; s < ns; ++s) {
        const int h = p->home[s];
        const double msg = 8.0 * (double)(sptrsv_ncols(f, s) * k) + 8.0;
        p->owned[h]++;
        p->x_sent[h] += p->xdst_ptr[s + 1] - p->xdst_ptr[s];
        p->link_bytes[h] += msg * (double)(p->xdst_ptr[s + 1] - p->xdst_ptr[s]);
        for (int g = 0; g < P; ++g)
            if (p->red_off[(int64_t)g * ns + s] >= 0) {
                p->partials_sent[g]++;
                p->link_bytes[g] += msg;
            }
    }
    return 0;
}

int sptrsv_pplan_build(const sptrsv_factor *f, const sptrsv_dag *d, const sptrsv_pplan_opts *o,
                       sptrsv_pplan *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    if (o->parts < 1 || o->parts > MAX_PARTS)
        return rt_err_set(err, "sptrsv plan: %d parts (1..%d)", o->parts, MAX_PARTS);
    if (o->grid_rows < 1 || o->parts % o->grid_rows != 0)
        return rt_err_set(err, "sptrsv plan: a grid of %d rows does not divide %d parts",
                          o->grid_rows, o->parts);
    if (o->chunk_rows < 1 || o->nrhs < 1)
        return rt_err_set(
            err, "sptrsv plan: chunk_rows %" PRId64 " and nrhs %" PRId64 " must be positive",
            o->chunk_rows, o->nrhs);
    if (o->max_columns > 0)
        for (int64_t s = 0; s < f->nsuper; ++s)
            if (sptrsv_ncols(f, s) > o->max_columns)
                return rt_err_set(err,
                                  "sptrsv plan: supernode %" PRId64 " has %" PRId64
                                  " columns, more than %" PRId64
                                  " (its inverse diagonal block would not fit): set "
                                  "problem.max_supernode to at most %" PRId64,
                                  s, sptrsv_ncols(f, s), o->max_columns, o->max_columns);
    out->o = *o;
    out->grid_cols = o->parts / o->grid_rows;
    out->n = f->n;
    out->nsuper = f->nsuper;
    build_ctx b;
    memset(&b, 0, sizeof b);
    b.f = f;
    b.d = d;
    b.p = out;
    int rc = tree(&b, err);
    if (rc == 0)
        rc = homes(&b, err);
    if (rc == 0)
        rc = chunks(&b, err);
    if (rc == 0)
        rc = tasks(&b, err);
    if (rc == 0)
        rc = chunk_lists(&b, err);
    if (rc == 0)
        rc = signals(&b, err);
    if (rc == 0)
        rc = order(&b, err);
    if (rc == 0)
        rc = tickets_and_totals(&b, err);
    free(b.child_ptr);
    free(b.child);
    free(b.wsub);
    free(b.first_desc);
    free(b.chunk_ptr);
    free(b.diag_pos);
    free(b.chunk_pos);
    free(b.sig_ptr);
    free(b.sig);
    free(b.xmask);
    if (rc != 0)
        sptrsv_pplan_free(out);
    return rc;
}
