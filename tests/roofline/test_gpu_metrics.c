/* GPU counter definitions (no GPU needed): the committed files load, names translate to CUPTI
 * names and back, bad files and unknown names are rejected with file:line or a suggestion.
 * Usage: test_gpu_metrics <metrics-dir> <scratch-dir> */
#include <stdio.h>
#include <string.h>

#include "rt_gpu_metrics.h"
#include "rt_test.h"

static void expect_bad_file(const char *scratch, const char *text, const char *want)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/bad_metrics.yaml", scratch);
    FILE *f = fopen(path, "w");
    if (!f) {
        RT_CHECK_MSG(0, "cannot write %s", path);
        return;
    }
    fputs(text, f);
    fclose(f);
    rt_gpu_metric_defs d;
    rt_err err;
    RT_CHECK_MSG(rt_gpu_metrics_load(path, &d, &err) != 0, "loaded: %s", text);
    RT_CHECK_MSG(rt_test_contains(err.msg, want), "want '%s' in: %s", want, err.msg);
    RT_CHECK_MSG(rt_test_contains(err.msg, "bad_metrics.yaml:"), "no file:line in: %s", err.msg);
    remove(path);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <metrics-dir> <scratch>\n", argv[0]);
        return 2;
    }
    rt_err err;
    char path[2048];
    RT_CHECK_MSG(rt_gpu_metrics_find(argv[1], 9, 0, path, sizeof path, &err) == 0, "%s", err.msg);
    rt_gpu_metric_defs d;
    RT_CHECK_MSG(rt_gpu_metrics_load(path, &d, &err) == 0, "%s", err.msg);
    RT_CHECK(strcmp(d.arch, "sm_90") == 0 && d.n >= 7);
    /* The counters the roofline checks need are all defined. */
    const char *names[] = {"dram_bytes_read",    "dram_bytes_write",
                           "l2_bytes",           "shared_bank_conflicts",
                           "ffma_thread_inst",   "dfma_thread_inst",
                           "achieved_occupancy", "cupti:sm__cycles_elapsed.max"};
    const char *cupti[8];
    RT_CHECK_MSG(rt_gpu_metrics_translate(&d, names, 8, cupti, &err) == 0, "%s", err.msg);
    RT_CHECK(strcmp(cupti[0], "dram__bytes_read.sum") == 0);
    RT_CHECK(strcmp(cupti[6], "sm__warps_active.avg.pct_of_peak_sustained_active") == 0);
    RT_CHECK(strcmp(cupti[7], "sm__cycles_elapsed.max") == 0);

    /* What the plugin records under CUPTI names comes back under the requested names. */
    rt_metrics m;
    rt_metrics_init(&m);
    rt_metrics_add(&m, "dram__bytes_read.sum", "raw", 1024, 0);
    rt_metrics_unavailable(&m, "sm__warps_active.avg.pct_of_peak_sustained_active", "raw",
                           "CUPTI: insufficient privileges");
    rt_metrics_add(&m, "sm__cycles_elapsed.max", "raw", 77, 0);
    rt_gpu_metrics_rename(&d, names, cupti, 8, &m);
    const rt_metric *rd = rt_metrics_get(&m, "dram_bytes_read");
    RT_CHECK(rd && rd->value == 1024 && strcmp(rd->unit, "bytes") == 0);
    const rt_metric *occ = rt_metrics_get(&m, "achieved_occupancy");
    RT_CHECK(occ && !occ->available && strcmp(occ->unit, "percent") == 0 &&
             rt_test_contains(occ->reason, "privileges"));
    RT_CHECK(rt_metrics_get(&m, "cupti:sm__cycles_elapsed.max") != NULL);
    RT_CHECK(rt_metrics_get(&m, "dram__bytes_read.sum") == NULL);

    /* Unknown names, duplicates, empty raw names. */
    const char *typo[] = {"dram_byte_read"};
    RT_CHECK(rt_gpu_metrics_translate(&d, typo, 1, cupti, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "did you mean 'dram_bytes_read'"), "%s", err.msg);
    const char *dup[] = {"dram_bytes_read", "cupti:dram__bytes_read.sum"};
    RT_CHECK(rt_gpu_metrics_translate(&d, dup, 2, cupti, &err) != 0);
    const char *raw_empty[] = {"cupti:"};
    RT_CHECK(rt_gpu_metrics_translate(&d, raw_empty, 1, cupti, &err) != 0);

    /* No file for an architecture: the error lists what exists. */
    RT_CHECK(rt_gpu_metrics_find(argv[1], 7, 0, path, sizeof path, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "sm_90.yaml"), "%s", err.msg);
    RT_CHECK(rt_gpu_metrics_find(argv[1], 0, 0, path, sizeof path, &err) != 0);

    /* Bad files. */
    expect_bad_file(argv[2], "arch: sm_90\nmetrics:\n  x: {cupti: a.sum, units: bytes}\n",
                    "did you mean 'unit'");
    expect_bad_file(argv[2], "arch: sm_90\nmetrics:\n  x: {unit: bytes}\n", "missing 'cupti'");
    expect_bad_file(argv[2],
                    "arch: sm_90\nmetrics:\n  x: {cupti: a.sum, unit: bytes}\n"
                    "  y: {cupti: a.sum, unit: bytes}\n",
                    "already used by 'x'");
    expect_bad_file(argv[2], "arch: sm_90\nmetrics: [1, 2]\n", "must be a map");
    expect_bad_file(argv[2], "arch: sm_90\nmetric: {}\n", "did you mean 'metrics'");
    expect_bad_file(argv[2], "metrics: {}\n", "missing 'arch'");
    expect_bad_file(argv[2], "arch: sm_90\nmetrics:\n  x: {cupti: [a], unit: bytes}\n",
                    "metrics.x");
    RT_CHECK(rt_gpu_metrics_load("/nonexistent/sm_90.yaml", &d, &err) != 0);
    return RT_TEST_RESULT();
}
