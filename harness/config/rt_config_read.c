/* rt_config_read: see rt_config_read.h. */
#include "rt_config_read.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt_strutil.h"

static void loc_set(rt_src_loc *loc, const char *file, int line, int col)
{
    snprintf(loc->file, sizeof loc->file, "%s", file);
    loc->line = line;
    loc->col = col;
}

void rt_cfg_loc_of(const rt_yaml_node *n, rt_src_loc *loc)
{
    loc_set(loc, n->file, n->line, n->col);
}

void rt_cfg_loc_of_key(const rt_yaml_node *map, int i, rt_src_loc *loc)
{
    const char *file;
    int line, col;
    rt_yaml_key_pos(map, i, &file, &line, &col);
    loc_set(loc, file, line, col);
}

int rt_cfg_fail_at(rt_err *err, const char *file, int line, int col, const char *path,
                   const char *fmt, ...)
{
    char what[RT_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rt_err_set(err, "%s:%d:%d: %s: %s", file, line, col, path, what);
}

void rt_cfg_describe(const rt_yaml_node *n, char *buf, size_t len)
{
    if (n->kind == RT_YAML_SEQ)
        snprintf(buf, len, "a list");
    else
        rt_yaml_describe(n, buf, len);
}

int rt_cfg_expect_kind(const rt_yaml_node *n, const char *path, rt_yaml_kind kind, rt_err *err)
{
    if (n->kind == kind)
        return 0;
    char got[96];
    rt_cfg_describe(n, got, sizeof got);
    return RT_CFG_FAIL(err, n, path, "expected %s, got %s",
                       kind == RT_YAML_MAP   ? "a map"
                       : kind == RT_YAML_SEQ ? "a list"
                                             : "a single value",
                       got);
}

int rt_cfg_check_keys(const rt_yaml_node *map, const char *path, const char *const *allowed, int n,
                      rt_err *err)
{
    if (rt_cfg_expect_kind(map, path, RT_YAML_MAP, err) != 0)
        return -1;
    return rt_yaml_check_keys(map, path, allowed, n, err);
}

int rt_cfg_read_int(const rt_yaml_node *n, const char *path, int64_t lo, int64_t hi, int64_t *out,
                    rt_err *err)
{
    int64_t v;
    const int parsed = n->kind == RT_YAML_SCALAR && rt_yaml_parse_int(n->scalar, &v) == 0;
    if (parsed && v >= lo && v <= hi) {
        *out = v;
        return 0;
    }
    char got[96];
    rt_cfg_describe(n, got, sizeof got);
    /* Upper bounds of 2^31 and beyond only guard the int fields: name them only when hit. */
    if (hi >= INT32_MAX && !(parsed && v > hi))
        return RT_CFG_FAIL(err, n, path, "expected an integer >= %" PRId64 ", got %s", lo, got);
    return RT_CFG_FAIL(err, n, path,
                       "expected an integer between %" PRId64 " and %" PRId64 ", got %s", lo, hi,
                       got);
}

int rt_cfg_read_real(const rt_yaml_node *n, const char *path, double lo, int lo_incl, double hi,
                     int hi_incl, const char *expected, double *out, rt_err *err)
{
    double v;
    if (n->kind == RT_YAML_SCALAR && rt_yaml_parse_real(n->scalar, &v) == 0 &&
        (lo_incl ? v >= lo : v > lo) && (hi_incl ? v <= hi : v < hi)) {
        *out = v;
        return 0;
    }
    char got[96];
    rt_cfg_describe(n, got, sizeof got);
    return RT_CFG_FAIL(err, n, path, "expected %s, got %s", expected, got);
}

int rt_cfg_read_text(const rt_yaml_node *n, const char *path, int allow_empty, char *buf,
                     size_t len, rt_err *err)
{
    if (n->kind != RT_YAML_SCALAR || (!allow_empty && n->scalar[0] == '\0')) {
        char got[96];
        rt_cfg_describe(n, got, sizeof got);
        return RT_CFG_FAIL(err, n, path, "expected %s, got %s",
                           allow_empty ? "a string" : "a non-empty string", got);
    }
    if (strlen(n->scalar) >= len)
        return RT_CFG_FAIL(err, n, path, "is longer than %zu characters", len - 1);
    snprintf(buf, len, "%s", n->scalar);
    return 0;
}

int rt_cfg_read_choice(const rt_yaml_node *n, const char *path, const char *const *choices,
                       int n_choices, int *index, char *buf, size_t len, rt_err *err)
{
    if (n->kind == RT_YAML_SCALAR) {
        for (int i = 0; i < n_choices; ++i) {
            if (strcmp(n->scalar, choices[i]) == 0) {
                if (index)
                    *index = i;
                if (buf)
                    snprintf(buf, len, "%s", choices[i]);
                return 0;
            }
        }
    }
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; i < n_choices && used < sizeof list; ++i)
        used +=
            (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", choices[i]);
    char got[96];
    rt_cfg_describe(n, got, sizeof got);
    const char *hint = n->kind == RT_YAML_SCALAR ? rt_suggest(n->scalar, choices, n_choices) : NULL;
    if (hint)
        return RT_CFG_FAIL(err, n, path, "expected one of %s, got %s (did you mean '%s'?)", list,
                           got, hint);
    return RT_CFG_FAIL(err, n, path, "expected one of %s, got %s", list, got);
}

int rt_cfg_read_bool(const rt_yaml_node *n, const char *path, int *out, rt_err *err)
{
    if (rt_yaml_get_bool(n, path, out, err) == 0)
        return 0;
    char got[96];
    rt_cfg_describe(n, got, sizeof got);
    return RT_CFG_FAIL(err, n, path, "expected true or false, got %s", got);
}

int rt_cfg_is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

/* Experiment, matrix and plot names end up in file names and SQL rows: keep them plain. */
static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; ++s)
        if (!rt_cfg_is_name_char(*s))
            return 0;
    return 1;
}

int rt_cfg_read_name(const rt_yaml_node *n, const char *path, char *buf, size_t len, rt_err *err)
{
    if (rt_cfg_read_text(n, path, 0, buf, len, err) != 0)
        return -1;
    if (!valid_name(buf))
        return RT_CFG_FAIL(err, n, path, "'%s' may contain only letters, digits, '_', '.' and '-'",
                           buf);
    return 0;
}

int rt_cfg_read_value(const rt_yaml_node *n, const char *path, rt_value *out, rt_err *err)
{
    if (n->kind != RT_YAML_SCALAR || (!n->quoted && n->scalar[0] == '\0')) {
        char got[96];
        rt_cfg_describe(n, got, sizeof got);
        return RT_CFG_FAIL(err, n, path, "expected a value (a number or a word), got %s", got);
    }
    int64_t i;
    double r;
    if (!n->quoted && rt_yaml_parse_int(n->scalar, &i) == 0) {
        *out = rt_value_int(i);
        return 0;
    }
    if (!n->quoted && rt_yaml_parse_real(n->scalar, &r) == 0) {
        *out = rt_value_real(r);
        return 0;
    }
    if (strlen(n->scalar) >= RT_STR_MAX)
        return RT_CFG_FAIL(err, n, path, "value is longer than %d characters", RT_STR_MAX - 1);
    *out = rt_value_str(n->scalar);
    return 0;
}
