/* xct: the parallel-beam X-ray CT projection matrix of MemXCT.
 *
 * Geometry (all in pixel units): the image is the square [0, n) x [0, n); pixel (px, py) is the
 * half-open unit square [px, px+1) x [py, py+1) and is column py * n + px. Angle a is
 * theta = a * pi / angles. Detector d sits at offset t = d + 0.5 - detectors / 2 (unit spacing,
 * centred), and its ray is the line through the image centre c shifted by t along
 * (cos theta, sin theta):  { c + t (cos theta, sin theta) + s (-sin theta, cos theta) }.
 * Ray (a, d) is row a * detectors + d; entry (ray, pixel) is the exact length of the line inside
 * the pixel, found by walking the line from where it enters the image to where it leaves and
 * cutting it at every grid line it crosses (Siddon's method). Each piece belongs to the pixel that
 * holds its midpoint, which makes the half-open convention exact: a ray running along a pixel
 * edge is counted once, in the pixel to its right/top. Pieces shorter than 1e-9 (a ray grazing a
 * pixel corner) are dropped, so every stored length is in (0, sqrt(2)]. Rays that miss the image
 * are empty rows.
 *
 * hilbert: 1 orders pixels along a Hilbert curve over the n x n grid and rays along one over the
 * angles x detectors grid (each padded to a power of two and compacted): MemXCT's locality
 * ordering, so neighbouring rows and columns are neighbours in space. */
#include "rt_gen_xct.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_hilbert.h"
#include "rt_memcheck.h"
#include "rt_row_sort.h"

static const rt_param_schema xct_args[] = {
    {"image", RT_V_INT, "1..46340", "64", 0, "image side n: n x n pixels (columns)"},
    {"angles", RT_V_INT, "0..1000000", "0", 0, "projection angles over [0, pi) (0: same as image)"},
    {"detectors", RT_V_INT, "0..10000000", "0", 0,
     "detectors per angle, unit spacing (0: ceil(image * sqrt(2)), enough for the diagonal)"},
    {"hilbert", RT_V_INT, "0|1", "0", 0, "1: order pixels and rays along Hilbert curves"},
};

/* Shortest piece kept: a line through a pixel corner produces pieces of rounding-error length. */
#define XCT_MIN_LENGTH 1e-9
/* Directions closer than this to an axis are treated as parallel to it. */
#define XCT_PARALLEL 1e-12

static int xct_derive(rt_params *args, rt_err *err)
{
    const int64_t n = rt_params_int(args, "image", 0);
    if (rt_params_int(args, "angles", 0) == 0 &&
        rt_params_set(args, "angles", rt_value_int(n), err) != 0)
        return -1;
    if (rt_params_int(args, "detectors", 0) == 0 &&
        rt_params_set(args, "detectors", rt_value_int((int64_t)ceil((double)n * sqrt(2.0))), err) !=
            0)
        return -1;
    return 0;
}

/* Growable entries of a block of rays in progress: rays are traced one after another and
 * appended. */
typedef struct xct_builder {
    int32_t *colidx;
    double *val;
    int64_t cap;
    int64_t used;
} xct_builder;

static int builder_reserve(xct_builder *b, int64_t extra, rt_err *err)
{
    if (b->used + extra <= b->cap)
        return 0;
    int64_t cap = b->cap > 0 ? b->cap : 1024;
    while (cap < b->used + extra)
        cap *= 2;
    int32_t *c = realloc(b->colidx, (size_t)cap * sizeof *c);
    if (!c)
        return rt_err_set(err, "out of memory: cannot grow the xct matrix to %zu bytes of indices",
                          (size_t)cap * sizeof *c);
    b->colidx = c;
    double *v = realloc(b->val, (size_t)cap * sizeof *v);
    if (!v)
        return rt_err_set(err, "out of memory: cannot grow the xct matrix to %zu bytes of values",
                          (size_t)cap * sizeof *v);
    b->val = v;
    b->cap = cap;
    return 0;
}

/* Parameter interval [lo, hi] of s where origin + s * dir lies in [0, n) along one axis. */
static int axis_interval(double origin, double dir, double n, double *lo, double *hi)
{
    if (fabs(dir) < XCT_PARALLEL) {
        if (origin >= 0.0 && origin < n) {
            *lo = -INFINITY;
            *hi = INFINITY;
            return 1;
        }
        return 0;
    }
    const double s0 = (0.0 - origin) / dir, s1 = (n - origin) / dir;
    *lo = s0 < s1 ? s0 : s1;
    *hi = s0 < s1 ? s1 : s0;
    return 1;
}

