/* sp2_summa: The two bulk-synchronous algorithms: SUMMA (A tiles broadcast along process
 * rows, B tiles down process columns, then local multiplies) and reduce-based stationary-A SUMMA
 * (B tiles broadcast down process columns, partial C reduced along process rows). Broadcast
 * bytes are counted by the receiver, like a get. */
#ifndef SP2_SUMMA_H
#define SP2_SUMMA_H

#include "rt_error.h"
#include "sp2_state.h"

int sp2_summa_loop(sp2_state *s, rt_err *err);
int sp2_summa_a_loop(sp2_state *s, rt_err *err);

#endif
