/* rt_cli_space: every point of a config's sweep, checked before a run; see rt_cli_space.h. */
#include "rt_cli_space.h"

#include <stdlib.h>
#include <string.h>

#include "rt_generators.h"
#include "rt_matrix.h"
#include "rt_problem.h"
#include "rt_space.h"

/* What one kernel's sweeps came to: a kernel none of whose points is feasible anywhere would
 * measure nothing at all (a sweep of its that is empty for one problem point may be meant: a
 * constraint that keeps the kernel to some problems). */
typedef struct kernel_tally {
    int64_t points, feasible;
    int judged;
    char example[1600]; /* where the first empty sweep was, and its first reason */
} kernel_tally;

/* One sweep: every point's domains and constraints. */
static int check_sweep(const rt_space *space, const char *where, kernel_tally *k,
                       rt_cli_space_totals *t, rt_err *err)
{
    const int64_t n = rt_space_size(space);
    int64_t feasible = 0;
    char first_why[512] = "";
    for (int64_t index = 0; index < n; ++index) {
        rt_params params;
        int ok = 0;
        char why[512] = "";
        rt_params_init(&params);
        if (rt_space_point(space, index, &params, &ok, why, sizeof why, err) != 0) {
            char shown[512] = "";
            if (params.n > 0)
                rt_params_to_json(&params, shown, sizeof shown);
            return rt_err_prefix(err, "%s, point %lld%s%s", where, (long long)index,
                                 shown[0] ? " " : "", shown);
        }
        feasible += ok;
        if (!ok && !first_why[0])
            snprintf(first_why, sizeof first_why, "%s", why);
    }
    t->points += n;
    t->feasible += feasible;
    t->sweeps++;
    t->empty_sweeps += feasible == 0;
    k->judged = 1;
    k->points += n;
    k->feasible += feasible;
    if (feasible == 0 && !k->example[0])
        snprintf(k->example, sizeof k->example, "%s (the first: %s)", where,
                 first_why[0] ? first_why : "no reason given");
    return 0;
}

/* The family's inputs and its reference output, as a run makes them before the first point; for
 * one process alone (validate runs nothing under MPI), so the whole problem. */
static int check_inputs(const rt_family_desc *fam, const rt_csr *a, const rt_params *problem,
                        const char *where, rt_err *err)
{
    if (!rt_family_has_inputs(fam))
        return 0;
    void *inputs = NULL;
    const rt_job alone = rt_job_alone();
    if (rt_family_make_inputs(fam, a, problem, &alone, NULL, &inputs, err) != 0)
        return rt_err_prefix(err, "%s: the family's inputs", where);
    int rc = 0;
    if (fam->reference && fam->output_elems) {
        const int64_t n = fam->output_elems(inputs);
        double *out = n > 0 ? malloc((size_t)n * sizeof *out) : NULL;
        if (n > 0 && !out)
            rc = rt_err_set(err, "%s: out of memory for the reference output", where);
        else if (n > 0 && fam->reference(inputs, out, err) != 0)
            rc = rt_err_prefix(err, "%s: the family's reference", where);
        free(out);
    }
    if (fam->free_inputs)
        fam->free_inputs(inputs);
    return rc;
}

/* 1 when one of the kernel's constraints reads the matrix's shape. */
static int reads_matrix(const rt_kernel_cfg *kc)
{
    for (int i = 0; i < kc->n_constraints; ++i)
        if (strstr(kc->constraints[i], "matrix."))
            return 1;
    return 0;
}

/* Every problem point and kernel on one matrix (a zero shape when the sweeps do not depend on
 * it); kernels that read the matrix are skipped when skip_matrix_kernels. */
