/* rt_probe_cpu: the CPU half of `rooftune probe` (declared in rt_probe.h): STREAM-like memory
 * bandwidth and an FMA-chain estimate of the FP64/FP32 peak. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_probe_cpu.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define RT_PROBE_X86 1
#endif

/* ---- machine facts -------------------------------------------------------------------------- */

/* Largest cache of cpu0 (the last level) from sysfs, in bytes; 0 when unknown. */
static size_t last_level_cache_bytes(void)
{
    size_t best = 0;
    for (int i = 0; i < 16; ++i) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        unsigned long v = 0;
        char unit = 0;
        if (fscanf(f, "%lu%c", &v, &unit) >= 1) {
            size_t bytes = v;
            if (unit == 'K')
                bytes = v << 10;
            else if (unit == 'M')
                bytes = v << 20;
            if (bytes > best)
                best = bytes;
        }
        fclose(f);
    }
    return best;
}

/* CPU model and socket count from /proc/cpuinfo (a VM may hide "physical id": one socket then). */
static void cpu_identity(rt_probe_cpu_result *r)
{
    snprintf(r->cpu_model, sizeof r->cpu_model, "unknown CPU");
    r->sockets = 1;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    int seen[64] = {0};
    int n_sockets = 0, have_model = 0;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *val = colon + 1;
        while (*val == ' ' || *val == '\t')
            ++val;
        val[strcspn(val, "\n")] = '\0';
        if (!have_model && strncmp(line, "model name", 10) == 0) {
            snprintf(r->cpu_model, sizeof r->cpu_model, "%s", val);
            have_model = 1;
        } else if (strncmp(line, "physical id", 11) == 0) {
            const int id = atoi(val);
            if (id >= 0 && id < 64 && !seen[id]) {
                seen[id] = 1;
                ++n_sockets;
            }
        }
    }
    fclose(f);
    if (n_sockets > 0)
        r->sockets = n_sockets;
}

/* ---- STREAM ---------------------------------------------------------------------------------- */

/* Checks a few elements against the scalar recurrence of the four kernels, as STREAM does, so a
 * kernel the compiler broke or skipped cannot report a bandwidth. */
static int stream_check(const double *a, const double *b, const double *c, size_t n, int iters,
                        double scalar, rt_err *err)
{
    double ea = 1.0, eb = 2.0, ec = 0.0;
    for (int k = 0; k < iters; ++k) {
        ec = ea;
        eb = scalar * ec;
        ec = ea + eb;
        ea = eb + scalar * ec;
    }
    const size_t probes[3] = {0, n / 2, n - 1};
    for (int i = 0; i < 3; ++i) {
        const size_t j = probes[i];
        if (fabs(a[j] - ea) > 1e-12 * fabs(ea) || fabs(b[j] - eb) > 1e-12 * fabs(eb) ||
            fabs(c[j] - ec) > 1e-12 * fabs(ec))
            return rt_err_set(err,
                              "probe: STREAM result check failed at element %zu (a=%g "
                              "expected %g): the bandwidth numbers would be meaningless",
                              j, a[j], ea);
    }
    return 0;
}

