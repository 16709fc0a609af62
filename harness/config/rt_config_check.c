/* rt_config_check: the checks of a loaded config that need the kernel registry and the matrix
 * generators (declared in rt_config.h). Loading alone checks shapes and types; this checks
 * names and values against what this build of rooftune actually provides. */
#include "rt_config.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rt_device.h"
#include "rt_expr.h"
#include "rt_generators.h"
#include "rt_ordering.h"
#include "rt_registry.h"
#include "rt_strategy_table.h"
#include "rt_strutil.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef enum field_type { FIELD_INT, FIELD_INT64, FIELD_DOUBLE } field_type;

typedef struct device_field {
    size_t offset;
    field_type type;
} device_field;

/* The numeric members of rt_device_info; the strings (backend, name, versions) cannot take part
 * in arithmetic. k_device_names and k_device_layout are parallel. */
static const char *const k_device_names[] = {
    "ordinal",
    "cc_major",
    "cc_minor",
    "sm_count",
    "global_mem_bytes",
    "l2_bytes",
    "max_shared_per_block",
    "max_shared_per_block_optin",
    "max_shared_per_sm",
    "regs_per_block",
    "regs_per_sm",
    "max_threads_per_block",
    "max_threads_per_sm",
    "warp_size",
    "sm_clock_mhz",
    "mem_clock_mhz",
    "mem_bus_bits",
};
static const device_field k_device_layout[] = {
    {offsetof(rt_device_info, ordinal), FIELD_INT},
    {offsetof(rt_device_info, cc_major), FIELD_INT},
    {offsetof(rt_device_info, cc_minor), FIELD_INT},
    {offsetof(rt_device_info, sm_count), FIELD_INT},
    {offsetof(rt_device_info, global_mem_bytes), FIELD_INT64},
    {offsetof(rt_device_info, l2_bytes), FIELD_INT64},
    {offsetof(rt_device_info, max_shared_per_block), FIELD_INT64},
    {offsetof(rt_device_info, max_shared_per_block_optin), FIELD_INT64},
    {offsetof(rt_device_info, max_shared_per_sm), FIELD_INT64},
    {offsetof(rt_device_info, regs_per_block), FIELD_INT64},
    {offsetof(rt_device_info, regs_per_sm), FIELD_INT64},
    {offsetof(rt_device_info, max_threads_per_block), FIELD_INT},
    {offsetof(rt_device_info, max_threads_per_sm), FIELD_INT},
    {offsetof(rt_device_info, warp_size), FIELD_INT},
    {offsetof(rt_device_info, sm_clock_mhz), FIELD_DOUBLE},
    {offsetof(rt_device_info, mem_clock_mhz), FIELD_DOUBLE},
    {offsetof(rt_device_info, mem_bus_bits), FIELD_INT},
};
_Static_assert(sizeof k_device_names / sizeof k_device_names[0] ==
                   sizeof k_device_layout / sizeof k_device_layout[0],
               "device field tables out of step");

static const char *const k_matrix_idents[] = {"matrix.rows", "matrix.cols", "matrix.nnz"};

const char *const *rt_config_device_fields(int *n)
{
    *n = N_OF(k_device_names);
    return k_device_names;
}

int rt_config_device_value(const rt_device_info *dev, const char *field, double *out)
{
    for (int i = 0; i < N_OF(k_device_names); ++i) {
        if (strcmp(k_device_names[i], field) != 0)
            continue;
        const char *base = (const char *)dev + k_device_layout[i].offset;
        switch (k_device_layout[i].type) {
        case FIELD_INT: {
            int v;
            memcpy(&v, base, sizeof v);
            *out = v;
            return 0;
        }
        case FIELD_INT64: {
            int64_t v;
            memcpy(&v, base, sizeof v);
            *out = (double)v;
            return 0;
        }
        case FIELD_DOUBLE: memcpy(out, base, sizeof *out); return 0;
        }
    }
    return -1;
}

