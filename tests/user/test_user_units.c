/* kernels/user's pieces on their own: .npy and raw files (and garbage in them), the guard zones,
 * NVRTC message rewriting, the elementwise gate's factor, and a spec mutated a thousand ways (every
 * variant loads or fails with a located message; none crashes, under ASan). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_rng.h"
#include "rt_test.h"
#include "rt_verify.h"
#include "user_diag.h"
#include "user_family.h"
#include "user_guard.h"
#include "user_npy.h"
#include "user_spec.h"

static char work[900];

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", work, name);
}

static void write_bytes(const char *name, const void *data, size_t n)
{
    char p[1000];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
}

/* A .npy file with the given header dictionary and n data bytes. */
static void write_npy(const char *name, const char *dict, const void *data, size_t n)
{
    char header[256];
    int len = snprintf(header, sizeof header, "%s", dict);
    while ((10 + len + 1) % 64)
        header[len++] = ' ';
    header[len++] = '\n';
    unsigned char buf[4096];
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(len & 0xff);
    buf[9] = (unsigned char)(len >> 8);
    memcpy(buf + 10, header, (size_t)len);
    memcpy(buf + 10 + len, data, n);
    write_bytes(name, buf, 10 + (size_t)len + n);
}

static int read_err(const char *name, user_type t, int64_t count, const char *expect)
{
    char p[1000];
    path_of(p, sizeof p, name);
    float dst[64];
    rt_err err;
    rt_err_clear(&err);
    const int rc = user_npy_read(p, t, count, dst, &err);
    RT_CHECK_MSG(rc != 0 && rt_test_contains(err.msg, expect) && rt_test_contains(err.msg, name),
                 "%s: rc %d, '%s' (wanted '%s')", name, rc, err.msg, expect);
    return rc;
}

static void test_npy(void)
{
    rt_err err;
    char p[1000];
    /* Every type round-trips, and a float64 file fills a float array. */
    const double src[5] = {1.5, -2.25, 3, 1e6, -7};
    for (int t = 0; t < USER_T_COUNT; ++t) {
        unsigned char data[64], back[64];
        for (int i = 0; i < 5; ++i)
            user_value_set((user_type)t, data, i, fabs(src[i]));
        path_of(p, sizeof p, "rt.npy");
        RT_CHECK(user_npy_write(p, (user_type)t, 5, data, &err) == 0);
        RT_CHECK(user_npy_read(p, (user_type)t, 5, back, &err) == 0);
        RT_CHECK_MSG(memcmp(data, back, 5 * user_type_size((user_type)t)) == 0, "type %s",
                     user_type_name((user_type)t));
    }
    path_of(p, sizeof p, "f64.npy");
    RT_CHECK(user_npy_write(p, USER_T_F64, 5, src, &err) == 0);
    float f[5];
    RT_CHECK(user_npy_read(p, USER_T_F32, 5, f, &err) == 0);
    RT_CHECK(f[1] == -2.25f && f[3] == 1e6f);
    /* int16 with negative values, converted to int32. */
    const short s16[3] = {-3, 7, -32768};
    write_npy("i2.npy", "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", s16, 6);
    int i32[3];
    path_of(p, sizeof p, "i2.npy");
    RT_CHECK(user_npy_read(p, USER_T_I32, 3, i32, &err) == 0);
    RT_CHECK(i32[0] == -3 && i32[1] == 7 && i32[2] == -32768);
    /* A 2D shape fills an array of its product. */
    const float four[4] = {1, 2, 3, 4};
    write_npy("2d.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", four, 16);
    path_of(p, sizeof p, "2d.npy");
    RT_CHECK(user_npy_read(p, USER_T_F32, 4, f, &err) == 0 && f[3] == 4);

    /* Garbage. */
    write_bytes("magic.npy", "NOTNUMPYATALL", 13);
    read_err("magic.npy", USER_T_F32, 1, "not a .npy file");
    write_bytes("short.npy", "\x93NUMPY\x01\x00\xff", 9);
    read_err("short.npy", USER_T_F32, 1, "cut short");
    write_bytes("version.npy", "\x93NUMPY\x09\x00\x10\x00", 10);
    read_err("version.npy", USER_T_F32, 1, "version 9");
    write_npy("big.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", four, 16);
    read_err("big.npy", USER_T_F32, 4, "big-endian");
    write_npy("fort.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", four, 16);
    read_err("fort.npy", USER_T_F32, 4, "Fortran");
    write_npy("obj.npy", "{'descr': '|O', 'fortran_order': False, 'shape': (4,), }", four, 16);
    read_err("obj.npy", USER_T_F32, 4, "unsupported .npy element type");
    write_npy("rec.npy", "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", four,
              16);
    read_err("rec.npy", USER_T_F32, 4, "structured");
    write_npy("count.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", four, 16);
    read_err("count.npy", USER_T_F32, 5, "holds 4 element(s), the array needs 5");
    write_npy("cut.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", four, 12);
    read_err("cut.npy", USER_T_F32, 4, "shorter than its header");
    write_npy("tail.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", four, 16);
    read_err("tail.npy", USER_T_F32, 3, "bytes follow");
    write_npy("shape.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (x,), }", four, 16);
    read_err("shape.npy", USER_T_F32, 4, "malformed");
    read_err("missing.npy", USER_T_F32, 4, "cannot open");
    /* Raw files: exactly count elements of the type. */
    write_bytes("raw.bin", four, 16);
    path_of(p, sizeof p, "raw.bin");
    RT_CHECK(user_raw_read(p, USER_T_F32, 4, f, &err) == 0 && f[2] == 3);
    RT_CHECK(user_raw_read(p, USER_T_F64, 4, f, &err) != 0 &&
             rt_test_contains(err.msg, "holds 16 byte(s)"));

    /* Random bytes after a valid magic: refused or read, never a crash. */
    rt_rng g;
    rt_rng_seed(&g, 5, 0);
    for (int trial = 0; trial < 300; ++trial) {
        unsigned char junk[200];
        memcpy(junk, "\x93NUMPY\x01\x00", 8);
        const size_t n = 8 + rt_rng_below(&g, 190);
        for (size_t i = 8; i < n; ++i)
            junk[i] = (unsigned char)rt_rng_below(&g, 256);
        write_bytes("junk.npy", junk, n);
        path_of(p, sizeof p, "junk.npy");
        float out[64];
        rt_err_clear(&err);
        if (user_npy_read(p, USER_T_F32, (int64_t)rt_rng_below(&g, 8), out, &err) != 0)
            RT_CHECK(err.msg[0] != '\0');
    }
}

