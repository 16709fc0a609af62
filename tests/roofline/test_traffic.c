/* Traffic models per memory level against hand counts: the rows of B an SpMM reads, the CPU
 * kernels' DRAM models (CSR, ELL, Tiled), the Tiled kernels' shared-memory model (CPU hook on a
 * small plan counted by hand; the GPU formula with its whole register tiles), and the bound of a
 * CPU Tiled point on a CPU machine, which has no shared ceiling. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rt_bound.h"
#include "rt_machine.h"
#include "rt_params.h"
#include "rt_test.h"
#include "spmm_cpu_csr.h"
#include "spmm_cpu_ell.h"
#include "spmm_cpu_tiled.h"
#include "spmm_family.h"
#include "spmm_tiled.h"
#include "spmm_traffic.h"

/* 6 x 10, nnz 9; block 0 (rows 0-5) touches columns {0, 1, 3, 7, 9}:
 *   row 0: 0 3 7    row 1: 3    row 2: -    row 3: 1 7 9    row 4: 0    row 5: 9 */
static int small_matrix(rt_csr *a, rt_err *err)
{
    static const int64_t ri[] = {0, 0, 0, 1, 3, 3, 3, 4, 5};
    static const int64_t ci[] = {0, 3, 7, 3, 1, 7, 9, 0, 9};
    static const double v[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    return rt_csr_from_coo(a, 6, 10, 9, ri, ci, v, err);
}

static void test_b_rows(const rt_csr *a)
{
    rt_err err;
    int64_t n = -1;
    RT_CHECK_MSG(rt_spmm_b_rows_read(a, &n, &err) == 0 && n == 5, "%lld: %s", (long long)n,
                 err.msg);
    /* Rows 4-5 alone (one MPI rank's block) read only B's rows 0 and 9, not all ten. */
    rt_csr blk;
    RT_CHECK(rt_csr_row_block(&blk, a, 4, 6, &err) == 0);
    RT_CHECK(rt_spmm_b_rows_read(&blk, &n, &err) == 0 && n == 2);
    rt_spmm_inputs *in = NULL;
    RT_CHECK(rt_spmm_inputs_create(&blk, 4, RT_FP32, RT_ROW_MAJOR, 1, &in, &err) == 0);
    if (in) {
        /* A: 2 x (4 + 4) + 3 x 8 = 40; B: 2 rows x 4 x 4 = 32; C: 2 x 4 x 4 = 32. */
        const rt_traffic t = rt_spmm_traffic_compulsory(in, RT_FP32);
        RT_CHECK_MSG(t.bytes[RT_LEVEL_DRAM] == 104.0, "%g", t.bytes[RT_LEVEL_DRAM]);
        RT_CHECK(t.flops == 16.0 && t.bytes[RT_LEVEL_L2] == 0.0);
        /* The GPU kernels' fill adds L2 = DRAM; the CPU one leaves L2 out. */
        rt_traffic g;
        RT_CHECK(rt_spmm_traffic_fill(in, 40.0, 1, &g, &err) == 0);
        RT_CHECK(g.bytes[RT_LEVEL_DRAM] == 104.0 && g.bytes[RT_LEVEL_L2] == 104.0);
        RT_CHECK(g.bytes[RT_LEVEL_SHARED] == 0.0);
        RT_CHECK(rt_spmm_traffic_fill(in, 40.0, 0, &g, &err) == 0 && g.bytes[RT_LEVEL_L2] == 0);
        RT_CHECK(rt_spmm_traffic_fill(in, -1.0, 1, &g, &err) != 0 &&
                 rt_test_contains(err.msg, "bytes of A"));
        RT_CHECK(rt_spmm_traffic_fill(in, NAN, 1, &g, &err) != 0);
        RT_CHECK(rt_spmm_traffic_fill(NULL, 1.0, 1, &g, &err) != 0);
    }
    rt_spmm_inputs_destroy(in);
    rt_csr_free(&blk);
    /* Empty matrix: no row of B is read; a column index out of range is an error. */
    rt_csr empty;
    RT_CHECK(rt_csr_from_coo(&empty, 3, 4, 0, NULL, NULL, NULL, &err) == 0);
    RT_CHECK(rt_spmm_b_rows_read(&empty, &n, &err) == 0 && n == 0);
    rt_csr_free(&empty);
    rt_csr bad = *a;
    int32_t cols[9];
    memcpy(cols, a->colidx, sizeof cols);
    cols[4] = 10;
    bad.colidx = cols;
    RT_CHECK(rt_spmm_b_rows_read(&bad, &n, &err) != 0 && rt_test_contains(err.msg, "column 10"));
    RT_CHECK(rt_spmm_b_rows_read(NULL, &n, &err) != 0);
}

static rt_traffic hook(const rt_kernel_desc *k, const rt_spmm_inputs *in, const rt_params *p,
                       int expect_ok)
{
    rt_traffic t;
    memset(&t, 0, sizeof t);
    rt_kernel_env env;
    memset(&env, 0, sizeof env);
    env.nranks = 1;
    rt_err err;
    rt_err_clear(&err);
    const int rc = k->traffic(k, in, p, &env, &t, &err);
    RT_CHECK_MSG((rc == 0) == expect_ok, "%s: rc %d: %s", k->name, rc, err.msg);
    return t;
}

static void test_cpu_hooks(const rt_csr *a)
{
    rt_err err;
    rt_spmm_inputs *in = NULL;
    RT_CHECK(rt_spmm_inputs_create(a, 3, RT_FP32, RT_COL_MAJOR, 1, &in, &err) == 0);
    if (!in)
        return;
    rt_params p;
    rt_params_init(&p);
    /* B: 5 referenced rows x 3 x 4 = 60; C: 6 x 3 x 4 = 72. */
    /* CSR: 9 x (4 + 4) + 7 x 8 = 128. */
    rt_traffic t = hook(rt_spmm_cpu_csr_kernel(), in, &p, 1);
    RT_CHECK_MSG(t.bytes[RT_LEVEL_DRAM] == 128.0 + 60.0 + 72.0, "%g", t.bytes[RT_LEVEL_DRAM]);
    RT_CHECK(t.flops == 54.0 && t.bytes[RT_LEVEL_L2] == 0 && t.bytes[RT_LEVEL_SHARED] == 0);
    /* ELL, slices of 4 rows: rows 0-3 have lengths 3 1 0 3 -> 3 x 4 = 12 entries; rows 4-5
     * (the rows that exist of the second slice) 1 1 -> 1 x 2 = 2: 14 x (4 + 4) + 2 slices x 12. */
    rt_params_set(&p, "slice_height", rt_value_int(4), &err);
    RT_CHECK(rt_spmm_ell_entries_read(a, 4) == 14);
    t = hook(rt_spmm_cpu_ell_kernel(), in, &p, 1);
    RT_CHECK_MSG(t.bytes[RT_LEVEL_DRAM] == 136.0 + 60.0 + 72.0, "%g", t.bytes[RT_LEVEL_DRAM]);
    rt_params_set(&p, "slice_height", rt_value_int(0), &err);
    hook(rt_spmm_cpu_ell_kernel(), in, &p, 0); /* outside the schema domain */
    hook(rt_spmm_cpu_ell_kernel(), NULL, &p, 0);
    rt_spmm_inputs_destroy(in);
}

/* The Tiled plan of the small matrix with 2 slots per stage (buffer_kib 1, register_tile 64, fp64:
 * 1024 / (64 x 8) = 2), one block of 32 rows:
 *   stages {0, 1} {3, 7} {9}: nstages 3, map entries 5;
 *   entries per (stage, row): stage 0: r0 1, r3 1, r4 1; stage 1: r0 2, r1 1, r3 1;
 *   stage 2: r3 1, r5 1.
 * CSR staging stores the 9 nonzeros; ELL staging pads each (stage, warp) to its longest row over
 * all 32 lanes: (1 + 2 + 1) x 32 = 128 entries. K = 3 (one partial register tile).
 *   shared, CPU (K values per entry): CSR (5 + 9) x 3 x 8 = 336; ELL (5 + 128) x 3 x 8 = 3192.
 *   plan bytes, CSR with 4-byte indices: 9 x (8 + 4) + (3 x 32 + 1) x 8 + 2 x 8 + 4 x 8 + 5 x 4
 *     = 108 + 776 + 16 + 32 + 20 = 952; ELL with 2-byte indices: 128 x 10 + (3 x 1 + 1) x 8
 *     + 16 + 32 + 20 = 1380.
 *   B: 5 rows x 3 x 8 = 120; C: 6 x 3 x 8 = 144. */
static void test_tiled(const rt_csr *a)
{
    rt_err err;
    rt_spmm_inputs *in = NULL;
    RT_CHECK(rt_spmm_inputs_create(a, 3, RT_FP64, RT_ROW_MAJOR, 1, &in, &err) == 0);
    if (!in)
        return;
    rt_params p;
    rt_params_init(&p);
    rt_params_set(&p, "block_size", rt_value_int(32), &err);
    rt_params_set(&p, "buffer_kib", rt_value_int(1), &err);
    rt_params_set(&p, "register_tile", rt_value_int(64), &err);
    rt_params_set(&p, "staging", rt_value_str("csr"), &err);
    rt_params_set(&p, "index_bytes", rt_value_int(4), &err);

    /* The hand count above is the plan's: check the plan itself first. */
    for (int ell = 0; ell < 2; ++ell) {
        const rt_tiled_params tp = {.block_size = 32,
                                    .buffsize = 2,
                                    .warp_size = 32,
                                    .use_ell = ell,
                                    .index_bytes = ell ? 2 : 4};
        rt_tiled_plan plan;
        RT_CHECK(rt_tiled_plan_build(a, &tp, &plan, &err) == 0);
        RT_CHECK_MSG(plan.nstages == 3 && plan.nmap == 5 && plan.stored == (ell ? 128 : 9),
                     "ell %d: %lld stages, %lld map, %lld stored", ell, (long long)plan.nstages,
                     (long long)plan.nmap, (long long)plan.stored);
        RT_CHECK(rt_spmm_tiled_plan_bytes(&tp, plan.nblocks, plan.nstages, plan.nmap, plan.stored,
                                          8) == (ell ? 1380.0 : 952.0));
        rt_tiled_plan_free(&plan);
    }

    const rt_kernel_desc *k = rt_spmm_cpu_tiled_kernel();
    rt_traffic t = hook(k, in, &p, 1);
    RT_CHECK_MSG(t.bytes[RT_LEVEL_SHARED] == 336.0, "csr shared %g", t.bytes[RT_LEVEL_SHARED]);
    RT_CHECK_MSG(t.bytes[RT_LEVEL_DRAM] == 952.0 + 120.0 + 144.0, "csr dram %g",
                 t.bytes[RT_LEVEL_DRAM]);
    RT_CHECK(t.flops == 54.0 && t.bytes[RT_LEVEL_L2] == 0.0);

    rt_params_set(&p, "staging", rt_value_str("ell"), &err);
    rt_params_set(&p, "index_bytes", rt_value_int(2), &err);
    t = hook(k, in, &p, 1);
    RT_CHECK_MSG(t.bytes[RT_LEVEL_SHARED] == 3192.0, "ell shared %g", t.bytes[RT_LEVEL_SHARED]);
    RT_CHECK_MSG(t.bytes[RT_LEVEL_DRAM] == 1380.0 + 264.0, "ell dram %g", t.bytes[RT_LEVEL_DRAM]);

    /* The GPU kernel stages and reads whole register tiles: with register_tile 2, K = 3 counts as
     * 2 tiles x 2 = 4 values, fp32: (5 + 128) x 4 x 4 = 2128. */
    RT_CHECK(rt_spmm_tiled_shared_bytes(5, 128, 4, 4) == 2128.0);
    RT_CHECK(rt_spmm_tiled_shared_bytes(0, 0, 4, 4) == 0.0);

    /* An infeasible point (ELL staging needs a multiple of 32 rows per block) has no model. */
    rt_params_set(&p, "block_size", rt_value_int(48), &err);
    hook(k, in, &p, 0);
    hook(k, NULL, &p, 0);

    /* The bound of the CPU Tiled point on the generic CPU machine: no shared ceiling there, so
     * the term is left out and the bound is the DRAM one; on a GPU the shared level counts. */
    rt_params_set(&p, "block_size", rt_value_int(32), &err);
    t = hook(k, in, &p, 1);
    rt_machine cpu;
    RT_CHECK(rt_machine_load_string("name: c\nkind: cpu\nspec: {fp32_gflops: 1000, "
                                    "fp64_gflops: 500, dram_gbs: 100, l2_gbs: 400}\n",
                                    "c.yaml", &cpu, &err) == 0);
    rt_bound_opts o;
    rt_bound_opts_init(&o);
    o.precision = RT_FP64;
    rt_bound b;
    RT_CHECK_MSG(rt_bound_compute(&t, &cpu, &o, &b, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(b.level_s[RT_LEVEL_SHARED] == 0 && strcmp(b.limit, "dram") == 0 &&
                     fabs(b.bound_s - 1644.0 / 100e9) < 1e-20,
                 "%g %s", b.bound_s, b.limit);
    /* A GPU with a slow shared memory (1 GB/s: 3.192 us) against DRAM at 100 GB/s (16.44 ns). */
    rt_machine gpu;
    RT_CHECK(rt_machine_load_string("name: g\nkind: gpu\ntopology: {gpus_per_socket: 1}\n"
                                    "spec: {fp32_gflops: 1000, fp64_gflops: 500, dram_gbs: 100, "
                                    "l2_gbs: 400, shared_gbs: 1, h2d_gbs: 10, d2h_gbs: 10}\n",
                                    "g.yaml", &gpu, &err) == 0);
    RT_CHECK_MSG(rt_bound_compute(&t, &gpu, &o, &b, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(strcmp(b.limit, "shared") == 0 && fabs(b.bound_s - 3192.0 / 1e9) < 1e-18, "%g %s",
                 b.bound_s, b.limit);
    /* The stored metrics carry every level the model gives. */
    rt_metrics m;
    rt_metrics_init(&m);
    RT_CHECK(rt_bound_traffic_metrics(&t, &m, &err) == 0);
    const rt_metric *sh = rt_metrics_get(&m, "model_shared_bytes");
    RT_CHECK(sh && sh->value == 3192.0 && !rt_metrics_get(&m, "model_l2_bytes"));
    rt_spmm_inputs_destroy(in);
}

int main(void)
{
    rt_err err;
    rt_csr a;
    if (small_matrix(&a, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    test_b_rows(&a);
    test_cpu_hooks(&a);
    test_tiled(&a);
    rt_csr_free(&a);
    return RT_TEST_RESULT();
}
