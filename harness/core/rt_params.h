/* rt_params: typed values and named parameter sets.
 *
 * A point of an experiment is an rt_params: kernel tuning parameters (e.g. "register_tile" = 8)
 * and problem parameters (e.g. "K" = 32, "precision" = "fp32") are both carried this way, so the
 * harness can enumerate, store, hash and compare them without knowing what they mean. */
#ifndef RT_PARAMS_H
#define RT_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

#define RT_NAME_MAX   48
#define RT_STR_MAX    96
#define RT_MAX_PARAMS 32

typedef enum rt_vkind { RT_V_INT = 0, RT_V_REAL = 1, RT_V_STR = 2 } rt_vkind;

typedef struct rt_value {
    rt_vkind kind;
    int64_t i;
    double r;
    char s[RT_STR_MAX];
} rt_value;

rt_value rt_value_int(int64_t i);
rt_value rt_value_real(double r);
rt_value rt_value_str(const char *s);
/* Numeric view of a value: ints and reals as double; strings parse as numbers or give NAN. */
double rt_value_as_double(const rt_value *v);
/* Writes the value as JSON (number or quoted string) into buf; returns chars written. */
int rt_value_format(const rt_value *v, char *buf, size_t len);
int rt_value_equal(const rt_value *a, const rt_value *b);

typedef struct rt_param {
    char name[RT_NAME_MAX];
    rt_value value;
} rt_param;

typedef struct rt_params {
    int n;
    rt_param item[RT_MAX_PARAMS];
} rt_params;

void rt_params_init(rt_params *p);
/* Adds or replaces name=value. Fails when the set is full or the name too long. */
int rt_params_set(rt_params *p, const char *name, rt_value value, rt_err *err);
/* NULL when absent. */
const rt_value *rt_params_get(const rt_params *p, const char *name);
int64_t rt_params_int(const rt_params *p, const char *name, int64_t fallback);
double rt_params_real(const rt_params *p, const char *name, double fallback);
/* Returns the string value, or fallback when absent or not a string. */
const char *rt_params_str(const rt_params *p, const char *name, const char *fallback);
/* Copies every entry of src into dst (replacing same names). */
int rt_params_merge(rt_params *dst, const rt_params *src, rt_err *err);
/* Canonical JSON object with keys sorted, e.g. {"K":32,"precision":"fp32"}. Two equal sets give
 * byte-identical text, which is what the store uses to match points across runs. */
int rt_params_to_json(const rt_params *p, char *buf, size_t len);

#endif
