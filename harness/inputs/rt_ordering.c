#include "rt_ordering.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#ifdef RT_HAVE_METIS
#include <metis.h>
#endif

#include "rt_rng.h"
#include "rt_sort.h"
#include "rt_strutil.h"

/* Stream of the ordering's random numbers, apart from any generator stream of the same seed. */
#define ORDERING_STREAM 0x6f72646572ULL

static const char *const ordering_names[] = {"natural", "random", "rcm", "hilbert", "metis"};
#define N_ORDERINGS ((int)(sizeof ordering_names / sizeof ordering_names[0]))

const char *rt_ordering_name(rt_ordering_kind kind)
{
    return (int)kind >= 0 && (int)kind < N_ORDERINGS ? ordering_names[kind] : "unknown";
}

int rt_ordering_parse(const char *text, rt_ordering_kind *kind, uint64_t *arg, int *arg_given,
                      rt_err *err)
{
    *kind = RT_ORDERING_NATURAL;
    *arg = 0;
    *arg_given = 0;
    if (!text || !*text)
        return 0;
    if (strncmp(text, "random:", 7) == 0) {
        const char *digits = text + 7;
        char *end = NULL;
        errno = 0;
        const unsigned long long s = strtoull(digits, &end, 10);
        if (*digits < '0' || *digits > '9' || *end != '\0' || errno == ERANGE)
            return rt_err_set(err,
                              "ordering '%s': the seed after 'random:' must be a non-negative "
                              "integer",
                              text);
        *kind = RT_ORDERING_RANDOM;
        *arg = (uint64_t)s;
        *arg_given = 1;
        return 0;
    }
    if (strncmp(text, "metis:", 6) == 0) {
        const char *digits = text + 6;
        char *end = NULL;
        errno = 0;
        const unsigned long long p = strtoull(digits, &end, 10);
        if (*digits < '0' || *digits > '9' || *end != '\0' || errno == ERANGE || p < 2 ||
            p > (unsigned long long)RT_ORDERING_METIS_MAX_PARTS)
            return rt_err_set(err,
                              "ordering '%s': metis_parts must be an integer from 2 to %lld "
                              "(the number of parts to partition the matrix graph into)",
                              text, (long long)RT_ORDERING_METIS_MAX_PARTS);
        *kind = RT_ORDERING_METIS;
        *arg = (uint64_t)p;
        *arg_given = 1;
        return 0;
    }
    for (int k = 0; k < N_ORDERINGS; ++k) {
        if (strcmp(text, ordering_names[k]) == 0) {
            *kind = (rt_ordering_kind)k;
            if (*kind == RT_ORDERING_METIS) {
                /* Given, so that rt_matrix_build never substitutes a generator seed for it. */
                *arg = RT_ORDERING_METIS_DEFAULT_PARTS;
                *arg_given = 1;
            }
            return 0;
        }
    }
    const char *guess = rt_suggest(text, ordering_names, N_ORDERINGS);
    if (guess)
        return rt_err_set(err,
                          "unknown ordering '%s'; did you mean '%s'? (natural, random, "
                          "random:SEED, rcm, hilbert, metis, metis:PARTS)",
                          text, guess);
    return rt_err_set(err,
                      "unknown ordering '%s' (expected natural, random, random:SEED, rcm, "
                      "hilbert, metis or metis:PARTS)",
                      text);
}

void rt_ordering_invert(const int64_t *perm, int64_t n, int64_t *inv)
{
    for (int64_t i = 0; i < n; ++i)
        inv[perm[i]] = i;
}

static int64_t *alloc_int64(int64_t n, const char *what, rt_err *err)
{
    if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(int64_t)) {
        rt_err_set(err, "cannot allocate %s for %" PRId64 " entries", what, n);
        return NULL;
    }
    int64_t *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    if (!p)
        rt_err_set(err, "out of memory: cannot allocate %zu bytes for %s",
                   (size_t)(n > 0 ? n : 1) * sizeof *p, what);
    return p;
}