/* Parameters where the line crosses the interior grid lines k = 1..n-1 of one axis, in increasing
 * order, restricted to (s_in, s_out). */
static int64_t axis_crossings(double origin, double dir, int64_t n, double s_in, double s_out,
                              double *out)
{
    if (fabs(dir) < XCT_PARALLEL)
        return 0;
    int64_t m = 0;
    for (int64_t i = 1; i < n; ++i) {
        /* Walk k so that s increases: s = (k - origin) / dir grows with k when dir > 0. */
        const int64_t k = dir > 0 ? i : n - i;
        const double s = ((double)k - origin) / dir;
        if (s > s_in && s < s_out)
            out[m++] = s;
    }
    return m;
}

/* Traces one ray and appends its (pixel, length) entries. scratch holds 2n + 2 doubles. */
static int trace_ray(xct_builder *b, int64_t n, double theta, double t, double *scratch,
                     double *merged, rt_err *err)
{
    const double ct = cos(theta), st = sin(theta);
    const double half = 0.5 * (double)n;
    const double x0 = half + t * ct, y0 = half + t * st; /* point of the line at s = 0 */
    const double dx = -st, dy = ct;                      /* unit direction */
    double xlo, xhi, ylo, yhi;
    if (!axis_interval(x0, dx, (double)n, &xlo, &xhi) ||
        !axis_interval(y0, dy, (double)n, &ylo, &yhi))
        return 0;
    const double s_in = xlo > ylo ? xlo : ylo;
    const double s_out = xhi < yhi ? xhi : yhi;
    if (!(s_out - s_in > XCT_MIN_LENGTH))
        return 0;
    double *xs = scratch, *ys = scratch + n;
    const int64_t nx = axis_crossings(x0, dx, n, s_in, s_out, xs);
    const int64_t ny = axis_crossings(y0, dy, n, s_in, s_out, ys);
    /* Merge both sorted crossing lists between the entry and exit points. */
    int64_t m = 0, i = 0, j = 0;
    merged[m++] = s_in;
    while (i < nx || j < ny)
        merged[m++] = (j >= ny || (i < nx && xs[i] < ys[j])) ? xs[i++] : ys[j++];
    merged[m++] = s_out;
    if (builder_reserve(b, m, err) != 0)
        return -1;
    int64_t last_pixel = -1;
    for (int64_t k = 0; k + 1 < m; ++k) {
        const double len = merged[k + 1] - merged[k];
        if (!(len > XCT_MIN_LENGTH))
            continue;
        const double mid = 0.5 * (merged[k] + merged[k + 1]);
        int64_t px = (int64_t)floor(x0 + mid * dx), py = (int64_t)floor(y0 + mid * dy);
        px = px < 0 ? 0 : px >= n ? n - 1 : px;
        py = py < 0 ? 0 : py >= n ? n - 1 : py;
        const int64_t pixel = py * n + px;
        if (pixel == last_pixel) {
            /* Two pieces in one pixel: a crossing that rounding put inside it. */
            b->val[b->used - 1] += len;
        } else {
            b->colidx[b->used] = (int32_t)pixel;
            b->val[b->used] = len;
            b->used++;
            last_pixel = pixel;
        }
    }
    return 0;
}

/* Sorts one ray's entries (laid out in path order) by column with the stable row sort, then
 * merges any pixel that rounding made appear twice. Returns the new entry count. */
static int64_t sort_row_by_column(int32_t *c, double *v, int64_t n, rt_col_val *a, rt_col_val *tmp)
{
    for (int64_t i = 0; i < n; ++i) {
        a[i].col = c[i];
        a[i].val = v[i];
    }
    rt_row_sort(a, n, tmp);
    const rt_col_val *src = a;
    int64_t m = 0;
    for (int64_t i = 0; i < n; ++i) {
        if (m > 0 && c[m - 1] == src[i].col) {
            v[m - 1] += src[i].val;
        } else {
            c[m] = src[i].col;
            v[m] = src[i].val;
            ++m;
        }
    }
    return m;
}

/* One block of rays [r0, r1), traced into its own builder; rowptr[row + 1] gets the row's end
 * within the block (made global when the blocks are joined). */
