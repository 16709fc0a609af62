/* rt_fake_kernel: the do-nothing hooks of the kernel descriptors that tests build to exercise the
 * registry, spaces and searches (nothing is run: setup leaves no state, run asks for the wall
 * clock, output writes nothing). Link tests/rt_fake_kernel.c into the test. */
#ifndef RT_FAKE_KERNEL_H
#define RT_FAKE_KERNEL_H

#include "rt_registry.h"

int rt_fake_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                  const rt_kernel_env *env, void **state, rt_err *err);
int rt_fake_run(void *state, double *seconds, rt_err *err);
int rt_fake_output(void *state, double *out, rt_err *err);
void rt_fake_teardown(void *state);

/* The hooks of a fake descriptor: {.name = ..., RT_FAKE_KERNEL_HOOKS}. */
#define RT_FAKE_KERNEL_HOOKS                                                                       \
    .setup = rt_fake_setup, .run = rt_fake_run, .output = rt_fake_output,                          \
    .teardown = rt_fake_teardown

/* A fake CPU descriptor named kname of family kfamily whose parameters are the array kparams (an
 * array, not a pointer: its length is the count): {RT_FAKE_KERNEL("f.cpu.k", "f", params)}, more
 * fields (.summary) after it. */
#define RT_FAKE_KERNEL(kname, kfamily, kparams)                                                    \
    .name = (kname), .family = (kfamily), .backend = "cpu", .params = (kparams),                   \
    .n_params = (int)(sizeof(kparams) / sizeof((kparams)[0])), RT_FAKE_KERNEL_HOOKS

#endif
