#define _GNU_SOURCE
#include "user_family.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "user_build.h"
#include "user_npy.h"

/* The spec read again from the registered one's path (the full path stays in this host-side
 * state; the problem carries only the identity), so a spec or source edited since the run
 * started is caught here rather than measured under the old one's name. */
static int load_spec(const user_spec *registered, const rt_params *problem, user_spec **spec,
                     rt_err *err)
{
    *spec = NULL;
    const char *id = rt_params_str(problem, "spec", NULL);
    if (!id || strcmp(id, registered->identity) != 0)
        return rt_err_set(err, "%s: the problem's 'spec' is '%s', not this spec's identity '%s'",
                          registered->path, id ? id : "(none)", registered->identity);
    if (user_spec_load(registered->path, spec, err) != 0)
        return -1;
    if (strcmp((*spec)->hash, registered->hash) != 0) {
        user_spec_free(*spec);
        *spec = NULL;
        return rt_err_set(err, "%s or a source it names changed since the run started; run again",
                          registered->path);
    }
    return 0;
}

/* Every array's element count at this problem point. */
static int array_counts(const user_spec *s, const rt_params *problem, int64_t *count, rt_err *err)
{
    const user_scope scope = {.problem = problem};
    for (int i = 0; i < s->n_args; ++i) {
        count[i] = 0;
        if (s->args[i].is_array &&
            user_eval_int(&s->args[i].size, &scope, 0, INT64_MAX / 16, &count[i], err) != 0)
            return -1;
    }
    return 0;
}

int user_inputs_layout(const user_inputs *in, user_layout *l, rt_err *err)
{
    return user_layout_make(in->spec, in->count, l, err);
}

int user_scalar_value(const user_inputs *in, int arg, const rt_params *params, void *dst,
                      rt_err *err)
{
    const user_arg *a = &in->spec->args[arg];
    const user_scope scope = {.problem = &in->problem, .params = params};
    double v;
    if (user_eval(&a->value, &scope, &v, err) != 0)
        return -1;
    if (!user_type_is_float(a->type) && v != floor(v))
        return rt_err_set(err, "%s:%d:%d: %s: gives %.17g for the %s argument '%s'",
                          a->value.loc.file, a->value.loc.line, a->value.loc.col, a->value.what, v,
                          user_type_name(a->type), a->name);
    user_value_set(a->type, dst, 0, v);
    return 0;
}

int user_inputs_stage(const user_inputs *in, const rt_params *params, const user_layout *l,
                      unsigned char *base, rt_err *err)
{
    const user_spec *s = in->spec;
    user_guard_fill_all(s, l, base);
    for (int i = 0; i < s->n_args; ++i) {
        if (s->args[i].is_array) {
            if (l->bytes[i] > 0)
                memcpy(base + l->offset[i], in->data[i], l->bytes[i]);
        } else if (user_scalar_value(in, i, params, base + l->offset[i], err) != 0) {
            return -1;
        }
    }
    return 0;
}

void user_inputs_outputs(const user_inputs *in, const user_layout *l, const unsigned char *base,
                         double *out)
{
    const user_spec *s = in->spec;
    int64_t at = 0;
    for (int i = 0; i < s->n_args; ++i) {
        if (!s->args[i].is_array || !s->args[i].output)
            continue;
        for (int64_t e = 0; e < l->count[i]; ++e)
            out[at + e] = user_value_get(s->args[i].type, base + l->offset[i], e);
        at += l->count[i];
    }
}

/* ---------------------------------------------------------------------------------------------
 * The reference */

static int reference_from_files(user_inputs *in, rt_err *err)
{
    const user_spec *s = in->spec;
    int64_t at = 0;
    for (int i = 0; i < s->n_args; ++i) {
        const user_arg *a = &s->args[i];
        if (!a->is_array || !a->output)
            continue;
        const user_init file = {.kind = USER_INIT_FILE};
        user_init f = file;
        snprintf(f.file, sizeof f.file, "%s", s->ref.expected[i]);
        void *buf = malloc(in->count[i] > 0 ? (size_t)in->count[i] * user_type_size(a->type) : 1);
        if (!buf)
            return rt_err_set(err, "out of memory for the expected '%s'", a->name);
        if (user_npy_fill(&f, 1, a->type, buf, in->count[i], err) != 0) {
            free(buf);
            return rt_err_prefix(err, "%s:%d:%d: reference.expected.%s", s->ref.loc.file,
                                 s->ref.loc.line, s->ref.loc.col, a->name);
        }
        for (int64_t e = 0; e < in->count[i]; ++e)
            in->reference[at + e] = user_value_get(a->type, buf, e);
        at += in->count[i];
        free(buf);
    }
    return 0;
}