static const char *k_spec =
    "family: t\n"
    "problem: {n: {default: 10, domain: \"1..1000\"}}\n"
    "arguments:\n"
    "  - {name: c, type: float, size: n, output: true}\n"
    "  - {name: a, type: double, size: 2 * n, init: {random: {seed: 3, min: 0, max: 4}}}\n"
    "  - {name: n, type: int32, value: n + unroll}\n"
    "reference: {kernel: t.cpu.k}\n"
    "tolerance: {normwise: 1e-6, elementwise: 1e-5}\n"
    "flops: 2 * n\n"
    "bytes: 12 * n\n"
    "kernels:\n"
    "  - name: t.cpu.k\n"
    "    source: k.c\n"
    "    entry: k\n"
    "    params: {unroll: {values: [1, 2, 4], default: 2}}\n"
    "    constraints: [\"unroll <= n\"]\n"
    "  - name: t.cuda.g\n"
    "    source: k.cu\n"
    "    entry: g\n"
    "    params: {unroll: [1, 2], bs: {range: [32, 1024], default: 128}}\n"
    "    grid: [\"ceil(n / bs)\"]\n"
    "    block: [bs]\n"
    "    shared_bytes: bs * 4\n";

static void test_guard_and_spec(void)
{
    char p[1000];
    rt_err err;
    path_of(p, sizeof p, "k.c");
    const char *kc = "void k(float *c, const double *a, int n) {}\n";
    const char *kcu = "extern \"C\" __global__ void g(float *c, const double *a, int n) {}\n";
    write_bytes("k.c", kc, strlen(kc));
    write_bytes("k.cu", kcu, strlen(kcu));
    write_bytes("spec.yaml", k_spec, strlen(k_spec));
    path_of(p, sizeof p, "spec.yaml");
    user_spec *s = NULL;
    RT_CHECK_MSG(user_spec_load(p, &s, &err) == 0, "%s", err.msg);
    if (!s)
        return;
    RT_CHECK(s->n_args == 3 && s->n_outputs == 1 && s->n_kernels == 2 && s->elementwise);
    RT_CHECK(s->kernels[1].cuda && !s->kernels[0].cuda && s->kernels[1].n_params == 2);
    RT_CHECK(strcmp(s->kernels[1].params[1].domain, "32..1024") == 0);
    /* The problem parameter `spec` is the identity, its only value. */
    RT_CHECK(strcmp(s->problem_schema[0].default_value, s->identity) == 0 &&
             strcmp(s->problem_schema[0].domain, s->identity) == 0);

    /* The guards: whole after staging, and each kind of damage named. */
    int64_t counts[3] = {10, 20, 0};
    user_layout l;
    RT_CHECK(user_layout_make(s, counts, &l, &err) == 0);
    unsigned char *base = calloc(1, l.total);
    user_guard_fill_all(s, &l, base);
    RT_CHECK(user_guard_check_all(s, &l, base, "t.cpu.k", &err) == 0);
    RT_CHECK(l.offset[0] % 256 == 0 && l.offset[1] % 256 == 0);
    base[l.offset[0] + 40] ^= 0xFF; /* c[10]: one past the end */
    RT_CHECK(user_guard_check_all(s, &l, base, "t.cpu.k", &err) != 0 &&
             rt_test_contains(err.msg, "after the end of argument 'c'") &&
             rt_test_contains(err.msg, "c[10]"));
    base[l.offset[0] + 40] ^= 0xFF;
    base[l.offset[1] - 1] ^= 0x01; /* the byte before a */
    RT_CHECK(user_guard_check_all(s, &l, base, "t.cpu.k", &err) != 0 &&
             rt_test_contains(err.msg, "before the start of argument 'a'"));
    free(base);

    /* A thousand mutations of the spec: each loads or fails with its file named. */
    rt_rng g;
    rt_rng_seed(&g, 9, 0);
    const size_t len = strlen(k_spec);
    for (int trial = 0; trial < 1000; ++trial) {
        char text[2048];
        memcpy(text, k_spec, len + 1);
        const int kind = (int)rt_rng_below(&g, 3);
        const size_t at = rt_rng_below(&g, len);
        if (kind == 0) {
            text[at] = (char)(' ' + rt_rng_below(&g, 95));
        } else if (kind == 1) {
            text[at] = '\0';
        } else { /* drop a line */
            const char *nl = strchr(text + at, '\n');
            if (nl)
                memmove(text + at, nl + 1, strlen(nl + 1) + 1);
        }
        write_bytes("m.yaml", text, strlen(text));
        char mp[1000];
        path_of(mp, sizeof mp, "m.yaml");
        user_spec *m = NULL;
        rt_err_clear(&err);
        if (user_spec_load(mp, &m, &err) != 0)
            RT_CHECK_MSG(rt_test_contains(err.msg, "m.yaml"), "trial %d: %s", trial, err.msg);
        user_spec_free(m);
    }
    user_spec_free(s);
}