int rt_ordering_random(int64_t n, uint64_t seed, int64_t *perm, rt_err *err)
{
    if (n < 0)
        return rt_err_set(err, "cannot permute %" PRId64 " items", n);
    rt_rng rng;
    rt_rng_seed(&rng, seed, ORDERING_STREAM);
    for (int64_t i = 0; i < n; ++i)
        perm[i] = i;
    for (int64_t i = n - 1; i > 0; --i) {
        const int64_t j = (int64_t)rt_rng_below(&rng, (uint64_t)i + 1);
        const int64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    return 0;
}

/* The symmetrized off-diagonal pattern of a: the graph RCM walks and METIS partitions (no
 * self-loops, no duplicate edges: rt_csr_from_coo sums them, as METIS requires). */
static int symmetric_pattern(const rt_csr *a, rt_csr *g, rt_err *err)
{
    int64_t off = 0;
    for (int64_t r = 0; r < a->rows; ++r)
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; ++k)
            off += a->colidx[k] != r;
    int64_t *ri = alloc_int64(2 * off, "the graph rows", err);
    int64_t *ci = ri ? alloc_int64(2 * off, "the graph columns", err) : NULL;
    double *v = ci ? calloc((size_t)(off > 0 ? 2 * off : 1), sizeof *v) : NULL;
    if (!v) {
        if (ci)
            rt_err_set(err, "out of memory: cannot allocate %zu bytes for the matrix graph",
                       (size_t)(2 * off) * sizeof *v);
        free(ri);
        free(ci);
        return -1;
    }
    int64_t o = 0;
    for (int64_t r = 0; r < a->rows; ++r) {
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; ++k) {
            const int64_t c = a->colidx[k];
            if (c == r)
                continue;
            ri[o] = r;
            ci[o] = c;
            ++o;
            ri[o] = c;
            ci[o] = r;
            ++o;
        }
    }
    const int rc = rt_csr_from_coo(g, a->rows, a->cols, o, ri, ci, v, err);
    free(ri);
    free(ci);
    free(v);
    return rc;
}

/* Scratch shared by the searches of one RCM run. */
typedef struct rcm_work {
    const rt_csr *g;
    int64_t *stamp; /* BFS visit marks: stamp[v] == current means visited in this search */
    int64_t current;
    int64_t *queue;
} rcm_work;

static int64_t degree(const rt_csr *g, int64_t v)
{
    return g->rowptr[v + 1] - g->rowptr[v];
}

/* Breadth-first search from start over its component; returns the number of levels and sets
 * last_begin and last_end to the queue range of the deepest level. */
static int64_t bfs_levels(rcm_work *w, int64_t start, int64_t *last_begin, int64_t *last_end)
{
    const rt_csr *g = w->g;
    w->current++;
    int64_t head = 0, tail = 0, levels = 0;
    w->queue[tail++] = start;
    w->stamp[start] = w->current;
    while (head < tail) {
        const int64_t level_end = tail;
        *last_begin = head;
        *last_end = level_end;
        ++levels;
        for (; head < level_end; ++head) {
            const int64_t u = w->queue[head];
            for (int64_t k = g->rowptr[u]; k < g->rowptr[u + 1]; ++k) {
                const int64_t x = g->colidx[k];
                if (w->stamp[x] != w->current) {
                    w->stamp[x] = w->current;
                    w->queue[tail++] = x;
                }
            }
        }
    }
    return levels;
}

/* George-Liu: move to a low-degree vertex of the deepest level while that deepens the search,
 * which finds a vertex of (nearly) maximal eccentricity: the start that gives RCM narrow levels. */
