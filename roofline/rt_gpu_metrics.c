/* rt_gpu_metrics: per-architecture GPU counter definitions (roofline/metrics/sm_XY.yaml). */
#include "rt_gpu_metrics.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_strutil.h"
#include "rt_yaml.h"

static const char *const top_keys[] = {"arch", "metrics"};
static const char *const metric_keys[] = {"cupti", "unit", "help"};

static int copy_scalar(const rt_yaml_node *map, const char *key, const char *what, char *dst,
                       size_t len, int required, rt_err *err)
{
    const rt_yaml_node *n = rt_yaml_map_get(map, key);
    if (!n) {
        if (required)
            return rt_err_set(err, "%s:%d:%d: %s: missing '%s'", map->file, map->line, map->col,
                              what, key);
        return 0;
    }
    const char *s;
    if (rt_yaml_get_string(n, what, &s, err) != 0)
        return -1;
    if (!s[0] || strlen(s) >= len)
        return rt_err_set(err, "%s:%d:%d: %s.%s: must be 1..%zu characters", n->file, n->line,
                          n->col, what, key, len - 1);
    snprintf(dst, len, "%s", s);
    return 0;
}

static int parse(const rt_yaml_node *root, rt_gpu_metric_defs *d, rt_err *err)
{
    if (rt_yaml_check_keys(root, "metric definitions", top_keys, 2, err) != 0)
        return -1;
    if (copy_scalar(root, "arch", "metric definitions", d->arch, sizeof d->arch, 1, err) != 0)
        return -1;
    const rt_yaml_node *metrics = rt_yaml_map_get(root, "metrics");
    if (!metrics || metrics->kind != RT_YAML_MAP)
        return rt_err_set(err,
                          "%s:%d:%d: metric definitions: 'metrics' must be a map of "
                          "name: {cupti, unit, help}",
                          (metrics ? metrics : root)->file, (metrics ? metrics : root)->line,
                          (metrics ? metrics : root)->col);
    if (metrics->n > RT_GPU_METRICS_MAX)
        return rt_err_set(err, "%s:%d:%d: metrics: %d entries, at most %d", metrics->file,
                          metrics->line, metrics->col, metrics->n, RT_GPU_METRICS_MAX);
    for (int i = 0; i < metrics->n; ++i) {
        const rt_yaml_node *m = metrics->items[i];
        rt_gpu_metric_def *def = &d->def[i];
        char what[96];
        snprintf(what, sizeof what, "metrics.%s", metrics->keys[i]);
        if (strlen(metrics->keys[i]) >= sizeof def->name || strchr(metrics->keys[i], ':'))
            return rt_err_set(err,
                              "%s:%d:%d: %s: a name is under %zu characters and has no ':' "
                              "(reserved for cupti:<raw>)",
                              m->file, m->line, m->col, what, sizeof def->name);
        snprintf(def->name, sizeof def->name, "%s", metrics->keys[i]);
        if (rt_yaml_check_keys(m, what, metric_keys, 3, err) != 0 ||
            copy_scalar(m, "cupti", what, def->cupti, sizeof def->cupti, 1, err) != 0 ||
            copy_scalar(m, "unit", what, def->unit, sizeof def->unit, 1, err) != 0 ||
            copy_scalar(m, "help", what, def->help, sizeof def->help, 0, err) != 0)
            return -1;
        for (int j = 0; j < i; ++j)
            if (strcmp(d->def[j].cupti, def->cupti) == 0)
                return rt_err_set(err, "%s:%d:%d: %s: CUPTI metric '%s' is already used by '%s'",
                                  m->file, m->line, m->col, what, def->cupti, d->def[j].name);
    }
    d->n = metrics->n;
    return 0;
}

int rt_gpu_metrics_load(const char *path, rt_gpu_metric_defs *d, rt_err *err)
{
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", path);
    rt_yaml_node *root = NULL;
    if (rt_yaml_load_file(path, &root, err) != 0)
        return rt_err_prefix(err, "GPU metric definitions");
    const int rc = parse(root, d, err);
    rt_yaml_free(root);
    return rc;
}