static int run_stream(const rt_probe_opts *opt, int reps, rt_probe_cpu_result *r, rt_err *err)
{
    size_t bytes = opt->cpu_array_bytes;
    if (bytes == 0) {
        const size_t llc = last_level_cache_bytes() * (size_t)r->sockets;
        bytes = opt->quick ? (size_t)4 << 20 : (size_t)256 << 20;
        /* STREAM's rule: each array at least four times all last-level caches together, so
         * every pass streams from DRAM. */
        if (!opt->quick && 4 * llc > bytes)
            bytes = 4 * llc;
    }
    const size_t n = bytes / sizeof(double);
    if (n < 1024)
        return rt_err_set(err, "probe: cpu_array_bytes = %zu is too small (at least 8 KiB)", bytes);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return rt_err_set(err,
                          "probe: cannot allocate 3 STREAM arrays of %zu bytes each (lower "
                          "--array-bytes)",
                          n * sizeof(double));
    }
    const int threads = opt->threads > 0 ? opt->threads : omp_get_max_threads();
    const long nl = (long)n;
    /* First touch in parallel so pages land on the NUMA node of the thread that streams them. */
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long j = 0; j < nl; ++j) {
        a[j] = 1.0;
        b[j] = 2.0;
        c[j] = 0.0;
    }
    const double scalar = 3.0;
    const double moved[4] = {2.0 * sizeof(double) * n, 2.0 * sizeof(double) * n,
                             3.0 * sizeof(double) * n, 3.0 * sizeof(double) * n};
    double best[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
    const int iters = reps + 1; /* the first pass warms pages and is not counted */
    for (int k = 0; k < iters; ++k) {
        double t[4];
        double t0 = rt_clock_now();
#pragma omp parallel for schedule(static) num_threads(threads)
        for (long j = 0; j < nl; ++j)
            c[j] = a[j];
        t[0] = rt_clock_now() - t0;
        t0 = rt_clock_now();
#pragma omp parallel for schedule(static) num_threads(threads)
        for (long j = 0; j < nl; ++j)
            b[j] = scalar * c[j];
        t[1] = rt_clock_now() - t0;
        t0 = rt_clock_now();
#pragma omp parallel for schedule(static) num_threads(threads)
        for (long j = 0; j < nl; ++j)
            c[j] = a[j] + b[j];
        t[2] = rt_clock_now() - t0;
        t0 = rt_clock_now();
#pragma omp parallel for schedule(static) num_threads(threads)
        for (long j = 0; j < nl; ++j)
            a[j] = b[j] + scalar * c[j];
        t[3] = rt_clock_now() - t0;
        if (k > 0)
            for (int q = 0; q < 4; ++q)
                if (t[q] < best[q])
                    best[q] = t[q];
    }
    const int rc = stream_check(a, b, c, n, iters, scalar, err);
    free(a);
    free(b);
    free(c);
    if (rc != 0)
        return -1;
    for (int q = 0; q < 4; ++q) {
        if (!(best[q] > 0))
            return rt_err_set(err,
                              "probe: STREAM timing gave %g s; the clock is too coarse for "
                              "%zu-byte arrays (raise --array-bytes)",
                              best[q], bytes);
        r->stream_gbs[q] = moved[q] / best[q] / 1e9;
    }
    r->array_bytes = n * sizeof(double);
    r->threads = threads;
    return 0;
}

/* ---- FMA peak -------------------------------------------------------------------------------- */

/* Each kernel runs independent chains acc = acc * x + y (a fixed point at 1, so values stay
 * finite); enough chains to cover the FMA latency times the FMA ports of current cores, so the
 * loop is throughput-bound. Returns a checksum (so the work cannot be removed) and the flops. */
#if RT_PROBE_X86
/* Twelve accumulators written out as separate variables: an array of vectors indexed in a loop
 * is kept in memory by the compiler, and the store-to-load latency then bounds the loop instead
 * of the FMA units. Twelve cover 4-cycle FMA latency on two ports with room to spare. */
#define CHAINS 12
#define FMA_DECLARE(type, set1)                                                                    \
    type a0 = set1(1.000), a1 = set1(1.001), a2 = set1(1.002), a3 = set1(1.003), a4 = set1(1.004), \
         a5 = set1(1.005), a6 = set1(1.006), a7 = set1(1.007), a8 = set1(1.008), a9 = set1(1.009), \
         a10 = set1(1.010), a11 = set1(1.011)
#define FMA_STEP(fmadd, x, y)                                                                      \
    do {                                                                                           \
        a0 = fmadd(a0, x, y);                                                                      \
        a1 = fmadd(a1, x, y);                                                                      \
        a2 = fmadd(a2, x, y);                                                                      \
        a3 = fmadd(a3, x, y);                                                                      \
        a4 = fmadd(a4, x, y);                                                                      \
        a5 = fmadd(a5, x, y);                                                                      \
        a6 = fmadd(a6, x, y);                                                                      \
        a7 = fmadd(a7, x, y);                                                                      \
        a8 = fmadd(a8, x, y);                                                                      \
        a9 = fmadd(a9, x, y);                                                                      \
        a10 = fmadd(a10, x, y);                                                                    \
        a11 = fmadd(a11, x, y);                                                                    \
    } while (0)