static int64_t pseudo_peripheral(rcm_work *w, int64_t start)
{
    int64_t b = 0, e = 0;
    int64_t best = start;
    int64_t depth = bfs_levels(w, start, &b, &e);
    for (int iter = 0; iter < 16; ++iter) {
        int64_t cand = w->queue[b];
        for (int64_t k = b + 1; k < e; ++k) {
            const int64_t x = w->queue[k];
            if (degree(w->g, x) < degree(w->g, cand) ||
                (degree(w->g, x) == degree(w->g, cand) && x < cand))
                cand = x;
        }
        int64_t b2 = 0, e2 = 0;
        const int64_t d2 = bfs_levels(w, cand, &b2, &e2);
        if (d2 <= depth)
            break;
        best = cand;
        depth = d2;
        b = b2;
        e = e2;
    }
    return best;
}

int rt_ordering_rcm(const rt_csr *a, int64_t *perm, rt_err *err)
{
    if (a->rows != a->cols)
        return rt_err_set(err,
                          "ordering rcm needs a square matrix, but this one is %" PRId64
                          " x %" PRId64 " (use natural or random)",
                          a->rows, a->cols);
    const int64_t n = a->rows;
    rt_csr g;
    if (symmetric_pattern(a, &g, err) != 0)
        return -1;
    rcm_work w = {.g = &g, .current = 0};
    const size_t count = (size_t)(n > 0 ? n : 1);
    w.stamp = malloc(count * sizeof *w.stamp);
    w.queue = malloc(count * sizeof *w.queue);
    uint64_t *key = malloc(count * sizeof *key);
    int64_t *by_degree = malloc(count * sizeof *by_degree);
    unsigned char *placed = calloc(count, 1);
    int rc = -1;
    if (!w.stamp || !w.queue || !key || !by_degree || !placed) {
        rt_err_set(
            err, "out of memory: cannot allocate %zu bytes of RCM scratch for %" PRId64 " vertices",
            count * (4 * sizeof(int64_t) + 1), n);
        goto done;
    }
    for (int64_t v = 0; v < n; ++v) {
        w.stamp[v] = 0;
        key[v] = (uint64_t)degree(&g, v);
    }
    if (rt_sort_order_by_key(key, n, by_degree, err) != 0)
        goto done;
    int64_t pos = 0;
    for (int64_t s = 0; s < n; ++s) {
        if (placed[by_degree[s]])
            continue;
        const int64_t start = pseudo_peripheral(&w, by_degree[s]);
        /* Cuthill-McKee: breadth first, each vertex's new neighbours by increasing degree. The
         * output array doubles as the queue. */
        int64_t head = pos;
        perm[pos++] = start;
        placed[start] = 1;
        while (head < pos) {
            const int64_t u = perm[head++];
            const int64_t first = pos;
            for (int64_t k = g.rowptr[u]; k < g.rowptr[u + 1]; ++k) {
                const int64_t x = g.colidx[k];
                if (!placed[x]) {
                    placed[x] = 1;
                    /* degree and index packed in one key: columns are < 2^31. */
                    perm[pos++] = (degree(&g, x) << 31) | x;
                }
            }
            rt_sort_int64(perm + first, pos - first);
            for (int64_t k = first; k < pos; ++k)
                perm[k] &= ((int64_t)1 << 31) - 1;
        }
    }
    for (int64_t i = 0; i < n / 2; ++i) {
        const int64_t t = perm[i];
        perm[i] = perm[n - 1 - i];
        perm[n - 1 - i] = t;
    }
    rc = 0;
done:
    rt_csr_free(&g);
    free(w.stamp);
    free(w.queue);
    free(key);
    free(by_degree);
    free(placed);
    return rc;
}

int rt_ordering_metis_available(void)
{
#ifdef RT_HAVE_METIS
    return 1;
#else
    return 0;
#endif
}

#ifdef RT_HAVE_METIS
static const char *metis_status_name(int status)
{
    switch (status) {
    case METIS_ERROR_INPUT: return "METIS_ERROR_INPUT (the graph or options were rejected)";
    case METIS_ERROR_MEMORY: return "METIS_ERROR_MEMORY (out of memory)";
    default: return "METIS_ERROR";
    }
}

/* part[v] for every vertex of the graph g (CSR adjacency, no self-loops), nparts >= 2 and
 * <= g->rows, g has at least one edge. */
