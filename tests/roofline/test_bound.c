/* Roofline bound arithmetic against hand-computed cases, and the above-roofline checks. */
#include <math.h>
#include <string.h>

#include "rt_bound.h"
#include "rt_machine.h"
#include "rt_test.h"

/* Round numbers so every expected value below is computed by hand in the comments. */
static const char *const machine_text = "name: toy\n"
                                        "kind: gpu\n"
                                        "topology: {gpus_per_socket: 2, sockets_per_node: 2}\n"
                                        "spec:\n"
                                        "  fp32_gflops: 1000\n"
                                        "  fp64_gflops: 500\n"
                                        "  dram_gbs: 100\n"
                                        "  l2_gbs: 400\n"
                                        "  shared_gbs: 1000\n"
                                        "  h2d_gbs: 10\n"
                                        "  d2h_gbs: 10\n"
                                        "  socket: {bandwidth_gbs: 50, latency_us: 1}\n"
                                        "  node: {bandwidth_gbs: 25, latency_us: 2}\n"
                                        "  global: {bandwidth_gbs: 10, latency_us: 5}\n"
                                        "measured:\n"
                                        "  dram_gbs: 80\n";

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

static void test_intra(const rt_machine *m)
{
    rt_err err;
    rt_bound b;
    rt_bound_opts o;
    rt_bound_opts_init(&o);

    /* Memory-bound: 1e9 flops at 1000 GF/s = 1 ms; 1e9 DRAM bytes at 80 GB/s (measured beats
     * spec) = 12.5 ms. */
    rt_traffic t = {.flops = 1e9, .bytes[RT_LEVEL_DRAM] = 1e9};
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0);
    RT_CHECK_MSG(near(b.bound_s, 0.0125), "%g", b.bound_s);
    RT_CHECK_MSG(strcmp(b.limit, "dram") == 0, "%s", b.limit);
    RT_CHECK(near(b.compute_s, 1e-3));
    RT_CHECK(b.inter_s == 0);

    /* The spec set instead: 1e9 / 100e9 = 10 ms. */
    o.ceilings = RT_CEILINGS_SPEC;
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0);
    RT_CHECK_MSG(near(b.bound_s, 0.010), "%g", b.bound_s);
    o.ceilings = RT_CEILINGS_EFFECTIVE;

    /* Compute-bound: 1e10 flops = 10 ms fp32; DRAM 1e8 = 1.25 ms; L2 1e9 / 400e9 = 2.5 ms;
     * shared 2e9 / 1000e9 = 2 ms. */
    t.flops = 1e10;
    t.bytes[RT_LEVEL_DRAM] = 1e8;
    t.bytes[RT_LEVEL_L2] = 1e9;
    t.bytes[RT_LEVEL_SHARED] = 2e9;
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0);
    RT_CHECK_MSG(near(b.bound_s, 0.010), "%g", b.bound_s);
    RT_CHECK_MSG(strcmp(b.limit, "fp32") == 0, "%s", b.limit);
    RT_CHECK(near(b.level_s[RT_LEVEL_L2], 2.5e-3));
    RT_CHECK(near(b.level_s[RT_LEVEL_SHARED], 2e-3));

    /* fp64 halves the peak: 20 ms. */
    o.precision = RT_FP64;
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0);
    RT_CHECK_MSG(near(b.bound_s, 0.020), "%g", b.bound_s);
    RT_CHECK_MSG(strcmp(b.limit, "fp64") == 0, "%s", b.limit);

    /* L2-bound: 1e10 L2 bytes / 400e9 = 25 ms beats fp64's 20 ms. */
    t.bytes[RT_LEVEL_L2] = 1e10;
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0);
    RT_CHECK_MSG(near(b.bound_s, 0.025) && strcmp(b.limit, "l2") == 0, "%g %s", b.bound_s, b.limit);

    /* Shaped like a Tiled SpMM point: L2 bytes equal to the DRAM bytes (the GPU kernels' lower
     * bound), many more shared bytes (every stored entry reads K values). fp32, 1e9 flops = 1 ms;
     * DRAM 1.2e8 / 80e9 = 1.5 ms; L2 1.2e8 / 400e9 = 0.3 ms; shared 3e9 / 1000e9 = 3 ms: the
     * shared level limits, and the bound is that level's time alone (a max, not a sum). */
    o.precision = RT_FP32;
    t = (rt_traffic){.flops = 1e9,
                     .bytes[RT_LEVEL_DRAM] = 1.2e8,
                     .bytes[RT_LEVEL_L2] = 1.2e8,
                     .bytes[RT_LEVEL_SHARED] = 3e9};
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0);
    RT_CHECK_MSG(near(b.bound_s, 3e-3) && strcmp(b.limit, "shared") == 0 &&
                     strcmp(b.intra_limit, "shared") == 0,
                 "%g %s", b.bound_s, b.limit);
    RT_CHECK(near(b.level_s[RT_LEVEL_DRAM], 1.5e-3) && near(b.level_s[RT_LEVEL_L2], 0.3e-3));
    /* With fewer shared bytes (1e9: 1 ms) DRAM limits again: 1.5 ms. */
    t.bytes[RT_LEVEL_SHARED] = 1e9;
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0);
    RT_CHECK_MSG(near(b.bound_s, 1.5e-3) && strcmp(b.limit, "dram") == 0, "%g %s", b.bound_s,
                 b.limit);
    /* Against the spec set DRAM is 100 GB/s (1.2 ms) and the flops' 1 ms stay below it. */
    o.ceilings = RT_CEILINGS_SPEC;
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0);
    RT_CHECK_MSG(near(b.bound_s, 1.2e-3) && strcmp(b.limit, "dram") == 0, "%g %s", b.bound_s,
                 b.limit);
}

