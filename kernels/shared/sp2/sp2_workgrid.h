/* sp2_workgrid: a grid of 64-bit work counters spread over the ranks, claimed with remote
 * fetch-and-add (Brock, Buluc, Yelick, section 3.4: the reservation grids of the work-stealing
 * algorithms). Element e lives on owner[e]; a claim adds 1 and returns the value before, so the
 * value a claimer sees is unique: 0 means "this piece is mine" in a 3D grid, and j < N means
 * "column j is mine" in a 2D grid whose counter hands out the pieces of one tile in turn. */
#ifndef SP2_WORKGRID_H
#define SP2_WORKGRID_H

#include <stdint.h>

#include "rt_comm.h"
#include "rt_comm_rma.h"
#include "rt_error.h"

typedef struct sp2_workgrid sp2_workgrid;

/* Collective over world. owner[e] (0..P-1) for e < n, the same on every rank; copied. */
int sp2_workgrid_create(rt_comm *comm, int64_t n, const int *owner, sp2_workgrid **out,
                        rt_err *err);
void sp2_workgrid_free(sp2_workgrid *g); /* collective */
/* Zeroes this rank's counters (local; the caller puts a barrier before the first claim). */
int sp2_workgrid_reset(sp2_workgrid *g, rt_err *err);
/* Atomically increments element e and returns its previous value. */
int sp2_workgrid_claim(sp2_workgrid *g, int64_t e, int64_t *old, rt_err *err);
int sp2_workgrid_owner(const sp2_workgrid *g, int64_t e);
int64_t sp2_workgrid_size(const sp2_workgrid *g);

#endif
