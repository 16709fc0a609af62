/* sp2_layout: the 2D process grid and the tile grids of C = A * B (A m x k, B k x n), and who
 * owns which tile (Brock, Buluc, Yelick, ICS'24, sections 2.1 and 5.2: regular tiles on the
 * indices, assigned to processes through a process grid as in ScaLAPACK).
 *
 * Process grid: pr x pc with pc = P / pr; rank = row * pc + col. pr = 0 picks the most square
 * grid (the largest divisor of P not above sqrt(P)), so P = 6 runs on 2 x 3 and P = 3 on 1 x 3.
 *
 * Tile grid: refine (>= 1) makes the tile grid finer than the process grid:
 *   MT = pr * refine tile rows of A and C, NT = pc * refine tile columns of B and C,
 *   KT = lcm(pr, pc) * refine tiles along the inner dimension.
 * KT is a multiple of both pr and pc so that every process holds the same number of A tiles and of
 * B tiles (block-cyclic ownership below), on square and non-square grids alike.
 * Tile t of a dimension of length len split in T parts covers [len * t / T, len * (t+1) / T).
 *
 * Ownership (block-cyclic over the process grid):
 *   A(i, k) -> process (i mod pr, k mod pc)
 *   B(k, j) -> process (k mod pr, j mod pc)
 *   C(i, j) -> process (i mod pr, j mod pc)
 *   B^T-style B(k, j) -> process (j mod pr, k mod pc): the layout the reduce-based stationary-A
 *   SUMMA needs, so that its broadcast of B runs inside process columns.
 * With this ownership bulk-synchronous SUMMA works on any pr x pc grid: at step k the owners of
 * A(:, k) are process column k mod pc (a row broadcast) and of B(k, :) process row k mod pr (a
 * column broadcast).
 *
 * Canonical rows: whatever the grid, rank r's share of the verified output is the rows
 * [m * r / P, m * (r+1) / P) of C. The family's reference cannot depend on a kernel's process
 * grid, so kernels hand their C tiles over to this layout for verification (untimed). */
#ifndef SP2_LAYOUT_H
#define SP2_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

typedef enum sp2_owner_kind {
    SP2_OWN_A = 0,
    SP2_OWN_B = 1,
    SP2_OWN_C = 2,
    SP2_OWN_BT = 3
} sp2_owner_kind;

typedef struct sp2_layout {
    int P, me;    /* ranks, this rank */
    int pr, pc;   /* process grid */
    int myr, myc; /* this rank's grid coordinates */
    int refine;
    int64_t m, k, n; /* C (m x n) = A (m x k) * B (k x n) */
    int MT, KT, NT;  /* tile grid */
} sp2_layout;

/* The most square grid's row count for P ranks (largest divisor <= sqrt(P)); 1 for P <= 3. */
int sp2_default_pr(int P);

/* Fills L. Returns 0, or 1 (= RT_INFEASIBLE) with why filled when the point cannot run: pr does
 * not divide P, or the tile grid has more tiles along a dimension than the matrix has rows or
 * columns (empty tiles). Never fails otherwise. */
int sp2_layout_init(sp2_layout *L, int P, int me, int pr, int refine, int64_t m, int64_t k,
                    int64_t n, char *why, size_t whylen);

/* First index of part t of [0, len) split in T parts. */
int64_t sp2_split(int64_t len, int T, int t);
/* The part (0..T-1) that holds index x. */
int sp2_part_of(int64_t len, int T, int64_t x);

/* Owner rank of tile (ti, tj) of a matrix of the given kind. */
int sp2_owner(const sp2_layout *L, sp2_owner_kind kind, int ti, int tj);

int64_t sp2_gcd(int64_t a, int64_t b);

#endif
