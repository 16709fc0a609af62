/* rt_model_run: see rt_model_run.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_model_run.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_json.h"
#include "rt_path.h"
#include "rt_walk.h"

/* One modelled family and its two files. */
typedef struct model_table {
    const rt_family_desc *family;
    char csv_path[PATH_MAX], json_path[PATH_MAX];
    FILE *csv, *json;
    int rows;
} model_table;

typedef struct model_run {
    const rt_config *cfg;
    const rt_model_job *job;
    FILE *out;
    model_table tables[RT_REGISTRY_MAX_FAMILIES];
    int n_tables;
    rt_csr matrix; /* the current matrix, whole */
    rt_model_row row;
} model_run;

static model_table *table_of(model_run *m, const rt_family_desc *fam)
{
    for (int i = 0; i < m->n_tables; ++i)
        if (m->tables[i].family == fam)
            return &m->tables[i];
    return NULL;
}

static int covered(const rt_family_desc *fam, const rt_kernel_desc *kd)
{
    return fam && fam->model && (!fam->model->covers || fam->model->covers(kd));
}

/* ---------------------------------------------------------------------------------------------
 * Writing a row: one CSV line, one JSON object, one terminal line. */

/* A CSV field: quoted when it holds a comma, quote or line break (RFC 4180, as export does). */
static void csv_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_header(FILE *f, const rt_family_model *fm)
{
    for (int c = 0; c < fm->n_columns; ++c) {
        const rt_model_column *col = &fm->columns[c];
        if (col->kind != RT_MODEL_INTS) {
            fprintf(f, "%s%s", c ? "," : "", col->name);
            continue;
        }
        for (int k = 0; k < col->width; ++k)
            fprintf(f, "%s%s_l%d", c || k ? "," : "", col->name, k);
    }
    fputs("\r\n", f);
}

static void csv_cell(FILE *f, const rt_model_column *col, const rt_model_cell *v, int known)
{
    switch (col->kind) {
    case RT_MODEL_INT:
        if (known)
            fprintf(f, "%" PRId64, v->i);
        break;
    case RT_MODEL_REAL:
        if (known && isfinite(v->r))
            fprintf(f, "%.17g", v->r);
        break;
    case RT_MODEL_TEXT:
        if (known)
            csv_text(f, v->s);
        break;
    case RT_MODEL_INTS:
        for (int k = 0; k < col->width; ++k) {
            if (k)
                fputc(',', f);
            if (known && k < v->n)
                fprintf(f, "%" PRId64, v->list[k]);
        }
        break;
    }
}

static void csv_row(FILE *f, const rt_family_model *fm, const rt_model_row *row)
{
    for (int c = 0; c < fm->n_columns; ++c) {
        if (c)
            fputc(',', f);
        csv_cell(f, &fm->columns[c], &row->cell[c], row->ok || !fm->columns[c].result);
    }
    fputs("\r\n", f);
}

static void json_cell(FILE *f, const rt_model_column *col, const rt_model_cell *v)
{
    fprintf(f, "\"%s\": ", col->name);
    switch (col->kind) {
    case RT_MODEL_INT: fprintf(f, "%" PRId64, v->i); break;
    case RT_MODEL_REAL:
        if (isfinite(v->r))
            fprintf(f, "%.17g", v->r);
        else
            fputs("null", f);
        break;
    case RT_MODEL_TEXT: rt_json_fputs(f, v->s); break;
    case RT_MODEL_INTS:
        fputc('[', f);
        for (int k = 0; k < v->n; ++k)
            fprintf(f, "%s%" PRId64, k ? ", " : "", v->list[k]);
        fputc(']', f);
        break;
    }
}

/* The columns every row has first, in table order, then (ok rows only) the results. */
static void json_row(FILE *f, const rt_family_model *fm, const rt_model_row *row, int first)
{
    fputs(first ? "  {" : ",\n  {", f);
    int n = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int c = 0; c < fm->n_columns; ++c) {
            const rt_model_column *col = &fm->columns[c];
            if (col->result != pass || (col->result && !row->ok))
                continue;
            if (n++)
                fputs(", ", f);
            json_cell(f, col, &row->cell[c]);
        }
    }
    fputc('}', f);
}

