/* The persistent solve's model and roofline, in one process:
 *   - sptrsv_model_persistent against hand counts on a chain of four one-column supernodes: one
 *     part and one worker runs the seven tasks one after another; two parts alternating put a
 *     link hop (latency + bytes over bandwidth) on every DIAG-to-chunk hand-over; the critical
 *     path names those hops, and the busiest part's bytes at its peak floor the prediction;
 *   - the inter-GPU roofline of a 4-part plan of a 3D Laplacian factor on the 4 x H200 machine
 *     file: every part's link bytes go to the socket tier (one NVSwitch host), the bound's link
 *     term is those bytes over the probed NVLink bandwidth, the bound the larger of the device
 *     and link terms (the traffic is overlapped), and rt_roofline_check flags a time
 *     below the bound (a measurement faster than the link allows) and passes one above it; with
 *     the DRAM term gone the link alone sets the bound and is named its limit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt_bound.h"
#include "rt_machine.h"
#include "rt_test.h"
#include "sptrsv_family.h"
#include "sptrsv_model.h"
#include "sptrsv_ppoint.h"
#include "sptrsv_pplan.h"
#include "sptrsv_test_matrix.h"

/* L = the 4 x 4 bidiagonal: a chain 0 -> 1 -> 2 -> 3, one column per supernode. */
static void chain(sptrsv_factor *f, sptrsv_dag *d)
{
    const int64_t ri[] = {0, 1, 1, 2, 2, 3, 3}, ci[] = {0, 0, 1, 1, 2, 2, 3};
    const double v[] = {2, -1, 2, -1, 2, -1, 2};
    rt_csr l;
    rt_err err;
    RT_CHECK(rt_csr_from_coo(&l, 4, 4, 7, ri, ci, v, &err) == 0);
    RT_CHECK(sptrsv_factor_from_lower(&l, f, &err) == 0);
    RT_CHECK(sptrsv_dag_build(f, d, &err) == 0);
    rt_csr_free(&l);
}

static void test_chain_model(void)
{
    sptrsv_factor f;
    sptrsv_dag d;
    chain(&f, &d);
    rt_err err;
    sptrsv_pplan_opts o = {.parts = 1, .grid_rows = 1, .nrhs = 1, .chunk_rows = 8};
    sptrsv_pplan p;
    RT_CHECK(sptrsv_pplan_build(&f, &d, &o, &p, &err) == 0);
    /* 4 DIAG tasks, 3 of them with their row's chunk fused: 4 tasks, 7 steps */
    RT_CHECK_MSG(p.ntasks == 4 && p.fused_steps == 3, "%lld tasks, %lld fused", (long long)p.ntasks,
                 (long long)p.fused_steps);
    /* every step costs 1 s of overhead, bytes nothing, a hand-over 10 s, a task 100 s */
    sptrsv_costs c = {
        .unit_bps = 1e30, .peak_bps = 1e30, .sync_s = 10.0, .task_s = 100.0, .step_s = 1.0};
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        c.lat_s[t] = 1000.0;
        c.bw_bps[t] = 1e30;
    }
    int tier1[1] = {RT_TIER_SOCKET};
    sptrsv_prediction pr;
    RT_CHECK(sptrsv_model_persistent(&f, &p, tier1, 1, &c, &pr, &err) == 0);
    /* tasks 100 + 2 steps each (the last alone: 1 step), hand-overs 10 between them:
     * 3 x 102 + 101 + 3 x 10 = 437 */
    RT_CHECK_MSG(fabs(pr.time_s - 437.0) < 1e-6 && pr.path_tasks == 4 && pr.path_messages == 0,
                 "one part: %g s, %lld tasks, %lld messages", pr.time_s, (long long)pr.path_tasks,
                 (long long)pr.path_messages);
    sptrsv_pplan_free(&p);
    /* Two parts, cyclic, P x 1: the chunk of s runs on the owner of s + 1, so x_s crosses the
     * link three times: 4 DIAG + 3 chunk tasks of 101 each, 3 hops of 1000 and 3 hand-overs. */
    o.parts = 2;
    o.grid_rows = 2;
    RT_CHECK(sptrsv_pplan_build(&f, &d, &o, &p, &err) == 0);
    RT_CHECK_MSG(p.ntasks == 7 && p.x_messages == 3, "%lld tasks, %lld x messages",
                 (long long)p.ntasks, (long long)p.x_messages);
    int tier2[4] = {RT_TIER_SOCKET, RT_TIER_SOCKET, RT_TIER_SOCKET, RT_TIER_SOCKET};
    RT_CHECK(sptrsv_model_persistent(&f, &p, tier2, 1, &c, &pr, &err) == 0);
    RT_CHECK_MSG(fabs(pr.time_s - (7 * 101.0 + 3 * 1000.0 + 3 * 10.0)) < 1e-6 &&
                     pr.path_tasks == 7 && pr.path_messages == 3,
                 "two parts: %g s, %lld tasks, %lld messages", pr.time_s, (long long)pr.path_tasks,
                 (long long)pr.path_messages);
    /* the floor: the busiest part's bytes at its peak; the prediction is never below it */
    c.peak_bps = 1e3;
    RT_CHECK(sptrsv_model_persistent(&f, &p, tier2, 1, &c, &pr, &err) == 0);
    const double busiest = p.bytes_of[0] > p.bytes_of[1] ? p.bytes_of[0] : p.bytes_of[1];
    RT_CHECK_MSG(fabs(pr.floor_s - busiest / 1e3) < 1e-9 && pr.time_s >= pr.floor_s &&
                     pr.time_s >= pr.schedule_s,
                 "floor %g (bytes %g), schedule %g, time %g", pr.floor_s, busiest, pr.schedule_s,
                 pr.time_s);
    sptrsv_pplan_free(&p);
    sptrsv_dag_free(&d);
    sptrsv_factor_free(&f);
}

