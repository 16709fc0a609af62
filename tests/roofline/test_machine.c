/* Machine files: every committed file loads; validation errors name file:line; auto resolution.
 * Usage: test_machine <machines-dir> <scratch-dir> */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_machine.h"
#include "rt_test.h"

static const char *const good_gpu = "name: g\n"                                             /* 1 */
                                    "kind: gpu\n"                                           /* 2 */
                                    "topology: {gpus_per_socket: 1, sockets_per_node: 1}\n" /* 3 */
                                    "spec:\n"                                               /* 4 */
                                    "  fp32_gflops: 1000\n"                                 /* 5 */
                                    "  fp64_gflops: 500\n"                                  /* 6 */
                                    "  dram_gbs: 100\n"                                     /* 7 */
                                    "  l2_gbs: 400\n"                                       /* 8 */
                                    "  shared_gbs: 1000\n"                                  /* 9 */
                                    "  h2d_gbs: 10\n"                                       /* 10 */
                                    "  d2h_gbs: 10\n";                                      /* 11 */

/* Replaces the first occurrence of `from` in good_gpu by `to` and loads the result. */
static int load_variant(const char *from, const char *to, rt_err *err)
{
    char text[2048];
    const char *at = strstr(good_gpu, from);
    if (!at) {
        snprintf(err->msg, sizeof err->msg, "test bug: '%s' not in the base text", from);
        return 0; /* makes the caller's "must fail" check fail loudly */
    }
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good_gpu), good_gpu, to, at + strlen(from));
    rt_machine m;
    return rt_machine_load_string(text, "m.yaml", &m, err);
}

static void expect_error(const char *from, const char *to, const char *want1, const char *want2)
{
    rt_err err;
    rt_err_clear(&err);
    const int rc = load_variant(from, to, &err);
    RT_CHECK_MSG(rc != 0, "'%s' -> '%s' loaded", from, to);
    RT_CHECK_MSG(rt_test_contains(err.msg, want1), "want '%s' in: %s", want1, err.msg);
    if (want2)
        RT_CHECK_MSG(rt_test_contains(err.msg, want2), "want '%s' in: %s", want2, err.msg);
}

