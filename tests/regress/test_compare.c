/* Unit tests of rt_compare's pieces that need no store: the device class, the timing verdict on
 * synthetic samples, and change-point detection. Run as `test_compare <case>`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_compare.h"
#include "rt_test.h"

/* A deterministic, skewed "timing" sample: a floor plus a small right tail, like real timings. */
static void timings(double *x, int n, double median, double spread, unsigned seed)
{
    unsigned s = seed * 2654435761u + 1;
    for (int i = 0; i < n; ++i) {
        s = s * 1103515245u + 12345u;
        const double u = ((s >> 8) & 0xffff) / 65536.0; /* [0, 1) */
        x[i] = median * (1 + spread * (u * u - 0.25));
    }
}

static void check_class(const char *device, const char *want)
{
    char got[128];
    rt_compare_device_class(device, got, sizeof got);
    RT_CHECK_MSG(strcmp(got, want) == 0, "class of '%s' is '%s', want '%s'", device, got, want);
}

static void case_device_class(void)
{
    check_class("NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3");
    check_class("NVIDIA H100 80GB HBM3 (GPU-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d)",
                "NVIDIA H100 80GB HBM3");
    check_class("NVIDIA H200 00000000:3B:00.0", "NVIDIA H200");
    check_class("NVIDIA H200 [0000:3b:00.0]", "NVIDIA H200");
    check_class("NVIDIA A100-SXM4-40GB 1a2b3c4d5e6f", "NVIDIA A100-SXM4-40GB");
    check_class("NVIDIA A100-SXM4-40GB #3", "NVIDIA A100-SXM4-40GB");
    check_class("Tesla V100-SXM2-16GB (S/N 0324817004321)", "Tesla V100-SXM2-16GB");
    check_class("Tesla V100-SXM2-16GB SN:0324817004321", "Tesla V100-SXM2-16GB");
    check_class("AMD EPYC 7763 64-Core Processor", "AMD EPYC 7763 64-Core Processor");
    check_class("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz",
                "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz");
    check_class("NVIDIA H100 80GB HBM3 :1", "NVIDIA H100 80GB HBM3");
    check_class("NVIDIA H100 80GB HBM3 (0)", "NVIDIA H100 80GB HBM3");
    check_class("NVIDIA H100 80GB HBM3 1", "NVIDIA H100 80GB HBM3");
    check_class("AMD Opteron(tm) Processor 248", "AMD Opteron(tm) Processor 248");
    check_class("  NVIDIA   H100  ", "NVIDIA H100");
    /* A model number is not an index: a single token stays, and digits inside words stay. */
    check_class("7763", "7763");
    check_class("", "");
    check_class(NULL, "");
    char tiny[6];
    rt_compare_device_class("NVIDIA H100", tiny, sizeof tiny);
    RT_CHECK(strlen(tiny) < sizeof tiny);
}

static void case_verdicts(void)
{
    rt_compare_opts o;
    rt_compare_opts_init(&o);
    rt_err err;
    double base[30], same[30], slow[30], fast[30], slight[30], few_a[3], few_b[3];
    timings(base, 30, 1e-3, 0.04, 1);
    for (int i = 0; i < 30; ++i) {
        same[i] = base[i];
        slow[i] = base[i] * 1.3;
        fast[i] = base[i] / 1.3;
        slight[i] = base[i] * 1.01;
    }
    rt_verdict v;
    double ratio, lo, hi, p;
    RT_CHECK(rt_compare_samples(base, 30, same, 30, &o, &v, &ratio, &lo, &hi, &p, &err) == 0);
    RT_CHECK_MSG(v == RT_VERDICT_SAME && ratio == 1 && p > 0.5, "identical: %s r=%g p=%g",
                 rt_verdict_name(v), ratio, p);
    RT_CHECK(lo <= 1 && hi >= 1);
    RT_CHECK(rt_compare_samples(base, 30, slow, 30, &o, &v, &ratio, &lo, &hi, &p, &err) == 0);
    RT_CHECK_MSG(v == RT_VERDICT_SLOWER && fabs(ratio - 1.3) < 1e-9 && p < 1e-6,
                 "slowed 30%%: %s r=%g p=%g", rt_verdict_name(v), ratio, p);
    RT_CHECK(lo > 1 && hi >= lo);
    RT_CHECK(rt_compare_samples(base, 30, fast, 30, &o, &v, &ratio, NULL, NULL, &p, &err) == 0);
    RT_CHECK_MSG(v == RT_VERDICT_FASTER, "sped up 30%%: %s", rt_verdict_name(v));
    /* 1%: significant perhaps, but below the 5% threshold. */
    RT_CHECK(rt_compare_samples(base, 30, slight, 30, &o, &v, &ratio, NULL, NULL, &p, &err) == 0);
    RT_CHECK_MSG(v == RT_VERDICT_SAME, "slowed 1%%: %s r=%g", rt_verdict_name(v), ratio);
    /* With a 0.5% threshold the same 1% is beyond it, and 30 clean samples confirm it. */
    o.threshold = 0.005;
    RT_CHECK(rt_compare_samples(base, 30, slight, 30, &o, &v, NULL, NULL, NULL, &p, &err) == 0);
    RT_CHECK_MSG(v == RT_VERDICT_SLOWER, "1%% against a 0.5%% threshold: %s p=%g",
                 rt_verdict_name(v), p);
    o.threshold = 0.05;
    /* Three samples each cannot reach p < 0.01: a 30% change is UNSURE, never SLOWER. */
    timings(few_a, 3, 1e-3, 0.04, 2);
    for (int i = 0; i < 3; ++i)
        few_b[i] = few_a[i] * 1.3;
    RT_CHECK(rt_compare_samples(few_a, 3, few_b, 3, &o, &v, &ratio, &lo, &hi, &p, &err) == 0);
    RT_CHECK_MSG(v == RT_VERDICT_UNSURE && p >= 0.01, "3 samples: %s p=%g", rt_verdict_name(v), p);
    RT_CHECK(lo == 0 && isinf(hi)); /* too few samples for an interval */
    /* Bad input. */
    RT_CHECK(rt_compare_samples(base, 0, slow, 30, &o, &v, NULL, NULL, NULL, NULL, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "both sides need samples"));
    double zeros[3] = {0, 0, 0};
    RT_CHECK(rt_compare_samples(zeros, 3, zeros, 3, &o, &v, NULL, NULL, NULL, NULL, &err) != 0);
    double nan_sample[3] = {1e-3, NAN, 1e-3};
    RT_CHECK(rt_compare_samples(nan_sample, 3, base, 30, &o, &v, NULL, NULL, NULL, NULL, &err) !=
             0);
    o.threshold = 0;
    RT_CHECK(rt_compare_opts_check(&o, &err) != 0 && rt_test_contains(err.msg, "--threshold"));
    o.threshold = 0.05;
    o.alpha = 1;
    RT_CHECK(rt_compare_opts_check(&o, &err) != 0 && rt_test_contains(err.msg, "--alpha"));
}

