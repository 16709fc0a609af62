/* sp2_accum: partial C tiles through the remote accumulation queues. A message is a header (C
 * tile, first row, rows and, for SpGEMM, nonzeros) and whole rows of the partial tile, dense or
 * CSR; the sender splits a tile into messages that fit a slot, the owner's handler checks each
 * message against the tile it names and adds it in. */
#ifndef SP2_ACCUM_H
#define SP2_ACCUM_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "sp2_state.h"

/* Header of a queue message: C tile, first row, rows (and for SpGEMM, nonzeros). */
enum { SP2_HDR_DENSE = 3 * 8, SP2_HDR_SPARSE = 4 * 8 };

/* Bytes of a sparse message of nrows rows and nnz nonzeros of eb bytes each. */
int64_t sp2_sparse_msg_bytes(int64_t nrows, int64_t nnz, size_t eb);

/* The queue's handler (ctx is the sp2_state): accumulates one message into its C tile. */
int sp2_on_message(void *ctx, const void *msg, size_t bytes, rt_err *err);

/* Sends a dense partial C tile (rows x cols, row-major) to its owner in row chunks. */
int sp2_push_dense(sp2_state *s, int owner, int ci, const void *part, int64_t rows, int64_t cols,
                   rt_err *err);

/* Sends a sparse partial C tile (CSR) to its owner in chunks of whole rows. */
int sp2_push_sparse(sp2_state *s, int owner, int ci, const sp2_csrbuf *p, rt_err *err);

#endif
