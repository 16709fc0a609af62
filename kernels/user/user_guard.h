/* user_guard: guard zones around every array a user kernel gets, so an out-of-bounds write is
 * caught instead of silently corrupting a neighbour (or rooftune).
 *
 * The arguments of one point live in one block laid out as
 *
 *     [guard][array 0][pad][guard] [guard][array 1][pad][guard] ... [scalar 0][scalar 1] ...
 *
 * each guard USER_GUARD_BYTES of a pattern whose bytes differ from their neighbours (so a write of
 * any constant is seen), each array starting on a 256-byte boundary. The CPU path shares the block
 * with its worker process; the CUDA path allocates the same layout on the device. After a run the
 * guards are compared with the pattern; a changed byte is an out-of-bounds write, named by the
 * array and the side it overran. */
#ifndef USER_GUARD_H
#define USER_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "user_spec.h"

#define USER_GUARD_BYTES 4096
#define USER_SCALAR_SLOT 16

typedef struct user_layout {
    size_t total;                 /* bytes of the whole block */
    size_t offset[USER_MAX_ARGS]; /* where each argument's data starts */
    size_t bytes[USER_MAX_ARGS];  /* its data bytes (scalars: their type's size) */
    int64_t count[USER_MAX_ARGS]; /* arrays: elements; scalars: 1 */
} user_layout;

/* Lays out the arguments of spec with the arrays' element counts (counts[i] for arguments that
 * are arrays; others ignored). */
int user_layout_make(const user_spec *spec, const int64_t *counts, user_layout *out, rt_err *err);

/* Writes the pattern into every guard of the block at base. */
void user_guard_fill_all(const user_spec *spec, const user_layout *l, unsigned char *base);
/* The pattern of one guard (n bytes): what user_guard_fill_all writes there. */
void user_guard_pattern(unsigned char *guard, size_t n);

/* Bytes from the end of array i's data to the end of its guard: the padding up to the next
 * 256-byte boundary belongs to the guard zone too. */
size_t user_guard_tail_bytes(const user_layout *l, int i);

/* Checks every guard of the block at base: fails naming the first array whose guard changed,
 * which side, how many bytes and how far from the array. */
int user_guard_check_all(const user_spec *spec, const user_layout *l, const unsigned char *base,
                         const char *kernel, rt_err *err);
/* The same for array arg, given copies of its zone before its data (USER_GUARD_BYTES) and after
 * it (user_guard_tail_bytes): the GPU path downloads only these. */
int user_guard_check(const user_spec *spec, const user_layout *l, int arg,
                     const unsigned char *before, const unsigned char *after, const char *kernel,
                     rt_err *err);

#endif
