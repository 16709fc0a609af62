#include "rt_strategy_table.h"

#include <math.h>
#include <string.h>

#include "rt_strategy_impl.h"
#include "rt_strutil.h"

/* The strategy list is a build input: the project's harness/search/rt_strategy_list.h, or a test
 * build's own list (-DRT_STRATEGY_LIST_FILE=...), which adds a strategy without touching this
 * file. */
#ifndef RT_STRATEGY_LIST_FILE
#define RT_STRATEGY_LIST_FILE "rt_strategy_list.h"
#endif

#define RT_STRATEGY(s) extern const rt_strategy_ops rt_strat_##s##_ops;
#include RT_STRATEGY_LIST_FILE
#undef RT_STRATEGY

static const rt_strategy_ops *const k_ops[] = {
#define RT_STRATEGY(s) &rt_strat_##s##_ops,
#include RT_STRATEGY_LIST_FILE
#undef RT_STRATEGY
};

/* The names as one array, for the "expected one of" messages of config and the CLI. */
static const char *const k_names[] = {
#define RT_STRATEGY(s) #s,
#include RT_STRATEGY_LIST_FILE
#undef RT_STRATEGY
};

#define N_OPS ((int)(sizeof k_ops / sizeof k_ops[0]))

int rt_strategy_count(void)
{
    return N_OPS;
}

const rt_strategy_info *rt_strategy_at(int i)
{
    return i >= 0 && i < N_OPS ? &k_ops[i]->info : NULL;
}

const struct rt_strategy_ops *rt_strategy_table_ops(const char *name)
{
    for (int i = 0; name && i < N_OPS; ++i)
        if (strcmp(k_ops[i]->info.name, name) == 0)
            return k_ops[i];
    return NULL;
}

const rt_strategy_info *rt_strategy_find(const char *name)
{
    const rt_strategy_ops *ops = rt_strategy_table_ops(name);
    return ops ? &ops->info : NULL;
}

const char *const *rt_strategy_names(int *n)
{
    *n = N_OPS;
    return k_names;
}

/* The names of the strategies that pass `keep` (every one when keep is NULL), as "a, b or c". */
static void join_names(char *buf, size_t len, int (*keep)(const rt_strategy_info *))
{
    int kept[N_OPS], n = 0;
    for (int i = 0; i < N_OPS; ++i)
        if (!keep || keep(&k_ops[i]->info))
            kept[n++] = i;
    size_t used = 0;
    buf[0] = '\0';
    for (int j = 0; j < n && used < len; ++j)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 j == 0 ? "" : (j == n - 1 ? " or " : ", "), k_names[kept[j]]);
}

static void list_names(char *buf, size_t len)
{
    join_names(buf, len, NULL);
}

static int is_blind(const rt_strategy_info *info)
{
    return info->ignores_results;
}

void rt_strategy_blind_names(char *buf, size_t len)
{
    join_names(buf, len, is_blind);
}

int rt_strategy_check_name(const char *name, const char *what, rt_err *err)
{
    if (name && rt_strategy_find(name))
        return 0;
    char all[512];
    list_names(all, sizeof all);
    const char *hint = name ? rt_suggest(name, k_names, N_OPS) : NULL;
    return rt_err_set(err, "%s '%s' is unknown%s%s%s; use %s", what, name ? name : "(none)",
                      hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "", all);
}

static const rt_strategy_option *find_option(const rt_strategy_info *info, const char *key)
{
    for (int k = 0; k < info->n_options; ++k)
        if (strcmp(info->options[k].name, key) == 0)
            return &info->options[k];
    return NULL;
}

int rt_strategy_check_option(const char *strategy, const char *key, double value, rt_err *err)
{
    const rt_strategy_info *info = rt_strategy_find(strategy);
    if (!info)
        return rt_strategy_check_name(strategy, "strategy", err);
    const rt_strategy_option *o = find_option(info, key);
    if (!o) {
        if (info->n_options == 0)
            return rt_err_set(err, "strategy %s has no options ('%s' given)", info->name, key);
        char names[256];
        size_t used = 0;
        const char *cands[RT_STRATEGY_MAX_OPTIONS];
        for (int k = 0; k < info->n_options && k < RT_STRATEGY_MAX_OPTIONS; ++k) {
            cands[k] = info->options[k].name;
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "",
                                     info->options[k].name);
            if (used >= sizeof names)
                break;
        }
        const char *hint = rt_suggest(key, cands, info->n_options);
        return rt_err_set(err, "strategy %s has no option '%s'%s%s%s; its options: %s", info->name,
                          key, hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "",
                          names);
    }
    if (!(value >= o->lo && value <= o->hi) || (o->integer && value != floor(value)))
        return rt_err_set(err, "strategy %s option %s must be %s in [%g, %g], not %g", info->name,
                          key, o->integer ? "an integer" : "a number", o->lo, o->hi, value);
    return 0;
}