#define FMA_SUM(add)                                                                               \
    add(add(add(add(a0, a1), add(a2, a3)), add(add(a4, a5), add(a6, a7))),                         \
        add(add(a8, a9), add(a10, a11)))

__attribute__((target("avx512f"))) static double fma_avx512(long iters, int fp64, double *flops)
{
    if (fp64) {
        FMA_DECLARE(__m512d, _mm512_set1_pd);
        const __m512d x = _mm512_set1_pd(0.9999999), y = _mm512_set1_pd(1e-7);
        for (long it = 0; it < iters; ++it)
            FMA_STEP(_mm512_fmadd_pd, x, y);
        *flops = 2.0 * 8 * CHAINS * (double)iters;
        return _mm512_reduce_add_pd(FMA_SUM(_mm512_add_pd));
    }
    FMA_DECLARE(__m512, _mm512_set1_ps);
    const __m512 x = _mm512_set1_ps(0.9999f), y = _mm512_set1_ps(1e-4f);
    for (long it = 0; it < iters; ++it)
        FMA_STEP(_mm512_fmadd_ps, x, y);
    *flops = 2.0 * 16 * CHAINS * (double)iters;
    return _mm512_reduce_add_ps(FMA_SUM(_mm512_add_ps));
}

__attribute__((target("avx2,fma"))) static double fma_avx2(long iters, int fp64, double *flops)
{
    if (fp64) {
        FMA_DECLARE(__m256d, _mm256_set1_pd);
        const __m256d x = _mm256_set1_pd(0.9999999), y = _mm256_set1_pd(1e-7);
        for (long it = 0; it < iters; ++it)
            FMA_STEP(_mm256_fmadd_pd, x, y);
        *flops = 2.0 * 4 * CHAINS * (double)iters;
        double lanes[4];
        _mm256_storeu_pd(lanes, FMA_SUM(_mm256_add_pd));
        return lanes[0] + lanes[1] + lanes[2] + lanes[3];
    }
    FMA_DECLARE(__m256, _mm256_set1_ps);
    const __m256 x = _mm256_set1_ps(0.9999f), y = _mm256_set1_ps(1e-4f);
    for (long it = 0; it < iters; ++it)
        FMA_STEP(_mm256_fmadd_ps, x, y);
    *flops = 2.0 * 8 * CHAINS * (double)iters;
    float lanes[8];
    _mm256_storeu_ps(lanes, FMA_SUM(_mm256_add_ps));
    double sum = 0;
    for (int l = 0; l < 8; ++l)
        sum += lanes[l];
    return sum;
}
#endif

/* Portable path: scalar fma() chains; the peak it reports is the scalar rate, an underestimate
 * on vector hardware, which is why the ISA is written next to the number. */
static double fma_scalar(long iters, int fp64, double *flops)
{
    double sum = 0;
    enum { SCALAR_CHAINS = 8 };
    if (fp64) {
        double acc[SCALAR_CHAINS];
        for (int i = 0; i < SCALAR_CHAINS; ++i)
            acc[i] = 1.0 + 1e-3 * i;
        for (long it = 0; it < iters; ++it)
            for (int i = 0; i < SCALAR_CHAINS; ++i)
                acc[i] = fma(acc[i], 0.9999999, 1e-7);
        for (int i = 0; i < SCALAR_CHAINS; ++i)
            sum += acc[i];
    } else {
        float acc[SCALAR_CHAINS];
        for (int i = 0; i < SCALAR_CHAINS; ++i)
            acc[i] = 1.0f + 1e-3f * (float)i;
        for (long it = 0; it < iters; ++it)
            for (int i = 0; i < SCALAR_CHAINS; ++i)
                acc[i] = fmaf(acc[i], 0.9999f, 1e-4f);
        for (int i = 0; i < SCALAR_CHAINS; ++i)
            sum += acc[i];
    }
    *flops = 2.0 * SCALAR_CHAINS * (double)iters;
    return sum;
}

