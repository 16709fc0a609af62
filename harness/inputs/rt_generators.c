#include "rt_generators.h"

#include <stdio.h>
#include <string.h>

#include "rt_gen_banded.h"
#include "rt_gen_laplacian.h"
#include "rt_gen_rmat.h"
#include "rt_gen_sparse_dnn.h"
#include "rt_gen_stencil.h"
#include "rt_gen_uniform.h"
#include "rt_gen_xct.h"
#include "rt_mmio.h"
#include "rt_ordering.h"
#include "rt_strutil.h"

static const rt_generator_desc *const generators[] = {
    &rt_gen_uniform_desc,    &rt_gen_banded_desc,    &rt_gen_rmat_desc,    &rt_gen_xct_desc,
    &rt_gen_sparse_dnn_desc, &rt_gen_laplacian_desc, &rt_gen_stencil_desc,
};
#define N_GENERATORS ((int)(sizeof generators / sizeof generators[0]))

int rt_generator_count(void)
{
    return N_GENERATORS;
}

const rt_generator_desc *rt_generator_at(int i)
{
    return i >= 0 && i < N_GENERATORS ? generators[i] : NULL;
}

const rt_generator_desc *rt_generator_find(const char *name)
{
    if (!name)
        return NULL;
    for (int k = 0; k < N_GENERATORS; ++k)
        if (strcmp(generators[k]->name, name) == 0)
            return generators[k];
    return NULL;
}

static const rt_param_schema *find_arg(const rt_generator_desc *g, const char *name)
{
    for (int k = 0; k < g->n_args; ++k)
        if (strcmp(g->args[k].name, name) == 0)
            return &g->args[k];
    return NULL;
}

/* "rows, cols, seed" for messages that list what a generator accepts. */
static void list_args(const rt_generator_desc *g, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int k = 0; k < g->n_args && o < len; ++k) {
        const int w = snprintf(buf + o, len - o, "%s%s", k ? ", " : "", g->args[k].name);
        o = w > 0 ? o + (size_t)w : len;
    }
}

static int unknown_arg(const rt_generator_desc *g, const char *name, rt_err *err)
{
    const char *names[RT_MAX_PARAMS];
    const int n = g->n_args < RT_MAX_PARAMS ? g->n_args : RT_MAX_PARAMS;
    for (int k = 0; k < n; ++k)
        names[k] = g->args[k].name;
    const char *guess = rt_suggest(name, names, n);
    char all[512];
    list_args(g, all, sizeof all);
    if (guess)
        return rt_err_set(err,
                          "generator '%s' has no argument '%s'; did you mean '%s'? "
                          "(arguments: %s)",
                          g->name, name, guess, all);
    return rt_err_set(err, "generator '%s' has no argument '%s' (arguments: %s)", g->name, name,
                      all);
}

int rt_generator_fill_defaults(const rt_generator_desc *g, const rt_params *given, rt_params *out,
                               rt_err *err)
{
    rt_params_init(out);
    const int n_given = given ? given->n : 0;
    for (int k = 0; k < n_given; ++k) {
        const rt_param *p = &given->item[k];
        const rt_param_schema *s = find_arg(g, p->name);
        if (!s)
            return unknown_arg(g, p->name, err);
        char why[256];
        if (rt_param_check(s, &p->value, why, sizeof why) != 0)
            return rt_err_set(err, "generator '%s': %s", g->name, why);
        if (s->kind == RT_V_INT && p->value.kind == RT_V_REAL &&
            !(p->value.r >= -9.2e18 && p->value.r <= 9.2e18))
            return rt_err_set(err, "generator '%s': %s = %g is out of the 64-bit integer range",
                              g->name, s->name, p->value.r);
        /* YAML gives 1000.0 as easily as 1000; the schema says which one the generator reads. */
        const rt_value v = (s->kind == RT_V_INT && p->value.kind == RT_V_REAL)
                               ? rt_value_int((int64_t)p->value.r)
                           : (s->kind == RT_V_REAL && p->value.kind == RT_V_INT)
                               ? rt_value_real((double)p->value.i)
                               : p->value;
        if (rt_params_set(out, s->name, v, err) != 0)
            return -1;
    }
    for (int k = 0; k < g->n_args; ++k) {
        if (rt_params_get(out, g->args[k].name))
            continue;
        rt_value v;
        if (rt_param_default(&g->args[k], &v, err) != 0 ||
            rt_params_set(out, g->args[k].name, v, err) != 0)
            return rt_err_prefix(err, "generator '%s'", g->name);
    }
    if (g->derive && g->derive(out, err) != 0)
        return rt_err_prefix(err, "generator '%s'", g->name);
    return 0;
}