static int check_matrix(const rt_config *cfg, const rt_registry *reg, const rt_backend *be,
                        const rt_csr *a, const char *matrix_name, int skip_matrix_kernels,
                        int with_inputs, kernel_tally *tally, rt_cli_space_totals *totals,
                        rt_err *err)
{
    const int64_t nproblems = rt_problem_count(cfg);
    for (int64_t pi = 0; pi < nproblems; ++pi) {
        rt_params given;
        if (rt_problem_point(cfg, pi, &given, err) != 0)
            return -1;
        char problem_text[512];
        rt_params_to_json(&given, problem_text, sizeof problem_text);
        /* Inputs depend on the family, not the kernel: built once per family here. */
        const rt_family_desc *inputs_done[RT_REGISTRY_MAX_FAMILIES];
        int n_done = 0;
        for (int ki = 0; ki < cfg->n_kernels; ++ki) {
            const rt_kernel_cfg *kc = &cfg->kernels[ki];
            const rt_kernel_desc *kd = rt_registry_find_kernel(reg, kc->name);
            const rt_family_desc *fam = kd ? rt_registry_find_family(reg, kd->family) : NULL;
            if (!kd || !fam)
                return rt_err_set(err, "kernel '%s' is not registered", kc->name);
            if (skip_matrix_kernels && reads_matrix(kc)) {
                totals->deferred += pi == 0;
                continue;
            }
            char where[1200], loc[600];
            rt_src_loc_format(&kc->loc, loc, sizeof loc);
            snprintf(where, sizeof where, "%s: kernel %s, %s%s%sproblem %s", loc, kd->name,
                     matrix_name ? "matrix " : "", matrix_name ? matrix_name : "",
                     matrix_name ? ", " : "", problem_text);
            rt_params problem;
            if (rt_problem_for_family(fam, &given, &problem, err) != 0)
                return rt_err_prefix(err, "%s", where);
            rt_space *space = NULL;
            if (rt_space_build(kc, kd, &problem, a->rows, a->cols, a->nnz,
                               rt_backend_device(be, kd->backend), &space, err) != 0)
                return rt_err_prefix(err, "%s", where);
            int rc = 0;
            if (kd->unavailable)
                totals->unjudged++;
            else
                rc = check_sweep(space, where, &tally[ki], totals, err);
            rt_space_free(space);
            if (rc != 0)
                return -1;
            int done = 0;
            for (int f = 0; f < n_done; ++f)
                done |= inputs_done[f] == fam;
            if (with_inputs && !kd->unavailable && !done) {
                if (check_inputs(fam, a, &problem, where, err) != 0)
                    return -1;
                if (n_done < RT_REGISTRY_MAX_FAMILIES)
                    inputs_done[n_done++] = fam;
            }
        }
    }
    return 0;
}

int rt_cli_check_spaces(const rt_config *cfg, const rt_registry *reg, const rt_backend *be,
                        int build_matrices, int with_inputs, rt_cli_space_totals *totals,
                        rt_err *err)
{
    memset(totals, 0, sizeof *totals);
    kernel_tally *tally = calloc((size_t)(cfg->n_kernels > 0 ? cfg->n_kernels : 1), sizeof *tally);
    if (!tally)
        return rt_err_set(err, "out of memory checking the sweep");
    int need_matrix = with_inputs;
    for (int ki = 0; ki < cfg->n_kernels; ++ki)
        need_matrix |= reads_matrix(&cfg->kernels[ki]);
    int rc = 0;
    if (!need_matrix || !build_matrices) {
        rt_csr none;
        memset(&none, 0, sizeof none);
        rc = check_matrix(cfg, reg, be, &none, NULL, need_matrix, 0, tally, totals, err);
    }
    for (int mi = 0; need_matrix && build_matrices && mi < cfg->n_matrices && rc == 0; ++mi) {
        const rt_matrix_cfg *mc = &cfg->matrices[mi];
        rt_csr a;
        memset(&a, 0, sizeof a);
        if (rt_matrix_build(mc->generator[0] ? mc->generator : NULL, &mc->gen,
                            mc->file[0] ? mc->file : NULL, mc->ordering[0] ? mc->ordering : NULL,
                            &a, err) != 0) {
            char loc[600];
            rt_src_loc_format(&mc->loc, loc, sizeof loc);
            rc = rt_err_prefix(err, "%s: matrix '%s'", loc, mc->name);
            break;
        }
        rc = check_matrix(cfg, reg, be, &a, mc->name, 0, with_inputs, tally, totals, err);
        rt_csr_free(&a);
    }
    /* A kernel with nothing feasible anywhere is said (it may be one that does not apply to
     * this device); a config none of whose judged kernels has a feasible point would measure
     * nothing at all, and is refused. */
    int judged = 0, empty = 0, first_empty = -1;
    for (int ki = 0; ki < cfg->n_kernels && rc == 0; ++ki) {
        judged += tally[ki].judged;
        if (tally[ki].judged && tally[ki].feasible == 0) {
            empty++;
            if (first_empty < 0)
                first_empty = ki;
            if (totals->n_empty_kernels < RT_CLI_SPACE_MAX_NOTES)
                snprintf(totals->empty_kernels[totals->n_empty_kernels++],
                         sizeof totals->empty_kernels[0],
                         "kernel %s: none of its %lld point(s) satisfies the parameter domains "
                         "and constraints in any sweep: %s",
                         cfg->kernels[ki].name, (long long)tally[ki].points, tally[ki].example);
        }
    }
    if (rc == 0 && judged > 0 && empty == judged)
        rc = rt_err_set(err,
                        "no point of any kernel satisfies the parameter domains and constraints, "
                        "so the run would measure nothing; kernel %s: none of its %lld point(s) "
                        "in any sweep: %s",
                        cfg->kernels[first_empty].name, (long long)tally[first_empty].points,
                        tally[first_empty].example);
    free(tally);
    return rc;
}