static void test_inter(const rt_machine *m)
{
    rt_err err;
    rt_bound b;
    rt_bound_opts o;
    rt_bound_opts_init(&o);
    /* intra: 1e9 flops (1 ms) vs 8e7 DRAM bytes at 80 GB/s (1 ms) -> 1 ms.
     * global: 100 messages x 5 us + 1e8 B / 10 GB/s = 0.5 ms + 10 ms = 10.5 ms
     * node:   10 messages x 2 us + 2.5e7 B / 25 GB/s = 0.02 ms + 1 ms = 1.02 ms
     * socket: 4 messages x 1 us + 0 bytes = 0.004 ms
     * inter = 11.524 ms; sum = 12.524 ms; max = 11.524 ms. */
    const rt_traffic t = {.flops = 1e9,
                          .bytes[RT_LEVEL_DRAM] = 8e7,
                          .net_bytes[RT_TIER_GLOBAL] = 1e8,
                          .net_messages[RT_TIER_GLOBAL] = 100,
                          .net_bytes[RT_TIER_NODE] = 2.5e7,
                          .net_messages[RT_TIER_NODE] = 10,
                          .net_messages[RT_TIER_SOCKET] = 4};
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0);
    RT_CHECK_MSG(near(b.tier_s[RT_TIER_GLOBAL], 10.5e-3), "%g", b.tier_s[RT_TIER_GLOBAL]);
    RT_CHECK_MSG(near(b.tier_s[RT_TIER_NODE], 1.02e-3), "%g", b.tier_s[RT_TIER_NODE]);
    RT_CHECK_MSG(near(b.tier_s[RT_TIER_SOCKET], 4e-6), "%g", b.tier_s[RT_TIER_SOCKET]);
    RT_CHECK_MSG(near(b.inter_s, 11.524e-3), "%g", b.inter_s);
    RT_CHECK_MSG(near(b.intra_s, 1e-3), "%g", b.intra_s);
    RT_CHECK_MSG(near(b.bound_s, 12.524e-3), "%g", b.bound_s);
    RT_CHECK_MSG(strcmp(b.limit, "global network") == 0, "%s", b.limit);
    o.combine = RT_BOUND_MAX;
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0);
    RT_CHECK_MSG(near(b.bound_s, 11.524e-3), "%g", b.bound_s);
}

