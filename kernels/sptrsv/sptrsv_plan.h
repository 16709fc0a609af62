/* sptrsv_plan: the distributed solve's layout and messages, transport-free and the same on every
 * rank (so senders know where their messages land without asking).
 *
 * P x 1 block layout: block row s (supernode s's diagonal block and every L(rows of s, columns of
 * t), t < s) belongs to rank owner[s] = s mod P, which solves x_s once every x_t it needs has
 * arrived. x_s travels from its owner to every other rank owning a successor of s along a binary
 * tree: the participants are tree_rank[tree_ptr[s] ..] with the owner (the root) first and the
 * others ascending; position q forwards to positions 2q + 1 and 2q + 2.
 *
 * Every non-root position q of a tree is one message into one slot of that rank's window:
 * slot_off[q] bytes from the window's start, an 8-byte arrival counter followed by x_s
 * (ncols(s) x nrhs doubles). */
#ifndef SPTRSV_PLAN_H
#define SPTRSV_PLAN_H

#include <stdint.h>

#include "rt_error.h"
#include "sptrsv_dag.h"
#include "sptrsv_factor.h"

typedef struct sptrsv_plan {
    int nranks;
    int64_t nsuper, nrhs;
    int *owner;         /* nsuper */
    int64_t *tree_ptr;  /* nsuper + 1 */
    int *tree_rank;     /* participants of every tree, root first */
    int64_t *slot_off;  /* aligned with tree_rank; -1 for roots */
    int64_t *win_bytes; /* nranks: window size of each rank */
    int64_t *recvs;     /* nranks: messages each rank receives per solve */
    int64_t *sends;     /* nranks: messages each rank sends per solve */
    int64_t *owned;     /* nranks: supernodes each rank solves */
    int64_t messages;   /* in all, per solve */
    int tree_depth;     /* deepest tree (edges from the root) */
} sptrsv_plan;

int sptrsv_plan_build(const sptrsv_factor *f, const sptrsv_dag *d, int nranks, int64_t nrhs,
                      sptrsv_plan *out, rt_err *err);
void sptrsv_plan_free(sptrsv_plan *p);

/* Position of `rank` in the tree of s, or -1 when it takes no part. */
int64_t sptrsv_plan_tree_pos(const sptrsv_plan *p, int64_t s, int rank);

#endif
