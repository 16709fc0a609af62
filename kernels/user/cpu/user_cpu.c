#include "user_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user_build.h"
#include "user_worker.h"

typedef struct cpu_state {
    const user_kernel *uk;
    const user_inputs *in;
    user_layout layout;
    user_block block;
    user_worker *worker;
    user_build_result built;
} cpu_state;

static void cpu_teardown(void *state)
{
    cpu_state *s = state;
    if (!s)
        return;
    user_worker_stop(s->worker);
    user_block_free(&s->block);
    free(s);
}

static int cpu_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    *state = NULL;
    const user_kernel *uk = self->backend_ctx;
    cpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    s->uk = uk;
    s->block.fd = -1;
    *state = s; /* the runner tears a failed setup's state down */
    rt_params params;
    if (user_kernel_inputs(uk, inputs, &s->in, err) != 0 ||
        user_spec_kernel_params(uk->k, p, &params, err) != 0)
        return -1;
    const user_kernel_spec *k = uk->k;
    const user_build_req req = {.spec = uk->spec,
                                .source = k->source,
                                .source_text = k->source_text,
                                .function = k->entry,
                                .defines = &params,
                                .cflags = (const char(*)[128])k->cflags,
                                .n_cflags = k->n_cflags,
                                .cache_dir = uk->cache_dir};
    const int built = user_build(&req, &s->built, err);
    if (built != 0) {
        rt_err_prefix(err, "%s:%d:%d: %s", k->source_loc.file, k->source_loc.line,
                      k->source_loc.col, k->name);
        return built == RT_INTERRUPTED ? RT_INTERRUPTED : -1; /* the runner decides (registry) */
    }
    if (user_inputs_layout(s->in, &s->layout, err) != 0 ||
        user_block_create(s->layout.total, &s->block, err) != 0 ||
        user_inputs_stage(s->in, &params, &s->layout, s->block.base, err) != 0)
        return rt_err_prefix(err, "%s", k->name);
    return user_worker_start(uk->worker, s->built.so_path, &s->block, s->layout.offset,
                             uk->spec->n_args, k->name, uk->timeout_s, &s->worker, err);
}

static int cpu_run(void *state, double *seconds, rt_err *err)
{
    cpu_state *s = state;
    return user_worker_run(s->worker, s->uk->timeout_s, seconds, err);
}

static int cpu_output(void *state, double *out, rt_err *err)
{
    const cpu_state *s = state;
    if (user_guard_check_all(s->uk->spec, &s->layout, s->block.base, s->uk->k->name, err) != 0)
        return -1;
    user_inputs_outputs(s->in, &s->layout, s->block.base, out);
    return 0;
}

static int cpu_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const cpu_state *s = state;
    rt_metrics_add(m, "build_s", "s", s->built.build_s, 0);
    rt_metrics_add(m, "build_cached", "flag", s->built.from_cache, 0);
    return 0;
}

void user_cpu_describe(user_kernel *uk, rt_kernel_desc *d)
{
    memset(d, 0, sizeof *d);
    d->name = uk->k->name;
    d->family = uk->spec->family;
    d->backend = "cpu";
    d->summary = uk->k->summary[0] ? uk->k->summary : "a user's C kernel (kernels/user)";
    d->params = uk->k->schema;
    d->n_params = uk->k->n_params;
    d->check = user_kernel_check;
    d->setup = cpu_setup;
    d->run = cpu_run;
    d->output = cpu_output;
    d->metrics = cpu_metrics;
    d->teardown = cpu_teardown;
    d->traffic = uk->spec->flops.expr || uk->spec->bytes.expr || uk->k->bytes.expr
                     ? user_kernel_traffic
                     : NULL;
    d->backend_ctx = uk;
}
