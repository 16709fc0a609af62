/* Issue 34's racecheck control experiment on a GPU: compiles one mode of tests/cuda/
 * tma_race_control.cu for the device (sm_90 or newer), runs it and checks every consumer thread's
 * sum exactly against the host's. It is the program ci/gpu-hopper.sh's sanitize stage runs under
 * compute-sanitizer (racecheck in every mode, synccheck on correct); ctest runs the correct mode
 * (cuda.tma_race_control), which must verify.
 *
 *   test_cuda_tma_race MODE [--blocks N] [--stages N]
 *
 * MODE: correct, broken, generic_mbar or generic_sync (tma_race_control.cu). --stages defaults to
 * 4 turns of the ring (every buffer reused: the producer's empty waits are exercised); --stages 3
 * (the ring's size) uses each buffer once. Prints one line,
 *   tma_race_control: mode=M verified=yes|no mismatched=X/Y blocks=B stages=S buffers=3 device=...
 * and exits 0 when the mode verified, or in mode broken whatever the sums (its race may or may
 * not show in the values); 1 when a mode that must verify did not, or on any error; 77 (ctest
 * SKIP) when the device is older than sm_90. It links the CUDA driver, so without one it cannot
 * start: ctest starts it through rt_gpu_launch, which skips where there is no driver or device. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_error.h"
#include "rt_tma_race.h"

enum { SKIP = 77 };

typedef struct race_result {
    long mismatched, total;
} race_result;

static int cu_fail(rt_err *err, const char *what, CUresult r)
{
    const char *name = NULL;
    if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
        name = "unknown CUDA error";
    return rt_err_set(err, "%s failed: %s (%d)", what, name, (int)r);
}

#define CU_TRY(call, what)                                                                         \
    do {                                                                                           \
        const CUresult r_ = (call);                                                                \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            rc = cu_fail(err, what, r_);                                                           \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* Compiles, loads and runs mode on dev, and compares its sums with the host's. */
