/* sptrsv_dag: the dependency graphs of the forward solve L x = b.
 *
 * Scalar DAG: row i depends on every row j < i with L(i, j) != 0; its level is 1 + the largest
 * level of those rows (rows with no dependency are level 0), so the level count is the number of
 * rows on the longest dependency chain: the level-set solve's critical path.
 *
 * Supernodal DAG: supernode s depends on supernode t < s when a row of s appears below t's
 * diagonal block (L(rows of s, columns of t) != 0): x of t must be known before s can be solved.
 * Its levels are defined the same way; super_levels is the length, in supernodes, of the longest
 * chain: the critical path of a supernodal (level-set or message-driven) solve. */
#ifndef SPTRSV_DAG_H
#define SPTRSV_DAG_H

#include <stdint.h>

#include "rt_error.h"
#include "sptrsv_factor.h"

typedef struct sptrsv_dag {
    int64_t n, nsuper;
    /* Scalar level sets: rows of level k are level_rows[level_ptr[k] .. level_ptr[k+1]). */
    int64_t n_levels;
    int64_t *level_ptr;  /* n_levels + 1 */
    int32_t *level_rows; /* n */
    /* Supernodal DAG: successors (supernodes that need x of s) and predecessors, as CSR. */
    int64_t *col_super; /* n: the supernode of each column */
    int64_t *succ_ptr;  /* nsuper + 1 */
    int64_t *succ;
    /* Rows of edge e (s -> succ[e]): positions [succ_rbeg[e], succ_rend[e]) of f->rows, the rows
     * of the successor below s's diagonal block (a contiguous range, since rows ascend). */
    int64_t *succ_rbeg, *succ_rend;
    int64_t *pred_ptr; /* nsuper + 1 */
    int64_t *pred;
    int64_t n_edges;
    int64_t *super_level; /* nsuper */
    int64_t super_levels;
    int64_t max_level_width; /* rows in the widest scalar level */
} sptrsv_dag;

int sptrsv_dag_build(const sptrsv_factor *f, sptrsv_dag *out, rt_err *err);
void sptrsv_dag_free(sptrsv_dag *d);

#endif