static int unknown_generator(const char *name, rt_err *err)
{
    const char *names[N_GENERATORS];
    char all[256];
    size_t o = 0;
    all[0] = '\0';
    for (int k = 0; k < N_GENERATORS; ++k) {
        names[k] = generators[k]->name;
        const int w = snprintf(all + o, sizeof all - o, "%s%s", k ? ", " : "", names[k]);
        o = (w > 0 && o + (size_t)w < sizeof all) ? o + (size_t)w : sizeof all - 1;
    }
    const char *guess = rt_suggest(name, names, N_GENERATORS);
    if (guess)
        return rt_err_set(err, "unknown generator '%s'; did you mean '%s'? (generators: %s)", name,
                          guess, all);
    return rt_err_set(err, "unknown generator '%s' (generators: %s)", name, all);
}

/* Builds the matrix as generated or read, before any reordering. *seed receives the seed that
 * "random" ordering falls back to. */
static int build_natural(const char *generator, const rt_params *args, const char *file,
                         rt_ordering_kind kind, rt_csr *out, uint64_t *seed, rt_err *err)
{
    if (!generator || !*generator) {
        if (!file || !*file)
            return rt_err_set(err, "a matrix needs either a generator or a Matrix Market file");
        for (int k = 0; args && k < args->n; ++k)
            if (strcmp(args->item[k].name, "seed") != 0)
                return rt_err_set(err,
                                  "%s: argument '%s' applies to generators, not to Matrix "
                                  "Market files (a file accepts only 'seed', for ordering random)",
                                  file, args->item[k].name);
        if (kind == RT_ORDERING_HILBERT)
            return rt_err_set(err,
                              "%s: ordering hilbert needs the geometry of an xct matrix, which "
                              "a Matrix Market file does not carry (use natural, random or rcm)",
                              file);
        *seed = args ? (uint64_t)rt_params_int(args, "seed", 0) : 0;
        return rt_mmio_read(file, out, err);
    }
    if (file && *file)
        return rt_err_set(err, "a matrix takes a generator ('%s') or a file ('%s'), not both",
                          generator, file);
    const rt_generator_desc *g = rt_generator_find(generator);
    if (!g)
        return unknown_generator(generator, err);
    rt_params full;
    if (rt_generator_fill_defaults(g, args, &full, err) != 0)
        return -1;
    if (kind == RT_ORDERING_HILBERT) {
        if (!find_arg(g, "hilbert"))
            return rt_err_set(err,
                              "ordering hilbert needs the geometry of an xct matrix; generator "
                              "'%s' has none (use natural, random or rcm)",
                              g->name);
        if (rt_params_set(&full, "hilbert", rt_value_int(1), err) != 0)
            return -1;
    }
    *seed = (uint64_t)rt_params_int(&full, "seed", 0);
    if (g->generate(&full, out, err) != 0)
        return rt_err_prefix(err, "generator '%s'", g->name);
    /* Generators are trusted but cheap to check, and a broken invariant here would surface
     * as a wrong answer in some kernel far away. */
    if (rt_csr_validate(out, err) != 0) {
        rt_csr_free(out);
        return rt_err_prefix(err, "generator '%s' produced an invalid matrix (a bug)", g->name);
    }
    return 0;
}

int rt_matrix_build(const char *generator, const rt_params *args, const char *file,
                    const char *ordering, rt_csr *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    rt_ordering_kind kind;
    uint64_t seed = 0;
    int seed_given = 0;
    if (rt_ordering_parse(ordering, &kind, &seed, &seed_given, err) != 0)
        return -1;
    rt_csr natural;
    uint64_t fallback_seed = 0;
    if (build_natural(generator, args, file, kind, &natural, &fallback_seed, err) != 0)
        return -1;
    if (kind == RT_ORDERING_NATURAL || kind == RT_ORDERING_HILBERT) {
        *out = natural;
        return 0;
    }
    const int rc = rt_ordering_apply(&natural, kind, seed_given ? seed : fallback_seed, out, err);
    rt_csr_free(&natural);
    return rc;
}