typedef enum fma_isa { ISA_SCALAR = 0, ISA_AVX2 = 1, ISA_AVX512 = 2 } fma_isa;

static fma_isa detect_isa(void)
{
#if RT_PROBE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return ISA_AVX2;
#endif
    return ISA_SCALAR;
}

static double fma_run(fma_isa isa, long iters, int fp64, double *flops)
{
#if RT_PROBE_X86
    if (isa == ISA_AVX512)
        return fma_avx512(iters, fp64, flops);
    if (isa == ISA_AVX2)
        return fma_avx2(iters, fp64, flops);
#endif
    return fma_scalar(iters, fp64, flops);
}

/* One timed parallel region: every thread runs the same chains; returns GFLOP/s of all threads. */
static double fma_parallel(fma_isa isa, long iters, int fp64, int threads, double *checksum)
{
    double total_flops = 0, sum = 0;
    const double t0 = rt_clock_now();
#pragma omp parallel num_threads(threads) reduction(+ : total_flops, sum)
    {
        double f = 0;
        sum += fma_run(isa, iters, fp64, &f);
        total_flops += f;
    }
    const double t = rt_clock_now() - t0;
    *checksum += sum;
    return t > 0 ? total_flops / t / 1e9 : 0;
}

static int run_peak(const rt_probe_opts *opt, int reps, rt_probe_cpu_result *r, rt_err *err)
{
    const fma_isa isa = detect_isa();
    snprintf(r->isa, sizeof r->isa, "%s",
             isa == ISA_AVX512 ? "avx512"
             : isa == ISA_AVX2 ? "avx2"
                               : "scalar");
    const int threads = opt->threads > 0 ? opt->threads : omp_get_max_threads();
    const double target_s = opt->quick ? 0.01 : 0.2;
    double checksum = 0;
    for (int fp64 = 0; fp64 <= 1; ++fp64) {
        /* Calibrate the iteration count to the target time, so the same code is neither too
         * short to time on a fast host nor minutes long on a slow one. */
        long iters = 1000;
        for (;;) {
            double f = 0;
            const double t0 = rt_clock_now();
            checksum += fma_run(isa, iters, fp64, &f);
            const double t = rt_clock_now() - t0;
            if (t > target_s / 10 || iters > (1L << 40))
                break;
            iters *= 4;
        }
        double best = 0;
        for (int k = 0; k < reps; ++k) {
            const double g = fma_parallel(isa, iters, fp64, threads, &checksum);
            if (g > best)
                best = g;
        }
        if (!(best > 0) || !isfinite(best))
            return rt_err_set(err, "probe: the FMA peak loop gave %g GFLOP/s", best);
        if (fp64)
            r->fp64_gflops = best;
        else
            r->fp32_gflops = best;
    }
    if (!isfinite(checksum))
        return rt_err_set(err, "probe: the FMA peak loop produced a non-finite checksum");
    return 0;
}

int rt_probe_cpu(const rt_probe_opts *opt, rt_probe_cpu_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    if (opt->threads < 0)
        return rt_err_set(err, "probe: threads must be >= 0 (0 = OpenMP default), got %d",
                          opt->threads);
    if (opt->repetitions < 0)
        return rt_err_set(err, "probe: repetitions must be >= 0 (0 = default), got %d",
                          opt->repetitions);
    const int reps = opt->repetitions > 0 ? opt->repetitions : opt->quick ? 3 : 10;
    cpu_identity(res);
    const int procs = omp_get_num_procs();
    res->cores_per_socket = procs / res->sockets > 0 ? procs / res->sockets : 1;
    if (run_stream(opt, reps, res, err) != 0 || run_peak(opt, reps, res, err) != 0)
        return -1;
    return 0;
}
