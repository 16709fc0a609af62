/* user_eval: the expressions of a kernel spec (array sizes, scalar values, grid and block, shared
 * memory, flops, bytes, constraints), parsed once by the harness's expression engine (rt_expr.h)
 * and evaluated per point with the problem's and the kernel's parameters by name, and the device's
 * facts as device.<field> (those constraints in configs may name). Every error names the spec's
 * file:line:col and what the expression is for. */
#ifndef USER_EVAL_H
#define USER_EVAL_H

#include <stdint.h>

#include "rt_config.h"
#include "rt_device.h"
#include "rt_error.h"
#include "rt_expr.h"
#include "rt_params.h"

typedef struct user_expr {
    rt_expr *expr; /* NULL when the spec does not give it */
    rt_src_loc loc;
    char what[64]; /* e.g. "arguments[2].size", for messages */
} user_expr;

/* What the identifiers of an expression may name. Any member may be NULL. */
typedef struct user_scope {
    const rt_params *problem;
    const rt_params *params;
    const rt_device_info *device;
} user_scope;

/* Evaluates e. An identifier that names nothing in the scope, or a string value, is an error. */
int user_eval(const user_expr *e, const user_scope *s, double *out, rt_err *err);
/* Evaluates e and requires an integer in [lo, hi]. */
int user_eval_int(const user_expr *e, const user_scope *s, int64_t lo, int64_t hi, int64_t *out,
                  rt_err *err);

/* Parses text into e (what and loc say where it is written); errors point at the column. */
int user_expr_parse(user_expr *e, const char *text, const rt_src_loc *loc, const char *what,
                    rt_err *err);
void user_expr_free(user_expr *e);

/* Checks that every identifier of e is one of names[0..n) or, when allow_device, device.<field>;
 * otherwise fails naming the identifier and what may be used instead. */
int user_expr_check_names(const user_expr *e, const char *const *names, int n, int allow_device,
                          rt_err *err);

#endif
