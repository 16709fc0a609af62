/* Orderings: parsing, random permutations (symmetric for square matrices), RCM, METIS. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_generators.h"
#include "rt_matrix.h"
#include "rt_ordering.h"
#include "rt_test.h"
#include "rt_test_matrix.h"

#ifndef RT_INPUTS_MTX_DIR
#error "RT_INPUTS_MTX_DIR must name tests/inputs/mtx"
#endif

static int csr_has(const rt_csr *m, int64_t r, int64_t c)
{
    for (int64_t k = m->rowptr[r]; k < m->rowptr[r + 1]; ++k)
        if (m->colidx[k] == c)
            return 1;
    return 0;
}

static int is_permutation(const int64_t *p, int64_t n)
{
    char *seen = calloc((size_t)n + 1, 1);
    int ok = seen != NULL;
    for (int64_t i = 0; ok && i < n; ++i) {
        ok = p[i] >= 0 && p[i] < n && !seen[p[i]];
        if (ok)
            seen[p[i]] = 1;
    }
    free(seen);
    return ok;
}

static rt_csr banded(int64_t rows, int64_t bw, const char *ordering)
{
    rt_err err;
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "rows", rt_value_int(rows), &err);
    rt_params_set(&args, "bandwidth", rt_value_int(bw), &err);
    rt_csr m;
    const int rc = rt_matrix_build("banded", &args, NULL, ordering, &m, &err);
    RT_CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc == 0)
        RT_CHECK_MSG(rt_csr_validate(&m, &err) == 0, "%s", err.msg);
    return m;
}

static void test_parse(void)
{
    rt_err err;
    rt_ordering_kind k;
    uint64_t seed;
    int given;
    RT_CHECK(rt_ordering_parse(NULL, &k, &seed, &given, &err) == 0 && k == RT_ORDERING_NATURAL);
    RT_CHECK(rt_ordering_parse("", &k, &seed, &given, &err) == 0 && k == RT_ORDERING_NATURAL);
    RT_CHECK(rt_ordering_parse("rcm", &k, &seed, &given, &err) == 0 && k == RT_ORDERING_RCM);
    RT_CHECK(rt_ordering_parse("hilbert", &k, &seed, &given, &err) == 0 &&
             k == RT_ORDERING_HILBERT);
    RT_CHECK(rt_ordering_parse("random", &k, &seed, &given, &err) == 0 && k == RT_ORDERING_RANDOM &&
             !given);
    RT_CHECK(rt_ordering_parse("random:17", &k, &seed, &given, &err) == 0 &&
             k == RT_ORDERING_RANDOM && given && seed == 17);
    RT_CHECK(rt_ordering_parse("random:", &k, &seed, &given, &err) != 0 &&
             rt_test_contains(err.msg, "seed"));
    RT_CHECK(rt_ordering_parse("random:-4", &k, &seed, &given, &err) != 0);
    RT_CHECK(rt_ordering_parse("random:12x", &k, &seed, &given, &err) != 0);
    RT_CHECK(rt_ordering_parse("random:99999999999999999999999", &k, &seed, &given, &err) != 0);
    RT_CHECK(rt_ordering_parse("natrual", &k, &seed, &given, &err) != 0 &&
             rt_test_contains(err.msg, "did you mean 'natural'"));
    RT_CHECK(rt_ordering_parse("mettis", &k, &seed, &given, &err) != 0 &&
             rt_test_contains(err.msg, "did you mean 'metis'"));
    /* metis alone carries the default part count, never a generator's seed. */
    RT_CHECK(rt_ordering_parse("metis", &k, &seed, &given, &err) == 0 && k == RT_ORDERING_METIS &&
             given && seed == RT_ORDERING_METIS_DEFAULT_PARTS);
    RT_CHECK(rt_ordering_parse("metis:8", &k, &seed, &given, &err) == 0 && k == RT_ORDERING_METIS &&
             given && seed == 8);
    static const char *const bad_parts[] = {"metis:",   "metis:1",  "metis:0",
                                            "metis:-3", "metis:4x", "metis:99999999999"};
    for (int i = 0; i < 6; ++i)
        RT_CHECK_MSG(rt_ordering_parse(bad_parts[i], &k, &seed, &given, &err) != 0 &&
                         rt_test_contains(err.msg, "metis_parts"),
                     "%s accepted or unclear", bad_parts[i]);
    RT_CHECK(strcmp(rt_ordering_name(RT_ORDERING_METIS), "metis") == 0);
    RT_CHECK(strcmp(rt_ordering_name(RT_ORDERING_RCM), "rcm") == 0);
}

