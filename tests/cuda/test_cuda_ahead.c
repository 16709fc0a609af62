/* The compile-ahead pool without a GPU (NVRTC only): requests compiled by the pool land in the
 * variant cache, so a later rt_cuda_compile of the same request is a cache hit with the bytes a
 * compile of its own gives; a variant submitted twice is compiled once; a request that does not
 * compile is recorded with NVRTC's log and fails nothing; garbage requests are refused at
 * submission; the measuring thread's claim drops a queued compile and waits for a running one;
 * a pool destroyed with a queue drops it and ends cleanly (ASan).
 *   test_cuda_ahead <scratch dir> */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, nanosleep */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "rt_cuda_ahead.h"
#include "rt_cuda_nvrtc.h"
#include "rt_test.h"
#include "rt_test_dir.h"
#include "rt_test_embedded.h"
#include "rt_test_nvrtc.h"

static int cached(const rt_cuda_compile_request *req)
{
    char path[4096];
    rt_err err;
    struct stat st;
    return rt_cuda_cache_path(req, path, sizeof path, &err) == 0 && stat(path, &st) == 0;
}

/* Real kernel sources and toy ones, compiled ahead by two threads: every later compile is a hit
 * whose bytes equal an uncached compile's. */
static void test_compile_ahead(const char *cache)
{
    rt_err err;
    rt_cuda_ahead *a = NULL;
    RT_CHECK_MSG(rt_cuda_ahead_create(2, &a, &err) == 0, "%s", err.msg);
    if (!a)
        return;
    static const char *const scales[][1] = {{"SCALE=1"}, {"SCALE=2"}, {"SCALE=3"}};
    rt_cuda_compile_request reqs[4];
    for (int i = 0; i < 3; ++i)
        reqs[i] = rt_test_sm90_request("tiny.cu", rt_test_tiny_source, "tiny", scales[i], 1, cache);
    const char *tiled = rt_test_embedded_source("spmm_tiled.cu");
    RT_CHECK(tiled != NULL);
    static const char *const tiled_defs[] = {"BLOCK_SIZE=256", "REGISTER_TILE=4"};
    reqs[3] = rt_test_sm90_request("spmm_tiled.cu", tiled ? tiled : "", "rt_spmm_tiled", tiled_defs,
                                   2, cache);
    for (int i = 0; i < 4; ++i)
        RT_CHECK_MSG(rt_cuda_ahead_submit(a, &reqs[i], &err) == 0, "%s", err.msg);
    /* The same variant again (defines in another order count as the same): not queued twice. */
    static const char *const tiled_swapped[] = {"REGISTER_TILE=4", "BLOCK_SIZE=256"};
    rt_cuda_compile_request again = reqs[3];
    again.defines = tiled_swapped;
    RT_CHECK_MSG(rt_cuda_ahead_submit(a, &again, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(rt_cuda_ahead_submit(a, &reqs[0], &err) == 0, "%s", err.msg);
    rt_cuda_ahead_drain(a);

    rt_cuda_ahead_stats st;
    rt_cuda_ahead_get_stats(a, &st);
    RT_CHECK_MSG(st.submitted == 4 && st.compiled == 4 && st.cached == 0 && st.failed == 0 &&
                     st.dropped == 0 && st.queued == 0 && st.running == 0,
                 "submitted %d compiled %d cached %d failed %d dropped %d", st.submitted,
                 st.compiled, st.cached, st.failed, st.dropped);
    RT_CHECK(st.compile_s > 0.0);
    char none[64];
    RT_CHECK(rt_cuda_ahead_failure(a, 0, none, sizeof none) == -1 && none[0] == '\0');

    for (int i = 0; i < 4; ++i) {
        rt_cuda_image hit, own;
        double ahead_s = -1, waited_s = -1;
        RT_CHECK(rt_cuda_ahead_claim(a, &reqs[i], &ahead_s, &waited_s) == 1);
        RT_CHECK(ahead_s > 0.0 && waited_s >= 0.0);
        RT_CHECK_MSG(rt_cuda_compile(&reqs[i], &hit, &err) == 0, "%s", err.msg);
        RT_CHECK_MSG(hit.from_cache && hit.compile_s == 0.0, "request %d was not a cache hit", i);
        rt_cuda_compile_request uncached = reqs[i];
        uncached.cache_dir = NULL;
        RT_CHECK_MSG(rt_cuda_compile(&uncached, &own, &err) == 0, "%s", err.msg);
        RT_CHECK(!own.from_cache && own.size == hit.size && hit.data && own.data &&
                 memcmp(own.data, hit.data, own.size) == 0);
        rt_cuda_image_free(&hit);
        rt_cuda_image_free(&own);
    }

    /* A pool that meets a variant already cached reads it, and counts it as such. */
    rt_cuda_ahead_destroy(a);
    RT_CHECK(rt_cuda_ahead_create(1, &a, &err) == 0);
    RT_CHECK(rt_cuda_ahead_submit(a, &reqs[1], &err) == 0);
    rt_cuda_ahead_drain(a);
    rt_cuda_ahead_get_stats(a, &st);
    RT_CHECK(st.submitted == 1 && st.cached == 1 && st.compiled == 0 && st.compile_s == 0.0);
    rt_cuda_ahead_destroy(a);
}

/* Garbage: refused at submission with the reason, or (a source that does not compile) recorded
 * with NVRTC's log while the pool goes on with the next request. */
static void test_garbage(const char *cache)
{
    rt_err err;
    rt_cuda_ahead *a = NULL;
    RT_CHECK(rt_cuda_ahead_create(0, &a, &err) == -1 && a == NULL);
    RT_CHECK_MSG(rt_test_contains(err.msg, "0 threads"), "%s", err.msg);
    RT_CHECK(rt_cuda_ahead_create(65, &a, &err) == -1 && a == NULL);
    RT_CHECK(rt_cuda_ahead_submit(NULL, NULL, &err) == -1);
    RT_CHECK(rt_cuda_ahead_create(1, &a, &err) == 0);
    if (!a)
        return;

    static const char *const bad_define[] = {"SCALE=2;rm"};
    rt_cuda_compile_request req =
        rt_test_sm90_request("tiny.cu", rt_test_tiny_source, "tiny", bad_define, 1, cache);
    RT_CHECK(rt_cuda_ahead_submit(a, &req, &err) == -1);
    RT_CHECK_MSG(rt_test_contains(err.msg, "compile ahead") && rt_test_contains(err.msg, "SCALE"),
                 "%s", err.msg);
    static const char *const good[] = {"SCALE=7"};
    req.defines = good;
    req.cache_dir = NULL;
    RT_CHECK(rt_cuda_ahead_submit(a, &req, &err) == -1);
    RT_CHECK_MSG(rt_test_contains(err.msg, "cache, which is off"), "%s", err.msg);
    req.cache_dir = cache;
    req.cc_major = 0;
    RT_CHECK(rt_cuda_ahead_submit(a, &req, &err) == -1);
    RT_CHECK_MSG(rt_test_contains(err.msg, "compute capability"), "%s", err.msg);
    req.cc_major = 9;

    const char broken[] = "extern \"C\" __global__ void tiny(float *x) { x[0] = undeclared; }\n";
    rt_cuda_compile_request bad = req;
    bad.source = broken;
    RT_CHECK(rt_cuda_ahead_submit(a, &bad, &err) == 0);
    RT_CHECK(rt_cuda_ahead_submit(a, &req, &err) == 0);
    rt_cuda_ahead_drain(a);
    rt_cuda_ahead_stats st;
    rt_cuda_ahead_get_stats(a, &st);
    RT_CHECK_MSG(st.submitted == 2 && st.failed == 1 && st.compiled == 1, "failed %d compiled %d",
                 st.failed, st.compiled);
    char msg[RT_ERR_MSG_MAX];
    RT_CHECK(rt_cuda_ahead_failure(a, 0, msg, sizeof msg) == 0);
    RT_CHECK_MSG(rt_test_contains(msg, "undeclared") && rt_test_contains(msg, "tiny.cu"), "%s",
                 msg);
    RT_CHECK(rt_cuda_ahead_failure(a, 1, msg, sizeof msg) == -1);
    RT_CHECK(!cached(&bad) && cached(&req));
    /* The point's own compile of the failed variant fails as it always did, with the log. */
    double ahead_s, waited_s;
    RT_CHECK(rt_cuda_ahead_claim(a, &bad, &ahead_s, &waited_s) == 0 && ahead_s == 0.0);
    rt_cuda_image img;
    RT_CHECK(rt_cuda_compile(&bad, &img, &err) == -1);
    RT_CHECK_MSG(rt_test_contains(err.msg, "undeclared"), "%s", err.msg);
    /* Claims the pool knows nothing of, or cannot key, answer 0. */
    RT_CHECK(rt_cuda_ahead_claim(NULL, &req, &ahead_s, &waited_s) == 0);
    req.cc_major = 0;
    RT_CHECK(rt_cuda_ahead_claim(a, &req, &ahead_s, &waited_s) == 0);
    rt_cuda_ahead_destroy(a);
}

/* The state of the pool's one thread: waits (polling, at most about 5 minutes) until a compile is
 * running. */
static int wait_running(rt_cuda_ahead *a)
{
    const struct timespec ms = {0, 1000000L};
    for (int i = 0; i < 300000; ++i) {
        rt_cuda_ahead_stats st;
        rt_cuda_ahead_get_stats(a, &st);
        if (st.running > 0)
            return 1;
        nanosleep(&ms, NULL);
    }
    return 0;
}

/* One thread, three heavy variants: the first is compiling when the measuring thread claims the
 * third (still queued: dropped, not compiled by the pool) and then the first (waited for, then a
 * hit). Destroyed with the second possibly still queued or running: clean either way. */
static void test_claim_and_shutdown(const char *cache)
{
    rt_err err;
    rt_cuda_ahead *a = NULL;
    RT_CHECK(rt_cuda_ahead_create(1, &a, &err) == 0);
    if (!a)
        return;
    static const char *const n[][1] = {{"HEAVY_N=40"}, {"HEAVY_N=22"}, {"HEAVY_N=23"}};
    rt_cuda_compile_request reqs[3];
    for (int i = 0; i < 3; ++i) {
        reqs[i] = rt_test_sm90_request("heavy.cu", rt_test_heavy_source, "heavy", n[i], 1, cache);
        RT_CHECK_MSG(rt_cuda_ahead_submit(a, &reqs[i], &err) == 0, "%s", err.msg);
    }
    RT_CHECK(wait_running(a));
    double ahead_s, waited_s;
    RT_CHECK(rt_cuda_ahead_claim(a, &reqs[2], &ahead_s, &waited_s) == 0);
    rt_cuda_ahead_stats st;
    rt_cuda_ahead_get_stats(a, &st);
    RT_CHECK_MSG(st.dropped == 1 && st.submitted == 3, "dropped %d", st.dropped);
    RT_CHECK(rt_cuda_ahead_claim(a, &reqs[0], &ahead_s, &waited_s) == 1 && ahead_s > 0.0);
    RT_CHECK(cached(&reqs[0]));
    rt_cuda_image img;
    RT_CHECK_MSG(rt_cuda_compile(&reqs[0], &img, &err) == 0, "%s", err.msg);
    RT_CHECK(img.from_cache);
    rt_cuda_image_free(&img);
    rt_cuda_ahead_destroy(a);
    RT_CHECK(!cached(&reqs[2]));

    /* Destroyed at once with a queue of three: at most the one a thread already took compiles. */
    static const char *const m[][1] = {{"HEAVY_N=41"}, {"HEAVY_N=25"}, {"HEAVY_N=26"}};
    RT_CHECK(rt_cuda_ahead_create(1, &a, &err) == 0);
    if (!a)
        return;
    for (int i = 0; i < 3; ++i) {
        reqs[i] = rt_test_sm90_request("heavy.cu", rt_test_heavy_source, "heavy", m[i], 1, cache);
        RT_CHECK(rt_cuda_ahead_submit(a, &reqs[i], &err) == 0);
    }
    RT_CHECK(wait_running(a));
    rt_cuda_ahead_destroy(a);
    RT_CHECK(cached(&reqs[0]) && !cached(&reqs[1]) && !cached(&reqs[2]));
}

int main(int argc, char **argv)
{
    char cache[4096];
    const int bad = rt_test_scratch(argc, argv, "ahead", cache, sizeof cache);
    if (bad)
        return bad;
    test_compile_ahead(cache);
    test_garbage(cache);
    test_claim_and_shutdown(cache);
    rt_test_remove_tree(cache);
    return RT_TEST_RESULT();
}