typedef struct xct_block {
    int64_t r0, r1;
    xct_builder b;
    int64_t base; /* where its entries go in the joined arrays */
    int rc;
    rt_err err;
} xct_block;

static int xct_trace_block(xct_block *blk, int64_t *rowptr, int64_t n, int64_t angles,
                           int64_t detectors)
{
    /* A ray crosses at most 2n - 2 interior grid lines, so it has at most 2n - 1 pieces. */
    const size_t pieces = (size_t)(2 * n + 4);
    double *scratch = malloc(pieces * sizeof *scratch);
    double *merged = scratch ? malloc(pieces * sizeof *merged) : NULL;
    rt_col_val *sort_a = merged ? malloc(pieces * sizeof *sort_a) : NULL;
    rt_col_val *sort_b = sort_a ? malloc(pieces * sizeof *sort_b) : NULL;
    if (!sort_b) {
        free(scratch);
        free(merged);
        free(sort_a);
        return rt_err_set(&blk->err, "out of memory: cannot allocate %zu bytes of ray scratch",
                          pieces * 2 * (sizeof(double) + sizeof(rt_col_val)));
    }
    const double pi = acos(-1.0);
    xct_builder *b = &blk->b;
    int rc = 0;
    for (int64_t row = blk->r0; row < blk->r1 && rc == 0; ++row) {
        const int64_t a = row / detectors, d = row % detectors;
        const double theta = (double)a * pi / (double)angles;
        const int64_t start = b->used;
        const double t = (double)d + 0.5 - 0.5 * (double)detectors;
        rc = trace_ray(b, n, theta, t, scratch, merged, &blk->err);
        if (rc == 0) {
            b->used = start + sort_row_by_column(b->colidx + start, b->val + start, b->used - start,
                                                 sort_a, sort_b);
            /* Rounding can push a piece's length a hair past the diagonal of a unit square. */
            for (int64_t k = start; k < b->used; ++k)
                b->val[k] = b->val[k] > sqrt(2.0) ? sqrt(2.0) : b->val[k];
            rowptr[row + 1] = b->used;
        }
    }
    free(scratch);
    free(merged);
    free(sort_a);
    free(sort_b);
    return rc;
}

/* Traces every ray into m (rows and rowptr allocated, no entries yet). The rays are independent,
 * so blocks of them are traced over the OpenMP threads, each into its own arrays, and joined in
 * row order: every row is computed by the same code from the same numbers whichever thread runs
 * it, so the matrix is the same, bit for bit, for every thread count. (The first matrix of a
 * parallel tuning run is on its start's critical path: the workers wait for it.) */
static int xct_trace_all(rt_csr *m, int64_t n, int64_t angles, int64_t detectors, rt_err *err)
{
    const int64_t rows = angles * detectors;
    /* Enough blocks for the threads to balance rays of unequal length (rays that miss the image
     * are empty); the count does not depend on the threads, though the result would not either. */
    const int64_t per = rows / 256 > 1 ? rows / 256 : 1;
    const int64_t nblocks = (rows + per - 1) / per;
    xct_block *blk = calloc((size_t)nblocks, sizeof *blk);
    if (!blk)
        return rt_err_set(err, "out of memory: cannot allocate %" PRId64 " xct ray blocks",
                          nblocks);
    for (int64_t i = 0; i < nblocks; ++i) {
        blk[i].r0 = i * per;
        blk[i].r1 = (i + 1) * per < rows ? (i + 1) * per : rows;
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t i = 0; i < nblocks; ++i)
        blk[i].rc = xct_trace_block(&blk[i], m->rowptr, n, angles, detectors);
    int rc = 0;
    int64_t nnz = 0;
    for (int64_t i = 0; i < nblocks && rc == 0; ++i) {
        if (blk[i].rc != 0) {
            *err = blk[i].err;
            rc = -1;
        }
        nnz += blk[i].b.used;
    }
    if (rc == 0) {
        /* m came without entries; on a failure what it holds stays its own (rt_csr_free). */
        int32_t *c = realloc(m->colidx, (size_t)(nnz > 0 ? nnz : 1) * sizeof *c);
        m->colidx = c ? c : m->colidx;
        double *v = c ? realloc(m->val, (size_t)(nnz > 0 ? nnz : 1) * sizeof *v) : NULL;
        m->val = v ? v : m->val;
        if (!v)
            rc = rt_err_set(err, "out of memory: cannot allocate %zu bytes of xct entries",
                            (size_t)nnz * (sizeof *c + sizeof *v));
    }
    if (rc == 0) {
        int64_t base = 0;
        for (int64_t i = 0; i < nblocks; ++i) {
            blk[i].base = base;
            base += blk[i].b.used;
        }
        m->nnz = nnz;
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t i = 0; i < nblocks; ++i) {
            const xct_builder *b = &blk[i].b;
            if (b->used > 0) {
                memcpy(m->colidx + blk[i].base, b->colidx, (size_t)b->used * sizeof *m->colidx);
                memcpy(m->val + blk[i].base, b->val, (size_t)b->used * sizeof *m->val);
            }
            for (int64_t row = blk[i].r0; row < blk[i].r1; ++row)
                m->rowptr[row + 1] += blk[i].base;
        }
    }
    for (int64_t i = 0; i < nblocks; ++i) {
        free(blk[i].b.colidx);
        free(blk[i].b.val);
    }
    free(blk);
    return rc;
}

