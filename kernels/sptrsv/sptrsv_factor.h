/* sptrsv_factor: the lower-triangular factor L of a supernodal Cholesky factorisation
 * P A P^T = L L^T computed by CHOLMOD, kept both supernodal (dense column blocks) and as CSR.
 *
 * Supernode s owns the consecutive columns [first[s], first[s+1]); its row structure is
 * rows[rowstart[s] .. rowstart[s+1]) (ascending; the first ncols(s) rows are its own columns, the
 * diagonal block), and its values are the column-major nrows x ncols block at val + valstart[s]
 * with leading dimension ld[s] (ld >= nrows: a supernode split by the size cap keeps pointing
 * into its parent's block). The CSR copy has the diagonal last in every row.
 *
 * A matrix that is not symmetric, not positive definite or numerically singular fails with a
 * message saying which (and the column where the factorisation broke down). Without CHOLMOD in the
 * build every factorisation fails, saying so. */
#ifndef SPTRSV_FACTOR_H
#define SPTRSV_FACTOR_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"

typedef enum sptrsv_ordering {
    SPTRSV_ORDER_AMD = 0,
    SPTRSV_ORDER_METIS = 1,
    SPTRSV_ORDER_NATURAL = 2
} sptrsv_ordering;

/* "amd", "metis", "natural"; -1 when unknown. */
int sptrsv_ordering_parse(const char *s);

typedef struct sptrsv_factor {
    int64_t n;
    int64_t nsuper;
    int64_t *first;    /* nsuper + 1 */
    int64_t *rowstart; /* nsuper + 1 */
    int32_t *rows;     /* rowstart[nsuper] */
    int64_t *valstart; /* nsuper */
    int64_t *ld;       /* nsuper */
    int64_t *origin;   /* nsuper: the CHOLMOD supernode each piece was cut from */
    double *val;
    int64_t nval;               /* entries of val */
    rt_csr csr;                 /* L by rows, diagonal last */
    int64_t *perm;              /* n: row i of L belongs to row perm[i] of A */
    double analyse_s, factor_s; /* CHOLMOD's symbolic and numeric phases, wall clock */
    int64_t cholmod_nsuper;     /* supernodes before the size cap split them */
} sptrsv_factor;

static inline int64_t sptrsv_ncols(const sptrsv_factor *f, int64_t s)
{
    return f->first[s + 1] - f->first[s];
}
static inline int64_t sptrsv_nrows(const sptrsv_factor *f, int64_t s)
{
    return f->rowstart[s + 1] - f->rowstart[s];
}

/* Factorises the symmetric matrix a (both triangles stored) with `ordering`; max_supernode > 0
 * splits every supernode into pieces of at most that many columns (0: as CHOLMOD amalgamated
 * them). */
int sptrsv_factor_create(const rt_csr *a, sptrsv_ordering ordering, int64_t max_supernode,
                         sptrsv_factor *out, rt_err *err);
void sptrsv_factor_free(sptrsv_factor *f);

/* The same through the factor cache of cache_dir (sptrsv_factor_cache.h; NULL or "": none):
 * *cached = 1 when the factorisation was read from it. */
int sptrsv_factor_create_cached(const rt_csr *a, sptrsv_ordering ordering, int64_t max_supernode,
                                const char *cache_dir, sptrsv_factor *out, int *cached,
                                rt_err *err);

/* The supernode of every column (n entries), for the owner of a row. */
int sptrsv_factor_col_super(const sptrsv_factor *f, int64_t **out, rt_err *err);

/* Builds a factor directly from a lower-triangular CSR matrix (diagonal last and nonzero in every
 * row) with one column per supernode: for tests of the DAG and the model on hand-made graphs. */
int sptrsv_factor_from_lower(const rt_csr *l, sptrsv_factor *out, rt_err *err);

#endif
