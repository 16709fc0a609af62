/* sptrsv_pplan: the schedule of the persistent message-driven solve (sptrsv.cpu.persistent and
 * sptrsv.cuda.persistent), transport-free and the same on every part (a GPU, or a process), so
 * each part knows where its messages land without asking. After Ding, Williams, Liu, Li: the
 * supernodal blocks of L are mapped to parts in a P x 1 or a 2D layout, each part solves the
 * diagonal blocks it owns and multiplies the off-diagonal blocks it holds; x travels from a
 * diagonal block's owner to the parts whose blocks need it (a broadcast), partial sums from the
 * parts that computed them to the owner (a reduction). Here the tree is flat: the owner writes
 * every copy itself (one hop each; a few parts of one NVLink host share a switch).
 *
 * Work. Supernode s has its diagonal step DIAG(s): x_s = inv(L_ss) (b_s - lsum_s - partials of s
 * from other parts), or inv(L_ss)^T (...) for the backward solve L^T x = b. The rows below a
 * supernode J are cut into chunks (at most chunk_rows rows, one part each): forward, a chunk adds
 * L(rows, J) x_J into the partial sums of the rows' supernodes; backward, it adds L(rows, J)^T x
 * (of the rows) into J's. A task is a list of steps one worker (a GPU thread block, a CPU thread)
 * runs in order, after waiting for everything the task needs from other tasks:
 *   - DIAG(s), then the chunk next on s's critical chain when it is on the same part (forward:
 *     J = s's first chunk; backward: the first chunk of s - 1, whose rows are s's): the chain
 *     step costs no hand-over;
 *   - one more chunk;
 *   - a leaf subtree of the elimination tree whose L is at most leaf_bytes: every DIAG and chunk
 *     in it, in postorder (backward: reversed), so the bottom of the tree is a few large tasks
 *     rather than many tiny ones.
 *
 * Signals. Every part keeps, per supernode s, an x flag (x_s is present here) and a counter.
 * A chunk whose output s has its DIAG in another task adds one to s's counter on its own part;
 * on s's owner the DIAG waits for target[owner][s] signals per execution; on another part the
 * chunk that brings the counter to its target sends that part's partial sums of s into a slot of
 * the owner's receive area and adds one to the owner's counter. Counters and flags are never
 * reset: execution e waits for e x target (flags for e), so a duplicated signal shows. A DIAG
 * writes x_s to the parts in its x-destination list, then sets their flags.
 *
 * Order. Every part's workers take its tasks from one ticket counter in the order of their start
 * in an estimated schedule (ASAP), a topological order of the tasks of all parts, and a worker
 * holds a task until its inputs come: the unfinished task earliest in that order always has its
 * inputs and a worker, so no schedule deadlocks however the parts interleave. */
#ifndef SPTRSV_PPLAN_H
#define SPTRSV_PPLAN_H

#include <stdint.h>

#include "rt_error.h"
#include "sptrsv_dag.h"
#include "sptrsv_factor.h"

typedef enum sptrsv_pmap {
    SPTRSV_PMAP_CYCLIC = 0, /* owner of s: the paper's block cyclic (s mod Pr, s mod Pc) */
    SPTRSV_PMAP_SUBTREE = 1 /* subtrees of the elimination tree to parts, balanced by bytes;
                               the pieces of one CHOLMOD supernode on one part */
} sptrsv_pmap;

typedef struct sptrsv_pplan_opts {
    int parts;     /* P */
    int grid_rows; /* Pr, a divisor of P; Pc = P / Pr. P: the P x 1 layout, 1: 1 x P */
    sptrsv_pmap map;
    int backward;        /* L^T x = b */
    int64_t nrhs;        /* right-hand sides (message sizes, slot sizes) */
    int64_t chunk_rows;  /* most rows of one chunk (>= 1) */
    int64_t leaf_bytes;  /* largest leaf subtree (bytes of L) run as one task; 0: none */
    int64_t max_columns; /* widest supernode allowed (the inverse diagonal blocks), 0: any */
} sptrsv_pplan_opts;

/* A step code: DIAG(s) is s (>= 0), chunk c is -1 - c. A wait code: x flag of s is s, the
 * counter of s is -1 - s. */
#define SPTRSV_PSTEP_CHUNK(c) (-1 - (c))
#define SPTRSV_PSTEP_ID(code) ((code) >= 0 ? (code) : -1 - (code))

typedef struct sptrsv_pplan {
    sptrsv_pplan_opts o;
    int grid_cols; /* Pc */
    int64_t n, nsuper;
    int *home;          /* nsuper: the part of DIAG(s) */
    int64_t *parent;    /* nsuper: elimination-tree parent, -1 for a root */
    int64_t *leaf;      /* nsuper: the leaf task holding s, -1 when none */
    int64_t *diag_task; /* nsuper: the task of DIAG(s) */
    /* Chunks: supernode, positions [p0, p1) in its row list (p0 >= ncols), part, task; the
     * supernodes whose x the chunk waits for (deps) and whose counters it signals (outs). */
    int64_t nchunks;
    int64_t *ch_super, *ch_task;
    int32_t *ch_p0, *ch_p1;
    int *ch_part;
    int64_t *ch_dep_ptr, *ch_dep, *ch_out_ptr, *ch_out;
    /* Tasks: part, steps (codes), waits (codes), estimated start (the ticket order). */
    int64_t ntasks;
    int *task_part;
    int64_t *task_step_ptr, *task_step, *task_wait_ptr, *task_wait;
    double *task_key;
    /* Tickets: the tasks of part g in order, ticket[ticket_ptr[g] ..]. */
    int64_t *ticket_ptr, *ticket;
    /* Per part g and supernode s (index g * nsuper + s): signals expected per execution. */
    int64_t *target;
    /* x of s goes from home(s) to the parts xdst[xdst_ptr[s] ..]. */
    int64_t *xdst_ptr;
    int *xdst;
    /* Partials of s reach home(s) in slots: recv_off[recv_ptr[s] ..] (doubles into the owner's
     * receive area); part g's slot for s is red_off[g * nsuper + s] (-1: g sends none). */
    int64_t *recv_ptr, *recv_off, *red_off;
    int64_t *recv_doubles; /* parts: the receive area of each part */
    /* Per part: what it owns and runs, and what it sends per execution. */
    int64_t *owned, *tasks_of, *x_sent, *partials_sent;
    double *bytes_of;   /* L, x and partial-sum bytes its steps touch */
    double *link_bytes; /* bytes it writes into other parts' memory */
    int64_t x_messages, partial_messages;
    int64_t leaf_tasks, fused_steps;
} sptrsv_pplan;

/* Builds the plan of f (split so that no supernode exceeds o->max_columns) for o->parts parts.
 * Fails with a message naming the option or the supernode for a layout that does not divide
 * the parts, a supernode wider than max_columns, or a plan that would not be deadlock-free. */
int sptrsv_pplan_build(const sptrsv_factor *f, const sptrsv_dag *d, const sptrsv_pplan_opts *o,
                       sptrsv_pplan *out, rt_err *err);
void sptrsv_pplan_free(sptrsv_pplan *p);

/* Bytes of L a step touches (values and row indices), the basis of every cost estimate. */
double sptrsv_pplan_step_bytes(const sptrsv_factor *f, const sptrsv_pplan *p, int64_t code);

/* The block-cyclic owner a layout gives the block (I, J) with diagonal owners hi, hj. */
int sptrsv_pplan_block_part(const sptrsv_pplan *p, int home_i, int home_j);

#endif