typedef int (*call_fn)(void *const *args);

/* Builds the reference code into a private folder, runs it once here on a guarded block and
 * reads its outputs. */
static int reference_by_running(user_inputs *in, rt_err *err)
{
    const user_spec *s = in->spec;
    const user_reference *r = &s->ref;
    const user_kernel_spec *rk = r->kind == USER_REF_KERNEL ? &s->kernels[r->kernel] : NULL;
    rt_params params;
    rt_params_init(&params);
    if (rk && user_spec_kernel_params(rk, &r->params, &params, err) != 0)
        return -1;
    const char *tmp = getenv("TMPDIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/rooftune-reference-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return rt_err_set(err, "cannot create a folder for the reference build in %s", dir);
    const user_build_req req = {.spec = s,
                                .source = rk ? rk->source : (r->source[0] ? r->source : NULL),
                                .source_text = rk ? rk->source_text : r->source_text,
                                .library = rk || r->source[0] ? NULL : r->library,
                                .function = rk ? rk->entry : r->function,
                                .defines = rk ? &params : NULL,
                                .cflags = rk ? (const char(*)[128])rk->cflags
                                             : (const char(*)[128])r->cflags,
                                .n_cflags = rk ? rk->n_cflags : r->n_cflags,
                                .cache_dir = NULL,
                                .out_dir = dir};
    user_build_result built;
    char what[160];
    snprintf(what, sizeof what, "the reference (%s)", rk ? rk->name : r->function);
    int rc = user_build(&req, &built, err);
    user_layout l;
    unsigned char *block = NULL;
    void *lib = NULL;
    if (rc == 0)
        rc = user_inputs_layout(in, &l, err);
    if (rc == 0 && posix_memalign((void **)&block, 4096, l.total) != 0)
        rc = rt_err_set(err, "out of memory for the reference's %zu-byte block", l.total);
    if (rc == 0)
        rc = user_inputs_stage(in, &params, &l, block, err);
    if (rc == 0 && !(lib = dlopen(built.so_path, RTLD_NOW | RTLD_LOCAL)))
        rc = rt_err_set(err, "cannot load %s: %s", built.so_path, dlerror());
    if (rc == 0) {
        call_fn call = (call_fn)dlsym(lib, USER_CALL_SYMBOL);
        void *args[USER_MAX_ARGS];
        for (int i = 0; i < s->n_args; ++i)
            args[i] = block + l.offset[i];
        if (!call)
            rc = rt_err_set(err, "%s lacks %s", built.so_path, USER_CALL_SYMBOL);
        else
            call(args);
    }
    if (rc == 0)
        rc = user_guard_check_all(s, &l, block, what, err);
    if (rc == 0)
        user_inputs_outputs(in, &l, block, in->reference);
    if (lib)
        dlclose(lib);
    free(block);
    unlink(built.so_path);
    rmdir(dir);
    if (rc != 0)
        return rt_err_prefix(err, "%s:%d:%d: %s", r->loc.file, r->loc.line, r->loc.col, what);
    for (int64_t e = 0; e < in->n_out; ++e)
        if (!isfinite(in->reference[e]))
            return rt_err_set(err,
                              "%s:%d:%d: %s left output element %lld %s (it must write every "
                              "element of every output)",
                              r->loc.file, r->loc.line, r->loc.col, what, (long long)e,
                              isnan(in->reference[e]) ? "unwritten (NaN)" : "infinite");
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Family hooks */

static void free_inputs(void *p)
{
    user_inputs *in = p;
    if (!in)
        return;
    for (int i = 0; i < USER_MAX_ARGS; ++i)
        free(in->data[i]);
    free(in->reference);
    user_spec_free(in->spec);
    free(in);
}

static int make_inputs(const void *ctx, const rt_csr *a, const rt_params *problem,
                       const rt_job *job, void **out, rt_err *err)
{
    (void)job; /* a spec's arrays are sized by the problem alone, the same on every rank */
    *out = NULL;
    user_inputs *in = calloc(1, sizeof *in);
    if (!in)
        return rt_err_set(err, "out of memory for a user kernel's inputs");
    in->problem = *problem;
    int rc = load_spec(ctx, problem, &in->spec, err);
    const user_spec *s = in->spec;
    if (rc == 0)
        rc = array_counts(s, problem, in->count, err);
    for (int i = 0; rc == 0 && i < s->n_args; ++i) {
        const user_arg *arg = &s->args[i];
        if (!arg->is_array)
            continue;
        const size_t bytes = (size_t)in->count[i] * user_type_size(arg->type);
        in->data[i] = malloc(bytes > 0 ? bytes : 1);
        if (!in->data[i])
            rc = rt_err_set(err, "out of memory for argument '%s' (%zu bytes)", arg->name, bytes);
        else if (user_npy_fill(&arg->init, arg->output, arg->type, in->data[i], in->count[i],
                               err) != 0)
            rc = rt_err_prefix(err, "%s:%d:%d: arguments[%d] (%s).init", arg->loc.file,
                               arg->loc.line, arg->loc.col, i, arg->name);
        if (arg->output)
            in->n_out += in->count[i];
    }
    if (rc == 0 &&
        !(in->reference = malloc((size_t)(in->n_out > 0 ? in->n_out : 1) * sizeof *in->reference)))
        rc = rt_err_set(err, "out of memory for the reference (%lld values)", (long long)in->n_out);
    if (rc == 0)
        rc = s->ref.kind == USER_REF_EXPECTED ? reference_from_files(in, err)
                                              : reference_by_running(in, err);
    if (rc == 0 && s->flops.expr) {
        const user_scope scope = {.problem = problem};
        rc = user_eval(&s->flops, &scope, &in->flops, err);
    }
    if (rc != 0) {
        free_inputs(in);
        return -1;
    }
    *out = in;
    return 0;
}

static int64_t output_elems(const void *p)
{
    return ((const user_inputs *)p)->n_out;
}

static double tolerance(const void *p)
{
    return ((const user_inputs *)p)->spec->normwise;
}

static int reference(const void *p, double *out, rt_err *err)
{
    const user_inputs *in = p;
    memcpy(out, in->reference, (size_t)in->n_out * sizeof *out);
    return 0;
}

static int reference_scale(const void *p, double *scale, rt_err *err)
{
    const user_inputs *in = p;
    const user_spec *s = in->spec;
    const double unit = USER_ELEMENT_FACTOR * s->normwise;
    for (int64_t e = 0; e < in->n_out; ++e)
        scale[e] = (s->elementwise_rel * fabs(in->reference[e]) + s->elementwise_abs) / unit;
    return 0;
}

static double flops(const void *p)
{
    return ((const user_inputs *)p)->flops;
}

static int footprint(const void *ctx, const rt_csr *a, const rt_params *problem, const rt_job *job,
                     rt_footprint *fp, rt_err *err)
{
    (void)job;
    memset(fp, 0, sizeof *fp);
    user_spec *s = NULL;
    int64_t count[USER_MAX_ARGS];
    if (load_spec(ctx, problem, &s, err) != 0)
        return -1;
    const int rc = array_counts(s, problem, count, err);
    for (int i = 0; rc == 0 && i < s->n_args; ++i) {
        if (!s->args[i].is_array)
            continue;
        const int64_t bytes = count[i] * (int64_t)user_type_size(s->args[i].type);
        fp->input_bytes += bytes;
        fp->workspace_bytes += bytes + 2 * USER_GUARD_BYTES; /* the kernel's guarded copy */
        if (s->args[i].output) {
            fp->output_elems += count[i];
            fp->output_bytes += bytes;
        } else {
            fp->operand_bytes += bytes;
        }
    }
    user_spec_free(s);
    return rc;
}

void user_family_describe(const user_spec *s, rt_family_desc *d)
{
    memset(d, 0, sizeof *d);
    d->name = s->family;
    d->summary = s->summary[0] ? s->summary : "a user kernel spec (kernels/user)";
    d->problem_params = s->problem_schema;
    d->n_problem_params = 1 + s->n_problem;
    d->ctx = s;
    d->make_inputs_ctx = make_inputs;
    d->free_inputs = free_inputs;
    d->output_elems = output_elems;
    d->tolerance = tolerance;
    d->reference = reference;
    d->reference_scale = s->elementwise ? reference_scale : NULL;
    d->flops = flops;
    d->footprint_ctx = footprint;
}