static int metis_partition(const rt_csr *g, int64_t nparts, int64_t *part, int64_t *edgecut,
                           rt_err *err)
{
    /* METIS counts vertices and directed edges in idx_t (32-bit in Debian's build). */
    const int64_t idx_max = (int64_t)((((uint64_t)1) << (sizeof(idx_t) * 8 - 1)) - 1);
    if (g->rows > idx_max || g->nnz > idx_max)
        return rt_err_set(err,
                          "ordering metis: the graph has %" PRId64 " vertices and %" PRId64
                          " directed edges, more than METIS's %zu-bit indices hold",
                          g->rows, g->nnz, sizeof(idx_t) * 8);
    const size_t nv = (size_t)g->rows;
    idx_t *xadj = malloc((nv + 1) * sizeof *xadj);
    idx_t *adjncy = malloc((size_t)g->nnz * sizeof *adjncy);
    idx_t *where = malloc(nv * sizeof *where);
    int rc = -1;
    if (!xadj || !adjncy || !where) {
        rt_err_set(err, "out of memory: cannot allocate %zu bytes of METIS input",
                   (2 * nv + 1 + (size_t)g->nnz) * sizeof(idx_t));
        goto done;
    }
    for (size_t v = 0; v <= nv; ++v)
        xadj[v] = (idx_t)g->rowptr[v];
    for (int64_t k = 0; k < g->nnz; ++k)
        adjncy[k] = (idx_t)g->colidx[k];
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_NUMBERING] = 0;
    /* A fixed seed: the same matrix and part count give the same ordering on every run and
     * every rank, which both the resume logic and the distributed kernels rely on. */
    options[METIS_OPTION_SEED] = 1;
    idx_t nvtxs = (idx_t)nv, ncon = 1, np = (idx_t)nparts, objval = 0;
    const int status = METIS_PartGraphKway(&nvtxs, &ncon, xadj, adjncy, NULL, NULL, NULL, &np, NULL,
                                           NULL, options, &objval, where);
    if (status != METIS_OK) {
        rt_err_set(err,
                   "ordering metis: METIS_PartGraphKway failed with %s (%" PRId64
                   " vertices, %" PRId64 " parts)",
                   metis_status_name(status), g->rows, nparts);
        goto done;
    }
    for (size_t v = 0; v < nv; ++v) {
        if (where[v] < 0 || (int64_t)where[v] >= nparts) {
            rt_err_set(err,
                       "ordering metis: METIS put vertex %zu in part %" PRId64
                       ", outside 0..%" PRId64 " (a METIS bug)",
                       v, (int64_t)where[v], nparts - 1);
            goto done;
        }
        part[v] = where[v];
    }
    *edgecut = objval;
    rc = 0;
done:
    free(xadj);
    free(adjncy);
    free(where);
    return rc;
}
#endif

