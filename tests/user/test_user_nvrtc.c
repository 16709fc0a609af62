/* The examples' CUDA kernels through NVRTC, as the engine compiles them (the user's source text,
 * the parameters as -D defines, the entry), for sm_90: at their defaults and with each parameter
 * at its first and last value. NVRTC needs no GPU, so a syntax error in an example shows on every
 * build. A source that does not compile is reported with the user's file:line.
 *   test_user_nvrtc SCRATCH [--fails KERNEL]... SPEC...
 * (SPEC: a kernel spec whose CUDA kernels are compiled; a KERNEL named after --fails must not
 * compile, and its message must name its source's line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cuda_nvrtc.h"
#include "rt_test.h"
#include "user_diag.h"
#include "user_spec.h"

static int compile(const user_kernel_spec *k, const rt_params *p, rt_err *err)
{
    char text[RT_MAX_PARAMS][USER_DEFINE_MAX];
    const char *defines[RT_MAX_PARAMS];
    user_spec_defines(p, text, defines);
    const rt_cuda_compile_request req = {.source_name = k->source,
                                         .source = k->source_text,
                                         .defines = defines,
                                         .n_defines = p->n,
                                         .entry = k->entry,
                                         .cc_major = 9,
                                         .cc_minor = 0};
    rt_cuda_image img;
    memset(&img, 0, sizeof img);
    const int rc = rt_cuda_compile(&req, &img, err);
    rt_cuda_image_free(&img);
    return rc;
}

/* The first or last value of a parameter's "a|b|c" domain. */
static rt_value end_value(const user_param *p, int last)
{
    const char *d = p->domain;
    const char *start = last && strrchr(d, '|') ? strrchr(d, '|') + 1 : d;
    char word[RT_STR_MAX];
    size_t n = strcspn(start, "|");
    if (strstr(d, "..") && !strchr(d, '|')) { /* a range: its bounds */
        start = last ? strstr(d, "..") + 2 : d;
        n = last ? strlen(start) : (size_t)(strstr(d, "..") - d);
    }
    snprintf(word, sizeof word, "%.*s", (int)n, start);
    return p->kind == RT_V_STR ? rt_value_str(word) : rt_value_int(atoll(word));
}

static int expected_to_fail(const char *name, int n, char **fails)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(fails[i], name) == 0)
            return 1;
    return 0;
}

static void examples(int n, char **specs, int n_fails, char **fails)
{
    int compiled = 0;
    for (int s = 0; s < n; ++s) {
        user_spec *spec = NULL;
        rt_err err;
        RT_CHECK_MSG(user_spec_load(specs[s], &spec, &err) == 0, "%s", err.msg);
        for (int k = 0; spec && k < spec->n_kernels; ++k) {
            const user_kernel_spec *ks = &spec->kernels[k];
            if (!ks->cuda)
                continue;
            rt_params p;
            RT_CHECK(user_spec_kernel_params(ks, NULL, &p, &err) == 0);
            if (expected_to_fail(ks->name, n_fails, fails)) {
                char text[512], where[1100];
                RT_CHECK_MSG(compile(ks, &p, &err) != 0, "%s compiled", ks->name);
                user_diag_nvrtc(ks->source, err.msg, text, sizeof text);
                snprintf(where, sizeof where, "%s:", ks->source);
                RT_CHECK_MSG(rt_test_contains(text, where) && rt_test_contains(text, "error"), "%s",
                             text);
                continue;
            }
            RT_CHECK_MSG(compile(ks, &p, &err) == 0, "%s defaults: %s", ks->name, err.msg);
            ++compiled;
            for (int i = 0; i < ks->n_params; ++i)
                for (int last = 0; last < 2; ++last) {
                    rt_params q = p;
                    rt_params_set(&q, ks->params[i].name, end_value(&ks->params[i], last), &err);
                    RT_CHECK_MSG(compile(ks, &q, &err) == 0, "%s with %s at its %s value: %s",
                                 ks->name, ks->params[i].name, last ? "last" : "first", err.msg);
                    ++compiled;
                }
        }
        user_spec_free(spec);
    }
    printf("%d variants of %d specs compiled\n", compiled, n);
}

static void bad_source(const char *scratch)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/broken.cu", scratch);
    FILE *f = fopen(path, "w");
    fputs("extern \"C\" __global__ void k(float *c)\n{\n    c[0] = undeclared_thing;\n}\n", f);
    fclose(f);
    user_kernel_spec k;
    memset(&k, 0, sizeof k);
    snprintf(k.source, sizeof k.source, "%s", path);
    snprintf(k.entry, sizeof k.entry, "k");
    k.source_text =
        "extern \"C\" __global__ void k(float *c)\n{\n    c[0] = undeclared_thing;\n}\n";
    rt_params none;
    rt_params_init(&none);
    rt_err err;
    RT_CHECK(compile(&k, &none, &err) != 0);
    char text[512], where[1100];
    user_diag_nvrtc(path, err.msg, text, sizeof text);
    /* the file and line: the whole path where the reason has room, its last parts in a deep
     * checkout (rt_path_fit_text), "broken.cu:3: error" either way */
    snprintf(where, sizeof where, "broken.cu:3: error");
    RT_CHECK_MSG(rt_test_contains(text, where) && rt_test_contains(text, "undeclared_thing"), "%s",
                 text);
    printf("%s\n", text);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    bad_source(argv[1]);
    char *fails[16];
    int n_fails = 0, a = 2;
    while (a + 1 < argc && strcmp(argv[a], "--fails") == 0 && n_fails < 16) {
        fails[n_fails++] = argv[a + 1];
        a += 2;
    }
    examples(argc - a, argv + a, n_fails, fails);
    return RT_TEST_RESULT();
}