int rt_strategy_opts_set(rt_strategy_opts *opts, const char *strategy, const char *key,
                         double value, rt_err *err)
{
    if (rt_strategy_check_option(strategy, key, value, err) != 0)
        return -1;
    int k = 0;
    while (k < opts->n && strcmp(opts->name[k], key) != 0)
        ++k;
    if (k == opts->n) {
        if (opts->n == RT_STRATEGY_MAX_OPTIONS)
            return rt_err_set(err, "at most %d strategy options", RT_STRATEGY_MAX_OPTIONS);
        opts->n++;
    }
    snprintf(opts->name[k], sizeof opts->name[k], "%s", key);
    opts->value[k] = value;
    return 0;
}

int64_t rt_strategy_budget_for(const rt_strategy_info *info, int64_t requested, int64_t size)
{
    int64_t b = requested > 0 ? requested : (info ? info->default_budget : 0);
    if (b <= 0 || b > size)
        b = size;
    return b;
}

static void describe_budget(const rt_strategy_info *info, char *buf, size_t len)
{
    if (info->default_budget > 0)
        snprintf(buf, len, "%lld points", (long long)info->default_budget);
    else
        snprintf(buf, len, "the whole space");
}

/* Writes text from the current column (indent + hang), breaking lines at spaces before column
 * WRAP_COLUMN and starting each further line at that column. */
#define WRAP_COLUMN 100
static void write_wrapped(FILE *f, const char *text, const char *indent, int hang)
{
    const int start = (int)strlen(indent) + hang;
    int col = start;
    while (*text) {
        const size_t word = strcspn(text, " ");
        if (col > start && col + 1 + (int)word > WRAP_COLUMN) {
            fprintf(f, "\n%s%*s", indent, hang, "");
            col = start;
        } else if (col > start) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", (int)word, text);
        col += (int)word;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', f);
}

void rt_strategy_describe(FILE *f, const char *indent, int markdown)
{
    char budget[64];
    if (markdown) {
        fprintf(f, "| strategy | what it does | budget 0 means | options (default, range) |\n"
                   "|---|---|---|---|\n");
        for (int i = 0; i < N_OPS; ++i) {
            const rt_strategy_info *in = &k_ops[i]->info;
            describe_budget(in, budget, sizeof budget);
            fprintf(f, "| `%s` | %s | %s | ", in->name, in->summary, budget);
            if (in->n_options == 0)
                fprintf(f, "none");
            for (int k = 0; k < in->n_options; ++k) {
                const rt_strategy_option *o = &in->options[k];
                fprintf(f, "%s`%s` (%g, %s%g..%g): %s", k ? "; " : "", o->name, o->def,
                        o->integer ? "integer " : "", o->lo, o->hi, o->help);
            }
            fprintf(f, " |\n");
        }
        return;
    }
    char line[1024];
    for (int i = 0; i < N_OPS; ++i) {
        const rt_strategy_info *in = &k_ops[i]->info;
        describe_budget(in, budget, sizeof budget);
        snprintf(line, sizeof line, "%s (budget 0: %s)", in->summary, budget);
        fprintf(f, "%s%-10s ", indent, in->name);
        write_wrapped(f, line, indent, 11);
        for (int k = 0; k < in->n_options; ++k) {
            const rt_strategy_option *o = &in->options[k];
            snprintf(line, sizeof line, "option %s = %g (%s%g..%g): %s", o->name, o->def,
                     o->integer ? "integer " : "", o->lo, o->hi, o->help);
            fprintf(f, "%s%-10s   ", indent, "");
            write_wrapped(f, line, indent, 13);
        }
    }
}
