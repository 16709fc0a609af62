/* rt_config_domain: see rt_config_domain.h. */
#include "rt_config_domain.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_config_read.h"

/* A sweep axis longer than this is almost certainly a typo in a range (a missing step); the
 * limit turns a silent multi-hour run into an immediate error. */
#define MAX_DOMAIN_VALUES 100000

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const k_domain_keys[] = {"range", "pow2"};

static int alloc_values(rt_param_domain *d, int64_t n, const rt_yaml_node *at, const char *path,
                        rt_err *err)
{
    if (n > MAX_DOMAIN_VALUES)
        return RT_CFG_FAIL(err, at, path,
                           "expands to %" PRId64 " values (at most %d); check the bounds "
                           "and the step",
                           n, MAX_DOMAIN_VALUES);
    d->values = calloc((size_t)n, sizeof *d->values);
    if (!d->values)
        return RT_CFG_FAIL(err, at, path, "out of memory for %" PRId64 " values", n);
    d->n_values = (int)n;
    return 0;
}

/* 32 and 32.0 are one point of the sweep; "32" (quoted, a string) is another. */
static int same_value(const rt_value *a, const rt_value *b)
{
    if (a->kind != RT_V_STR && b->kind != RT_V_STR)
        return rt_value_as_double(a) == rt_value_as_double(b);
    return rt_value_equal(a, b);
}

static int domain_list(const rt_yaml_node *node, const char *path, rt_param_domain *d, rt_err *err)
{
    d->kind = RT_DOMAIN_LIST;
    if (node->kind == RT_YAML_SCALAR) {
        if (alloc_values(d, 1, node, path, err) != 0)
            return -1;
        return rt_cfg_read_value(node, path, &d->values[0], err);
    }
    if (node->n == 0)
        return RT_CFG_FAIL(err, node, path, "the list is empty: give at least one value");
    if (alloc_values(d, node->n, node, path, err) != 0)
        return -1;
    for (int i = 0; i < node->n; ++i) {
        char item_path[320];
        snprintf(item_path, sizeof item_path, "%s[%d]", path, i);
        if (rt_cfg_read_value(node->items[i], item_path, &d->values[i], err) != 0)
            return -1;
        for (int j = 0; j < i; ++j) {
            if (same_value(&d->values[j], &d->values[i])) {
                char shown[2 * RT_STR_MAX];
                rt_value_format(&d->values[i], shown, sizeof shown);
                return RT_CFG_FAIL(err, node->items[i], item_path,
                                   "value %s is listed twice (also at "
                                   "%s[%d])",
                                   shown, path, j);
            }
        }
    }
    return 0;
}

/* The numbers of a {range: [...]} or {pow2: [...]} list. */
static int bounds_list(const rt_yaml_node *seq, const char *path, int min_n, int max_n,
                       const char *shape, rt_err *err)
{
    if (seq->kind != RT_YAML_SEQ || seq->n < min_n || seq->n > max_n) {
        char got[96];
        if (seq->kind == RT_YAML_SEQ)
            snprintf(got, sizeof got, "a list of %d value%s", seq->n, seq->n == 1 ? "" : "s");
        else
            rt_cfg_describe(seq, got, sizeof got);
        return RT_CFG_FAIL(err, seq, path, "expected %s, got %s", shape, got);
    }
    return 0;
}

static int domain_range(const rt_yaml_node *seq, const char *path, rt_param_domain *d, rt_err *err)
{
    if (bounds_list(seq, path, 2, 3, "[lo, hi] or [lo, hi, step]", err) != 0)
        return -1;
    double v[3] = {0, 0, 1};
    int64_t iv[3] = {0, 0, 1};
    int integral = 1;
    static const char *const names[] = {"lo", "hi", "step"};
    for (int i = 0; i < seq->n; ++i) {
        char item_path[320];
        snprintf(item_path, sizeof item_path, "%s[%d] (%s)", path, i, names[i]);
        const rt_yaml_node *it = seq->items[i];
        if (rt_cfg_read_real(it, item_path, -HUGE_VAL, 0, HUGE_VAL, 0, "a number", &v[i], err) != 0)
            return -1;
        integral &= rt_yaml_parse_int(it->scalar, &iv[i]) == 0;
    }
    d->kind = RT_DOMAIN_RANGE;
    d->lo = v[0];
    d->hi = v[1];
    d->step = v[2];
    if (!(v[2] > 0))
        return RT_CFG_FAIL(err, seq, path, "step must be > 0, got %g", v[2]);
    if (v[0] > v[1])
        return RT_CFG_FAIL(err, seq, path, "lo (%g) is greater than hi (%g)", v[0], v[1]);
    if (integral) {
        /* In double first: (hi - lo) in int64 may overflow for extreme bounds. */
        const double count = floor((v[1] - v[0]) / v[2]) + 1;
        if (count > MAX_DOMAIN_VALUES) /* fails with the "expands to" message */
            return alloc_values(d, (int64_t)fmin(count, 9e18), seq, path, err);
        const int64_t n = (iv[1] - iv[0]) / iv[2] + 1;
        if (alloc_values(d, n, seq, path, err) != 0)
            return -1;
        for (int64_t i = 0; i < n; ++i)
            d->values[i] = rt_value_int(iv[0] + i * iv[2]);
        return 0;
    }
    /* Real steps: a relative tolerance keeps hi in the range when (hi - lo) / step is integral
     * but rounds just below (0.1 steps). */
    const double span = (v[1] - v[0]) / v[2];
    const double count = floor(span + 1e-9 * (span > 1 ? span : 1)) + 1;
    if (alloc_values(d, (int64_t)fmin(count, 9e18), seq, path, err) != 0)
        return -1;
    for (int i = 0; i < d->n_values; ++i) {
        double x = v[0] + i * v[2];
        if (x > v[1])
            x = v[1];
        d->values[i] = rt_value_real(x);
    }
    return 0;
}

