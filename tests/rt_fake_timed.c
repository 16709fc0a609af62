#include "rt_fake_timed.h"

#include <stdint.h>
#include <stdlib.h>

/* The family: RT_FAKE_TIMED_OUT ones, whatever the matrix. */
static int timed_make_inputs(const rt_csr *a, const rt_params *problem, const rt_job *job,
                             void **inputs, rt_err *err)
{
    (void)a;
    (void)problem;
    (void)job;
    *inputs = calloc(1, sizeof(int));
    return *inputs ? 0 : rt_err_set(err, "out of memory");
}

static int64_t timed_output_elems(const void *inputs)
{
    (void)inputs;
    return RT_FAKE_TIMED_OUT;
}

static double timed_tolerance(const void *inputs)
{
    (void)inputs;
    return 1e-12;
}

static int timed_reference(const void *inputs, double *out, rt_err *err)
{
    (void)inputs;
    (void)err;
    for (int i = 0; i < RT_FAKE_TIMED_OUT; ++i)
        out[i] = 1.0;
    return 0;
}

static double timed_flops(const void *inputs)
{
    (void)inputs;
    return 1e6;
}

const rt_family_desc rt_fake_timed_family = {.name = "fake",
                                             .summary = "synthetic times (tests)",
                                             .make_inputs = timed_make_inputs,
                                             .free_inputs = free,
                                             .output_elems = timed_output_elems,
                                             .tolerance = timed_tolerance,
                                             .reference = timed_reference,
                                             .flops = timed_flops};

typedef struct timed_state {
    double seconds, spread;
    uint64_t rng;
} timed_state;

static const rt_param_schema timed_params[] = {
    {"ms", RT_V_REAL, "0.001..100000", "1", 0, "the time each run reports, in milliseconds"},
    {"spread", RT_V_REAL, "0..0.99", "0.001", 0, "relative noise, uniform in [-spread, spread)"},
    {"seed", RT_V_INT, "0..1000000", "7", 0, "seed of the noise stream"}};

static int timed_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, void **state, rt_err *err)
{
    (void)self;
    (void)inputs;
    (void)env;
    timed_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "out of memory");
    s->seconds = rt_params_real(p, "ms", 1.0) * 1e-3;
    s->spread = rt_params_real(p, "spread", 0.001);
    s->rng = (uint64_t)rt_params_int(p, "seed", 7);
    *state = s;
    return 0;
}

/* seconds x (1 + spread x u), u uniform in [-1, 1) (splitmix64). */
static int timed_run(void *state, double *seconds, rt_err *err)
{
    (void)err;
    timed_state *s = state;
    uint64_t z = (s->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    const double u = 2.0 * ((double)(z >> 11) / 9007199254740992.0) - 1.0;
    *seconds = s->seconds * (1.0 + s->spread * u);
    return 0;
}

static int timed_output(void *state, double *out, rt_err *err)
{
    (void)err;
    const timed_state *s = state;
    const double value = s->seconds >= 1.0 ? 2.0 : 1.0; /* ms >= 1000: a wrong point */
    for (int i = 0; i < RT_FAKE_TIMED_OUT; ++i)
        out[i] = value;
    return 0;
}

/* Its hooks first: the descriptor is the family's only CPU kernel. */
const rt_kernel_desc rt_fake_timed_kernel = {.setup = timed_setup,
                                             .run = timed_run,
                                             .output = timed_output,
                                             .teardown = free,
                                             .name = "fake.cpu.timed",
                                             .family = "fake",
                                             .backend = "cpu",
                                             .summary = "synthetic times (tests)",
                                             .params = timed_params,
                                             .n_params = 3};