static void test_random(void)
{
    rt_err err;
    int64_t p[500], q[500], r[500];
    RT_CHECK(rt_ordering_random(500, 3, p, &err) == 0 && is_permutation(p, 500));
    RT_CHECK(rt_ordering_random(500, 3, q, &err) == 0);
    RT_CHECK(rt_ordering_random(500, 4, r, &err) == 0 && is_permutation(r, 500));
    int same = 1, differs = 0, moved = 0;
    for (int i = 0; i < 500; ++i) {
        same &= p[i] == q[i];
        differs |= p[i] != r[i];
        moved += p[i] != i;
    }
    RT_CHECK(same && differs && moved > 400);
    RT_CHECK(rt_ordering_random(0, 3, p, &err) == 0);

    /* Square: symmetric permutation B(i, k) = A(p[i], p[k]). */
    rt_csr a = banded(120, 7, NULL);
    rt_csr b;
    RT_CHECK(rt_ordering_apply(&a, RT_ORDERING_RANDOM, 11, &b, &err) == 0);
    int64_t perm[120], inv[120];
    RT_CHECK(rt_ordering_random(120, 11, perm, &err) == 0);
    int ok = b.nnz == a.nnz;
    for (int64_t i = 0; ok && i < 120; ++i)
        for (int64_t k = 0; k < 120; ++k)
            ok &= csr_at(&b, i, k) == csr_at(&a, perm[i], perm[k]);
    RT_CHECK(ok);
    /* Inverse permutation restores the original exactly. */
    rt_ordering_invert(perm, 120, inv);
    rt_csr back;
    RT_CHECK(rt_csr_permute(&back, &b, inv, perm, &err) == 0 && csr_equal(&a, &back));
    rt_csr_free(&back);
    rt_csr_free(&b);

    /* "random" falls back to the generator's seed; "random:N" names one. */
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "rows", rt_value_int(120), &err);
    rt_params_set(&args, "bandwidth", rt_value_int(7), &err);
    rt_params_set(&args, "seed", rt_value_int(11), &err);
    rt_csr c, d;
    RT_CHECK(rt_matrix_build("banded", &args, NULL, "random", &c, &err) == 0);
    RT_CHECK(rt_matrix_build("banded", &args, NULL, "random:11", &d, &err) == 0);
    RT_CHECK(csr_equal(&c, &d) && !csr_equal(&c, &a));
    rt_csr_free(&c);
    rt_csr_free(&d);
    rt_csr_free(&a);

    /* Rectangular: rows only; every row keeps its columns. */
    rt_params_init(&args);
    rt_params_set(&args, "rows", rt_value_int(60), &err);
    rt_params_set(&args, "cols", rt_value_int(25), &err);
    rt_params_set(&args, "nnz_per_row", rt_value_int(4), &err);
    RT_CHECK(rt_matrix_build("uniform", &args, NULL, NULL, &a, &err) == 0);
    RT_CHECK(rt_ordering_apply(&a, RT_ORDERING_RANDOM, 5, &b, &err) == 0);
    RT_CHECK(rt_ordering_random(60, 5, perm, &err) == 0);
    ok = b.cols == 25;
    for (int64_t i = 0; ok && i < 60; ++i) {
        const int64_t bi = b.rowptr[i], ai = a.rowptr[perm[i]];
        for (int64_t k = 0; k < 4; ++k)
            ok &= b.colidx[bi + k] == a.colidx[ai + k] && b.val[bi + k] == a.val[ai + k];
    }
    RT_CHECK(ok);
    rt_csr_free(&b);
    /* RCM needs a square matrix. */
    RT_CHECK(rt_ordering_apply(&a, RT_ORDERING_RCM, 0, &b, &err) != 0 &&
             rt_test_contains(err.msg, "square") && rt_test_contains(err.msg, "60 x 25"));
    RT_CHECK(rt_ordering_apply(&a, RT_ORDERING_HILBERT, 0, &b, &err) != 0 &&
             rt_test_contains(err.msg, "xct"));
    rt_csr_free(&a);
}

