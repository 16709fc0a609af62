/* rt_recorded_json: reading Kernel Tuner cache files and T4 results files, writing T4, and
 * rt_recorded_load (which decides what a file is). */
#include <json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rt_recorded.h"

#define MAX_VALUES     4096
#define VALUE_TEXT_MAX 64

/* Reads the whole file, gunzipping it when it is compressed (zlib reads plain files as they are).
 */
static int slurp(const char *path, char **out, size_t *out_len, rt_err *err)
{
    gzFile f = gzopen(path, "rb");
    if (!f)
        return rt_err_set(err, "cannot open %s", path);
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (len == cap) {
            char *grown = realloc(buf, 2 * cap + 1);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        const int got = gzread(f, buf + len, (unsigned)(cap - len));
        if (got < 0) {
            int code;
            const char *why = gzerror(f, &code);
            gzclose(f);
            free(buf);
            return rt_err_set(err, "cannot read %s: %s", path, why);
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    gzclose(f);
    if (!buf)
        return rt_err_set(err, "out of memory reading %s", path);
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return 0;
}

int rt_recorded_load(const char *path, const rt_recorded_select *sel, rt_recorded **out,
                     rt_err *err)
{
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    if (slurp(path, &text, &len, err) != 0)
        return -1;
    int rc;
    if (len >= 16 && memcmp(text, "SQLite format 3", 16) == 0)
        rc = rt_err_set(err,
                        "%s: a rooftune store, not a recorded-space file (read stores with "
                        "rt_store_recorded_load)",
                        path);
    else
        rc = rt_recorded_parse_json(path, text, len, out, err);
    free(text);
    return rc;
}

static int is_number(const json_object *v)
{
    return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
}

static void value_text(json_object *v, char *buf, size_t len)
{
    if (json_object_is_type(v, json_type_string))
        snprintf(buf, len, "%s", json_object_get_string(v));
    else
        snprintf(buf, len, "%s", json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

/* The coordinate of value v in dim d, or -1. */
static int64_t value_coord(const rt_recorded_dim *dim, json_object *v)
{
    if (dim->numeric && is_number(v)) {
        const double x = json_object_get_double(v);
        for (int k = 0; k < dim->n_values; ++k)
            if (strtod(dim->values[k], NULL) == x)
                return k;
        return -1;
    }
    char t[VALUE_TEXT_MAX];
    value_text(v, t, sizeof t);
    for (int k = 0; k < dim->n_values; ++k)
        if (strcmp(dim->values[k], t) == 0)
            return k;
    return -1;
}

/* Temporary dims whose value texts live in one arena. */
typedef struct dim_builder {
    rt_recorded_dim dims[RT_MAX_PARAMS];
    char *text[RT_MAX_PARAMS][MAX_VALUES];
    char arena[RT_MAX_PARAMS][MAX_VALUES][VALUE_TEXT_MAX];
    int n;
} dim_builder;

static int builder_add_value(dim_builder *b, int d, json_object *v, const char *path, rt_err *err)
{
    rt_recorded_dim *dim = &b->dims[d];
    if (value_coord(dim, v) >= 0)
        return 0;
    if (dim->n_values == MAX_VALUES)
        return rt_err_set(err, "%s: parameter '%s' has more than %d values", path, dim->name,
                          MAX_VALUES);
    if (!is_number(v))
        dim->numeric = 0;
    value_text(v, b->arena[d][dim->n_values], VALUE_TEXT_MAX);
    b->text[d][dim->n_values] = b->arena[d][dim->n_values];
    dim->n_values++;
    return 0;
}

static int cmp_numeric_text(const void *a, const void *b)
{
    const double x = strtod(*(char *const *)a, NULL), y = strtod(*(char *const *)b, NULL);
    return x < y ? -1 : x > y;
}

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *get_str(json_object *o, const char *key, const char *fallback)
{
    json_object *v = get(o, key);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : fallback;
}

/* Kernel Tuner cache: tune_params_keys, tune_params, cache. */
static int parse_kt(const char *path, json_object *root, dim_builder *b, rt_recorded **out,
                    rt_err *err)
{
    json_object *keys = get(root, "tune_params_keys"), *params = get(root, "tune_params");
    json_object *cache = get(root, "cache");
    if (!keys || !json_object_is_type(keys, json_type_array) || !params ||
        !json_object_is_type(cache, json_type_object))
        return rt_err_set(err,
                          "%s: not a Kernel Tuner cache (needs tune_params_keys, tune_params "
                          "and cache)",
                          path);
    const char *objective = get_str(root, "objective", "time");
    if (strcmp(objective, "time") != 0)
        return rt_err_set(err, "%s: objective '%s' is not supported (replay minimises 'time')",
                          path, objective);
    const int nd = (int)json_object_array_length(keys);
    if (nd < 1 || nd > RT_MAX_PARAMS)
        return rt_err_set(err, "%s: %d tuning parameters (1 to %d supported)", path, nd,
                          RT_MAX_PARAMS);
    b->n = nd;
    for (int d = 0; d < nd; ++d) {
        rt_recorded_dim *dim = &b->dims[d];
        snprintf(dim->name, sizeof dim->name, "%s",
                 json_object_get_string(json_object_array_get_idx(keys, (size_t)d)));
        dim->numeric = 1;
        dim->values = b->text[d];
        json_object *vals = get(params, dim->name);
        if (!vals || !json_object_is_type(vals, json_type_array))
            return rt_err_set(err, "%s: tune_params has no value list for '%s'", path, dim->name);
        for (size_t k = 0; k < json_object_array_length(vals); ++k)
            if (builder_add_value(b, d, json_object_array_get_idx(vals, k), path, err) != 0)
                return -1;
    }
    if (rt_recorded_new(get_str(root, "kernel_name", ""), get_str(root, "device_name", ""), "ms",
                        nd, b->dims, out, err) != 0)
        return -1;
    json_object_object_foreach(cache, key, entry)
    {
        int64_t coords[RT_MAX_PARAMS];
        for (int d = 0; d < nd; ++d) {
            json_object *v = get(entry, b->dims[d].name);
            coords[d] = v ? value_coord(&(*out)->dims[d], v) : -1;
            if (coords[d] < 0)
                return rt_err_set(err, "%s: cache entry '%s': parameter '%s' %s", path, key,
                                  b->dims[d].name,
                                  v ? "has a value outside tune_params" : "is missing");
        }
        json_object *t = get(entry, "time");
        if (!t)
            return rt_err_set(err, "%s: cache entry '%s' has no time", path, key);
        /* A string time is a failure (compilation, launch, run time): it cost an evaluation. */
        const double time = is_number(t) ? json_object_get_double(t) : INFINITY;
        if (rt_recorded_add(*out, coords, time, NAN, err) != 0)
            return rt_err_prefix(err, "%s: cache entry '%s'", path, key);
    }
    return 0;
}

static double t4_measurement(json_object *res, const char *name)
{
    json_object *ms = get(res, "measurements");
    for (size_t k = 0; ms && k < json_object_array_length(ms); ++k) {
        json_object *m = json_object_array_get_idx(ms, k);
        const char *n = get_str(m, "name", "");
        json_object *v = get(m, "value");
        if (strcmp(n, name) == 0 && v && is_number(v))
            return json_object_get_double(v);
    }
    return NAN;
}

/* T4 results: results[].configuration / invalidity / measurements. */
static int parse_t4(const char *path, json_object *root, dim_builder *b, rt_recorded **out,
                    rt_err *err)
{
    json_object *results = get(root, "results");
    if (!results || !json_object_is_type(results, json_type_array) ||
        json_object_array_length(results) == 0)
        return rt_err_set(err, "%s: not a T4 results file (needs a non-empty results list)", path);
    json_object *first = get(json_object_array_get_idx(results, 0), "configuration");
    if (!first || !json_object_is_type(first, json_type_object))
        return rt_err_set(err, "%s: results[0] has no configuration", path);
    int nd = 0;
    json_object_object_foreach(first, pname, pval)
    {
        (void)pval;
        if (nd == RT_MAX_PARAMS)
            return rt_err_set(err, "%s: more than %d tuning parameters", path, RT_MAX_PARAMS);
        snprintf(b->dims[nd].name, sizeof b->dims[nd].name, "%s", pname);
        b->dims[nd].numeric = 1;
        b->dims[nd].values = b->text[nd];
        nd++;
    }
    b->n = nd;
    const size_t n = json_object_array_length(results);
    for (size_t k = 0; k < n; ++k) {
        json_object *cfg = get(json_object_array_get_idx(results, k), "configuration");
        for (int d = 0; d < nd; ++d) {
            json_object *v = cfg ? get(cfg, b->dims[d].name) : NULL;
            if (!v)
                return rt_err_set(err, "%s: results[%zu] lacks parameter '%s'", path, k,
                                  b->dims[d].name);
            if (builder_add_value(b, d, v, path, err) != 0)
                return -1;
        }
    }
    for (int d = 0; d < nd; ++d)
        if (b->dims[d].numeric)
            qsort(b->dims[d].values, (size_t)b->dims[d].n_values, sizeof(char *), cmp_numeric_text);
    const char *unit = get_str(get(root, "metadata"), "timeunit", "");
    if (rt_recorded_new("", "", strncmp(unit, "mil", 3) == 0 ? "ms" : unit, nd, b->dims, out,
                        err) != 0)
        return -1;
    for (size_t k = 0; k < n; ++k) {
        json_object *res = json_object_array_get_idx(results, k);
        const char *invalidity = get_str(res, "invalidity", "correct");
        if (strcmp(invalidity, "constraints") == 0)
            continue; /* outside the space: never run */
        json_object *cfg = get(res, "configuration");
        int64_t coords[RT_MAX_PARAMS];
        for (int d = 0; d < nd; ++d)
            coords[d] = value_coord(&(*out)->dims[d], get(cfg, b->dims[d].name));
        json_object *objectives = get(res, "objectives");
        const char *objective = "time";
        if (objectives && json_object_is_type(objectives, json_type_array) &&
            json_object_array_length(objectives) > 0)
            objective = json_object_get_string(json_object_array_get_idx(objectives, 0));
        double time = INFINITY;
        if (strcmp(invalidity, "correct") == 0) {
            time = t4_measurement(res, objective);
            if (isnan(time))
                return rt_err_set(err, "%s: results[%zu] is correct but has no '%s' measurement",
                                  path, k, objective);
        }
        if (rt_recorded_add(*out, coords, time, t4_measurement(res, "roofline_bound"), err) != 0)
            return rt_err_prefix(err, "%s: results[%zu]", path, k);
    }
    return 0;
}

int rt_recorded_parse_json(const char *path, const char *text, size_t len, rt_recorded **out,
                           rt_err *err)
{
    *out = NULL;
    json_tokener *tok = json_tokener_new_ex(64);
    if (!tok)
        return rt_err_set(err, "out of memory parsing %s", path);
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    const enum json_tokener_error jerr = json_tokener_get_error(tok);
    const size_t where = tok->char_offset;
    json_tokener_free(tok);
    if (!root || jerr != json_tokener_success) {
        json_object_put(root);
        return rt_err_set(err, "%s: not valid JSON (%s at byte %zu)", path,
                          json_tokener_error_desc(jerr), where);
    }
    dim_builder *b = calloc(1, sizeof *b);
    int rc;
    if (!b)
        rc = rt_err_set(err, "out of memory parsing %s", path);
    else if (get(root, "cache"))
        rc = parse_kt(path, root, b, out, err);
    else if (get(root, "results"))
        rc = parse_t4(path, root, b, out, err);
    else
        rc = rt_err_set(err,
                        "%s: neither a Kernel Tuner cache (no 'cache') nor a T4 results file "
                        "(no 'results')",
                        path);
    free(b);
    json_object_put(root);
    if (rc == 0)
        rc = rt_recorded_finish(*out, path, err);
    if (rc != 0) {
        rt_recorded_free(*out);
        *out = NULL;
    }
    return rc;
}

static json_object *value_json(const rt_recorded_dim *dim, int k)
{
    const char *t = dim->values[k];
    if (dim->numeric) {
        char *end;
        const long long i = strtoll(t, &end, 10);
        if (*end == '\0')
            return json_object_new_int64(i);
        return json_object_new_double(strtod(t, NULL));
    }
    return json_object_new_string(t);
}

static json_object *measurement(const char *name, double value, const char *unit)
{
    json_object *m = json_object_new_object();
    json_object_object_add(m, "name", json_object_new_string(name));
    json_object_object_add(m, "value", json_object_new_double(value));
    json_object_object_add(m, "unit", json_object_new_string(unit));
    return m;
}

int rt_recorded_write_t4(const rt_recorded *r, const char *path, rt_err *err)
{
    json_object *root = json_object_new_object();
    json_object *meta = json_object_new_object();
    json_object_object_add(
        meta, "timeunit",
        json_object_new_string(strcmp(r->unit, "ms") == 0 ? "miliseconds" : r->unit));
    json_object_object_add(meta, "kernel", json_object_new_string(r->kernel));
    json_object_object_add(meta, "device", json_object_new_string(r->device));
    json_object_object_add(root, "metadata", meta);
    json_object_object_add(root, "schema_version", json_object_new_string("1.0.0"));
    json_object *results = json_object_new_array();
    for (int64_t p = 0; p < r->n_points; ++p) {
        json_object *res = json_object_new_object();
        json_object *cfg = json_object_new_object();
        int64_t rest = r->index[p], coords[RT_MAX_PARAMS];
        for (int d = r->n_dims - 1; d >= 0; --d) {
            coords[d] = rest % r->grid.dim_size[d];
            rest /= r->grid.dim_size[d];
        }
        for (int d = 0; d < r->n_dims; ++d)
            json_object_object_add(cfg, r->dims[d].name, value_json(&r->dims[d], (int)coords[d]));
        json_object_object_add(res, "configuration", cfg);
        const int ok = isfinite(r->time[p]);
        json_object *times = json_object_new_object();
        json_object *runtimes = json_object_new_array();
        if (ok)
            json_object_array_add(runtimes, json_object_new_double(r->time[p]));
        json_object_object_add(times, "runtimes", runtimes);
        json_object_object_add(res, "times", times);
        json_object_object_add(res, "invalidity",
                               json_object_new_string(ok ? "correct" : "runtime"));
        json_object_object_add(res, "correctness", json_object_new_int(ok));
        json_object *ms = json_object_new_array();
        if (ok)
            json_object_array_add(ms, measurement("time", r->time[p], r->unit));
        if (isfinite(r->bound[p]))
            json_object_array_add(ms, measurement("roofline_bound", r->bound[p], r->unit));
        json_object_object_add(res, "measurements", ms);
        json_object *objectives = json_object_new_array();
        json_object_array_add(objectives, json_object_new_string("time"));
        json_object_object_add(res, "objectives", objectives);
        json_object_array_add(results, res);
    }
    json_object_object_add(root, "results", results);
    const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
    const size_t len = strlen(text), plen = strlen(path);
    int rc = 0;
    if (plen > 3 && strcmp(path + plen - 3, ".gz") == 0) {
        gzFile f = gzopen(path, "wb");
        if (!f || gzwrite(f, text, (unsigned)len) != (int)len)
            rc = rt_err_set(err, "cannot write %s", path);
        if (f && gzclose(f) != Z_OK && rc == 0)
            rc = rt_err_set(err, "cannot write %s", path);
    } else {
        FILE *f = fopen(path, "w");
        if (!f || fwrite(text, 1, len, f) != len)
            rc = rt_err_set(err, "cannot write %s", path);
        if (f && fclose(f) != 0 && rc == 0)
            rc = rt_err_set(err, "cannot write %s", path);
    }
    json_object_put(root);
    return rc;
}
