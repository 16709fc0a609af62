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
 *            `hilbert` argument (rt_matrix_build routes it there);
 *   metis    k-way graph partition (METIS_PartGraphKway) of the symmetrized pattern of a square
 *            matrix into `metis_parts` parts (default 64, at most the row count), rows and columns
 *            numbered part by part (natural order inside a part), so each part's rows are one
 *            contiguous block and the entries outside the diagonal blocks are the edge cut. A
 *            non-square matrix is an error: its rows and columns are different vertex sets, and
 *            one permutation for both would not be a relabelling of a graph. Needs METIS at build
 *            time (rt_ordering_metis_available); without it, asking for it is an error. */
#ifndef RT_ORDERING_H
#define RT_ORDERING_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"

typedef enum rt_ordering_kind {
    RT_ORDERING_NATURAL = 0,
    RT_ORDERING_RANDOM = 1,
    RT_ORDERING_RCM = 2,
    RT_ORDERING_HILBERT = 3,
    RT_ORDERING_METIS = 4
} rt_ordering_kind;

/* metis_parts when the config names none: a part per rank of a mid-size job. The rank count is
 * not known when a matrix is built (the model-only path builds for jobs it never launches). */
#define RT_ORDERING_METIS_DEFAULT_PARTS 64
/* The largest metis_parts accepted: METIS numbers parts with 32-bit integers. */
#define RT_ORDERING_METIS_MAX_PARTS 2147483647LL

/* Parses "natural", "random", "random:SEED", "rcm", "hilbert", "metis" or "metis:PARTS" (NULL or
 * "" is natural). *arg is the ordering's argument: the seed of random, the part count of metis.
 * *arg_given is 1 when the text carried one; "metis" alone gives the default part count with
 * *arg_given = 1 (a part count never falls back to a generator's seed). Unknown names get a
 * "did you mean"; a part count outside 2..RT_ORDERING_METIS_MAX_PARTS is an error naming
 * metis_parts. */
int rt_ordering_parse(const char *text, rt_ordering_kind *kind, uint64_t *arg, int *arg_given,
                      rt_err *err);
const char *rt_ordering_name(rt_ordering_kind kind);

/* A uniformly random permutation of 0..n-1 (Fisher-Yates) from seed. */
int rt_ordering_random(int64_t n, uint64_t seed, int64_t *perm, rt_err *err);
/* Reverse Cuthill-McKee permutation of a square matrix (every connected component in turn,
 * each started from a pseudo-peripheral vertex of low degree). */
int rt_ordering_rcm(const rt_csr *a, int64_t *perm, rt_err *err);
/* 1 when this build has METIS (ordering metis works), else 0. */
int rt_ordering_metis_available(void);
/* METIS k-way ordering of a square matrix into min(parts, rows) parts (parts >= 2). perm gets
 * a->rows entries. part_start, when not NULL, gets parts + 1 entries: the rows of part p are
 * [part_start[p], part_start[p+1]) in the new numbering (parts beyond the row count are empty).
 * edgecut, when not NULL, gets the number of undirected off-diagonal edges between parts. The
 * partition is deterministic (fixed METIS seed). */
int rt_ordering_metis(const rt_csr *a, int64_t parts, int64_t *perm, int64_t *part_start,
                      int64_t *edgecut, rt_err *err);
/* inv[perm[i]] = i. */
void rt_ordering_invert(const int64_t *perm, int64_t n, int64_t *inv);
/* out = a reordered by kind (natural copies; hilbert is an error here, see above). arg is the
 * seed of random and the part count of metis (as rt_ordering_parse gives them). */
int rt_ordering_apply(const rt_csr *a, rt_ordering_kind kind, uint64_t arg, rt_csr *out,
                      rt_err *err);
/* max |i - j| over the stored entries (0 for an empty or diagonal matrix). */
int64_t rt_ordering_bandwidth(const rt_csr *a);

#endif
