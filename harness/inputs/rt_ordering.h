/* rt_ordering: row/column orderings applied to a matrix after it is built.
 *
 * A permutation here is always "new position -> old index": perm[i] is the old row that becomes
 * row i (the convention of rt_csr_permute's perm_rows). Orderings:
 *   natural  the matrix as built;
 *   random   a uniformly random permutation from a seed: symmetric (rows and columns alike) for a
 *            square matrix, so the graph is relabelled, rows only otherwise;
 *   rcm      reverse Cuthill-McKee on the symmetrized pattern of a square matrix (bandwidth and
 *            profile reduction); a non-square matrix is an error;
 *   hilbert  not computed here: it needs the xct geometry, so it is the xct generator's
 *            `hilbert` argument (rt_matrix_build routes it there). */
#ifndef RT_ORDERING_H
#define RT_ORDERING_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"

typedef enum rt_ordering_kind {
    RT_ORDERING_NATURAL = 0,
    RT_ORDERING_RANDOM = 1,
    RT_ORDERING_RCM = 2,
    RT_ORDERING_HILBERT = 3
} rt_ordering_kind;

/* Parses "natural", "random", "random:SEED", "rcm" or "hilbert" (NULL or "" is natural).
 * *seed_given is 1 when the text carried a seed (then *seed holds it). Unknown names get a
 * "did you mean". */
int rt_ordering_parse(const char *text, rt_ordering_kind *kind, uint64_t *seed, int *seed_given,
                      rt_err *err);
const char *rt_ordering_name(rt_ordering_kind kind);

/* A uniformly random permutation of 0..n-1 (Fisher-Yates) from seed. */
int rt_ordering_random(int64_t n, uint64_t seed, int64_t *perm, rt_err *err);
/* Reverse Cuthill-McKee permutation of a square matrix (every connected component in turn,
 * each started from a pseudo-peripheral vertex of low degree). */
int rt_ordering_rcm(const rt_csr *a, int64_t *perm, rt_err *err);
/* inv[perm[i]] = i. */
void rt_ordering_invert(const int64_t *perm, int64_t n, int64_t *inv);
/* out = a reordered by kind (natural copies; hilbert is an error here, see above). */
int rt_ordering_apply(const rt_csr *a, rt_ordering_kind kind, uint64_t seed, rt_csr *out,
                      rt_err *err);
/* max |i - j| over the stored entries (0 for an empty or diagonal matrix). */
int64_t rt_ordering_bandwidth(const rt_csr *a);

#endif