static void test_bound_errors(const rt_machine *gpu)
{
    rt_err err;
    rt_bound b;
    rt_traffic t = {0};
    RT_CHECK(rt_bound_compute(&t, gpu, NULL, &b, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "empty"), "%s", err.msg);
    t.flops = -1;
    RT_CHECK(rt_bound_compute(&t, gpu, NULL, &b, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "flops"), "%s", err.msg);
    t.flops = NAN;
    RT_CHECK(rt_bound_compute(&t, gpu, NULL, &b, &err) != 0);
    t.flops = 1;
    t.net_bytes[RT_TIER_GLOBAL] = INFINITY;
    RT_CHECK(rt_bound_compute(&t, gpu, NULL, &b, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "net_bytes[global]"), "%s", err.msg);

    /* A cpu machine without L2, shared memory or a global tier. */
    rt_machine cpu;
    RT_CHECK(rt_machine_load_string("name: c\nkind: cpu\nspec: {fp32_gflops: 10, fp64_gflops: 5, "
                                    "dram_gbs: 20}\n",
                                    "cpu.yaml", &cpu, &err) == 0);
    t = (rt_traffic){.flops = 1, .bytes[RT_LEVEL_L2] = 100};
    RT_CHECK(rt_bound_compute(&t, &cpu, NULL, &b, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "l2_gbs") && rt_test_contains(err.msg, "'c'"), "%s",
                 err.msg);
    t.bytes[RT_LEVEL_L2] = 0;
    /* Shared bytes on a cpu machine (a CPU kernel emulating shared-memory staging): no ceiling,
     * so the term is left out rather than failing. 1 flop at 10 GF/s = 0.1 ns, 50 DRAM bytes at
     * 20 GB/s = 2.5 ns. */
    t.bytes[RT_LEVEL_SHARED] = 1e12;
    t.bytes[RT_LEVEL_DRAM] = 50;
    RT_CHECK_MSG(rt_bound_compute(&t, &cpu, NULL, &b, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(b.level_s[RT_LEVEL_SHARED] == 0 && near(b.bound_s, 2.5e-9) &&
                     strcmp(b.limit, "dram") == 0,
                 "%g %g %s", b.level_s[RT_LEVEL_SHARED], b.bound_s, b.limit);
    /* ... but a gpu machine must have it: asking for measured ceilings where only the spec gives
     * shared_gbs is an error naming the level. */
    rt_machine gpu_dram_only;
    RT_CHECK(rt_machine_load_string("name: g\nkind: gpu\nspec: {fp32_gflops: 10, "
                                    "fp64_gflops: 5, dram_gbs: 20, l2_gbs: 40, shared_gbs: 80, "
                                    "h2d_gbs: 1, d2h_gbs: 1}\nmeasured: {fp32_gflops: 9, "
                                    "fp64_gflops: 4, dram_gbs: 18}\n",
                                    "g.yaml", &gpu_dram_only, &err) == 0);
    rt_bound_opts measured_only;
    rt_bound_opts_init(&measured_only);
    measured_only.ceilings = RT_CEILINGS_MEASURED;
    RT_CHECK(rt_bound_compute(&t, &gpu_dram_only, &measured_only, &b, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "shared_gbs in measured") &&
                     rt_test_contains(err.msg, "'g'"),
                 "%s", err.msg);
    t.bytes[RT_LEVEL_SHARED] = 0;
    t.bytes[RT_LEVEL_DRAM] = 0;
    t.net_bytes[RT_TIER_GLOBAL] = 100;
    RT_CHECK(rt_bound_compute(&t, &cpu, NULL, &b, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "global.bandwidth_gbs"), "%s", err.msg);
    /* Only spec values exist: asking for measured ones must fail, not divide by zero. */
    t.net_bytes[RT_TIER_GLOBAL] = 0;
    rt_bound_opts o;
    rt_bound_opts_init(&o);
    o.ceilings = RT_CEILINGS_MEASURED;
    RT_CHECK(rt_bound_compute(&t, &cpu, &o, &b, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "fp32_gflops in measured"), "%s", err.msg);
}

/* The GPUs' links (host-resident and multi-GPU kernels): h2d and d2h each at its own ceiling,
 * peer bytes at the faster of the socket and node tiers, all divided over the rank's devices;
 * FP64 tensor-core flops at fp64_tensor_gflops; an overlapped traffic takes the max of intra and
 * inter. The toy machine: h2d = d2h = 10 GB/s, socket 50, node 25, no fp64_tensor_gflops. */
static void test_links(const rt_machine *m)
{
    rt_err err;
    rt_bound b;
    rt_bound_opts o;
    rt_bound_opts_init(&o);
    o.precision = RT_FP64;
    /* 1e10 flops at 500 GF/s = 20 ms; 3e8 bytes in at 10 GB/s = 30 ms; 1e8 out = 10 ms; 1e9 peer
     * bytes at 50 GB/s = 20 ms. */
    rt_traffic t = {.flops = 1e10, .h2d_bytes = 3e8, .d2h_bytes = 1e8, .peer_bytes = 1e9};
    RT_CHECK_MSG(rt_bound_compute(&t, m, &o, &b, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(near(b.bound_s, 0.030) && strcmp(b.limit, "host link (h2d)") == 0, "%g %s",
                 b.bound_s, b.limit);
    RT_CHECK(near(b.d2h_s, 0.010) && near(b.peer_s, 0.020) && near(b.compute_s, 0.020));
    /* Over 2 devices every term halves: 15 ms. */
    t.devices = 2;
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0 && near(b.bound_s, 0.015));
    t.devices = 0;
    /* Tensor-core FP64 on a machine without its peak: the flops term is left out (the FMA peak
     * is no bound for DGEMM); 4e10 flops would have been 80 ms. */
    t.flops = 4e10;
    t.fp64_tensor = 1;
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0);
    RT_CHECK_MSG(b.compute_s == 0 && near(b.bound_s, 0.030), "%g %g", b.compute_s, b.bound_s);
    rt_machine tm;
    RT_CHECK(rt_machine_load_string("name: tc\nkind: gpu\nspec: {fp32_gflops: 1000, fp64_gflops: "
                                    "500, fp64_tensor_gflops: 1000, dram_gbs: 100, l2_gbs: 400, "
                                    "shared_gbs: 1000, h2d_gbs: 10, d2h_gbs: 10}\n",
                                    "tc.yaml", &tm, &err) == 0);
    RT_CHECK(tm.effective.fp64_tensor_gflops == 1000);
    /* With it: 4e10 at 1000 GF/s = 40 ms; but no GPU-to-GPU link in this file for the peer
     * bytes: an error naming the ceiling. */
    RT_CHECK(rt_bound_compute(&t, &tm, &o, &b, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "peer link") && rt_test_contains(err.msg, "'tc'"), "%s",
                 err.msg);
    t.peer_bytes = 0;
    RT_CHECK(rt_bound_compute(&t, &tm, &o, &b, &err) == 0);
    RT_CHECK_MSG(near(b.bound_s, 0.040) && strcmp(b.limit, "fp64 tensor") == 0, "%g %s", b.bound_s,
                 b.limit);
    /* Overlap: 40 ms of local work and 1e9 socket bytes (20 ms + 1 us) bound at max = 40 ms, not
     * the sum. */
    t.net_bytes[RT_TIER_SOCKET] = 1e9;
    t.net_messages[RT_TIER_SOCKET] = 1;
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0 && near(b.bound_s, 0.030 + 0.020 + 1e-6));
    t.overlap = 1;
    RT_CHECK(rt_bound_compute(&t, m, &o, &b, &err) == 0);
    RT_CHECK_MSG(near(b.bound_s, 0.030), "%g", b.bound_s);
    /* A cpu machine (a CPU kernel emulating GPUs) has no links: the terms are left out, unless
     * the file gives a host link. */
    rt_machine cpu;
    RT_CHECK(rt_machine_load_string("name: c\nkind: cpu\nspec: {fp32_gflops: 10, fp64_gflops: 5, "
                                    "dram_gbs: 20, socket: {bandwidth_gbs: 1, latency_us: 0}}\n",
                                    "cpu.yaml", &cpu, &err) == 0);
    memset(&t, 0, sizeof t);
    t.flops = 10;
    t.h2d_bytes = t.d2h_bytes = t.peer_bytes = 1e12;
    RT_CHECK(rt_bound_compute(&t, &cpu, NULL, &b, &err) == 0 && near(b.bound_s, 1e-9));
    RT_CHECK(rt_machine_load_string("name: c\nkind: cpu\nspec: {fp32_gflops: 10, fp64_gflops: 5, "
                                    "dram_gbs: 20, h2d_gbs: 1000}\n",
                                    "cpu.yaml", &cpu, &err) == 0);
    RT_CHECK(rt_bound_compute(&t, &cpu, NULL, &b, &err) == 0 && near(b.bound_s, 1.0));
    t.h2d_bytes = -1;
    RT_CHECK(rt_bound_compute(&t, &cpu, NULL, &b, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "h2d_bytes"), "%s", err.msg);
    /* The traffic metrics keep the link bytes. */
    rt_metrics mm;
    rt_metrics_init(&mm);
    t.h2d_bytes = 5;
    RT_CHECK(rt_bound_traffic_metrics(&t, &mm, &err) == 0);
    const rt_metric *x = rt_metrics_get(&mm, "model_peer_bytes");
    RT_CHECK(x && x->value == 1e12 && rt_metrics_get(&mm, "model_h2d_bytes")->value == 5);
}

static void test_checks(void)
{
    rt_err err;
    rt_roofline_verdict v;
    /* A fabricated result 10% faster than its bound is flagged above the roofline. */
    RT_CHECK(rt_roofline_check(0.9e-3, 1e-3, 0.05, &v, &err) == 0);
    RT_CHECK(v.status == RT_ROOFLINE_ABOVE);
    RT_CHECK_MSG(rt_test_contains(v.reason, "above roofline"), "%s", v.reason);
    RT_CHECK(near(v.efficiency, 1e-3 / 0.9e-3));
    /* 4% faster is inside the default 5% tolerance (negative tolerance = default). */
    RT_CHECK(rt_roofline_check(0.96e-3, 1e-3, -1, &v, &err) == 0);
    RT_CHECK(v.status == RT_ROOFLINE_OK && v.reason[0] == '\0');
    /* ... but not inside a 1% tolerance. */
    RT_CHECK(rt_roofline_check(0.96e-3, 1e-3, 0.01, &v, &err) == 0);
    RT_CHECK(v.status == RT_ROOFLINE_ABOVE);
    /* Slower than the bound: efficiency below 1. */
    RT_CHECK(rt_roofline_check(4e-3, 1e-3, 0.05, &v, &err) == 0);
    RT_CHECK(v.status == RT_ROOFLINE_OK && near(v.efficiency, 0.25));
    /* Garbage in, error out. */
    RT_CHECK(rt_roofline_check(0, 1e-3, 0.05, &v, &err) != 0);
    RT_CHECK(rt_roofline_check(NAN, 1e-3, 0.05, &v, &err) != 0);
    RT_CHECK(rt_roofline_check(1e-3, -1, 0.05, &v, &err) != 0);
    RT_CHECK(rt_roofline_check(1e-3, 1e-3, 1.5, &v, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "tolerance"), "%s", err.msg);

    /* DRAM traffic: counters below the compulsory bytes. */
    RT_CHECK(rt_roofline_check_dram(0.5e9, 1e9, 0.05, 0, &v, &err) == 0);
    RT_CHECK(v.status == RT_ROOFLINE_ABOVE && near(v.ratio, 0.5));
    RT_CHECK_MSG(rt_test_contains(v.reason, "below compulsory"), "%s", v.reason);
    RT_CHECK(rt_roofline_check_dram(1.3e9, 1e9, 0.05, 0, &v, &err) == 0);
    RT_CHECK(v.status == RT_ROOFLINE_OK && near(v.ratio, 1.3));
    RT_CHECK(rt_roofline_check_dram(1e9, 0, 0.05, 0, &v, &err) != 0);
    /* What a cache may hold is not a shortfall (the H200's vecadd: 1.91e8 of 2.013e8 bytes with
     * a 50 MB L2), but a shortfall beyond it still fires. */
    RT_CHECK(rt_roofline_check_dram(1.91e8, 2.013e8, 0.05, 0, &v, &err) == 0);
    RT_CHECK(v.status == RT_ROOFLINE_ABOVE);
    RT_CHECK(rt_roofline_check_dram(1.91e8, 2.013e8, 0.05, 50e6, &v, &err) == 0);
    RT_CHECK(v.status == RT_ROOFLINE_OK && near(v.ratio, 1.91e8 / 2.013e8));
    RT_CHECK(rt_roofline_check_dram(1.0e8, 2.013e8, 0.05, 50e6, &v, &err) == 0);
    RT_CHECK(v.status == RT_ROOFLINE_ABOVE);

    rt_metrics m;
    rt_metrics_init(&m);
    RT_CHECK(rt_roofline_dram_ratio_metric(&m, 1e9, -1, 0, &v, &err) == 1); /* no counters */
    rt_metrics_unavailable(&m, "dram_bytes_read", "bytes", "profiling not permitted");
    rt_metrics_add(&m, "dram_bytes_write", "bytes", 1e8, 0);
    RT_CHECK(rt_roofline_dram_ratio_metric(&m, 1e9, -1, 0, &v, &err) == 1);
    rt_metrics_add(&m, "dram_bytes_read", "bytes", 5e8, 0);
    RT_CHECK(rt_roofline_dram_ratio_metric(&m, 1e9, -1, 0, &v, &err) == 0);
    const rt_metric *r = rt_metrics_get(&m, "dram_bytes_ratio");
    RT_CHECK(r && r->available && near(r->value, 0.6) && strcmp(r->unit, "ratio") == 0);
    RT_CHECK(v.status == RT_ROOFLINE_ABOVE);

    /* L2: a ratio only where the counter and the model both have bytes. */
    RT_CHECK(rt_roofline_l2_ratio_metric(&m, 2e9, &err) == 1); /* no l2_bytes counter */
    rt_metrics_add(&m, "l2_bytes", "bytes", 3e9, 0);
    RT_CHECK(rt_roofline_l2_ratio_metric(&m, 0.0, &err) == 1); /* model has no L2 term */
    RT_CHECK(rt_metrics_get(&m, "l2_bytes_ratio") == NULL);
    RT_CHECK(rt_roofline_l2_ratio_metric(&m, 2e9, &err) == 0);
    r = rt_metrics_get(&m, "l2_bytes_ratio");
    RT_CHECK(r && r->available && near(r->value, 1.5) && strcmp(r->unit, "ratio") == 0);
    rt_metrics_add(&m, "l2_bytes", "bytes", -1.0, 0);
    RT_CHECK(rt_roofline_l2_ratio_metric(&m, 2e9, &err) == -1);
}

int main(void)
{
    rt_err err;
    rt_machine m;
    if (rt_machine_load_string(machine_text, "toy.yaml", &m, &err) != 0) {
        fprintf(stderr, "toy machine: %s\n", err.msg);
        return 1;
    }
    RT_CHECK(m.effective.level_gbs[RT_LEVEL_DRAM] == 80);
    RT_CHECK(m.spec.level_gbs[RT_LEVEL_DRAM] == 100);
    test_intra(&m);
    test_inter(&m);
    test_bound_errors(&m);
    test_links(&m);
    test_checks();
    return RT_TEST_RESULT();
}
