/* The probe: CPU part (quick sizes) gives finite positive numbers and writes a machine file that
 * loads back; MPI part under mpirun measures the tier that the emulated topology puts between
 * rank 0 and rank 1.
 * Usage: test_probe cpu <scratch-dir> <machines-dir>
 *        test_probe mpi <ranks_per_node> <ranks_per_socket> <expected tier: socket|node|global> */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_machine.h"
#include "rt_probe.h"
#include "rt_test.h"
#include "probe_test_world.h"

static int positive(double v)
{
    return isfinite(v) && v > 0;
}

static char *run_to_text(const rt_probe_opts *o, void *comm, rt_err *err, int *rc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    *rc = rt_probe_run(o, comm, mem, err);
    fclose(mem);
    return text;
}

static int test_cpu(const char *scratch, const char *machines)
{
    rt_err err;
    rt_probe_opts o;
    rt_probe_opts_init(&o);
    o.quick = 1;
    o.threads = 2;

    rt_probe_cpu_result r;
    RT_CHECK_MSG(rt_probe_cpu(&o, &r, &err) == 0, "%s", err.msg);
    for (int q = 0; q < 4; ++q)
        RT_CHECK_MSG(positive(r.stream_gbs[q]), "stream[%d] = %g", q, r.stream_gbs[q]);
    RT_CHECK_MSG(positive(r.fp64_gflops) && positive(r.fp32_gflops), "%g %g", r.fp64_gflops,
                 r.fp32_gflops);
    /* Sanity, not a benchmark (the host may be busy): two threads stay far below 2 TFLOP/s and
     * 2 TB/s, so a larger number means a timing or flop-counting bug. */
    RT_CHECK_MSG(r.fp64_gflops < 2000 && r.fp32_gflops < 4000 && r.stream_gbs[3] < 2000, "%g %g %g",
                 r.fp64_gflops, r.fp32_gflops, r.stream_gbs[3]);
    RT_CHECK(r.threads == 2 && r.array_bytes > 0 && r.isa[0]);
    printf("cpu probe (quick): %s, isa %s, fp64 %.1f GF/s, fp32 %.1f GF/s, triad %.1f GB/s\n",
           r.cpu_model, r.isa, r.fp64_gflops, r.fp32_gflops, r.stream_gbs[3]);

    /* A new cpu machine file, written to disk, loads back with the measured values. */
    o.name = "Test Host #1";
    int rc;
    char *text = run_to_text(&o, NULL, &err, &rc);
    RT_CHECK_MSG(rc == 0, "%s", err.msg);
    char path[2048];
    snprintf(path, sizeof path, "%s/probed.yaml", scratch);
    FILE *f = fopen(path, "w");
    RT_CHECK(f != NULL);
    if (f && text) {
        fputs(text, f);
        fclose(f);
    }
    rt_machine m;
    RT_CHECK_MSG(rt_machine_load(path, &m, &err) == 0, "%s\n%s", err.msg, text ? text : "");
    RT_CHECK_MSG(strcmp(m.name, "test-host--1") == 0, "name '%s'", m.name);
    RT_CHECK(strcmp(m.kind, "cpu") == 0 && m.n_match == 1 && m.priority == 20);
    RT_CHECK(positive(m.measured.level_gbs[RT_LEVEL_DRAM]) && positive(m.measured.fp64_gflops));
    RT_CHECK(m.spec.fp64_gflops == 0 && m.effective.fp64_gflops == m.measured.fp64_gflops);
    RT_CHECK(positive(m.stream_gbs[3]));
    RT_CHECK(rt_test_contains(m.measured_source, "quick mode"));
    free(text);

    /* With a base file: its spec and comments stay, its measured: block is replaced. */
    char base[2048];
    snprintf(base, sizeof base, "%s/cpu-host.yaml", machines);
    o.base_path = base;
    text = run_to_text(&o, NULL, &err, &rc);
    RT_CHECK_MSG(rc == 0, "%s", err.msg);
    RT_CHECK(text && rt_machine_load_string(text, "based.yaml", &m, &err) == 0);
    RT_CHECK(strcmp(m.name, "cpu-host") == 0 && m.spec.fp64_gflops == 10000);
    RT_CHECK(positive(m.measured.fp64_gflops) && m.effective.fp64_gflops == m.measured.fp64_gflops);
    RT_CHECK(text && rt_test_contains(text, "loose upper bounds")); /* a comment kept */
    /* Exactly one measured: block: the base's (empty) one was dropped. */
    const char *first = text ? strstr(text, "\nmeasured:") : NULL;
    RT_CHECK(first != NULL && strstr(first + 1, "\nmeasured:") == NULL);
    free(text);

    /* In memory, as `machine: auto` may use it when no file matches this host. */
    o.base_path = NULL;
    rt_machine mem_m;
    RT_CHECK_MSG(rt_probe_machine(&o, &mem_m, &err) == 0, "%s", err.msg);
    RT_CHECK(strcmp(mem_m.kind, "cpu") == 0 && positive(mem_m.effective.level_gbs[RT_LEVEL_DRAM]));

    /* A base file that does not load is an error naming it. */
    o.base_path = "/nonexistent/base.yaml";
    text = run_to_text(&o, NULL, &err, &rc);
    RT_CHECK(rc != 0 && rt_test_contains(err.msg, "/nonexistent/base.yaml"));
    free(text);

    /* Bad options. */
    rt_probe_opts_init(&o);
    o.threads = -3;
    RT_CHECK(rt_probe_cpu(&o, &r, &err) != 0 && rt_test_contains(err.msg, "threads"));
    rt_probe_opts_init(&o);
    o.cpu_array_bytes = 100;
    RT_CHECK(rt_probe_cpu(&o, &r, &err) != 0 && rt_test_contains(err.msg, "too small"));
    rt_probe_opts_init(&o);
    o.repetitions = -1;
    RT_CHECK(rt_probe_cpu(&o, &r, &err) != 0);
    return RT_TEST_RESULT();
}

