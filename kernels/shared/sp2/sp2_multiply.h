/* sp2_multiply: One product C(i,j) += A(i,k) B(k,j) with both tiles already on this rank: the
 * engine multiplies, and the result is added to an owned C tile or pushed to its owner's queue;
 * time, flops and per-stage flops are booked to the current execution. */
#ifndef SP2_MULTIPLY_H
#define SP2_MULTIPLY_H

#include "rt_error.h"
#include "sp2_state.h"

int sp2_multiply(sp2_state *s, const sp2_item *it, const void *ablk, const void *bblk, rt_err *err);

#endif
