/* rt_mmio: Matrix Market files to and from CSR.
 *
 * The reader accepts the `matrix` object in `coordinate` or `array` format with `real`, `double`,
 * `integer` or `pattern` fields (pattern entries become 1.0) and `general`, `symmetric` or
 * `skew-symmetric` symmetry (the stored triangle is mirrored; skew mirrors with the sign flipped;
 * a symmetric diagonal is not duplicated). `complex` and `hermitian` are refused. Duplicate
 * coordinate entries are summed; explicit zeros of the coordinate format are kept as stored
 * entries; zeros of the dense `array` format are dropped (they are not part of a sparse pattern).
 * Comment lines (starting with '%') and blank lines may appear anywhere after the banner.
 *
 * Every error names "path:line: ..." and says what was expected. Sizes are checked before any
 * allocation: a header that declares more than this host's memory (or the caller's budget),
 * negative sizes or more than 2^31-1 columns (the CSR column index limit) is refused without
 * trying. The entry list is sized by the smaller of the declared count and what the rest of the
 * file can hold, so a short file that promises billions of entries is reported as truncated
 * without allocating for them. */
#ifndef RT_MMIO_H
#define RT_MMIO_H

#include <stdio.h>

#include "rt_error.h"
#include "rt_matrix.h"

/* Reads path into out (0-based CSR, sorted, no duplicates). On failure out is left empty. */
int rt_mmio_read(const char *path, rt_csr *out, rt_err *err);
/* Same, from an open stream; `name` is used in messages in place of a path. */
int rt_mmio_read_stream(FILE *f, const char *name, rt_csr *out, rt_err *err);
/* The same two with a memory budget: a file whose size line implies more than max_bytes of
 * reader memory is refused before anything is allocated (max_bytes = 0: this host's physical
 * memory, which is what the plain readers use). A caller that shares the host (one rank of
 * several, a fuzzer under its malloc limit) passes its share. */
int rt_mmio_read_within(const char *path, double max_bytes, rt_csr *out, rt_err *err);
int rt_mmio_read_stream_within(FILE *f, const char *name, double max_bytes, rt_csr *out,
                               rt_err *err);
/* Writes m as "coordinate real general" with 1-based indices and values printed with 17
 * significant digits, so reading the file back gives a bit-identical matrix. */
int rt_mmio_write(const char *path, const rt_csr *m, rt_err *err);
int rt_mmio_write_stream(FILE *f, const char *name, const rt_csr *m, rt_err *err);

#endif
