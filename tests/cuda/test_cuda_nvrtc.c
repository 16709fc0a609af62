/* Run-time compilation and the disk cache, without a GPU: NVRTC compiles the real kernel sources
 * for sm_90 with the defines the plugin uses, a second request is a cache hit with the same bytes,
 * define order does not matter, a corrupt or foreign cache file is compiled again, an unwritable
 * cache costs nothing but a note, a compile over its time limit is abandoned and still reaches
 * the cache, and garbage (bad defines, broken source) fails with messages that name the source
 * and carry NVRTC's log.
 *   test_cuda_nvrtc <scratch dir> */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rt_cuda_nvrtc.h"
#include "rt_test.h"
#include "rt_test_dir.h"
#include "rt_test_nvrtc.h"
#include "rt_test_embedded.h"

/* measure.compile_timeout_s: a compile past the limit is abandoned (RT_CUDA_TIMED_OUT, the limit
 * and the variant in the message) before its image exists; it goes on in the background and
 * writes the image to the cache, where the next request finds it; within the limit, and for a
 * source that does not compile, the threaded path answers as the plain one does. */
static void test_time_limit(const char *cache)
{
    rt_err err;
    const char *defs[] = {"HEAVY_N=40"};
    rt_cuda_compile_request req = {"heavy.cu", rt_test_heavy_source, defs, 1, "heavy", 9, 0,
                                   cache,      .time_limit_s = 0.01};
    char path[4096];
    RT_CHECK(rt_cuda_cache_path(&req, path, sizeof path, &err) == 0);
    rt_cuda_image img;
    const int rc = rt_cuda_compile(&req, &img, &err);
    RT_CHECK_MSG(rc == RT_CUDA_TIMED_OUT, "rc %d: %s", rc, err.msg);
    RT_CHECK_MSG(rt_test_contains(err.msg, "heavy.cu") && rt_test_contains(err.msg, "HEAVY_N=40") &&
                     rt_test_contains(err.msg, "0.01 s (measure.compile_timeout_s): abandoned"),
                 "%s", err.msg);
    struct stat st;
    RT_CHECK_MSG(stat(path, &st) != 0, "the image was cached before the abandoned compile ended");
    /* The compile goes on and lands in the cache (5 minutes at most on a loaded machine). */
    const struct timespec tenth = {0, 100000000L};
    for (int i = 0; i < 3000 && stat(path, &st) != 0; ++i)
        nanosleep(&tenth, NULL);
    RT_CHECK_MSG(stat(path, &st) == 0, "the abandoned compile never reached the cache");
    req.time_limit_s = 0; /* a cache hit needs no limit, but it is the plain path that reads it */
    RT_CHECK_MSG(rt_cuda_compile(&req, &img, &err) == 0, "%s", err.msg);
    RT_CHECK(img.from_cache && img.size > 4 && memcmp(img.data, "\177ELF", 4) == 0);
    rt_cuda_image_free(&img);

    /* Within the limit: compiled on the thread, returned and cached like any compile. */
    const char *tiny_defs[] = {"SCALE=5"};
    rt_cuda_compile_request tiny = req;
    tiny.source_name = "tiny.cu";
    tiny.source = rt_test_tiny_source;
    tiny.defines = tiny_defs;
    tiny.entry = "tiny";
    tiny.time_limit_s = 600;
    RT_CHECK_MSG(rt_cuda_compile(&tiny, &img, &err) == 0, "%s", err.msg);
    RT_CHECK(!img.from_cache && img.size > 4 && memcmp(img.data, "\177ELF", 4) == 0);
    rt_cuda_image_free(&img);
    RT_CHECK(rt_cuda_compile(&tiny, &img, &err) == 0 && img.from_cache);
    rt_cuda_image_free(&img);

    /* A source that does not compile fails with NVRTC's log through the thread too. */
    const char broken[] = "extern \"C\" __global__ void tiny(float *x) { x[0] = undeclared; }\n";
    tiny.source = broken;
    RT_CHECK(rt_cuda_compile(&tiny, &img, &err) == -1);
    RT_CHECK_MSG(rt_test_contains(err.msg, "undeclared"), "%s", err.msg);
}