/* The app's own columns. */
static void fill_common(const model_run *m, const rt_sweep *s, const rt_family_model *fm,
                        rt_model_row *row)
{
    const rt_model_job *job = m->job;
    for (int c = 0; c < fm->n_columns; ++c) {
        rt_model_cell *v = &row->cell[c];
        const char *text = NULL;
        switch (fm->columns[c].source) {
        case RT_MODEL_OWN: break;
        case RT_MODEL_EXPERIMENT: text = m->cfg->name; break;
        case RT_MODEL_MATRIX: text = s->matrix->name; break;
        case RT_MODEL_KERNEL: text = s->kernel->name; break;
        case RT_MODEL_RANKS: v->i = job->nranks; break;
        case RT_MODEL_RANKS_PER_NODE: v->i = job->ranks_per_node; break;
        case RT_MODEL_RANKS_PER_SOCKET: v->i = job->ranks_per_socket; break;
        case RT_MODEL_STATUS: text = row->ok ? "ok" : "infeasible"; break;
        case RT_MODEL_REASON: text = row->ok ? "" : row->reason; break;
        case RT_MODEL_MACHINE: text = job->machine_name; break;
        }
        if (text)
            snprintf(v->s, sizeof v->s, "%s", text);
    }
}

/* ---------------------------------------------------------------------------------------------
 * The walk's steps */

static int model_matrix(void *ctx, int mi, const rt_matrix_cfg *mc, int64_t shape[3], rt_err *err)
{
    (void)mi;
    model_run *m = ctx;
    /* Building a large matrix is most of a model run's time: say so before it starts. */
    if (m->out) {
        fprintf(m->out, "matrix %s: building (%s%s, ordering %s)...\n", mc->name,
                mc->generator[0] ? "generator " : "file ",
                mc->generator[0] ? mc->generator : mc->file,
                mc->ordering[0] ? mc->ordering : "natural");
        fflush(m->out);
    }
    if (rt_walk_build_matrix(mc, &m->matrix, err) != 0)
        return -1;
    if (m->out)
        fprintf(m->out, "matrix %s: %" PRId64 " x %" PRId64 ", %" PRId64 " nonzeros\n", mc->name,
                m->matrix.rows, m->matrix.cols, m->matrix.nnz);
    shape[0] = m->matrix.rows;
    shape[1] = m->matrix.cols;
    shape[2] = m->matrix.nnz;
    return RT_WALK_MATRIX_OK;
}

static void model_matrix_done(void *ctx, int mi)
{
    (void)mi;
    model_run *m = ctx;
    rt_csr_free(&m->matrix);
}

static int model_skip(void *ctx, int mi, int64_t pi, const rt_kernel_desc *kd)
{
    (void)mi;
    (void)pi;
    model_run *m = ctx;
    const rt_family_desc *fam = NULL;
    for (int i = 0; i < m->n_tables && !fam; ++i)
        if (strcmp(m->tables[i].family->name, kd->family) == 0)
            fam = m->tables[i].family;
    return !covered(fam, kd);
}

