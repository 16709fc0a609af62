/* eigen_tiles: the matrix in row blocks of `tile` rows, cut again by column blocks of the same
 * size into packed sparse blocks A(i, j) (only the nonzero ones), and block vectors tiled the same
 * way. Every block and every row tile is an object of the memory manager. */
#ifndef EIGEN_TILES_H
#define EIGEN_TILES_H

#include <stdint.h>

#include "eigen_mem.h"
#include "rt_matrix.h"

typedef struct eg_ablock {
    int64_t j; /* column tile */
    int64_t rows, cols, nnz;
    void *host; /* packed (eigen_packed.h) */
    int obj;
} eg_ablock;

typedef struct eg_tiling {
    int64_t n, tile, ntiles;
    int64_t *blk_ptr; /* ntiles + 1: blocks of row tile i are blocks[blk_ptr[i] .. blk_ptr[i+1]) */
    eg_ablock *blocks;
    int64_t n_blocks;
    double a_bytes; /* packed bytes of all blocks */
} eg_tiling;

/* Rows of tile i. */
int64_t eg_tile_rows(const eg_tiling *t, int64_t i);

/* Cuts a square matrix; registers every block with m. */
int eg_tiling_build(eg_tiling *t, const rt_csr *a, int64_t tile, eg_mem *m, rt_err *err);
void eg_tiling_free(eg_tiling *t);

/* A block vector: n x width, row-major on the host, one object per row tile. */
typedef struct eg_bvec {
    int64_t n, width, ntiles;
    double *host;
    int *obj;
    const char *what;
} eg_bvec;

int eg_bvec_init(eg_bvec *v, const eg_tiling *t, int64_t width, const char *what, eg_mem *m,
                 rt_err *err);
void eg_bvec_free(eg_bvec *v);

/* A small dense matrix (rows x cols), one object; per-tile partial buffers are arrays of these. */
typedef struct eg_small {
    int64_t rows, cols;
    double *host;
    int obj;
} eg_small;

int eg_small_init(eg_small *s, int64_t rows, int64_t cols, const char *what, int64_t tag, eg_mem *m,
                  rt_err *err);
void eg_small_free(eg_small *s);

/* A solver's buffers described once, for their allocation and their release alike: block
 * vectors over the tiles (eg_bvecs), arrays of n doubles on the host (eg_doubles), and small
 * matrices (eg_smalls): one, or one per tile (an array of ntiles, each registered with its tile
 * index as tag). */
typedef struct eg_bvecs {
    eg_bvec *v;
    int64_t width;
    const char *what;
} eg_bvecs;
typedef struct eg_doubles {
    double **p;
    int64_t n;
} eg_doubles;
typedef struct eg_smalls {
    eg_small *one;       /* or NULL, and then: */
    eg_small **per_tile; /* an array of ntiles */
    int64_t rows, cols;
    const char *what;
} eg_smalls;

#define EG_MAX_BUFFERS 16
typedef struct eg_buffers {
    int nv, nd, ns;
    eg_bvecs v[EG_MAX_BUFFERS];
    eg_doubles d[EG_MAX_BUFFERS];
    eg_smalls s[EG_MAX_BUFFERS];
} eg_buffers;

/* Allocates, in this order (the memory manager registers them so): the block vectors, the doubles
 * (zeroed), the per-tile smalls tile by tile, the single smalls. who names the solver in
 * messages. 0 or -1; on failure what was allocated is left for eg_buffers_free. */
int eg_buffers_init(const eg_buffers *b, const eg_tiling *t, eg_mem *m, const char *who,
                    rt_err *err);
/* Releases what eg_buffers_init allocated (partly built buffers are fine). */
void eg_buffers_free(const eg_buffers *b, int64_t ntiles);

#endif