static int fail_loc(rt_err *err, const rt_src_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_loc(rt_err *err, const rt_src_loc *loc, const char *fmt, ...)
{
    char what[RT_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rt_err_set(err, "%s:%d:%d: %s", loc->file, loc->line, loc->col, what);
}

/* ", did you mean 'x'?" or " (known: a, b, c)" for an unknown name among candidates. */
static void hint_text(const char *word, const char *const *cands, int n, const char *known_label,
                      char *buf, size_t len)
{
    const char *hint = rt_suggest(word, cands, n);
    if (hint) {
        snprintf(buf, len, " (did you mean '%s'?)", hint);
        return;
    }
    if (n == 0) {
        snprintf(buf, len, " (%s: none)", known_label);
        return;
    }
    size_t used = (size_t)snprintf(buf, len, " (%s: ", known_label);
    for (int i = 0; i < n && used < len; ++i)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", cands[i]);
    if (used < len)
        snprintf(buf + used, len - used, ")");
}

/* ------------------------------------------------------------------------------------------ */
/* Matrices */

static const rt_param_schema *find_arg(const rt_generator_desc *g, const char *name)
{
    for (int i = 0; i < g->n_args; ++i)
        if (strcmp(g->args[i].name, name) == 0)
            return &g->args[i];
    return NULL;
}

static int check_matrix(const rt_matrix_cfg *m, int index, rt_err *err)
{
    /* Caught here so that `validate` says it, not only the run that builds the matrix. */
    if (strncmp(m->ordering, "metis", 5) == 0 && !rt_ordering_metis_available())
        return fail_loc(err, &m->loc,
                        "matrices[%d].ordering: metis needs METIS, and this rooftune was built "
                        "without it (install libmetis-dev and re-run cmake)",
                        index);
    if (m->generator[0] == '\0') {
        /* A missing file would otherwise pass `validate` and fail only the run. */
        if (access(m->file, R_OK) != 0)
            return fail_loc(err, &m->source_loc, "matrices[%d].file: cannot read '%s': %s", index,
                            m->file, strerror(errno));
        const rt_value *seed = rt_params_get(&m->gen, "seed");
        if (seed && (seed->kind != RT_V_INT || seed->i < 0))
            return fail_loc(err, &m->gen_locs[0], "matrices[%d].seed: expected an integer >= 0",
                            index);
        if (strcmp(m->ordering, "hilbert") == 0)
            return fail_loc(err, &m->loc,
                            "matrices[%d].ordering: hilbert needs the geometry of "
                            "an xct matrix; a matrix read from a file has none",
                            index);
        return 0;
    }
    const rt_generator_desc *g = rt_generator_find(m->generator);
    if (!g) {
        const char *names[64];
        int n = rt_generator_count();
        if (n > N_OF(names))
            n = N_OF(names);
        for (int i = 0; i < n; ++i)
            names[i] = rt_generator_at(i)->name;
        char hint[512];
        hint_text(m->generator, names, n, "generators", hint, sizeof hint);
        return fail_loc(err, &m->source_loc, "matrices[%d].generator: unknown generator '%s'%s",
                        index, m->generator, hint);
    }
    for (int a = 0; a < m->gen.n; ++a) {
        const rt_param *p = &m->gen.item[a];
        const rt_param_schema *s = find_arg(g, p->name);
        if (!s) {
            const char *names[RT_MAX_PARAMS + 4];
            int n = 0;
            for (int i = 0; i < g->n_args && n < RT_MAX_PARAMS; ++i)
                names[n++] = g->args[i].name;
            const int n_args = n;
            /* A misspelt fixed key (ordering) lands here too: offer it as well. */
            names[n++] = "ordering";
            char hint[512];
            const char *guess = rt_suggest(p->name, names, n);
            if (guess)
                snprintf(hint, sizeof hint, " (did you mean '%s'?)", guess);
            else
                hint_text(p->name, names, n_args, "its arguments", hint, sizeof hint);
            return fail_loc(err, &m->gen_locs[a],
                            "matrices[%d].%s: generator '%s' has no "
                            "argument '%s'%s",
                            index, p->name, g->name, p->name, hint);
        }
        char why[256];
        if (rt_param_check(s, &p->value, why, sizeof why) != 0)
            return fail_loc(err, &m->gen_locs[a], "matrices[%d].%s: %s", index, p->name, why);
    }
    if (strcmp(m->ordering, "hilbert") == 0 && !find_arg(g, "hilbert"))
        return fail_loc(err, &m->loc,
                        "matrices[%d].ordering: hilbert needs the geometry of an "
                        "xct matrix; generator '%s' has none (use natural, rcm or random)",
                        index, g->name);
    /* Arguments that depend on each other (derived defaults) are the generator's to judge. */
    rt_params full;
    if (rt_generator_fill_defaults(g, &m->gen, &full, err) != 0)
        return rt_err_prefix(err, "%s:%d:%d: matrices[%d]", m->loc.file, m->loc.line, m->loc.col,
                             index);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Kernels */

static const rt_param_schema *find_problem_param(const rt_family_desc *fam, const char *name)
{
    for (int i = 0; i < fam->n_problem_params; ++i)
        if (strcmp(fam->problem_params[i].name, name) == 0)
            return &fam->problem_params[i];
    return NULL;
}

static int check_kernel_params(const rt_kernel_cfg *kc, int ki, const rt_kernel_desc *k,
                               rt_err *err)
{
    for (int p = 0; p < kc->n_params; ++p) {
        const rt_param_domain *d = &kc->params[p];
        const rt_param_schema *s = rt_kernel_find_param(k, d->name);
        if (!s) {
            const char *names[RT_MAX_PARAMS];
            int n = 0;
            for (int i = 0; i < k->n_params && n < RT_MAX_PARAMS; ++i)
                names[n++] = k->params[i].name;
            char hint[512];
            hint_text(d->name, names, n, "its parameters", hint, sizeof hint);
            return fail_loc(err, &d->loc,
                            "kernels[%d].params: kernel '%s' has no parameter "
                            "'%s'%s",
                            ki, k->name, d->name, hint);
        }
        for (int v = 0; v < d->n_values; ++v) {
            char why[256];
            if (rt_param_check(s, &d->values[v], why, sizeof why) != 0)
                return fail_loc(err, &d->loc, "kernels[%d].params.%s: %s (kernel '%s')", ki,
                                d->name, why, k->name);
        }
    }
    return 0;
}

typedef struct ident_ctx {
    const rt_kernel_desc *kernel;
    const rt_family_desc *family;
    const char *unknown; /* set by the callback to the first unknown identifier */
} ident_ctx;

static int ident_known(const char *name, void *user)
{
    ident_ctx *ic = user;
    if (rt_kernel_find_param(ic->kernel, name) || find_problem_param(ic->family, name))
        return 0;
    for (int i = 0; i < N_OF(k_matrix_idents); ++i)
        if (strcmp(name, k_matrix_idents[i]) == 0)
            return 0;
    double unused;
    static const rt_device_info zero_device;
    if (strncmp(name, "device.", 7) == 0 &&
        rt_config_device_value(&zero_device, name + 7, &unused) == 0)
        return 0;
    ic->unknown = name;
    return 1;
}

static int check_constraints(const rt_kernel_cfg *kc, int ki, const rt_kernel_desc *k,
                             const rt_family_desc *fam, rt_err *err)
{
    for (int c = 0; c < kc->n_constraints; ++c) {
        const rt_src_loc *loc = &kc->constraint_locs[c];
        rt_expr *e;
        rt_err why;
        if (rt_expr_parse(kc->constraints[c], &e, &why) != 0)
            return fail_loc(err, loc, "kernels[%d].constraints[%d]: syntax error: %s", ki, c,
                            why.msg);
        ident_ctx ic = {k, fam, NULL};
        rt_expr_identifiers(e, ident_known, &ic);
        if (!ic.unknown) {
            rt_expr_free(e);
            continue;
        }
        /* Every name the constraint could have meant, for the suggestion. */
        char device_idents[N_OF(k_device_names)][64];
        const char *cands[2 * RT_MAX_PARAMS + N_OF(k_matrix_idents) + N_OF(k_device_names)];
        int n = 0;
        for (int i = 0; i < k->n_params && i < RT_MAX_PARAMS; ++i)
            cands[n++] = k->params[i].name;
        for (int i = 0; i < fam->n_problem_params && i < RT_MAX_PARAMS; ++i)
            cands[n++] = fam->problem_params[i].name;
        for (int i = 0; i < N_OF(k_matrix_idents); ++i)
            cands[n++] = k_matrix_idents[i];
        for (int i = 0; i < N_OF(k_device_names); ++i) {
            snprintf(device_idents[i], sizeof device_idents[i], "device.%s", k_device_names[i]);
            cands[n++] = device_idents[i];
        }
        const char *hint = rt_suggest(ic.unknown, cands, n);
        /* A name cut short ("device.max_shared") is too far from the full one for an edit
         * distance, but the full name starts with it. */
        for (int i = 0; i < n && !hint; ++i)
            if (strncmp(cands[i], ic.unknown, strlen(ic.unknown)) == 0)
                hint = cands[i];
        /* "warp_size" for "device.warp_size" is too far apart for an edit distance too. */
        for (int i = 0; i < N_OF(k_device_names) && !hint; ++i)
            if (strcmp(ic.unknown, k_device_names[i]) == 0)
                hint = device_idents[i];
        char hint_buf[160] = "";
        if (hint)
            snprintf(hint_buf, sizeof hint_buf, " (did you mean '%s'?)", hint);
        else
            snprintf(hint_buf, sizeof hint_buf,
                     " (a constraint may name parameters of '%s', "
                     "problem parameters, matrix.rows|cols|nnz and device.<field>)",
                     k->name);
        fail_loc(err, loc, "kernels[%d].constraints[%d]: unknown identifier '%s' in '%s'%s", ki, c,
                 ic.unknown, kc->constraints[c], hint_buf);
        rt_expr_free(e);
        return -1;
    }
    return 0;
}

static int check_problem(const rt_config *cfg, const rt_registry *reg, rt_err *err)
{
    for (int p = 0; p < cfg->n_problem; ++p) {
        const rt_param_domain *d = &cfg->problem[p];
        for (int ki = 0; ki < cfg->n_kernels; ++ki) {
            const rt_kernel_desc *k = rt_registry_find_kernel(reg, cfg->kernels[ki].name);
            const rt_family_desc *fam = rt_registry_find_family(reg, k->family);
            const rt_param_schema *s = find_problem_param(fam, d->name);
            if (!s) {
                const char *names[RT_MAX_PARAMS];
                int n = 0;
                for (int i = 0; i < fam->n_problem_params && n < RT_MAX_PARAMS; ++i)
                    names[n++] = fam->problem_params[i].name;
                char hint[512];
                hint_text(d->name, names, n, "its problem parameters", hint, sizeof hint);
                return fail_loc(err, &d->loc,
                                "problem.%s: not a problem parameter of family "
                                "'%s' (of kernels[%d], '%s')%s",
                                d->name, fam->name, ki, k->name, hint);
            }
            for (int v = 0; v < d->n_values; ++v) {
                char why[256];
                if (rt_param_check(s, &d->values[v], why, sizeof why) != 0)
                    return fail_loc(err, &d->loc, "problem.%s: %s (family '%s')", d->name, why,
                                    fam->name);
            }
        }
    }
    return 0;
}

/* kernels[i].parallel against the run's search keys: an entry spread over the ranks needs a
 * strategy whose order ignores the results (as search.parallel does); worker processes of
 * search.parallel: gpus are not one MPI job, so no entry can span them or spread differently. */
static int check_kernel_parallel(const rt_config *cfg, const rt_kernel_cfg *kc, int ki, rt_err *err)
{
    if (kc->parallel == RT_KERNEL_PARALLEL_SEARCH)
        return 0;
    const char *mine = kc->parallel == RT_KERNEL_PARALLEL_NONE ? "none" : "ranks";
    if (cfg->search.parallel == RT_PARALLEL_GPUS)
        return fail_loc(err, &kc->loc,
                        "kernels[%d].parallel: %s inside search.parallel: gpus (its worker "
                        "processes are not one MPI job); run under mpirun with search.parallel: "
                        "ranks, or leave kernels[%d].parallel out",
                        ki, mine, ki);
    const rt_strategy_info *info = rt_strategy_find(cfg->search.strategy);
    if (kc->parallel == RT_KERNEL_PARALLEL_RANKS && !(info && info->ignores_results)) {
        char blind[256];
        rt_strategy_blind_names(blind, sizeof blind);
        return fail_loc(err, &kc->loc,
                        "kernels[%d].parallel: ranks needs search.strategy %s (strategy %s picks "
                        "each point from the result of the one before)",
                        ki, blind, cfg->search.strategy);
    }
    return 0;
}

/* kernels[i].abort_group: the entries of a group share the best time early abort compares with
 * (per matrix and problem point), so the group must have early abort on, more than one entry, and
 * entries of one family (one problem, so their times measure the same thing). */
static int check_abort_group(const rt_config *cfg, const rt_registry *reg, const rt_kernel_cfg *kc,
                             int ki, rt_err *err)
{
    if (!kc->abort_group[0])
        return 0;
    if (!(cfg->measure.abort_factor >= 1))
        return fail_loc(err, &kc->abort_group_loc,
                        "kernels[%d].abort_group: '%s' needs measure.abort_factor >= 1 (early "
                        "abort is off: nothing compares with the group's best time)",
                        ki, kc->abort_group);
    int others = 0;
    for (int j = 0; j < cfg->n_kernels; ++j) {
        const rt_kernel_cfg *o = &cfg->kernels[j];
        if (j == ki || strcmp(o->abort_group, kc->abort_group) != 0)
            continue;
        others++;
        const rt_kernel_desc *mine = rt_registry_find_kernel(reg, kc->name);
        const rt_kernel_desc *theirs = rt_registry_find_kernel(reg, o->name);
        if (j < ki && mine && theirs && strcmp(mine->family, theirs->family) != 0)
            return fail_loc(err, &kc->abort_group_loc,
                            "kernels[%d].abort_group: '%s' holds kernels[%d] (%s, family %s); "
                            "%s is of family %s, whose times measure another problem",
                            ki, kc->abort_group, j, o->name, theirs->family, kc->name,
                            mine->family);
    }
    if (others == 0)
        return fail_loc(err, &kc->abort_group_loc,
                        "kernels[%d].abort_group: '%s' names no other entry (a group shares its "
                        "best time among entries; without one, early abort compares within the "
                        "entry's own sweep)",
                        ki, kc->abort_group);
    return 0;
}

int rt_config_check(const rt_config *cfg, const rt_registry *reg, rt_err *err)
{
    if (!cfg || !reg)
        return rt_err_set(err, "rt_config_check: config and registry must not be NULL");
    for (int i = 0; i < cfg->n_matrices; ++i)
        if (check_matrix(&cfg->matrices[i], i, err) != 0)
            return -1;
    for (int ki = 0; ki < cfg->n_kernels; ++ki) {
        const rt_kernel_cfg *kc = &cfg->kernels[ki];
        const rt_kernel_desc *k = rt_registry_find_kernel(reg, kc->name);
        if (!k) {
            const char *hint = rt_registry_suggest(reg, kc->name);
            if (hint)
                return fail_loc(err, &kc->name_loc,
                                "kernels[%d].name: unknown kernel '%s' "
                                "(did you mean '%s'?)",
                                ki, kc->name, hint);
            return fail_loc(err, &kc->name_loc,
                            "kernels[%d].name: unknown kernel '%s' (see "
                            "`rooftune list` for the kernels of this build)",
                            ki, kc->name);
        }
        const rt_family_desc *fam = rt_registry_find_family(reg, k->family);
        if (!fam)
            return fail_loc(err, &kc->name_loc,
                            "kernels[%d].name: kernel '%s' names family "
                            "'%s', which is not registered",
                            ki, k->name, k->family);
        if (check_kernel_params(kc, ki, k, err) != 0 ||
            check_constraints(kc, ki, k, fam, err) != 0 ||
            check_kernel_parallel(cfg, kc, ki, err) != 0 ||
            check_abort_group(cfg, reg, kc, ki, err) != 0)
            return -1;
    }
    if (check_problem(cfg, reg, err) != 0)
        return -1;
    /* An empty list would make a run that measures nothing and exits 0. */
    if (cfg->n_matrices == 0)
        return rt_err_set(err, "%s: matrices: no matrix is listed, so nothing would be measured",
                          cfg->path);
    if (cfg->n_kernels == 0)
        return rt_err_set(err, "%s: kernels: no kernel is listed, so nothing would be measured",
                          cfg->path);
    return 0;
}