static int xct_hilbert(rt_csr *m, int64_t n, int64_t angles, int64_t detectors, rt_err *err)
{
    int64_t *ray_rank = malloc((size_t)m->rows * sizeof *ray_rank);
    int64_t *perm_rows = ray_rank ? malloc((size_t)m->rows * sizeof *perm_rows) : NULL;
    int64_t *pixel_rank = perm_rows ? malloc((size_t)m->cols * sizeof *pixel_rank) : NULL;
    int rc = -1;
    if (!pixel_rank) {
        rt_err_set(err, "out of memory: cannot allocate %zu bytes for the Hilbert orderings",
                   (size_t)(2 * m->rows + m->cols) * sizeof(int64_t));
        goto done;
    }
    /* Rays: x = detector, y = angle, so cell index y * w + x is the natural row number. */
    if (rt_hilbert_rank(detectors, angles, ray_rank, err) != 0 ||
        rt_hilbert_rank(n, n, pixel_rank, err) != 0)
        goto done;
    for (int64_t r = 0; r < m->rows; ++r)
        perm_rows[ray_rank[r]] = r;
    rt_csr ordered;
    if (rt_csr_permute(&ordered, m, perm_rows, pixel_rank, err) != 0)
        goto done;
    rt_csr_free(m);
    *m = ordered;
    rc = 0;
done:
    free(ray_rank);
    free(perm_rows);
    free(pixel_rank);
    return rc;
}

static int xct_generate(const rt_params *args, rt_csr *out, rt_err *err)
{
    const int64_t n = rt_params_int(args, "image", 0);
    const int64_t angles = rt_params_int(args, "angles", 0);
    const int64_t detectors = rt_params_int(args, "detectors", 0);
    const int hilbert = rt_params_int(args, "hilbert", 0) != 0;
    memset(out, 0, sizeof *out);
    if (n < 1 || n > 46340 || angles < 1 || detectors < 1)
        return rt_err_set(err,
                          "image = %" PRId64 " (1..46340), angles = %" PRId64
                          " and detectors = %" PRId64 " must be positive",
                          n, angles, detectors);
    /* Per angle the pieces number at most sqrt(2) * (area + perimeter) + 3 per ray. */
    const double bound = (double)angles * (sqrt(2.0) * ((double)n * (double)n + 4.0 * (double)n) +
                                           3.0 * (double)detectors);
    /* Twice the entries at the peak: the traced blocks and the joined arrays, then (hilbert) the
     * joined arrays and their permuted copy. */
    if (rt_memcheck_fits(bound * 12.0 * 2.0 + (double)angles * (double)detectors * 24.0,
                         "the xct projection matrix", err) != 0)
        return -1;
    rt_csr m;
    if (rt_csr_alloc(&m, angles * detectors, n * n, 0, err) != 0)
        return -1;
    int rc = xct_trace_all(&m, n, angles, detectors, err);
    if (rc == 0 && hilbert)
        rc = xct_hilbert(&m, n, angles, detectors, err);
    if (rc != 0) {
        rt_csr_free(&m);
        return -1;
    }
    *out = m;
    return 0;
}

const rt_generator_desc rt_gen_xct_desc = {
    .name = "xct",
    .summary = "parallel-beam CT projection matrix (rays x pixels, exact intersection lengths)",
    .args = xct_args,
    .n_args = (int)(sizeof xct_args / sizeof xct_args[0]),
    .generate = xct_generate,
    .derive = xct_derive,
};
