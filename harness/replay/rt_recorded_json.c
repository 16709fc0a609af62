/* rt_recorded_json: reading Kernel Tuner cache files and T4 results files, writing T4, and
 * rt_recorded_load (which decides what a file is). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "rt_infile.h"
#include "rt_outfile.h"
#include "rt_recorded.h"
#include "rt_recorded_keys.h"

#define MAX_VALUES     4096
#define VALUE_TEXT_MAX 64

/* zlib's message without the "<fd:N>: " that gzdopen puts in front of it. */
static const char *zlib_why(const char *why)
{
    if (why && strncmp(why, "<fd:", 4) == 0) {
        const char *colon = strstr(why, ">: ");
        if (colon)
            return colon + 3;
    }
    return why ? why : "unknown zlib error";
}

/* Reads the whole file, gunzipping it when it is compressed (zlib reads plain files as they are),
 * and never more than RT_RECORDED_MAX_BYTES of text: a small gzip can expand to gigabytes. Only
 * a regular file is read (a folder is named as one; a FIFO would block). A gzip stream that ends
 * early (no trailer: a cut download) or fails its check is an error, with zlib's reason copied
 * before the stream is closed (the text gzerror returns belongs to the stream). */
static int slurp(const char *path, char **out, size_t *out_len, rt_err *err)
{
    *out = NULL;
    *out_len = 0;
    int fd = -1;
    int64_t size = 0;
    if (rt_infile_open(path, "a recorded space", &fd, &size, err) != 0)
        return -1;
    gzFile f = gzdopen(fd, "rb");
    if (!f) {
        close(fd);
        return rt_err_set(err, "cannot read %s: out of memory", path);
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    int rc = buf ? 0 : rt_err_set(err, "out of memory reading %s", path);
    while (rc == 0) {
        if (len == cap) {
            if (cap >= (size_t)RT_RECORDED_MAX_BYTES) {
                rc = rt_err_set(err,
                                "%s holds more than %lld MiB of JSON%s; recorded spaces are "
                                "read whole, so larger ones are refused",
                                path, (long long)(RT_RECORDED_MAX_BYTES >> 20),
                                gzdirect(f) ? "" : " once decompressed");
                break;
            }
            const size_t grown_cap = 2 * cap;
            char *grown = realloc(buf, grown_cap + 1);
            if (!grown) {
                rc = rt_err_set(err, "out of memory reading %s", path);
                break;
            }
            buf = grown;
            cap = grown_cap;
        }
        const int got = gzread(f, buf + len, (unsigned)(cap - len));
        int code = Z_OK;
        const char *why = gzerror(f, &code);
        if (got < 0 || (code != Z_OK && code != Z_BUF_ERROR)) {
            rc = rt_err_set(err, "cannot read %s: %s", path,
                            code == Z_ERRNO ? strerror(errno) : zlib_why(why));
            break;
        }
        if (got == 0) {
            /* zlib treats a stream that ends without its trailer as a soft error at the end. */
            if (code == Z_BUF_ERROR)
                rc = rt_err_set(err,
                                "cannot read %s: the gzip stream ends early (the file is cut "
                                "short: %s)",
                                path, zlib_why(why));
            break;
        }
        len += (size_t)got;
    }
    const int closed = gzclose(f);
    if (rc == 0 && closed != Z_OK)
        rc = rt_err_set(err, "cannot read %s: %s", path,
                        closed == Z_BUF_ERROR ? "the gzip stream ends early (the file is cut short)"
                                              : "closing it failed");
    if (rc != 0) {
        free(buf);
        return -1;
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return 0;
}

int rt_recorded_load(const char *path, const rt_recorded_select *sel, rt_recorded **out,
                     rt_err *err)
{
    *out = NULL;
    (void)sel;
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

/* A recorded time or bound: a finite number in (0, RT_RECORDED_TIME_MAX]. Anything else (zero, a
 * negative, NaN, infinity, 1e308) would turn the scores into nonsense or overflow them. */
static int check_value(const char *path, const char *where, const char *what, double v, rt_err *err)
{
    if (isfinite(v) && v > 0 && v <= RT_RECORDED_TIME_MAX)
        return 0;
    return rt_err_set(err,
                      "%s: %s: %s is %g; a recorded %s must be a positive number of at most %g "
                      "(in the file's time unit)",
                      path, where, what, v, what, RT_RECORDED_TIME_MAX);
}

static int builder_add_value(dim_builder *b, int d, json_object *v, const char *path, rt_err *err)
{
    rt_recorded_dim *dim = &b->dims[d];
    if (is_number(v) && !isfinite(json_object_get_double(v)))
        return rt_err_set(err, "%s: parameter '%s' has the value %s, not a finite number", path,
                          dim->name, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
    char t[VALUE_TEXT_MAX + 1];
    value_text(v, t, sizeof t);
    if (strlen(t) >= VALUE_TEXT_MAX)
        return rt_err_set(err,
                          "%s: parameter '%s' has a value longer than %d characters ('%.40s...')",
                          path, dim->name, VALUE_TEXT_MAX - 1, t);
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

/* The schema check of a recorded space, as rt_store_check is a store's: schema_version must be a
 * "1.x.y" string (the versions this reader knows), required for T4 and optional for Kernel Tuner
 * caches (those written before Kernel Tuner 1.0 have none). */
static int check_schema_version(const char *path, json_object *root, const char *kind, int required,
                                rt_err *err)
{
    json_object *v = get(root, "schema_version");
    if (!v) {
        if (!required)
            return 0;
        return rt_err_set(err, "%s: a %s needs a schema_version (this rooftune reads 1.x.y)", path,
                          kind);
    }
    const char *text = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
    int major = -1, minor = -1, patch = -1, used = 0;
    if (text && sscanf(text, "%d.%d.%d%n", &major, &minor, &patch, &used) == 3 &&
        text[used] == '\0' && major == 1 && minor >= 0 && patch >= 0)
        return 0;
    return rt_err_set(err, "%s: %s schema_version %s is not one this rooftune reads (1.x.y)", path,
                      kind, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

/* Names dimension d (a parameter name must be a string, and fit; text NULL: it was not one). */
static int set_dim_name(const char *path, const char *where, int d, const char *text,
                        dim_builder *b, rt_err *err)
{
    if (!text)
        return rt_err_set(err, "%s: %s[%d] is not a parameter name (a string)", path, where, d);
    if (!*text || strlen(text) >= RT_RECORDED_NAME_MAX)
        return rt_err_set(err, "%s: parameter name '%.40s%s' is empty or longer than %d characters",
                          path, text, strlen(text) > 40 ? "..." : "", RT_RECORDED_NAME_MAX - 1);
    for (int k = 0; k < d; ++k)
        if (strcmp(b->dims[k].name, text) == 0)
            return rt_err_set(err, "%s: parameter '%s' is named twice", path, text);
    snprintf(b->dims[d].name, sizeof b->dims[d].name, "%s", text);
    return 0;
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
    if (check_schema_version(path, root, "Kernel Tuner cache", 0, err) != 0)
        return -1;
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
        json_object *key = json_object_array_get_idx(keys, (size_t)d);
        if (set_dim_name(path, "tune_params_keys", d,
                         json_object_is_type(key, json_type_string) ? json_object_get_string(key)
                                                                    : NULL,
                         b, err) != 0)
            return -1;
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
        return rt_err_prefix(err, "%s", path);
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
        if (!is_number(t) && !json_object_is_type(t, json_type_string))
            return rt_err_set(err,
                              "%s: cache entry '%s': time is %s, neither a number nor a failure "
                              "string",
                              path, key, json_object_to_json_string_ext(t, JSON_C_TO_STRING_PLAIN));
        char where[300];
        snprintf(where, sizeof where, "cache entry '%s'", key);
        const double time = is_number(t) ? json_object_get_double(t) : INFINITY;
        if (is_number(t) && check_value(path, where, "time", time, err) != 0)
            return -1;
        if (rt_recorded_add(*out, coords, time, NAN, err) != 0)
            return rt_err_prefix(err, "%s: cache entry '%s'", path, key);
    }
    return 0;
}

/* The value of the measurement called name (*found 1), NAN when it is not a number (found too:
 * the range check then names it), or NAN with *found 0 when there is none. */
static double t4_measurement(json_object *res, const char *name, int *found)
{
    *found = 0;
    json_object *ms = get(res, "measurements");
    if (!ms || !json_object_is_type(ms, json_type_array))
        return NAN;
    for (size_t k = 0; k < json_object_array_length(ms); ++k) {
        json_object *m = json_object_array_get_idx(ms, k);
        const char *n = get_str(m, "name", "");
        json_object *v = get(m, "value");
        if (strcmp(n, name) == 0 && v) {
            *found = 1;
            return is_number(v) ? json_object_get_double(v) : NAN;
        }
    }
    return NAN;
}

/* T4 results: results[].configuration / invalidity / measurements. */
static int parse_t4(const char *path, json_object *root, dim_builder *b, rt_recorded **out,
                    rt_err *err)
{
    if (check_schema_version(path, root, "T4 results file", 1, err) != 0)
        return -1;
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
        if (set_dim_name(path, "results[0].configuration", nd, pname, b, err) != 0)
            return -1;
        b->dims[nd].numeric = 1;
        b->dims[nd].values = b->text[nd];
        nd++;
    }
    b->n = nd;
    const size_t n = json_object_array_length(results);
    for (size_t k = 0; k < n; ++k) {
        json_object *cfg = get(json_object_array_get_idx(results, k), "configuration");
        if (cfg && json_object_is_type(cfg, json_type_object) &&
            json_object_object_length(cfg) != nd)
            return rt_err_set(err,
                              "%s: results[%zu] has %d parameters, results[0] has %d; every "
                              "configuration must give the same parameters",
                              path, k, json_object_object_length(cfg), nd);
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
    /* rooftune's own T4 files carry the kernel and device in metadata (rt_recorded_write_t4). */
    json_object *meta = get(root, "metadata");
    const char *unit = get_str(meta, "timeunit", "");
    if (rt_recorded_new(get_str(meta, "kernel", ""), get_str(meta, "device", ""),
                        strncmp(unit, "mil", 3) == 0 ? "ms" : unit, nd, b->dims, out, err) != 0)
        return rt_err_prefix(err, "%s", path);
    for (size_t k = 0; k < n; ++k) {
        json_object *res = json_object_array_get_idx(results, k);
        json_object *inv = get(res, "invalidity");
        if (inv && !json_object_is_type(inv, json_type_string))
            return rt_err_set(err, "%s: results[%zu]: invalidity is %s, not a string", path, k,
                              json_object_to_json_string_ext(inv, JSON_C_TO_STRING_PLAIN));
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
        char where[64];
        snprintf(where, sizeof where, "results[%zu]", k);
        if (strcmp(invalidity, "correct") == 0) {
            int found = 0;
            time = t4_measurement(res, objective, &found);
            if (!found)
                return rt_err_set(err, "%s: results[%zu] is correct but has no '%s' measurement",
                                  path, k, objective);
            if (check_value(path, where, objective, time, err) != 0)
                return -1;
        }
        int has_bound = 0;
        const double bound = t4_measurement(res, "roofline_bound", &has_bound);
        if (has_bound && check_value(path, where, "roofline_bound", bound, err) != 0)
            return -1;
        if (rt_recorded_add(*out, coords, time, bound, err) != 0)
            return rt_err_prefix(err, "%s: results[%zu]", path, k);
    }
    return 0;
}

/* What a JSON value is, for messages. */
static const char *json_kind(json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null: return "null";
    case json_type_boolean: return "a boolean";
    case json_type_double:
    case json_type_int: return "a number";
    case json_type_string: return "a string";
    case json_type_array: return "an array";
    case json_type_object: return "an object";
    }
    return "something else";
}

int rt_recorded_parse_json(const char *path, const char *text, size_t len, rt_recorded **out,
                           rt_err *err)
{
    *out = NULL;
    size_t start = 0;
    while (start < len && (text[start] == ' ' || text[start] == '\t' || text[start] == '\n' ||
                           text[start] == '\r'))
        ++start;
    if (start == len)
        return rt_err_set(err, "%s is empty%s; a recorded space is a JSON object", path,
                          len ? " (only white space)" : "");
    const char *nul = memchr(text, '\0', len);
    if (nul)
        return rt_err_set(err, "%s: a NUL byte at byte %zu: a binary file, not JSON", path,
                          (size_t)(nul - text));
    if (len > (size_t)RT_RECORDED_MAX_BYTES)
        return rt_err_set(err, "%s holds more than %lld MiB of JSON", path,
                          (long long)(RT_RECORDED_MAX_BYTES >> 20));
    json_tokener *tok = json_tokener_new_ex(64);
    if (!tok)
        return rt_err_set(err, "out of memory parsing %s", path);
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t where = json_tokener_get_parse_end(tok);
    if (jerr == json_tokener_continue) {
        /* A number or a word at the very end is only known to be complete at the end of the
         * text: say so with the terminating NUL (the whole text was read then). */
        root = json_tokener_parse_ex(tok, "", 1);
        jerr = json_tokener_get_error(tok);
        where = len;
    }
    json_tokener_free(tok);
    if (jerr != json_tokener_success) {
        json_object_put(root);
        if (jerr == json_tokener_continue)
            return rt_err_set(err, "%s: the JSON ends early (after %zu bytes: is the file cut?)",
                              path, len);
        return rt_err_set(err, "%s: not valid JSON (%s at byte %zu)", path,
                          json_tokener_error_desc(jerr), where);
    }
    /* Text after the value: the tokener stopped where it ended. */
    while (where < len && (text[where] == ' ' || text[where] == '\t' || text[where] == '\n' ||
                           text[where] == '\r'))
        ++where;
    if (where < len) {
        json_object_put(root);
        return rt_err_set(err, "%s: text after the JSON value, at byte %zu", path, where);
    }
    if (!json_object_is_type(root, json_type_object)) {
        const char *kind = root ? json_kind(root) : "null";
        json_object_put(root);
        return rt_err_set(err,
                          "%s is JSON but %s, not an object: not a Kernel Tuner cache or a "
                          "T4 results file",
                          path, kind);
    }
    if (rt_recorded_check_keys(path, text, len, err) != 0) {
        json_object_put(root);
        return -1;
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

/* text compressed as one gzip member in memory, then written whole (rt_outfile): a failure leaves
 * the old file or none, never a cut archive. */
static int write_gzip(const char *path, const char *text, size_t len, rt_err *err)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip header and trailer around the deflate stream. */
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return rt_err_set(err, "cannot write %s: zlib could not start", path);
    const uLong bound = deflateBound(&z, (uLong)len);
    unsigned char *gz = malloc(bound);
    int rc = 0;
    if (!gz) {
        rc = rt_err_set(err, "out of memory writing %s", path);
    } else {
        z.next_in = (Bytef *)(uintptr_t)text;
        z.avail_in = (uInt)len;
        z.next_out = gz;
        z.avail_out = (uInt)bound;
        if (deflate(&z, Z_FINISH) != Z_STREAM_END)
            rc = rt_err_set(err, "cannot write %s: compressing failed", path);
        else
            rc = rt_outfile_write_all(path, gz, (size_t)z.total_out, err);
    }
    deflateEnd(&z);
    free(gz);
    return rc;
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
    const size_t len = text ? strlen(text) : 0, plen = strlen(path);
    int rc = text ? 0 : rt_err_set(err, "out of memory writing %s", path);
    if (rc == 0 && plen > 3 && strcmp(path + plen - 3, ".gz") == 0)
        rc = write_gzip(path, text, len, err);
    else if (rc == 0)
        rc = rt_outfile_write_all(path, text, len, err);
    json_object_put(root);
    return rc;
}