static void test_validation(void)
{
    rt_err err;
    rt_machine m;
    RT_CHECK_MSG(rt_machine_load_string(good_gpu, "m.yaml", &m, &err) == 0, "%s", err.msg);
    RT_CHECK(m.effective.level_gbs[RT_LEVEL_L2] == 400 && m.gpus_per_socket == 1);

    /* Unknown key with a suggestion, at its line. */
    expect_error("  dram_gbs: 100", "  dram_gb: 100", "m.yaml:7:", "did you mean 'dram_gbs'");
    expect_error("kind: gpu", "kind: gpu\nsepc: {}", "m.yaml:3:", "did you mean 'spec'");
    /* Negative and zero bandwidths. */
    expect_error("dram_gbs: 100", "dram_gbs: -100", "m.yaml:7:", "positive");
    expect_error("l2_gbs: 400", "l2_gbs: 0", "m.yaml:8:", "spec.l2_gbs");
    /* The FP64 tensor-core peak (optional) follows the same rules. */
    expect_error("  fp64_gflops: 500\n", "  fp64_gflops: 500\n  fp64_tensor_gflops: -1\n",
                 "m.yaml:7:", "spec.fp64_tensor_gflops");
    expect_error("  fp64_gflops: 500\n", "  fp64_gflops: 500\n  fp64_tensor_gflop: 1\n",
                 "m.yaml:7:", "did you mean 'fp64_tensor_gflops'");
    /* Missing required ceilings (gpu needs L2, shared memory and the host link). */
    expect_error("  l2_gbs: 400\n", "", "missing required ceiling 'l2_gbs'", "m.yaml:4:");
    expect_error("  d2h_gbs: 10\n", "", "missing required ceiling 'd2h_gbs'", NULL);
    expect_error("  fp64_gflops: 500\n", "", "'fp64_gflops'", NULL);
    /* Wrong types. */
    expect_error("fp32_gflops: 1000", "fp32_gflops: fast", "m.yaml:5:", "fp32_gflops");
    expect_error("fp32_gflops: 1000", "fp32_gflops: [1, 2]", "m.yaml:5:", NULL);
    expect_error("dram_gbs: 100", "dram_gbs: {a: 1}", "m.yaml:7:", NULL);
    expect_error("topology: {gpus_per_socket: 1,", "topology: {gpus_per_socket: 1.5,",
                 "m.yaml:3:", "gpus_per_socket");
    /* Topology and kind contradictions. */
    expect_error("gpus_per_socket: 1", "gpus_per_socket: 0", "m.yaml:3:", "at least 1");
    expect_error("kind: gpu", "kind: tpu", "m.yaml:2:", "'gpu' or 'cpu'");
    expect_error("kind: gpu\n", "", "missing 'kind'", NULL);
    expect_error("name: g\n", "", "missing 'name'", NULL);
    /* Tiers: several GPUs per socket need a socket tier; spec tiers need both numbers. */
    expect_error("gpus_per_socket: 1", "gpus_per_socket: 4", "socket.bandwidth_gbs", NULL);
    expect_error("  d2h_gbs: 10\n", "  d2h_gbs: 10\n  node: {bandwidth_gbs: 5}\n", "latency_us",
                 "m.yaml:12:");
    expect_error("  d2h_gbs: 10\n", "  d2h_gbs: 10\n  node: {bandwidth_gbs: 5, latency_us: -1}\n",
                 "spec.node.latency_us", NULL);
    expect_error("  d2h_gbs: 10\n", "  d2h_gbs: 10\n  global: {bandwith_gbs: 5, latency_us: 1}\n",
                 "did you mean 'bandwidth_gbs'", NULL);
    /* Measured blocks: unknown key, negative value, bad peers. */
    expect_error("  d2h_gbs: 10\n", "  d2h_gbs: 10\nmeasured:\n  dram_gb: 90\n",
                 "m.yaml:13:", "did you mean 'dram_gbs'");
    expect_error("  d2h_gbs: 10\n", "  d2h_gbs: 10\nmeasured:\n  dram_gbs: -90\n",
                 "m.yaml:13:", NULL);
    expect_error("  d2h_gbs: 10\n", "  d2h_gbs: 10\nmeasured:\n  peers: 3\n", "peers", NULL);
    expect_error("  d2h_gbs: 10\n", "  d2h_gbs: 10\nmeasured:\n  peers: [{src: 0, dst: 1}]\n",
                 "needs src, dst and bandwidth_gbs", NULL);
    /* Not a map at all; YAML garbage; binary garbage. */
    RT_CHECK(rt_machine_load_string("- a\n- b\n", "l.yaml", &m, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "l.yaml:1:"), "%s", err.msg);
    RT_CHECK(rt_machine_load_string("name: [unclosed\n", "s.yaml", &m, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "s.yaml"), "%s", err.msg);
    const char garbage[] = {'\x01', '\xff', ':', '\x7f', '{', '\n', '\0'};
    RT_CHECK(rt_machine_load_string(garbage, "g.yaml", &m, &err) != 0);
    RT_CHECK(rt_machine_load_string("", "e.yaml", &m, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "missing 'name'"), "%s", err.msg);
    RT_CHECK(rt_machine_load("/nonexistent/x.yaml", &m, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "/nonexistent/x.yaml"), "%s", err.msg);

    /* A measured-only machine loads; measured values take precedence; peers are kept. */
    const char *meas_only = "name: p\nkind: cpu\nmeasured:\n  fp32_gflops: 20\n  fp64_gflops: 10\n"
                            "  dram_gbs: 15\n  stream: {copy_gbs: 14, scale_gbs: 13, add_gbs: 15, "
                            "triad_gbs: 15}\n";
    RT_CHECK_MSG(rt_machine_load_string(meas_only, "p.yaml", &m, &err) == 0, "%s", err.msg);
    RT_CHECK(m.effective.level_gbs[RT_LEVEL_DRAM] == 15 && m.stream_gbs[0] == 14);
    const char *peers = "  d2h_gbs: 10\nmeasured:\n  dram_gbs: 90\n  peers:\n"
                        "    - {src: 0, dst: 1, bandwidth_gbs: 387}\n";
    char text[2048];
    snprintf(text, sizeof text, "%.*s%s", (int)(strstr(good_gpu, "  d2h_gbs") - good_gpu), good_gpu,
             peers);
    RT_CHECK_MSG(rt_machine_load_string(text, "m.yaml", &m, &err) == 0, "%s", err.msg);
    RT_CHECK(m.n_peers == 1 && m.peers[0].dst == 1 && m.peers[0].gbs == 387);
    RT_CHECK(m.effective.level_gbs[RT_LEVEL_DRAM] == 90 && m.spec.level_gbs[RT_LEVEL_DRAM] == 100);
    /* host: only belongs to gpu machines. */
    RT_CHECK(
        rt_machine_load_string("name: p\nkind: cpu\nmeasured: {fp32_gflops: 1, fp64_gflops: 1, "
                               "dram_gbs: 1, host: {fp32_gflops: 1}}\n",
                               "h.yaml", &m, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "measured.host"), "%s", err.msg);
}