/* Makes work/rel and every folder above it. */
static void make_dirs(const char *rel)
{
    char p[1000];
    path_of(p, sizeof p, rel);
    for (char *c = p + strlen(work) + 1; *c; ++c)
        if (*c == '/') {
            *c = '\0';
            mkdir(p, 0777);
            *c = '/';
        }
    mkdir(p, 0777);
}

/* A spec's text and kernel source written to work/dir/spec.yaml and loaded. */
static user_spec *load_in(const char *dir, const char *text, const char *kc)
{
    char name[1000], p[1000];
    make_dirs(dir);
    snprintf(name, sizeof name, "%s/k.c", dir);
    write_bytes(name, kc, strlen(kc));
    const char *kcu = "extern \"C\" __global__ void g(float *c, const double *a, int n) {}\n";
    snprintf(name, sizeof name, "%s/k.cu", dir);
    write_bytes(name, kcu, strlen(kcu));
    snprintf(name, sizeof name, "%s/spec.yaml", dir);
    write_bytes(name, text, strlen(text));
    path_of(p, sizeof p, name);
    user_spec *s = NULL;
    rt_err err;
    RT_CHECK_MSG(user_spec_load(p, &s, &err) == 0, "%s: %s", dir, err.msg);
    RT_CHECK(!s || strcmp(s->path, p) == 0);
    return s;
}

/* A text with the first `from` replaced by `to`. */
static void edited(char *out, size_t len, const char *from, const char *to)
{
    const char *at = strstr(k_spec, from);
    RT_CHECK_MSG(at != NULL, "no '%s' in the spec", from);
    if (at)
        snprintf(out, len, "%.*s%s%s", (int)(at - k_spec), k_spec, to, at + strlen(from));
}

/* The spec's identity, the problem parameter `spec`: the same wherever the spec lies and however
 * long its path; the same across an edit of a kernel, the tolerance or the layout; different for
 * other arguments or another reference, whatever the file's name. */
