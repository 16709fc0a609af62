/* sptrsv_factor_cache: CHOLMOD's supernodal factor as it comes out of the factorisation (before
 * sptrsv_factor splits supernodes), and a file cache of it, so that a factor of minutes is made
 * once per machine and read back by every later rank, point and run.
 *
 * The cache is a folder (ROOFTUNE_FACTOR_CACHE, else $ROOFTUNE_CACHE_DIR/sptrsv-factors; none when
 * both are unset). A factor is keyed by a hash of the matrix (its size, structure and values) and
 * the ordering; its file is sptrsv-<key>.factor, written to a temporary name and renamed, so a
 * reader never sees half a file. Ranks that start together take turns on sptrsv-<key>.lock
 * (fcntl record locks, one process at a time): the first one factorises and writes, the others
 * wait and then read, instead of running CHOLMOD (and its BLAS threads) side by side. A file that
 * does not match its header (another version, a truncated write) is factorised again and
 * replaced. */
#ifndef SPTRSV_FACTOR_CACHE_H
#define SPTRSV_FACTOR_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"

/* CHOLMOD's arrays (0-based): supernode s has the columns [super[s], super[s+1]), the rows
 * srows[pi[s] .. pi[s+1]) and the column-major values x + px[s] (leading dimension
 * pi[s+1] - pi[s]); perm[i] is the row of A that row i of L belongs to. */
typedef struct sptrsv_raw_factor {
    int64_t n, nsuper, nrows, nval; /* nrows = pi[nsuper], nval: entries of x */
    int64_t *super, *pi, *px;       /* nsuper + 1 each */
    int32_t *srows;                 /* nrows */
    double *x;                      /* nval */
    int64_t *perm;                  /* n */
    double analyse_s, factor_s;     /* the factorisation's own times (kept in the file) */
} sptrsv_raw_factor;

/* Allocates the arrays for the sizes set in r (n, nsuper, nrows, nval). */
int sptrsv_raw_alloc(sptrsv_raw_factor *r, rt_err *err);
void sptrsv_raw_free(sptrsv_raw_factor *r);

/* The cache folder from the environment into dir ("" when caching is off). */
void sptrsv_factor_cache_dir(char *dir, size_t len);

/* The key of a factorisation: the matrix and the ordering (an sptrsv_ordering). */
uint64_t sptrsv_factor_cache_key(const rt_csr *a, int ordering);

/* Reads the factor of `key` from dir into r. Returns 1 when found and whole, 0 when absent or
 * unusable (why says which, for the log), -1 on an error (err filled). */
int sptrsv_factor_cache_read(const char *dir, uint64_t key, sptrsv_raw_factor *r, char *why,
                             size_t whylen, rt_err *err);

/* Writes r as the factor of `key` (temporary file, then rename). -1 with err on failure. */
int sptrsv_factor_cache_write(const char *dir, uint64_t key, const sptrsv_raw_factor *r,
                              rt_err *err);

/* The per-key lock around "read, else factorise and write": *fd >= 0 holds it. */
int sptrsv_factor_cache_lock(const char *dir, uint64_t key, int *fd, rt_err *err);
void sptrsv_factor_cache_unlock(int fd);

#endif
