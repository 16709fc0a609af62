/* sp2_dist: a matrix split in tiles over the process grid and kept in an RMA window, so any
 * rank can fetch any tile with one-sided gets and no help from its owner (Brock, Buluc, Yelick,
 * sections 3.1 and 5.2).
 *
 * Every rank holds a directory: tile (ti, tj) -> owner rank, byte offset of the tile in the
 * owner's window, rows, columns, nonzeros and bytes. The directory is assembled by an allgather of
 * what each owner packed, as it would be when no rank held the whole matrix.
 *
 * A tile is one packed block in its owner's window, 8-byte aligned:
 *   sparse (CSR, indices local to the tile):
 *     int64 rowptr[rows + 1] | int32 colidx[nnz] (padded to 8 bytes) | values[nnz]
 *   dense (row-major, leading dimension = cols):
 *     values[rows * cols]
 * values in the matrix's precision (float or double). A sparse tile is fetched with three gets
 * (row pointers, column indices, values, as in the paper), a dense tile with one; a staging buffer
 * receives them in the same packed layout, so a fetched tile and a local one are read alike. */
#ifndef SP2_DIST_H
#define SP2_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "rt_comm.h"
#include "rt_comm_rma.h"
#include "rt_error.h"
#include "rt_matrix.h"
#include "sp2_layout.h"

typedef enum sp2_kind { SP2_SPARSE = 0, SP2_DENSE = 1 } sp2_kind;

/* One directory entry. */
typedef struct sp2_tile_info {
    int owner;
    int64_t offset; /* in the owner's window */
    int64_t rows, cols, nnz;
    int64_t bytes; /* of the packed block */
} sp2_tile_info;

/* A read-only view of a tile (local, staged or received). For dense tiles nnz = rows * cols and
 * rowptr/colidx are NULL. */
typedef struct sp2_tile {
    sp2_kind kind;
    rt_precision prec;
    int64_t rows, cols, nnz;
    const int64_t *rowptr;
    const int32_t *colidx;
    const void *val;
} sp2_tile;

typedef struct sp2_dmat {
    sp2_kind kind;
    rt_precision prec;
    sp2_owner_kind own;
    int tr, tc; /* tile grid */
    int64_t rows, cols;
    int64_t *row_bounds; /* tr + 1 */
    int64_t *col_bounds; /* tc + 1 */
    sp2_tile_info *dir;  /* tr * tc, row-major by tile */
    rt_rma_win *win;
    unsigned char *local; /* this rank's window memory */
    int64_t max_bytes;    /* largest packed tile: the size of a staging buffer */
    int64_t local_nnz;    /* nonzeros (sparse) or elements (dense) this rank owns */
    char name[48];
} sp2_dmat;

/* Values of a generated dense matrix, element by element (independent of the tiling). */
typedef double (*sp2_value_fn)(const void *ctx, int64_t row, int64_t col);

/* Byte sizes of the packed layout. */
int64_t sp2_sparse_block_bytes(int64_t rows, int64_t nnz, rt_precision prec);
int64_t sp2_dense_block_bytes(int64_t rows, int64_t cols, rt_precision prec);

/* Nonzeros of every tile of `a` under the given bounds (counts: tr * tc, row-major by tile). */
int sp2_tile_nnz(const rt_csr *a, int tr, const int64_t *row_bounds, int tc,
                 const int64_t *col_bounds, int64_t *counts, rt_err *err);

/* Builds the tiles of sparse `a` (the whole matrix, held by every rank) that this rank owns under
 * `own`, the window and the directory. Collective over world: every rank calls it with the same
 * arguments. On failure on any rank, every rank fails (the rank is named) and d holds nothing. */
int sp2_dmat_sparse(sp2_dmat *d, rt_comm *comm, const sp2_layout *L, sp2_owner_kind own,
                    const rt_csr *a, int tr, int tc, rt_precision prec, const char *name,
                    rt_err *err);
/* Same for a dense rows x cols matrix whose values come from fn (each rank generates only its
 * own tiles). */
int sp2_dmat_dense(sp2_dmat *d, rt_comm *comm, const sp2_layout *L, sp2_owner_kind own,
                   int64_t rows, int64_t cols, int tr, int tc, rt_precision prec, sp2_value_fn fn,
                   const void *ctx, const char *name, rt_err *err);
/* Collective (frees the window). Safe on a zeroed d. */
void sp2_dmat_free(sp2_dmat *d);

const sp2_tile_info *sp2_dmat_info(const sp2_dmat *d, int ti, int tj);
/* Pointer to the packed block of a tile this rank owns; NULL when another rank owns it. */
const void *sp2_dmat_local_block(const sp2_dmat *d, int ti, int tj);
/* View of a packed block of tile (ti, tj) (local, staged or received). */
void sp2_dmat_view(const sp2_dmat *d, int ti, int tj, const void *block, sp2_tile *out);

/* Non-blocking fetch of tile (ti, tj) into staging (at least info->bytes bytes): one get per
 * array of the packed block, req must have room for 3. Wait with sp2_fetch_wait. */
typedef struct sp2_fetch {
    int n;
    rt_rma_req req[3];
} sp2_fetch;
int sp2_dmat_fetch(sp2_dmat *d, int ti, int tj, void *staging, sp2_fetch *f, rt_err *err);
int sp2_fetch_wait(sp2_fetch *f, rt_err *err);

/* Agreement used by every collective step of the module and the kernels: all ranks learn whether
 * each succeeded. Returns 0 when all did; otherwise -1 with err holding the first failing rank's
 * message prefixed "rank R: " (on every rank). */
int sp2_agree(rt_comm *comm, int local_ok, rt_err *err);

#endif