int rt_ordering_metis(const rt_csr *a, int64_t parts, int64_t *perm, int64_t *part_start,
                      int64_t *edgecut, rt_err *err)
{
    if (parts < 2 || parts > RT_ORDERING_METIS_MAX_PARTS)
        return rt_err_set(err,
                          "ordering metis: metis_parts must be an integer from 2 to %lld, got "
                          "%" PRId64,
                          (long long)RT_ORDERING_METIS_MAX_PARTS, parts);
    if (a->rows != a->cols)
        return rt_err_set(err,
                          "ordering metis needs a square matrix, but this one is %" PRId64
                          " x %" PRId64 " (its rows and columns are different vertex sets; "
                          "use natural or random)",
                          a->rows, a->cols);
#ifndef RT_HAVE_METIS
    (void)perm;
    (void)part_start;
    (void)edgecut;
    return rt_err_set(err, "ordering metis: this rooftune was built without METIS (install "
                           "libmetis-dev and re-run cmake; the configuration summary says "
                           "\"METIS : found\" when it is used)");
#else
    const int64_t n = a->rows;
    /* More parts than rows would leave parts empty by construction: METIS is asked for at most
     * one part per row, and the parts beyond are reported empty. */
    const int64_t nparts = parts < n ? parts : n;
    int64_t *part = alloc_int64(n, "the METIS partition", err);
    int64_t *count = part ? alloc_int64(parts + 1, "the METIS part sizes", err) : NULL;
    rt_csr g = {0};
    int rc = -1;
    if (!count)
        goto done;
    if (symmetric_pattern(a, &g, err) != 0)
        goto done;
    int64_t cut = 0;
    if (nparts < 2 || g.nnz == 0) {
        /* Nothing for METIS to cut (one row, or no off-diagonal entries): any balanced split
         * has cut 0, so keep the natural order in equal contiguous parts. METIS 5.1 also
         * mishandles an edgeless graph. */
        for (int64_t v = 0; v < n; ++v)
            part[v] = nparts > 0 ? v * nparts / n : 0;
    } else if (metis_partition(&g, nparts, part, &cut, err) != 0) {
        goto done;
    }
    /* Stable counting sort by part: rows numbered part by part, natural order inside one. */
    for (int64_t p = 0; p <= parts; ++p)
        count[p] = 0;
    for (int64_t v = 0; v < n; ++v)
        count[part[v] + 1]++;
    for (int64_t p = 0; p < parts; ++p)
        count[p + 1] += count[p];
    if (part_start)
        for (int64_t p = 0; p <= parts; ++p)
            part_start[p] = count[p];
    for (int64_t v = 0; v < n; ++v)
        perm[count[part[v]]++] = v;
    if (edgecut)
        *edgecut = cut;
    rc = 0;
done:
    rt_csr_free(&g);
    free(part);
    free(count);
    return rc;
#endif
}

int rt_ordering_apply(const rt_csr *a, rt_ordering_kind kind, uint64_t arg, rt_csr *out,
                      rt_err *err)
{
    switch (kind) {
    case RT_ORDERING_NATURAL: return rt_csr_copy(out, a, err);
    case RT_ORDERING_HILBERT:
        return rt_err_set(err,
                          "ordering hilbert needs the geometry of an xct matrix: use generator "
                          "xct (its hilbert argument), not a reordering of a built matrix");
    case RT_ORDERING_RANDOM:
    case RT_ORDERING_RCM:
    case RT_ORDERING_METIS: break;
    default: return rt_err_set(err, "unknown ordering kind %d", (int)kind);
    }
    const int square = a->rows == a->cols;
    int64_t *perm = alloc_int64(a->rows, "the row permutation", err);
    int64_t *inv = perm && square ? alloc_int64(a->rows, "the column permutation", err) : NULL;
    int rc = -1;
    if (!perm || (square && !inv))
        goto done;
    if (kind == RT_ORDERING_RANDOM)
        rc = rt_ordering_random(a->rows, arg, perm, err);
    else if (kind == RT_ORDERING_RCM)
        rc = rt_ordering_rcm(a, perm, err);
    else
        rc = rt_ordering_metis(a, arg > (uint64_t)RT_ORDERING_METIS_MAX_PARTS ? -1 : (int64_t)arg,
                               perm, NULL, NULL, err);
    if (rc != 0)
        goto done;
    /* Square matrices are permuted symmetrically (P A P^T): a relabelled graph, same spectrum. */
    if (square)
        rt_ordering_invert(perm, a->rows, inv);
    rc = rt_csr_permute(out, a, perm, square ? inv : NULL, err);
done:
    free(perm);
    free(inv);
    return rc;
}

int64_t rt_ordering_bandwidth(const rt_csr *a)
{
    int64_t bw = 0;
    for (int64_t r = 0; r < a->rows; ++r) {
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; ++k) {
            const int64_t d = r > a->colidx[k] ? r - a->colidx[k] : a->colidx[k] - r;
            bw = d > bw ? d : bw;
        }
    }
    return bw;
}