int rt_gpu_metrics_find(const char *dir, int cc_major, int cc_minor, char *path, size_t len,
                        rt_err *err)
{
    if (cc_major < 1 || cc_major > 99 || cc_minor < 0 || cc_minor > 9)
        return rt_err_set(err, "GPU metric definitions: compute capability %d.%d is not valid",
                          cc_major, cc_minor);
    if ((size_t)snprintf(path, len, "%s/sm_%d%d.yaml", dir, cc_major, cc_minor) >= len)
        return rt_err_set(err, "GPU metric definitions: path too long");
    FILE *f = fopen(path, "r");
    if (f) {
        fclose(f);
        return 0;
    }
    char have[512] = "";
    size_t used = 0;
    DIR *dd = opendir(dir);
    if (dd) {
        for (struct dirent *e = readdir(dd); e; e = readdir(dd))
            if (strncmp(e->d_name, "sm_", 3) == 0 && used + 40 < sizeof have)
                used += (size_t)snprintf(have + used, sizeof have - used, "%s%s", used ? ", " : "",
                                         e->d_name);
        closedir(dd);
    }
    return rt_err_set(err,
                      "GPU metric definitions: no %s for compute capability %d.%d (this "
                      "folder has: %s); copy the nearest one and check its metric names with "
                      "`ncu --query-metrics`",
                      path, cc_major, cc_minor, have[0] ? have : "none");
}

int rt_gpu_metrics_translate(const rt_gpu_metric_defs *d, const char *const *names, int n,
                             const char **cupti_out, rt_err *err)
{
    for (int i = 0; i < n; ++i) {
        const char *name = names[i];
        if (!name || !name[0])
            return rt_err_set(err, "GPU counters: name %d is empty", i);
        if (strncmp(name, "cupti:", 6) == 0) {
            if (!name[6])
                return rt_err_set(err, "GPU counters: '%s' names no CUPTI metric", name);
            cupti_out[i] = name + 6;
        } else {
            cupti_out[i] = NULL;
            for (int k = 0; k < d->n && !cupti_out[i]; ++k)
                if (strcmp(d->def[k].name, name) == 0)
                    cupti_out[i] = d->def[k].cupti;
            if (!cupti_out[i]) {
                const char *candidates[RT_GPU_METRICS_MAX];
                for (int k = 0; k < d->n; ++k)
                    candidates[k] = d->def[k].name;
                const char *near = rt_suggest(name, candidates, d->n);
                return rt_err_set(err,
                                  "GPU counters: '%s' is not defined for %s in %s%s%s%s (or "
                                  "ask for a raw metric as cupti:<name>)",
                                  name, d->arch, d->path, near ? " (did you mean '" : "",
                                  near ? near : "", near ? "'?)" : "");
            }
        }
        /* The plugin records one metric per CUPTI name: two requests for the same counter
         * would collide. */
        for (int j = 0; j < i; ++j)
            if (strcmp(cupti_out[j], cupti_out[i]) == 0)
                return rt_err_set(err, "GPU counters: '%s' and '%s' both read CUPTI metric '%s'",
                                  names[j], name, cupti_out[i]);
    }
    return 0;
}

void rt_gpu_metrics_rename(const rt_gpu_metric_defs *d, const char *const *names,
                           const char *const *cupti, int n, rt_metrics *m)
{
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < m->n; ++j) {
            rt_metric *x = &m->item[j];
            if (strcmp(x->name, cupti[i]) != 0)
                continue;
            const char *unit = "";
            for (int k = 0; k < d->n; ++k)
                if (strcmp(d->def[k].name, names[i]) == 0)
                    unit = d->def[k].unit;
            snprintf(x->name, sizeof x->name, "%s", names[i]);
            if (unit[0])
                snprintf(x->unit, sizeof x->unit, "%s", unit);
            break;
        }
    }
}