static void test_link_bound(const char *machine_path)
{
    rt_csr a;
    sptrsv_test_laplacian(&a, 7, 8);
    rt_sptrsv_inputs *in = NULL;
    rt_err err;
    RT_CHECK(rt_sptrsv_inputs_create(&a, 1, SPTRSV_ORDER_METIS, 16, 1, 0, 1, &in, &err) == 0);
    sptrsv_ppoint o = {.parts = 4, .grid_rows = 4, .chunk_rows = 16};
    snprintf(o.map, sizeof o.map, "cyclic");
    sptrsv_pplan_opts po;
    sptrsv_ppoint_plan_opts(&o, in, &po);
    sptrsv_pplan p;
    RT_CHECK(sptrsv_pplan_build(&in->f, &in->dag, &po, &p, &err) == 0);
    rt_machine m;
    RT_CHECK_MSG(rt_machine_load(machine_path, &m, &err) == 0, "%s", err.msg);
    const int tier_of[4] = {RT_TIER_SOCKET, RT_TIER_SOCKET, RT_TIER_SOCKET, RT_TIER_SOCKET};
    rt_traffic t;
    sptrsv_ppoint_part_traffic(&in->f, &p, 0, tier_of, &t);
    RT_CHECK_MSG(t.net_bytes[RT_TIER_SOCKET] > 0 && t.net_bytes[RT_TIER_SOCKET] == p.link_bytes[0],
                 "link bytes %g, the plan's %g", t.net_bytes[RT_TIER_SOCKET], p.link_bytes[0]);
    RT_CHECK(t.net_bytes[RT_TIER_NODE] == 0 && t.net_bytes[RT_TIER_GLOBAL] == 0);
    /* compulsory device bytes: at least L's values of the part's chunks, at most all it touches */
    RT_CHECK_MSG(
        t.bytes[RT_LEVEL_DRAM] > 0 && t.bytes[RT_LEVEL_DRAM] <= p.bytes_of[0] && t.flops > 0,
        "device bytes %g, the plan's touched bytes %g", t.bytes[RT_LEVEL_DRAM], p.bytes_of[0]);
    rt_bound_opts bo;
    rt_bound_opts_init(&bo);
    bo.precision = RT_FP64;
    rt_bound b;
    RT_CHECK(rt_bound_compute(&t, &m, &bo, &b, &err) == 0);
    const double link_s =
        t.net_bytes[RT_TIER_SOCKET] / (m.effective.tier_gbs[RT_TIER_SOCKET] * 1e9);
    RT_CHECK_MSG(fabs(b.tier_s[RT_TIER_SOCKET] - link_s) <= 1e-12 * link_s,
                 "link term %g s, bytes over NVLink %g s", b.tier_s[RT_TIER_SOCKET], link_s);
    /* the kernel overlaps its link writes with its reads of L: the larger term, not the sum */
    RT_CHECK(t.overlap == 1);
    RT_CHECK_MSG(b.bound_s == (b.intra_s > b.inter_s ? b.intra_s : b.inter_s),
                 "bound %g, device %g, link %g", b.bound_s, b.intra_s, b.inter_s);
    rt_roofline_verdict v;
    RT_CHECK(rt_roofline_check(0.5 * b.bound_s, b.bound_s, -1, &v, &err) == 0);
    RT_CHECK_MSG(v.status == RT_ROOFLINE_ABOVE, "a time at half the bound was not flagged");
    RT_CHECK(rt_roofline_check(2.0 * b.bound_s, b.bound_s, -1, &v, &err) == 0);
    RT_CHECK(v.status != RT_ROOFLINE_ABOVE);
    /* the link alone */
    t.bytes[RT_LEVEL_DRAM] = 0.0;
    t.flops = 0.0;
    RT_CHECK(rt_bound_compute(&t, &m, &bo, &b, &err) == 0);
    RT_CHECK_MSG(rt_test_contains(b.limit, "socket link"), "limit '%s'", b.limit);
    RT_CHECK(rt_roofline_check(0.5 * link_s, b.bound_s, -1, &v, &err) == 0 &&
             v.status == RT_ROOFLINE_ABOVE);
    sptrsv_pplan_free(&p);
    rt_sptrsv_inputs_destroy(in);
    rt_csr_free(&a);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MACHINE_FILE\n", argv[0]);
        return 2;
    }
    test_chain_model();
    test_link_bound(argv[1]);
    return RT_TEST_RESULT();
}