static void case_change_points(void)
{
    rt_compare_opts o;
    rt_compare_opts_init(&o);
    rt_err err;
    enum { N = 6, S = 20 };
    double data[N][S];
    const double *sets[N];
    int counts[N];
    /* A step of +30% between set 2 and set 3, noise of a few percent everywhere. */
    for (int k = 0; k < N; ++k) {
        timings(data[k], S, k >= 3 ? 1.3e-3 : 1e-3, 0.05, (unsigned)(10 + k));
        sets[k] = data[k];
        counts[k] = S;
    }
    rt_change_point cps[N];
    int found = -1;
    RT_CHECK(rt_compare_change_points(sets, counts, N, &o, cps, N, &found, &err) == 0);
    RT_CHECK_MSG(found == 1, "found %d change points, want 1", found);
    if (found >= 1) {
        RT_CHECK_MSG(cps[0].after == 2, "step after set %d, want 2", cps[0].after);
        RT_CHECK(fabs(cps[0].ratio - 1.3) < 0.05 && cps[0].p_value < 0.01);
    }
    /* Two steps: up after 1, down after 4. */
    for (int k = 0; k < N; ++k)
        timings(data[k], S, k >= 2 && k <= 4 ? 2e-3 : 1e-3, 0.05, (unsigned)(20 + k));
    RT_CHECK(rt_compare_change_points(sets, counts, N, &o, cps, N, &found, &err) == 0);
    RT_CHECK_MSG(found == 2, "found %d change points, want 2", found);
    if (found == 2) {
        RT_CHECK(cps[0].after == 1 && cps[0].ratio > 1.5);
        RT_CHECK(cps[1].after == 4 && cps[1].ratio < 0.7);
    }
    /* No step: nothing, however many splits are tried. */
    for (int k = 0; k < N; ++k)
        timings(data[k], S, 1e-3, 0.05, (unsigned)(30 + k));
    RT_CHECK(rt_compare_change_points(sets, counts, N, &o, cps, N, &found, &err) == 0);
    RT_CHECK_MSG(found == 0, "found %d change points in flat data", found);
    /* A 2% drift is below the threshold: not a change point. */
    for (int k = 0; k < N; ++k)
        timings(data[k], S, 1e-3 * (k >= 3 ? 1.02 : 1.0), 0.01, (unsigned)(40 + k));
    RT_CHECK(rt_compare_change_points(sets, counts, N, &o, cps, N, &found, &err) == 0);
    RT_CHECK_MSG(found == 0, "a 2%% drift gave %d change points", found);
    /* Bad input. */
    counts[1] = 0;
    RT_CHECK(rt_compare_change_points(sets, counts, N, &o, cps, N, &found, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "set 1 has no samples"));
    RT_CHECK(rt_compare_change_points(sets, counts, 0, &o, cps, N, &found, &err) != 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_compare device_class|verdicts|change_points\n");
        return 2;
    }
    if (strcmp(argv[1], "device_class") == 0)
        case_device_class();
    else if (strcmp(argv[1], "verdicts") == 0)
        case_verdicts();
    else if (strcmp(argv[1], "change_points") == 0)
        case_change_points();
    else {
        fprintf(stderr, "unknown case '%s'\n", argv[1]);
        return 2;
    }
    return RT_TEST_RESULT();
}