static int test_mpi(int rpn, int rps, const char *tier)
{
    rt_comm *comm = probe_test_comm(NULL, NULL, rpn, rps);
    if (!comm)
        return 1;
    rt_err err;
    const int me = rt_comm_world_rank(comm);
    const int want = probe_test_tier(tier);

    rt_probe_opts o;
    rt_probe_opts_init(&o);
    o.quick = 1;
    o.threads = 1;
    o.name = "mpi-test";
    rt_probe_net_result net;
    RT_CHECK_MSG(rt_probe_mpi(&o, comm, &net, &err) == 0, "%s", err.msg);
    if (want >= 0) {
        RT_CHECK_MSG(net.have[want], "rank %d: no %s tier measured", me, tier);
        RT_CHECK_MSG(positive(net.latency_us[want]) && positive(net.bandwidth_gbs[want]),
                     "rank %d: %s latency %g us bandwidth %g GB/s", me, tier, net.latency_us[want],
                     net.bandwidth_gbs[want]);
        RT_CHECK(net.partner[want] == 1);
        for (int t = 0; t < RT_TIER_COUNT; ++t)
            if (t != want)
                RT_CHECK_MSG(!net.have[t], "tier %d measured too", t);
        if (me == 0)
            printf("%s tier: %.2f us, %.2f GB/s\n", tier, net.latency_us[want],
                   net.bandwidth_gbs[want]);
    }

    /* The whole probe: only rank 0 writes, and what it writes loads back with the tier. */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = me == 0 ? open_memstream(&text, &len) : NULL;
    RT_CHECK_MSG(rt_probe_run(&o, comm, mem, &err) == 0, "%s", err.msg);
    if (mem)
        fclose(mem);
    if (me == 0) {
        rt_machine m;
        RT_CHECK_MSG(text && rt_machine_load_string(text, "mpi.yaml", &m, &err) == 0, "%s",
                     err.msg);
        if (want >= 0)
            RT_CHECK_MSG(positive(m.measured.tier_gbs[want]) &&
                             positive(m.measured.tier_latency_us[want]),
                         "%s", text ? text : "");
    }
    free(text);

    /* Bad options fail on every rank alike (no hang). */
    o.mpi_message_bytes = (size_t)2 << 30;
    RT_CHECK(rt_probe_mpi(&o, comm, &net, &err) != 0 && rt_test_contains(err.msg, "1 GiB"));

    /* Every rank reports its own failures; the job fails if any rank failed. */
    int mine = rt_test_failures, worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    rt_comm_free(comm);
    MPI_Finalize();
    return worst == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "cpu") == 0)
        return test_cpu(argv[2], argv[3]);
    if (argc >= 5 && strcmp(argv[1], "mpi") == 0)
        return test_mpi(atoi(argv[2]), atoi(argv[3]), argv[4]);
    fprintf(stderr, "usage: %s cpu <scratch> <machines> | mpi <rpn> <rps> <tier>\n", argv[0]);
    return 2;
}
