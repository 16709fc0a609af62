/* user_family: the family a kernel spec forms. Its descriptor is built when the spec is
 * registered; its hooks are those of every user family, and they get the registered spec as the
 * descriptor's ctx (its full path stays there, host-side). The problem parameter `spec` holds
 * only the spec's identity (user_spec.h), whatever the length of its path, and the hooks check
 * that it is this spec's. The matrix is not used: a user kernel's problem is its own arguments.
 *
 * The inputs of a problem point are the arrays' first contents, built once and shared by every
 * kernel of the family (each kernel copies them into memory of its own, with guard zones), and the
 * reference output: read from files, or computed by running a C kernel of the spec or a host
 * function once, in this process, on a guarded copy (an out-of-bounds write of the reference is
 * an error too). */
#ifndef USER_FAMILY_H
#define USER_FAMILY_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_registry.h"
#include "user_guard.h"
#include "user_spec.h"

/* The runner's elementwise gate: |out - ref| <= factor x tolerance x scale (app/runner/
 * rt_verify.h, RT_VERIFY_ELEMENT_FACTOR); the scale below turns it into the spec's
 * |out - ref| <= elementwise |ref| + elementwise_abs. The test user.elementwise holds the two to
 * the same number. */
#define USER_ELEMENT_FACTOR 2.0

typedef struct user_inputs {
    user_spec *spec; /* read again from the registered spec's path */
    rt_params problem;
    int64_t count[USER_MAX_ARGS]; /* arrays: elements */
    void *data[USER_MAX_ARGS];    /* arrays: first contents */
    int64_t n_out;
    double *reference; /* the outputs, in argument order, as doubles */
    double flops;
} user_inputs;

/* Fills the family descriptor of spec (which must outlive it). */
void user_family_describe(const user_spec *spec, rt_family_desc *out);

/* The values a kernel of the spec gets for a point: the arguments' layout for these inputs, the
 * block filled (guards, the arrays' first contents, the scalars evaluated with the problem and
 * params), and the outputs read back. */
int user_inputs_layout(const user_inputs *in, user_layout *l, rt_err *err);
int user_inputs_stage(const user_inputs *in, const rt_params *params, const user_layout *l,
                      unsigned char *base, rt_err *err);
void user_inputs_outputs(const user_inputs *in, const user_layout *l, const unsigned char *base,
                         double *out);
/* A scalar's value for the point, stored as its type at dst. */
int user_scalar_value(const user_inputs *in, int arg, const rt_params *params, void *dst,
                      rt_err *err);

#endif