static void test_cache(const char *cache)
{
    rt_err err;
    const char *defs_a[] = {"SCALE=2", "UNUSED=7"};
    const char *defs_b[] = {"UNUSED=7", "SCALE=2"}; /* same set, other order */
    const char *defs_c[] = {"SCALE=3", "UNUSED=7"};
    rt_cuda_compile_request req =
        rt_test_sm90_request("tiny.cu", rt_test_tiny_source, "tiny", defs_a, 2, cache);
    rt_cuda_image first, again, other;
    RT_CHECK_MSG(rt_cuda_compile(&req, &first, &err) == 0, "%s", err.msg);
    RT_CHECK(first.data && first.size > 0 && !first.from_cache && !first.is_ptx);
    RT_CHECK(strcmp(first.arch, "sm_90") == 0);
    RT_CHECK(first.compile_s > 0.0);
    RT_CHECK_MSG(first.cache_note[0] == '\0', "%s", first.cache_note);
    RT_CHECK(rt_test_count_files(cache) == 1);
    /* CUBIN images are ELF files. */
    RT_CHECK(first.size > 4 && memcmp(first.data, "\177ELF", 4) == 0);

    req.defines = defs_b;
    RT_CHECK_MSG(rt_cuda_compile(&req, &again, &err) == 0, "%s", err.msg);
    RT_CHECK(again.from_cache && again.compile_s == 0.0 && again.size == first.size);
    RT_CHECK(again.data && memcmp(again.data, first.data, first.size) == 0);
    RT_CHECK(strcmp(again.arch, "sm_90") == 0);
    rt_cuda_image_free(&again);

    char key_a[RT_CUDA_KEY_MAX], key_c[RT_CUDA_KEY_MAX];
    RT_CHECK(rt_cuda_variant_key(&req, key_a, sizeof key_a, &err) == 0);
    RT_CHECK(rt_test_contains(key_a, "SCALE=2 UNUSED=7") && rt_test_contains(key_a, "cc=9.0"));
    req.defines = defs_c;
    RT_CHECK(rt_cuda_variant_key(&req, key_c, sizeof key_c, &err) == 0);
    RT_CHECK(strcmp(key_a, key_c) != 0);
    char tiny_key[16];
    RT_CHECK(rt_cuda_variant_key(&req, tiny_key, sizeof tiny_key, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "longer"));
    RT_CHECK_MSG(rt_cuda_compile(&req, &other, &err) == 0, "%s", err.msg);
    RT_CHECK(!other.from_cache);
    RT_CHECK(rt_test_count_files(cache) == 2);
    rt_cuda_image_free(&other);

    /* Another architecture is another variant. */
    req.defines = defs_a;
    req.cc_minor = 1; /* no sm_91: the newest older arch as PTX */
    rt_cuda_image ptx;
    RT_CHECK_MSG(rt_cuda_compile(&req, &ptx, &err) == 0, "%s", err.msg);
    RT_CHECK(ptx.is_ptx && strcmp(ptx.arch, "compute_90") == 0);
    RT_CHECK(ptx.size > 0 && ptx.data[ptx.size - 1] == '\0');
    RT_CHECK(rt_test_contains((const char *)ptx.data, ".entry tiny"));
    rt_cuda_image_free(&ptx);
    RT_CHECK_MSG(rt_cuda_compile(&req, &ptx, &err) == 0, "%s", err.msg);
    RT_CHECK(ptx.from_cache && ptx.is_ptx);
    rt_cuda_image_free(&ptx);
    req.cc_minor = 0;

    /* Corruptions: a flipped image byte, a truncated file, a file of another variant. */
    char path[4096];
    RT_CHECK(rt_cuda_cache_path(&req, path, sizeof path, &err) == 0);
    FILE *f = fopen(path, "r+b");
    RT_CHECK(f != NULL);
    if (f) {
        fseek(f, -10, SEEK_END);
        const int c = fgetc(f);
        fseek(f, -10, SEEK_END);
        fputc(c ^ 0x5A, f);
        fclose(f);
    }
    RT_CHECK_MSG(rt_cuda_compile(&req, &again, &err) == 0, "%s", err.msg);
    RT_CHECK(!again.from_cache && rt_test_contains(again.cache_note, "corrupt"));
    RT_CHECK(again.size == first.size && memcmp(again.data, first.data, first.size) == 0);
    rt_cuda_image_free(&again);
    RT_CHECK_MSG(rt_cuda_compile(&req, &again, &err) == 0, "%s", err.msg);
    RT_CHECK(again.from_cache); /* rewritten by the recompile */
    rt_cuda_image_free(&again);

    RT_CHECK(truncate(path, 20) == 0);
    RT_CHECK_MSG(rt_cuda_compile(&req, &again, &err) == 0, "%s", err.msg);
    RT_CHECK(!again.from_cache);
    rt_cuda_image_free(&again);

    char other_path[4096];
    req.defines = defs_c;
    RT_CHECK(rt_cuda_cache_path(&req, other_path, sizeof other_path, &err) == 0);
    req.defines = defs_a;
    RT_CHECK(rename(other_path, path) == 0); /* SCALE=3's image under SCALE=2's name */
    RT_CHECK_MSG(rt_cuda_compile(&req, &again, &err) == 0, "%s", err.msg);
    RT_CHECK(!again.from_cache);
    RT_CHECK(again.size == first.size && memcmp(again.data, first.data, first.size) == 0);
    rt_cuda_image_free(&again);

    /* skip_cache_read compiles even with a good file present. */
    req.skip_cache_read = 1;
    RT_CHECK_MSG(rt_cuda_compile(&req, &again, &err) == 0, "%s", err.msg);
    RT_CHECK(!again.from_cache);
    rt_cuda_image_free(&again);
    req.skip_cache_read = 0;

    /* No cache directory: compiles every time, writes nothing. */
    req.cache_dir = NULL;
    RT_CHECK(rt_cuda_compile(&req, &again, &err) == 0 && !again.from_cache);
    rt_cuda_image_free(&again);
    RT_CHECK(rt_cuda_cache_path(&req, path, sizeof path, &err) != 0);

    /* An unusable cache directory (below a regular file) is not an error. */
    char blocker[4096], below[4200];
    snprintf(blocker, sizeof blocker, "%s/not_a_dir", cache);
    f = fopen(blocker, "w");
    if (f)
        fclose(f);
    snprintf(below, sizeof below, "%s/sub", blocker);
    req.cache_dir = below;
    RT_CHECK_MSG(rt_cuda_compile(&req, &again, &err) == 0, "%s", err.msg);
    RT_CHECK(!again.from_cache && rt_test_contains(again.cache_note, "cannot"));
    rt_cuda_image_free(&again);

    /* A nested cache directory that does not exist yet is created. */
    snprintf(below, sizeof below, "%s/a/b/c", cache);
    req.cache_dir = below;
    RT_CHECK_MSG(rt_cuda_compile(&req, &again, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(again.cache_note[0] == '\0', "%s", again.cache_note);
    RT_CHECK(rt_test_count_files(below) == 1);
    rt_cuda_image_free(&again);
    rt_cuda_image_free(&first);
}

static void test_garbage(const char *cache)
{
    rt_err err;
    rt_cuda_image img;
    const char *bad_defines[][1] = {{"NOEQUALS"}, {"1X=2"},    {"A=b c"}, {"A="},
                                    {"=3"},       {"A=\"q\""}, {""},      {"A-B=1"}};
    for (size_t i = 0; i < sizeof bad_defines / sizeof bad_defines[0]; ++i) {
        const rt_cuda_compile_request req =
            rt_test_sm90_request("tiny.cu", rt_test_tiny_source, "tiny", bad_defines[i], 1, cache);
        RT_CHECK_MSG(rt_cuda_compile(&req, &img, &err) != 0, "define '%s' accepted",
                     bad_defines[i][0]);
        RT_CHECK(rt_test_contains(err.msg, "tiny.cu"));
    }
    const char *null_define[] = {NULL};
    rt_cuda_compile_request req =
        rt_test_sm90_request("tiny.cu", rt_test_tiny_source, "tiny", null_define, 1, NULL);
    RT_CHECK(rt_cuda_compile(&req, &img, &err) != 0);
    req.n_defines = RT_CUDA_MAX_DEFINES + 1;
    RT_CHECK(rt_cuda_compile(&req, &img, &err) != 0);
    req.n_defines = 0;
    req.entry = NULL;
    RT_CHECK(rt_cuda_compile(&req, &img, &err) != 0);
    req.entry = "tiny";
    req.source = NULL;
    RT_CHECK(rt_cuda_compile(&req, &img, &err) != 0);
    req.source = rt_test_tiny_source;
    req.cc_major = 0;
    RT_CHECK(rt_cuda_compile(&req, &img, &err) != 0 && rt_test_contains(err.msg, "capability"));
    req.cc_major = 2; /* older than anything NVRTC 13 targets */
    RT_CHECK(rt_cuda_compile(&req, &img, &err) != 0 && rt_test_contains(err.msg, "2.0"));
    req.cc_major = 9;

    const char broken[] =
        "extern \"C\" __global__ void tiny(float *x) { x[0] = undeclared_name; }\n";
    req.source = broken;
    req.source_name = "broken.cu";
    const char *defs[] = {"REGISTER=8"};
    req.defines = defs;
    req.n_defines = 1;
    RT_CHECK(rt_cuda_compile(&req, &img, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "broken.cu") &&
                     rt_test_contains(err.msg, "REGISTER=8") &&
                     rt_test_contains(err.msg, "undeclared_name"),
                 "%s", err.msg);
}

static void test_default_dir(void)
{
    rt_err err;
    char dir[512];
    setenv("ROOFTUNE_CACHE_DIR", "/x/explicit", 1);
    setenv("XDG_CACHE_HOME", "/x/xdg", 1);
    setenv("HOME", "/x/home", 1);
    RT_CHECK(rt_cuda_cache_dir_default(dir, sizeof dir, &err) == 0 &&
             strcmp(dir, "/x/explicit") == 0);
    setenv("ROOFTUNE_CACHE_DIR", "", 1);
    RT_CHECK(rt_cuda_cache_dir_default(dir, sizeof dir, &err) == 0 &&
             strcmp(dir, "/x/xdg/rooftune") == 0);
    unsetenv("XDG_CACHE_HOME");
    RT_CHECK(rt_cuda_cache_dir_default(dir, sizeof dir, &err) == 0 &&
             strcmp(dir, "/x/home/.cache/rooftune") == 0);
    char tiny[8];
    RT_CHECK(rt_cuda_cache_dir_default(tiny, sizeof tiny, &err) != 0);
    unsetenv("HOME");
    unsetenv("ROOFTUNE_CACHE_DIR");
    RT_CHECK(rt_cuda_cache_dir_default(dir, sizeof dir, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "ROOFTUNE_CACHE_DIR"));
}

/* The plugin's real sources, as it embeds them, with the define sets its kernels use, through NVRTC
 * (not nvcc: the options differ, e.g. -default-device). */
static void test_real_sources(const char *cache)
{
    static const struct {
        const char *file, *entry;
    } sources[] = {{"spmm_csr.cu", "rt_spmm_csr"},
                   {"spmm_ell.cu", "rt_spmm_ell"},
                   {"spmm_tiled.cu", "rt_spmm_tiled"}};
    for (size_t s = 0; s < sizeof sources / sizeof sources[0]; ++s) {
        const char *text = rt_test_embedded_source(sources[s].file);
        RT_CHECK_MSG(text != NULL, "%s is not embedded", sources[s].file);
        if (!text)
            continue;
        const int is_tiled = strstr(sources[s].file, "tiled") != NULL;
        for (int variant = 0; variant < 6; ++variant) {
            char d[7][RT_CUDA_DEFINE_MAX];
            snprintf(d[0], sizeof d[0], "RT_FP64=%d", variant & 1);
            snprintf(d[1], sizeof d[1], "RT_ROW_MAJOR=%d", (variant >> 1) & 1);
            snprintf(d[2], sizeof d[2], "BLOCK_SIZE=%d", variant < 4 ? 1024 : 96);
            snprintf(d[3], sizeof d[3], "REGISTER=%d", variant == 5 ? 64 : variant + 1);
            snprintf(d[4], sizeof d[4], "MIN_BLOCKS=%d", variant & 1);
            snprintf(d[5], sizeof d[5], "STAGING_ELL=%d", variant != 3);
            snprintf(d[6], sizeof d[6], "INDEX_BYTES=%d", variant == 2 ? 4 : 2);
            const char *defs[7] = {d[0], d[1], d[2], d[3], d[4], d[5], d[6]};
            const rt_cuda_compile_request req = rt_test_sm90_request(
                sources[s].file, text, sources[s].entry, defs, is_tiled ? 7 : 5, cache);
            rt_cuda_image img;
            rt_err err;
            RT_CHECK_MSG(rt_cuda_compile(&req, &img, &err) == 0, "%s variant %d: %s",
                         sources[s].file, variant, err.msg);
            rt_cuda_image_free(&img);
        }
        /* ELL staging with a block size that is not a whole number of warps is refused at
         * compile time by the source itself. */
        if (is_tiled) {
            const char *defs[] = {"BLOCK_SIZE=48", "STAGING_ELL=1"};
            const rt_cuda_compile_request req =
                rt_test_sm90_request(sources[s].file, text, sources[s].entry, defs, 2, NULL);
            rt_cuda_image img;
            rt_err err;
            RT_CHECK(rt_cuda_compile(&req, &img, &err) != 0 &&
                     rt_test_contains(err.msg, "multiple of the warp size"));
        }
    }
}

int main(int argc, char **argv)
{
    char cache[4096];
    const int bad = rt_test_scratch(argc, argv, "nvrtc", cache, sizeof cache);
    if (bad)
        return bad;
    test_cache(cache);
    test_time_limit(cache);
    test_garbage(cache);
    test_real_sources(cache);
    test_default_dir();
    rt_test_remove_tree(cache);
    return RT_TEST_RESULT();
}