static int is_pow2_int(int64_t x)
{
    return x >= 1 && (x & (x - 1)) == 0;
}

static int domain_pow2(const rt_yaml_node *seq, const char *path, rt_param_domain *d, rt_err *err)
{
    if (bounds_list(seq, path, 2, 2, "[lo, hi]", err) != 0)
        return -1;
    int64_t b[2];
    static const char *const names[] = {"lo", "hi"};
    for (int i = 0; i < 2; ++i) {
        char item_path[320];
        snprintf(item_path, sizeof item_path, "%s[%d] (%s)", path, i, names[i]);
        const rt_yaml_node *it = seq->items[i];
        if (rt_cfg_read_int(it, item_path, 1, INT64_MAX, &b[i], err) != 0)
            return -1;
        if (!is_pow2_int(b[i]))
            return RT_CFG_FAIL(err, it, item_path, "bounds must be powers of two, got %" PRId64,
                               b[i]);
    }
    d->kind = RT_DOMAIN_POW2;
    d->lo = (double)b[0];
    d->hi = (double)b[1];
    d->step = 0;
    if (b[0] > b[1])
        return RT_CFG_FAIL(err, seq, path, "lo (%" PRId64 ") is greater than hi (%" PRId64 ")",
                           b[0], b[1]);
    int n = 0;
    for (int64_t x = b[0]; x <= b[1] && x > 0; x *= 2) {
        ++n;
        if (x > INT64_MAX / 2)
            break;
    }
    if (alloc_values(d, n, seq, path, err) != 0)
        return -1;
    int64_t x = b[0];
    for (int i = 0; i < n; ++i) {
        d->values[i] = rt_value_int(x);
        if (i + 1 < n)
            x *= 2;
    }
    return 0;
}

/* Entry i of map is "name: domain". */
static int read_domain(const rt_yaml_node *map, int i, const char *section, rt_param_domain *d,
                       rt_err *err)
{
    const char *name = map->keys[i];
    const rt_yaml_node *node = map->items[i];
    char path[320];
    snprintf(path, sizeof path, "%s.%s", section, name);
    rt_cfg_loc_of_key(map, i, &d->loc);
    if (strlen(name) >= RT_NAME_MAX)
        return rt_cfg_fail_at(err, d->loc.file, d->loc.line, d->loc.col, path,
                              "parameter name is longer than %d characters", RT_NAME_MAX - 1);
    snprintf(d->name, sizeof d->name, "%s", name);
    if (node->kind != RT_YAML_MAP)
        return domain_list(node, path, d, err);
    if (rt_yaml_check_keys(node, path, k_domain_keys, N_OF(k_domain_keys), err) != 0)
        return -1;
    if (node->n != 1)
        return RT_CFG_FAIL(err, node, path,
                           "expected exactly one of {range: [lo, hi, step]} or "
                           "{pow2: [lo, hi]}, got %s",
                           node->n == 0 ? "an empty map" : "both");
    char sub[340];
    snprintf(sub, sizeof sub, "%s.%s", path, node->keys[0]);
    if (strcmp(node->keys[0], "range") == 0)
        return domain_range(node->items[0], sub, d, err);
    return domain_pow2(node->items[0], sub, d, err);
}

int rt_cfg_read_domains(const rt_yaml_node *map, const char *section, rt_param_domain **out,
                        int *n_out, rt_err *err)
{
    if (rt_cfg_expect_kind(map, section, RT_YAML_MAP, err) != 0)
        return -1;
    if (map->n == 0)
        return 0;
    *out = calloc((size_t)map->n, sizeof **out);
    if (!*out)
        return RT_CFG_FAIL(err, map, section, "out of memory");
    *n_out = map->n;
    for (int i = 0; i < map->n; ++i)
        if (read_domain(map, i, section, &(*out)[i], err) != 0)
            return -1;
    return 0;
}