static void test_identity(void)
{
    const char *kc = "void k(float *c, const double *a, int n) {}\n";
    user_spec *base = load_in("id/a", k_spec, kc);
    if (!base)
        return;
    RT_CHECK_MSG(strncmp(base->identity, "t@", 2) == 0 && strlen(base->identity) == 18 &&
                     strspn(base->identity + 2, "0123456789abcdef") == 16,
                 "%s", base->identity);

    /* A folder 40 levels down: the path is over 200 characters, the identity is the same. */
    char deep[600] = "id/deep";
    for (int i = 0; i < 40; ++i)
        strcat(deep, "/level");
    user_spec *s = load_in(deep, k_spec, kc);
    RT_CHECK(s && strlen(s->path) > 200 && strcmp(s->identity, base->identity) == 0 &&
             strcmp(s->hash, base->hash) == 0);
    user_spec_free(s);

    /* Same arguments and reference: the identity stays, the hash (resume) changes. */
    char text[2048];
    s = load_in("id/kernel", k_spec, "void k(float *c, const double *a, int n) { c[0] = 1; }\n");
    RT_CHECK(s && strcmp(s->identity, base->identity) == 0 && strcmp(s->hash, base->hash) != 0);
    user_spec_free(s);
    edited(text, sizeof text, "tolerance: {normwise: 1e-6, elementwise: 1e-5}\n",
           "# looser\ntolerance: {normwise: 1e-5}\n");
    s = load_in("id/tolerance", text, kc);
    RT_CHECK(s && strcmp(s->identity, base->identity) == 0 && strcmp(s->hash, base->hash) != 0);
    user_spec_free(s);
    edited(text, sizeof text, "{name: c, type: float, size: n, output: true}",
           "{output: true, size: \"n\", name: c, type: float}   # reordered");
    s = load_in("id/layout", text, kc);
    RT_CHECK(s && strcmp(s->identity, base->identity) == 0);
    user_spec_free(s);

    /* Another first content or another reference: another identity, though the file is called
     * spec.yaml too. */
    edited(text, sizeof text, "seed: 3", "seed: 4");
    s = load_in("id/seed", text, kc);
    RT_CHECK(s && strcmp(s->identity, base->identity) != 0);
    user_spec_free(s);
    edited(text, sizeof text, "reference: {kernel: t.cpu.k}",
           "reference: {kernel: t.cpu.k, params: {unroll: 4}}");
    s = load_in("id/reference", text, kc);
    RT_CHECK(s && strcmp(s->identity, base->identity) != 0);
    user_spec_free(s);
    user_spec_free(base);
}

static void test_diag(void)
{
    char out[512];
    user_diag_rewrite("x/k.cu(12): error: identifier \"q\" is undefined\nx/k.cu(3): warning",
                      "x/k.cu", out, sizeof out);
    RT_CHECK_MSG(
        strcmp(out, "x/k.cu:12: error: identifier \"q\" is undefined\nx/k.cu:3: warning") == 0,
        "%s", out);
    user_diag_rewrite("other.cu(12): error", "x/k.cu", out, sizeof out);
    RT_CHECK(strcmp(out, "other.cu(12): error") == 0);
    user_diag_errors("note: a\nk.c:1:2: error: b\nsomething\nk.c:3:4: error: c\n", out, sizeof out);
    RT_CHECK_MSG(strcmp(out, "k.c:1:2: error: b; k.c:3:4: error: c") == 0, "%s", out);
    user_diag_errors("no problem reported\n", out, sizeof out);
    RT_CHECK(strcmp(out, "no problem reported\n") == 0);
    user_diag_nvrtc("k.cu", "loading k.cu (kk): cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND",
                    out, sizeof out);
    RT_CHECK_MSG(
        strcmp(out, "loading k.cu (kk): cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND") == 0,
        "%s", out);
    char tiny[8];
    user_diag_errors("k.c:1:2: error: a long line that does not fit\n", tiny, sizeof tiny);
    RT_CHECK(strlen(tiny) == 7);
}

int main(int argc, char **argv)
{
    snprintf(work, sizeof work, "%s", argc > 1 ? argv[1] : "user-units");
    mkdir(work, 0777);
    /* The spec's elementwise bound rides on the runner's gate: the two factors must agree. */
    RT_CHECK(USER_ELEMENT_FACTOR == RT_VERIFY_ELEMENT_FACTOR);
    test_npy();
    test_guard_and_spec();
    test_identity();
    test_diag();
    return RT_TEST_RESULT();
}