static int ends_with(const char *s, const char *suffix)
{
    const size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* Every committed machine file loads, and the ones the brief names are all there. */
static void test_committed(const char *dir)
{
    DIR *d = opendir(dir);
    RT_CHECK_MSG(d != NULL, "cannot open %s", dir);
    if (!d)
        return;
    int n = 0;
    rt_machine *m = malloc(sizeof *m);
    for (struct dirent *e = readdir(d); e && m; e = readdir(d)) {
        if (!ends_with(e->d_name, ".yaml"))
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        rt_err err;
        RT_CHECK_MSG(rt_machine_load(path, m, &err) == 0, "%s", err.msg);
        char stem[256];
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(e->d_name) - 5), e->d_name);
        RT_CHECK_MSG(strcmp(stem, m->name) == 0, "%s: name '%s' differs from the file name", path,
                     m->name);
        ++n;
    }
    closedir(d);
    free(m);
    const char *required[] = {"p100",     "v100",    "a100-40gb",   "a100-80gb",
                              "h100-sxm", "h200",    "summit-node", "dgx-h100",
                              "h100-x1",  "h200-x2", "h200-x4",     "cpu-host"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; ++i) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s.yaml", dir, required[i]);
        FILE *f = fopen(path, "r");
        RT_CHECK_MSG(f != NULL, "missing machine file %s", path);
        if (f)
            fclose(f);
    }
    RT_CHECK(n >= 12);

    /* Summit as the papers describe it. */
    rt_machine s;
    rt_err err;
    char path[2048];
    snprintf(path, sizeof path, "%s/summit-node.yaml", dir);
    RT_CHECK_MSG(rt_machine_load(path, &s, &err) == 0, "%s", err.msg);
    RT_CHECK(s.gpus_per_socket == 3 && s.sockets_per_node == 2);
    RT_CHECK(s.effective.tier_gbs[RT_TIER_GLOBAL] == 3.83 && s.spec.tier_gbs[RT_TIER_GLOBAL] > 4);
}

static void expect_find(const char *dir, const char *device, int gpus, const char *want,
                        int want_generic)
{
    char path[2048];
    int generic = -1;
    rt_err err;
    const int rc = rt_machine_find(dir, device, gpus, path, sizeof path, &generic, &err);
    RT_CHECK_MSG(rc == 0, "%s: %s", device, err.msg);
    RT_CHECK_MSG(rc == 0 && ends_with(path, want), "%s x%d -> %s, expected %s", device, gpus, path,
                 want);
    RT_CHECK_MSG(generic == want_generic, "%s: generic %d", device, generic);
}

static void test_find(const char *dir, const char *scratch)
{
    expect_find(dir, "NVIDIA H100 80GB HBM3", 1, "/h100-x1.yaml", 0);
    expect_find(dir, "NVIDIA H100 80GB HBM3", 8, "/h100-sxm.yaml", 0);
    expect_find(dir, "NVIDIA H200", 2, "/h200-x2.yaml", 0);
    expect_find(dir, "NVIDIA H200", 4, "/h200-x4.yaml", 0);
    expect_find(dir, "NVIDIA H200", 8, "/h200.yaml", 0);
    expect_find(dir, "Tesla V100-SXM2-16GB", 0, "/v100.yaml", 0);
    expect_find(dir, "Tesla P100-SXM2-16GB", 0, "/p100.yaml", 0);
    expect_find(dir, "NVIDIA A100-SXM4-80GB", 8, "/a100-80gb.yaml", 0);
    expect_find(dir, "NVIDIA A100-SXM4-40GB", 8, "/a100-40gb.yaml", 0);
    expect_find(dir, "nvidia h100 80gb hbm3", 1, "/h100-x1.yaml", 0); /* case-insensitive */
    expect_find(dir, "AMD EPYC 9654", 0, "/cpu-host.yaml", 1);
    expect_find(dir, NULL, 0, "/cpu-host.yaml", 1);

    char path[2048];
    rt_err err;
    int generic;
    RT_CHECK(rt_machine_find("/nonexistent-dir", "H100", 1, path, sizeof path, &generic, &err) !=
             0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "/nonexistent-dir"), "%s", err.msg);
    /* A broken file in the directory is reported, never skipped. */
    char file[2048];
    snprintf(file, sizeof file, "%s/broken.yaml", scratch);
    FILE *f = fopen(file, "w");
    RT_CHECK(f != NULL);
    if (f) {
        fputs("name: broken\nkind: gpu\nspec: {fp32_gflops: -1}\n", f);
        fclose(f);
    }
    RT_CHECK(rt_machine_find(scratch, "H100", 1, path, sizeof path, &generic, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "broken.yaml:3:"), "%s", err.msg);
    remove(file);
    /* No match and no cpu-host.yaml: an error naming the directory. */
    RT_CHECK(rt_machine_find(scratch, "H100", 1, path, sizeof path, &generic, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "cpu-host.yaml"), "%s", err.msg);
}