static void test_rcm(void)
{
    rt_err err;
    /* A scrambled band: RCM must recover a narrow band. */
    rt_csr natural = banded(400, 5, NULL);
    rt_csr scrambled;
    RT_CHECK(rt_ordering_apply(&natural, RT_ORDERING_RANDOM, 9, &scrambled, &err) == 0);
    const int64_t bw_natural = rt_ordering_bandwidth(&natural);
    const int64_t bw_scrambled = rt_ordering_bandwidth(&scrambled);
    RT_CHECK(bw_natural == 2 && bw_scrambled > 100);
    int64_t perm[400];
    RT_CHECK(rt_ordering_rcm(&scrambled, perm, &err) == 0 && is_permutation(perm, 400));
    rt_csr reordered;
    RT_CHECK(rt_ordering_apply(&scrambled, RT_ORDERING_RCM, 0, &reordered, &err) == 0);
    RT_CHECK(rt_csr_validate(&reordered, &err) == 0 && reordered.nnz == natural.nnz);
    const int64_t bw_rcm = rt_ordering_bandwidth(&reordered);
    RT_CHECK_MSG(bw_rcm <= 4, "rcm bandwidth %lld (natural %lld)", (long long)bw_rcm,
                 (long long)bw_natural);
    rt_csr_free(&reordered);
    rt_csr_free(&scrambled);
    rt_csr_free(&natural);

    /* Disconnected pieces, isolated vertices and an unsymmetric pattern: still a permutation
     * that covers every vertex, and bandwidth not worse than a scrambled start. */
    const int64_t ri[] = {0, 5, 5, 2, 7, 9, 3};
    const int64_t ci[] = {5, 0, 9, 7, 2, 2, 3};
    const double v[] = {1, 2, 3, 4, 5, 6, 7};
    rt_csr g;
    RT_CHECK(rt_csr_from_coo(&g, 12, 12, 7, ri, ci, v, &err) == 0);
    int64_t p12[12];
    RT_CHECK(rt_ordering_rcm(&g, p12, &err) == 0 && is_permutation(p12, 12));
    rt_csr_free(&g);

    /* Through rt_matrix_build on a Matrix Market file. */
    rt_csr f;
    RT_CHECK_MSG(rt_matrix_build(NULL, NULL, RT_INPUTS_MTX_DIR "/symmetric.mtx", "rcm", &f, &err) ==
                     0,
                 "%s", err.msg);
    RT_CHECK(f.rows == 4 && f.nnz == 7 && rt_csr_validate(&f, &err) == 0);
    rt_csr_free(&f);
    RT_CHECK(rt_matrix_build("", NULL, RT_INPUTS_MTX_DIR "/pattern.mtx", "rcm", &f, &err) != 0 &&
             rt_test_contains(err.msg, "square"));
    RT_CHECK(rt_matrix_build("", NULL, RT_INPUTS_MTX_DIR "/too_many.mtx", "rcm", &f, &err) != 0 &&
             rt_test_contains(err.msg, "too_many.mtx:5:"));
}

/* n vertices in k equal blocks, each block a ring with chords (connected, irregular), no edge
 * between blocks; values distinct so that the P A P^T check sees every entry move. */
static rt_csr blocks_graph(int64_t k, int64_t size)
{
    rt_err err;
    const int64_t n = k * size, cap = n * 4;
    int64_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    int64_t o = 0;
    for (int64_t b = 0; b < k; ++b) {
        for (int64_t i = 0; i < size; ++i) {
            const int64_t u = b * size + i;
            const int64_t targets[2] = {b * size + (i + 1) % size, b * size + (i * 7 + 3) % size};
            for (int t = 0; t < 2; ++t) {
                ri[o] = u;
                ci[o] = targets[t];
                v[o] = (double)(o + 1);
                ++o;
            }
            ri[o] = u;
            ci[o] = u;
            v[o] = -1.0 - (double)u;
            ++o;
        }
    }
    rt_csr a = {0};
    RT_CHECK_MSG(rt_csr_from_coo(&a, n, n, o, ri, ci, v, &err) == 0, "%s", err.msg);
    free(ri);
    free(ci);
    free(v);
    return a;
}