static int race_run(CUdevice dev, int cc_major, int cc_minor, rt_tma_race_mode mode, int nblocks,
                    int nstages, race_result *res, rt_err *err)
{
    int rc = 0;
    CUcontext ctx = NULL;
    CUmodule module = NULL;
    CUfunction fn = NULL;
    CUdeviceptr d_src = 0, d_out = 0;
    rt_cuda_image img = {0};
    const size_t nwords = (size_t)nblocks * (size_t)nstages * RT_TMA_RACE_STAGE_WORDS;
    const size_t nsums = (size_t)nblocks * RT_TMA_RACE_CONSUMER_THREADS;
    unsigned *src = malloc(nwords * sizeof *src);
    unsigned *want = malloc(nsums * sizeof *want);
    unsigned *got = malloc(nsums * sizeof *got);
    if (!src || !want || !got) {
        rc = rt_err_set(err, "out of host memory for %zu words", nwords);
        goto done;
    }
    rt_tma_race_fill(src, nwords);
    rt_tma_race_expect(src, nblocks, nstages, want);
    if (rt_tma_race_compile(mode, cc_major, cc_minor, &img, err) != 0) {
        rc = -1;
        goto done;
    }

    CU_TRY(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    CU_TRY(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    CU_TRY(cuModuleLoadData(&module, img.data), "cuModuleLoadData");
    CU_TRY(cuModuleGetFunction(&fn, module, RT_TMA_RACE_ENTRY), "cuModuleGetFunction");
    CU_TRY(cuMemAlloc(&d_src, nwords * sizeof *src), "cuMemAlloc (stages)");
    CU_TRY(cuMemAlloc(&d_out, nsums * sizeof *got), "cuMemAlloc (sums)");
    CU_TRY(cuMemcpyHtoD(d_src, src, nwords * sizeof *src), "cuMemcpyHtoD");
    /* A sum the kernel never writes reads as this, not as a stale right answer. */
    CU_TRY(cuMemsetD32(d_out, 0xffffffffu, nsums), "cuMemsetD32");
    void *params[3];
    params[0] = &d_src;
    params[1] = &d_out;
    params[2] = &nstages;
    CU_TRY(cuLaunchKernel(fn, (unsigned)nblocks, 1, 1, RT_TMA_RACE_THREADS, 1, 1, 0, NULL, params,
                          NULL),
           "cuLaunchKernel");
    CU_TRY(cuCtxSynchronize(), "the kernel (cuCtxSynchronize)");
    CU_TRY(cuMemcpyDtoH(got, d_out, nsums * sizeof *got), "cuMemcpyDtoH");
    res->total = (long)nsums;
    res->mismatched = 0;
    for (size_t i = 0; i < nsums; ++i)
        if (got[i] != want[i])
            ++res->mismatched;

done:
    if (d_out)
        cuMemFree(d_out);
    if (d_src)
        cuMemFree(d_src);
    if (module)
        cuModuleUnload(module);
    if (ctx)
        cuDevicePrimaryCtxRelease(dev);
    rt_cuda_image_free(&img);
    free(got);
    free(want);
    free(src);
    return rc;
}

/* A positive int option value, or -1 with err set. */
static int parse_count(const char *opt, const char *text, int max, rt_err *err)
{
    char *end = NULL;
    const long v = text ? strtol(text, &end, 10) : 0;
    if (!text || *end != '\0' || v < 1 || v > max)
        return rt_err_set(err, "%s needs a whole number from 1 to %d, not '%s'", opt, max,
                          text ? text : "(nothing)");
    return (int)v;
}

int main(int argc, char **argv)
{
    rt_err err;
    rt_err_clear(&err);
    rt_tma_race_mode mode;
    if (argc < 2 || rt_tma_race_mode_parse(argv[1], &mode, &err) != 0) {
        fprintf(stderr,
                "usage: test_cuda_tma_race correct|broken|generic_mbar|generic_sync "
                "[--blocks N] [--stages N]\n%s\n",
                argc < 2 ? "" : err.msg);
        return 2;
    }
    int nblocks = 4, nstages = 4 * RT_TMA_RACE_BUFFERS;
    for (int i = 2; i < argc; ++i) {
        int *target = strcmp(argv[i], "--blocks") == 0   ? &nblocks
                      : strcmp(argv[i], "--stages") == 0 ? &nstages
                                                         : NULL;
        if (!target) {
            fprintf(stderr, "test_cuda_tma_race: unknown option %s\n", argv[i]);
            return 2;
        }
        *target = parse_count(argv[i], i + 1 < argc ? argv[i + 1] : NULL, 4096, &err);
        if (*target < 0) {
            fprintf(stderr, "test_cuda_tma_race: %s\n", err.msg);
            return 2;
        }
        ++i;
    }

    CUresult r = cuInit(0);
    int count = 0;
    if (r == CUDA_ERROR_NO_DEVICE ||
        (r == CUDA_SUCCESS && cuDeviceGetCount(&count) == CUDA_SUCCESS && count == 0)) {
        printf("SKIP: no CUDA device\n");
        return SKIP;
    }
    CUdevice dev;
    int major = 0, minor = 0;
    char name[128] = "";
    if (r != CUDA_SUCCESS || (r = cuDeviceGet(&dev, 0)) != CUDA_SUCCESS ||
        (r = cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) !=
            CUDA_SUCCESS ||
        (r = cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)) !=
            CUDA_SUCCESS ||
        (r = cuDeviceGetName(name, (int)sizeof name, dev)) != CUDA_SUCCESS) {
        cu_fail(&err, "opening device 0", r);
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }
    if (major < 9) {
        printf("SKIP: %s is sm_%d%d; the bulk copies (cp.async.bulk) need sm_90\n", name, major,
               minor);
        return SKIP;
    }

    race_result res = {0, 0};
    if (race_run(dev, major, minor, mode, nblocks, nstages, &res, &err) != 0) {
        fprintf(stderr, "FAIL: tma_race_control mode %s: %s\n", rt_tma_race_mode_name((int)mode),
                err.msg);
        return 1;
    }
    const int verified = res.mismatched == 0;
    printf("tma_race_control: mode=%s verified=%s mismatched=%ld/%ld blocks=%d stages=%d "
           "buffers=%d device=%s (sm_%d%d)\n",
           rt_tma_race_mode_name((int)mode), verified ? "yes" : "no", res.mismatched, res.total,
           nblocks, nstages, RT_TMA_RACE_BUFFERS, name, major, minor);
    if (mode == RT_TMA_RACE_BROKEN) {
        printf("  (mode broken reads before the copies are known to have landed: a mismatch is "
               "the race showing, a match is luck)\n");
        return 0;
    }
    return verified ? 0 : 1;
}