/* Inter-node ceilings of a GPU kernel: measured.mpi_staged.global when the file has it, else the
 * file's own global tier (host-buffer MPI or vendor figure) unchanged. */
static void test_staged_internode(void)
{
    char text[2048];
    rt_err err;
    rt_machine *m = calloc(1, sizeof *m);
    if (!m) {
        RT_CHECK_MSG(0, "out of memory");
        return;
    }
    /* Lacks the key: unchanged. */
    snprintf(text, sizeof text, "%s  global: {bandwidth_gbs: 12.5, latency_us: 2}\n", good_gpu);
    RT_CHECK_MSG(rt_machine_load_string(text, "m.yaml", m, &err) == 0, "%s", err.msg);
    RT_CHECK(rt_machine_use_staged_internode(m) == 0);
    RT_CHECK(m->effective.tier_gbs[RT_TIER_GLOBAL] == 12.5 &&
             m->effective.tier_latency_us[RT_TIER_GLOBAL] == 2);
    /* Has it: the staged figures replace the global tier, the other tiers stay. */
    snprintf(text, sizeof text,
             "%s  global: {bandwidth_gbs: 12.5, latency_us: 2}\n"
             "  node: {bandwidth_gbs: 50, latency_us: 1}\n"
             "measured:\n"
             "  mpi_staged:\n"
             "    node: {bandwidth_gbs: 20, latency_us: 9}\n"
             "    global: {bandwidth_gbs: 7.25, latency_us: 11}\n"
             "  mpi_ipc:\n"
             "    node: {bandwidth_gbs: 40, latency_us: 4}\n",
             good_gpu);
    RT_CHECK_MSG(rt_machine_load_string(text, "m.yaml", m, &err) == 0, "%s", err.msg);
    RT_CHECK(m->staged_gbs[RT_TIER_NODE] == 20 && m->ipc_gbs[RT_TIER_NODE] == 40 &&
             m->ipc_latency_us[RT_TIER_NODE] == 4);
    RT_CHECK(rt_machine_use_staged_internode(m) == 1);
    RT_CHECK(m->effective.tier_gbs[RT_TIER_GLOBAL] == 7.25 &&
             m->effective.tier_latency_us[RT_TIER_GLOBAL] == 11);
    RT_CHECK(m->effective.tier_gbs[RT_TIER_NODE] == 50);
    /* Staged bandwidth without latency: the latency stays the file's. */
    snprintf(text, sizeof text,
             "%s  global: {bandwidth_gbs: 12.5, latency_us: 2}\n"
             "measured:\n  mpi_staged: {global: {bandwidth_gbs: 3}}\n",
             good_gpu);
    RT_CHECK_MSG(rt_machine_load_string(text, "m.yaml", m, &err) == 0, "%s", err.msg);
    RT_CHECK(rt_machine_use_staged_internode(m) == 1 &&
             m->effective.tier_gbs[RT_TIER_GLOBAL] == 3 &&
             m->effective.tier_latency_us[RT_TIER_GLOBAL] == 2);
    free(m);

    /* Bad blocks: IPC has no global tier, values positive, tiers need a bandwidth. */
    expect_error("  d2h_gbs: 10\n",
                 "  d2h_gbs: 10\nmeasured:\n  mpi_ipc: {global: {bandwidth_gbs: 3}}\n",
                 "measured.mpi_ipc", "global");
    expect_error("  d2h_gbs: 10\n",
                 "  d2h_gbs: 10\nmeasured:\n  mpi_staged: {node: {bandwidth_gbs: -3}}\n",
                 "measured.mpi_staged.node.bandwidth_gbs", "positive");
    expect_error("  d2h_gbs: 10\n",
                 "  d2h_gbs: 10\nmeasured:\n  mpi_staged: {node: {latency_us: 3}}\n",
                 "measured.mpi_staged.node", "bandwidth_gbs");
    expect_error("  d2h_gbs: 10\n", "  d2h_gbs: 10\nmeasured:\n  mpi_staged: 5\n",
                 "measured.mpi_staged", "map");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <machines-dir> <scratch-dir>\n", argv[0]);
        return 2;
    }
    test_validation();
    test_staged_internode();
    test_committed(argv[1]);
    test_find(argv[1], argv[2]);
    return RT_TEST_RESULT();
}