/* Off-diagonal entries (r, c) whose rows fall in different parts, counted once per unordered
 * pair of the symmetrized pattern. */
static int64_t count_cut(const rt_csr *b, const int64_t *part_start, int64_t parts)
{
    const int64_t n = b->rows;
    int64_t *part = malloc((size_t)n * sizeof *part);
    for (int64_t p = 0; p < parts; ++p)
        for (int64_t i = part_start[p]; i < part_start[p + 1]; ++i)
            part[i] = p;
    int64_t cut = 0;
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t k = b->rowptr[r]; k < b->rowptr[r + 1]; ++k) {
            const int64_t c = b->colidx[k];
            if (part[r] == part[c])
                continue;
            /* Count (r, c) once: as the upper entry, or as the lower one when (c, r) is absent. */
            const int mirrored = csr_has(b, c, r);
            cut += r < c || !mirrored;
        }
    }
    free(part);
    return cut;
}

static void test_metis(void)
{
    rt_err err;
    rt_csr a = blocks_graph(3, 40);
    rt_csr b;
    if (!rt_ordering_metis_available()) {
        /* Without METIS: a clear error, never a silent natural order. */
        RT_CHECK(rt_ordering_apply(&a, RT_ORDERING_METIS, 4, &b, &err) != 0 &&
                 rt_test_contains(err.msg, "without METIS"));
        rt_csr_free(&a);
        fprintf(stderr, "test_ordering: METIS not built in; only its absence was tested\n");
        return;
    }
    rt_csr_free(&a);

    /* An unsymmetric square matrix: a bijection, and the result is P A P^T entry by entry. */
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "rows", rt_value_int(150), &err);
    rt_params_set(&args, "cols", rt_value_int(150), &err);
    rt_params_set(&args, "nnz_per_row", rt_value_int(3), &err);
    rt_params_set(&args, "seed", rt_value_int(7), &err);
    RT_CHECK_MSG(rt_matrix_build("uniform", &args, NULL, NULL, &a, &err) == 0, "%s", err.msg);
    int64_t perm[150], start[9], cut = -1;
    RT_CHECK_MSG(rt_ordering_metis(&a, 8, perm, start, &cut, &err) == 0, "%s", err.msg);
    RT_CHECK(is_permutation(perm, 150));
    int monotone = start[0] == 0 && start[8] == 150;
    for (int p = 0; p < 8; ++p)
        monotone &= start[p + 1] > start[p]; /* METIS leaves no part empty here */
    RT_CHECK(monotone);
    /* Natural order inside a part. */
    int inside = 1;
    for (int p = 0; p < 8; ++p)
        for (int64_t i = start[p] + 1; i < start[p + 1]; ++i)
            inside &= perm[i] > perm[i - 1];
    RT_CHECK(inside);
    RT_CHECK_MSG(rt_matrix_build("uniform", &args, NULL, "metis:8", &b, &err) == 0, "%s", err.msg);
    int ok = b.rows == 150 && b.cols == 150 && b.nnz == a.nnz;
    for (int64_t i = 0; ok && i < 150; ++i)
        for (int64_t k = 0; k < 150; ++k)
            ok &= csr_at(&b, i, k) == csr_at(&a, perm[i], perm[k]);
    RT_CHECK(ok);
    /* The reported cut is the cut of the reordered matrix, and it is not trivially zero. */
    RT_CHECK_MSG(cut > 0 && cut == count_cut(&b, start, 8), "cut %lld, counted %lld",
                 (long long)cut, (long long)count_cut(&b, start, 8));
    /* Deterministic: the same matrix and part count give the same ordering. */
    int64_t again[150];
    RT_CHECK(rt_ordering_metis(&a, 8, again, NULL, NULL, &err) == 0 &&
             memcmp(perm, again, sizeof perm) == 0);
    rt_csr_free(&b);

    /* Bad part counts and shapes are rejected, naming the key. */
    RT_CHECK(rt_ordering_metis(&a, 1, perm, NULL, NULL, &err) != 0 &&
             rt_test_contains(err.msg, "metis_parts"));
    RT_CHECK(rt_ordering_metis(&a, -5, perm, NULL, NULL, &err) != 0 &&
             rt_test_contains(err.msg, "metis_parts"));
    RT_CHECK(rt_ordering_apply(&a, RT_ORDERING_METIS, 0, &b, &err) != 0 &&
             rt_test_contains(err.msg, "metis_parts"));
    RT_CHECK(rt_matrix_build("uniform", &args, NULL, "metis:1", &b, &err) != 0 &&
             rt_test_contains(err.msg, "metis_parts"));
    rt_csr_free(&a);
    rt_params_set(&args, "cols", rt_value_int(90), &err);
    RT_CHECK(rt_matrix_build("uniform", &args, NULL, "metis", &b, &err) != 0 &&
             rt_test_contains(err.msg, "square") && rt_test_contains(err.msg, "150 x 90"));

    /* k disconnected blocks, shuffled: METIS with k parts finds them again (edge cut 0), each
     * part one whole block, contiguous after reordering. */
    const int64_t k = 4, size = 40, n = k * size;
    rt_csr natural = blocks_graph(k, size), shuffled;
    RT_CHECK(rt_ordering_apply(&natural, RT_ORDERING_RANDOM, 21, &shuffled, &err) == 0);
    int64_t shuffle[160], mperm[160], mstart[5];
    RT_CHECK(rt_ordering_random(n, 21, shuffle, &err) == 0);
    RT_CHECK(count_cut(&shuffled, (const int64_t[]){0, 40, 80, 120, 160}, 4) > 0);
    cut = -1;
    RT_CHECK_MSG(rt_ordering_metis(&shuffled, k, mperm, mstart, &cut, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(cut == 0, "edge cut %lld on %lld disconnected blocks", (long long)cut,
                 (long long)k);
    int restored = 1;
    for (int64_t p = 0; p < k; ++p) {
        restored &= mstart[p + 1] - mstart[p] == size;
        /* New row i is shuffled row mperm[i], which is natural row shuffle[mperm[i]]. */
        const int64_t block = shuffle[mperm[mstart[p]]] / size;
        for (int64_t i = mstart[p]; i < mstart[p + 1]; ++i)
            restored &= shuffle[mperm[i]] / size == block;
    }
    RT_CHECK(restored);
    rt_csr back;
    RT_CHECK(rt_ordering_apply(&shuffled, RT_ORDERING_METIS, (uint64_t)k, &back, &err) == 0);
    RT_CHECK(back.nnz == natural.nnz && count_cut(&back, mstart, k) == 0);
    rt_csr_free(&back);
    rt_csr_free(&shuffled);
    rt_csr_free(&natural);

    /* More parts than rows (the default 64 on a 30-row matrix): one row per part, no error. */
    rt_csr small = blocks_graph(3, 10);
    int64_t sp[30], sstart[65];
    RT_CHECK_MSG(rt_ordering_metis(&small, 64, sp, sstart, NULL, &err) == 0, "%s", err.msg);
    RT_CHECK(is_permutation(sp, 30) && sstart[64] == 30 && sstart[30] == 30);
    rt_csr_free(&small);

    /* A diagonal matrix (no edges) and a Matrix Market file through rt_matrix_build. */
    rt_csr f;
    RT_CHECK_MSG(
        rt_matrix_build(NULL, NULL, RT_INPUTS_MTX_DIR "/symmetric.mtx", "metis:2", &f, &err) == 0,
        "%s", err.msg);
    RT_CHECK(f.rows == 4 && f.nnz == 7 && rt_csr_validate(&f, &err) == 0);
    rt_csr_free(&f);
    const int64_t di[] = {0, 1, 2, 3, 4};
    const double dv[] = {1, 2, 3, 4, 5};
    rt_csr d;
    RT_CHECK(rt_csr_from_coo(&d, 5, 5, 5, di, di, dv, &err) == 0);
    int64_t dp[5], dstart[3];
    RT_CHECK(rt_ordering_metis(&d, 2, dp, dstart, &cut, &err) == 0 && is_permutation(dp, 5) &&
             cut == 0 && dstart[2] == 5);
    rt_csr_free(&d);
}

int main(void)
{
    test_parse();
    test_random();
    test_rcm();
    test_metis();
    return RT_TEST_RESULT();
}
