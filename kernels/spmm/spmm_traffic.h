/* spmm_traffic: the pieces of the SpMM kernels' traffic models (rt_traffic: flops and bytes per
 * memory level) that several kernels share. What each level means:
 *
 *   dram    compulsory: A as the kernel stores it, read once; the rows of B that A's entries
 *           reference (rt_spmm_b_rows_read), read once; C written once. A row of B that no entry
 *           references is never read, so counting all of B would overestimate, e.g. a block of rows
 *           of a banded matrix on one MPI rank touches only its band of B.
 *   l2      GPU kernels only; compulsory and a LOWER bound, equal to the DRAM bytes. Everything
 *           that comes from DRAM passes through L2; moreover the SMs' L1 keeps nothing across
 *           kernel launches and stores write through to L2, so these bytes cross L2 once per
 *           execution even when a warm L2 already holds them (where the DRAM term is then no
 *           bound at all, the L2 term still is). Re-reads that may hit in L1 within one launch are
 *           not counted: a cache hit the kernel cannot guarantee must never raise a bound.
 *   shared  Tiled kernels only (GPU, and the CPU kernel that emulates it in a per-thread buffer);
 *           a KERNEL MODEL, not a compulsory count: exactly what the kernel moves through its
 *           staging buffer (rt_spmm_tiled_shared_bytes). It bounds this kernel, not SpMM.
 *
 * Bytes count what the threads load and store. On a GPU a warp whose lanes read the same shared
 * word is served by one broadcast, so the shared term assumes the bandwidth that distinct reads
 * get (the probe's conflict-free reads); see docs/reference/roofline.md. */
#ifndef SPMM_TRAFFIC_H
#define SPMM_TRAFFIC_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_registry.h"
#include "spmm_inputs.h"
#include "spmm_tiled.h"

/* Distinct columns of a that hold at least one stored entry: the rows of B an SpMM must read.
 * O(nnz) time, cols / 8 bytes of scratch. Fails (err filled) on an invalid matrix or when the
 * scratch cannot be allocated. */
int rt_spmm_b_rows_read(const rt_csr *a, int64_t *rows_read, rt_err *err);

/* Fills t for one execution: flops = 2 * nnz * K; dram = a_bytes (A as the kernel stores it)
 * + rt_spmm_b_rows_read * K + rows * K values of the inputs' precision; with gpu != 0 also
 * l2 = dram (see above). Every other level and tier is 0. Fails on a negative or non-finite
 * a_bytes or when rt_spmm_b_rows_read fails; t is zeroed then. */
int rt_spmm_traffic_fill(const rt_spmm_inputs *in, double a_bytes, int gpu, rt_traffic *t,
                         rt_err *err);

/* Entries of A that a sliced-ELL kernel with slices of slice_height rows reads (padding
 * included): per slice, its longest row times the rows of the slice that exist. Lanes past the last
 * row are never loaded, so they are not counted. slice_height < 1 counts as 1. */
int64_t rt_spmm_ell_entries_read(const rt_csr *a, int64_t slice_height);

/* Bytes of a Tiled plan a kernel reads once per execution: values (value_bytes each) and shared
 * indices (p->index_bytes) of every stored entry, padding included; the stage ranges (ELL per
 * (stage, warp) or CSR per (stage, row)), buffdispl and mapdispl as 8-byte offsets; map as 4-byte
 * columns. Counts, not pointers, so the CUDA kernel can use a summary it kept of a freed plan. */
double rt_spmm_tiled_plan_bytes(const rt_tiled_params *p, int64_t nblocks, int64_t nstages,
                                int64_t nmap, int64_t stored, size_t value_bytes);

/* Shared-memory bytes of one execution of a Tiled kernel (kernel model): every staged entry of B
 * written into the buffer once and every stored entry of the plan (padding included) read once,
 * each for k_values columns of value_bytes. k_values is K for a kernel that stages exactly the
 * columns it needs (the CPU emulation) and ceil(K / register_tile) * register_tile for the GPU
 * kernel, which stages and reads whole register tiles (the last one padded with zeros). */
double rt_spmm_tiled_shared_bytes(int64_t staged_entries, int64_t stored_entries, int64_t k_values,
                                  size_t value_bytes);

/* Compulsory DRAM traffic of one execution with A's values held in `value_prec`: A read once
 * (values + 4-byte column indices + 8-byte row offsets), the rows of B that A's entries reference
 * read once (a row no entry references is never read), C written once (in the inputs'
 * precision); flops = 2 * nnz * K. Other levels and tiers are 0 (kernel hooks add them; see
 * spmm_traffic.h). */
rt_traffic rt_spmm_traffic_compulsory(const rt_spmm_inputs *in, rt_precision value_prec);

#endif