/* Every point of the space, each one row. */
static int model_sweep(void *ctx, rt_sweep *s, rt_err *err)
{
    model_run *m = ctx;
    model_table *t = table_of(m, s->family);
    const rt_family_model *fm = s->family->model;
    rt_model_row *row = &m->row;
    for (int64_t idx = 0; idx < rt_space_size(s->space); ++idx) {
        rt_params params;
        memset(row, 0, sizeof *row);
        if (rt_space_point(s->space, idx, &params, &row->ok, row->reason, sizeof row->reason,
                           err) != 0)
            return -1;
        const rt_model_point pt = {.matrix = &m->matrix,
                                   .matrix_name = s->matrix->name,
                                   .problem = s->problem,
                                   .kernel = s->kernel,
                                   .params = &params,
                                   .job = m->job};
        if (fm->point(&pt, row, err) != 0)
            return rt_err_prefix(err, "--model-only: kernel %s, matrix '%s'", s->kernel->name,
                                 s->matrix->name);
        fill_common(m, s, fm, row);
        csv_row(t->csv, fm, row);
        json_row(t->json, fm, row, t->rows == 0);
        if (m->out)
            fprintf(m->out, "  %s%s%s\n", row->line,
                    row->ok ? "" : " infeasible: ", row->ok ? "" : row->reason);
        t->rows++;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * The families, their files, the run */

/* The families of the registry that have a model-only mode, as "a", "a and b", ... */
static void modelled_families(const rt_registry *reg, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int f = 0; f < reg->n_families; ++f) {
        const rt_family_desc *fam = reg->families[f];
        if (!fam->model)
            continue;
        const size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", used ? " and " : "", fam->name);
    }
}

/* The families to model, in the order the config first names them; other kernels are listed. */
static int pick_families(model_run *m, const rt_registry *reg, rt_err *err)
{
    const rt_config *cfg = m->cfg;
    char modelled[256];
    modelled_families(reg, modelled, sizeof modelled);
    for (int ki = 0; ki < cfg->n_kernels; ++ki) {
        const rt_kernel_desc *kd = rt_registry_find_kernel(reg, cfg->kernels[ki].name);
        const rt_family_desc *fam = kd ? rt_registry_find_family(reg, kd->family) : NULL;
        if (!fam || !fam->model) {
            if (m->out)
                fprintf(m->out, "  kernel %s skipped: the model covers the %s family only\n",
                        cfg->kernels[ki].name, modelled[0] ? modelled : "(no)");
            continue;
        }
        if (!covered(fam, kd) && m->out)
            fprintf(m->out, "  kernel %s skipped: the %s model does not cover it\n", kd->name,
                    fam->name);
        if (!table_of(m, fam) && m->n_tables < RT_REGISTRY_MAX_FAMILIES)
            m->tables[m->n_tables++].family = fam;
    }
    if (m->n_tables == 0)
        return rt_err_set(err,
                          "--model-only: experiment '%s' has no kernel of the %s family (the "
                          "families with a model-only mode)",
                          cfg->name, modelled[0] ? modelled : "(no)");
    return 0;
}

static int open_tables(model_run *m, const char *out_dir, rt_err *err)
{
    for (int i = 0; i < m->n_tables; ++i) {
        model_table *t = &m->tables[i];
        char stem[PATH_MAX];
        /* One family keeps the plain name; several get one pair of files each. */
        if (rt_path_format(stem, sizeof stem, err, "%s/%s%s%s-model", out_dir, m->cfg->name,
                           m->n_tables > 1 ? "-" : "",
                           m->n_tables > 1 ? t->family->name : "") != 0 ||
            rt_path_format(t->csv_path, sizeof t->csv_path, err, "%s.csv", stem) != 0 ||
            rt_path_format(t->json_path, sizeof t->json_path, err, "%s.json", stem) != 0)
            return rt_err_prefix(err, "--model-only");
        t->csv = fopen(t->csv_path, "w");
        t->json = t->csv ? fopen(t->json_path, "w") : NULL;
        if (!t->csv || !t->json)
            return rt_err_set(err, "--model-only: cannot write %s",
                              t->csv ? t->json_path : t->csv_path);
        csv_header(t->csv, t->family->model);
        fputs("[\n", t->json);
    }
    return 0;
}

/* Closes every table; the first failure to write one is the error (when none came before). */
static int close_tables(model_run *m, int rc, rt_err *err)
{
    for (int i = 0; i < m->n_tables; ++i) {
        model_table *t = &m->tables[i];
        if (t->json)
            fputs("\n]\n", t->json);
        const int bad = (t->csv && fclose(t->csv) != 0) | (t->json && fclose(t->json) != 0);
        if (rc == 0 && bad)
            rc =
                rt_err_set(err, "--model-only: writing %s or %s failed", t->csv_path, t->json_path);
        if (rc == 0 && m->out)
            fprintf(m->out, "model: %d point(s) for %d ranks; table in %s and %s\n", t->rows,
                    m->job->nranks, t->csv_path, t->json_path);
    }
    return rc;
}

int rt_model_run(const rt_config *cfg, const rt_registry *reg, const rt_model_job *job,
                 const char *out_dir, FILE *out, int *n_points, rt_err *err)
{
    *n_points = 0;
    model_run *m = calloc(1, sizeof *m);
    if (!m)
        return rt_err_set(err, "--model-only: out of memory");
    m->cfg = cfg;
    m->job = job;
    m->out = out;
    int rc = pick_families(m, reg, err);
    if (rc == 0)
        rc = open_tables(m, out_dir, err);
    if (rc == 0) {
        const rt_walk_ops walk = {.matrix = model_matrix,
                                  .matrix_done = model_matrix_done,
                                  .skip = model_skip,
                                  .sweep = model_sweep};
        rc = rt_walk(cfg, reg, &walk, m, err);
    }
    rc = close_tables(m, rc, err);
    for (int i = 0; i < m->n_tables; ++i)
        *n_points += m->tables[i].rows;
    rt_csr_free(&m->matrix);
    free(m);
    return rc;
}
