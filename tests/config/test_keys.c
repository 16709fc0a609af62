/* The config key table (rt_config_keys.h) drives everything about keys: for every key of the
 * table with a value of its own, this test checks that
 *   - its default (the table's text) is what a config without the key loads,
 *   - a config that writes it gets the value (the section's key check accepts it),
 *   - --set PATH=VALUE reaches it (its pattern is derived from the table),
 *   - a misspelling of it is an unknown key of its section;
 * and that docs/guides/config.md lists every key of the table with the table's type and default.
 * A key added to the table is therefore checked here without a line of this test changing.
 *
 * Usage: test_config_keys <docs/guides/config.md> */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_config.h"
#include "rt_config_keys.h"
#include "rt_test.h"

#define SCRATCH "test_config_keys_scratch.yaml"

/* What a list's item needs besides the key under test, as "key: value" pairs. */
typedef struct base_item {
    const char *list;
    const char *pairs[4];
} base_item;

static const base_item k_bases[] = {
    {"matrices", {"name: m", "generator: banded", "ordering: metis", NULL}},
    {"kernels", {"name: k", NULL}},
    {"plots", {"x: matrix", "series: kernel", "type: bars", NULL}},
};

/* Settings a key's value needs to be legal (its check hook's rules). */
static const char *companion(const char *path)
{
    if (strcmp(path, "search.stop_within") == 0)
        return "prune: bound";
    return NULL;
}

static int is_value_kind(rt_key_kind k)
{
    return k == RT_KEY_INT || k == RT_KEY_REAL || k == RT_KEY_TEXT || k == RT_KEY_NAME ||
           k == RT_KEY_ENUM || k == RT_KEY_WORD || k == RT_KEY_FLAG;
}

/* A legal value other than the default, as YAML text. */
static void other_value(const rt_config_key *k, char *buf, size_t len)
{
    int n = 0;
    switch (k->kind) {
    case RT_KEY_INT: {
        int64_t d = k->min;
        if (k->def)
            d = strtoll(k->def, NULL, 10);
        const int64_t v = d + 1 <= k->max ? d + 1 : d - 1;
        snprintf(buf, len, "%" PRId64, v == d ? k->min + 1 : v);
        break;
    }
    case RT_KEY_REAL: {
        const double d = k->def ? strtod(k->def, NULL) : k->lo;
        snprintf(buf, len, "%.17g", isinf(k->hi) ? d + 1.0 : (d + k->hi) / 2.0);
        break;
    }
    case RT_KEY_TEXT: snprintf(buf, len, "tval"); break;
    case RT_KEY_NAME: snprintf(buf, len, "tname"); break;
    case RT_KEY_ENUM:
    case RT_KEY_WORD: {
        const char *const *c = k->choices(&n);
        snprintf(buf, len, "%s", k->def && strcmp(c[0], k->def) == 0 ? c[1] : c[0]);
        break;
    }
    case RT_KEY_FLAG: snprintf(buf, len, "true"); break;
    default: buf[0] = '\0';
    }
}

/* The list a "list.#.key" path belongs to, or NULL for a section key. */
static const base_item *base_of(const char *path)
{
    for (size_t i = 0; i < sizeof k_bases / sizeof k_bases[0]; ++i) {
        const size_t n = strlen(k_bases[i].list);
        if (strncmp(path, k_bases[i].list, n) == 0 && strncmp(path + n, ".#.", 3) == 0)
            return &k_bases[i];
    }
    return NULL;
}

/* A config whose only interesting content is the key at path written as `value` (or, with
 * value NULL, the key's section or list item without it). `as` replaces the key's name (a
 * misspelling). */
static void config_text(const rt_config_key *k, const char *as, const char *value, char *buf,
                        size_t len)
{
    const char *name = as ? as : rt_config_key_name(k);
    const base_item *b = base_of(k->path);
    size_t o = (size_t)snprintf(buf, len, "experiment: {name: t}\n");
    if (b) {
        o += (size_t)snprintf(buf + o, len - o, "%s:\n  - {", b->list);
        int first = 1;
        for (int i = 0; i < 4 && b->pairs[i]; ++i) {
            const size_t nl = strlen(name);
            if (strncmp(b->pairs[i], name, nl) == 0 && b->pairs[i][nl] == ':')
                continue; /* the key under test: absent, or written below */
            o += (size_t)snprintf(buf + o, len - o, "%s%s", first ? "" : ", ", b->pairs[i]);
            first = 0;
        }
        if (value)
            o += (size_t)snprintf(buf + o, len - o, "%s%s: %s", first ? "" : ", ", name, value);
        snprintf(buf + o, len - o, "}\n");
        return;
    }
    const char *dot = strchr(k->path, '.');
    const char *with = companion(k->path);
    if (!dot) {
        if (value && strcmp(k->path, "experiment") != 0)
            snprintf(buf + o, len - o, "%s: %s\n", name, value);
        return;
    }
    if (strncmp(k->path, "experiment.", 11) == 0) /* the section the base already writes */
        o = 0;
    o += (size_t)snprintf(buf + o, len - o, "%.*s: {", (int)(dot - k->path), k->path);
    if (strncmp(k->path, "experiment.", 11) == 0 && strcmp(name, "name") != 0)
        o += (size_t)snprintf(buf + o, len - o, "name: t%s", value ? ", " : "");
    if (value)
        o += (size_t)snprintf(buf + o, len - o, "%s: %s%s%s", name, value, with ? ", " : "",
                              with ? with : "");
    snprintf(buf + o, len - o, "}\n");
}

static int load_text(const char *text, const char *const *sets, int n_sets, rt_config *cfg,
                     rt_err *err)
{
    FILE *f = fopen(SCRATCH, "w");
    if (!f)
        return rt_err_set(err, "cannot write %s", SCRATCH);
    fputs(text, f);
    fclose(f);
    rt_err_clear(err);
    const int rc = rt_config_load(SCRATCH, sets, n_sets, cfg, err);
    remove(SCRATCH);
    return rc;
}

/* The struct the key fills in a loaded config: the config, or the first item of its list. */
static const void *base_in(const rt_config *cfg, const rt_config_key *k)
{
    const base_item *b = base_of(k->path);
    if (!b)
        return cfg;
    const rt_config_key *list = rt_config_key_find(b->list);
    const void *items;
    memcpy(&items, (const char *)cfg + list->offset, sizeof items);
    return items;
}

/* Whether the field of k in a loaded config holds the YAML value text. */
static int holds(const rt_config *cfg, const rt_config_key *k, const char *text)
{
    const char *base = base_in(cfg, k);
    if (!base)
        return 0;
    const void *at = base + k->offset;
    int n = 0;
    switch (k->kind) {
    case RT_KEY_INT: {
        const int64_t want = strtoll(text, NULL, 10);
        int64_t got;
        if (k->size == sizeof(int))
            got = *(const int *)at;
        else
            memcpy(&got, at, sizeof got);
        return got == want;
    }
    case RT_KEY_REAL:
        if (!text)
            return isnan(*(const double *)at);
        return *(const double *)at == strtod(text, NULL);
    case RT_KEY_ENUM: {
        const char *const *c = k->choices(&n);
        const int i = *(const int *)at;
        return i >= 0 && i < n && strcmp(c[i], text) == 0;
    }
    case RT_KEY_FLAG: return *(const int *)at == (strcmp(text, "true") == 0 ? 1 : -1);
    default: return strcmp((const char *)at, text) == 0;
    }
}

static void test_key(const rt_config_key *k)
{
    char value[64], text[1024];
    rt_config cfg;
    rt_err err;

    /* Defaults: the section (or item) without the key. */
    if (k->def || k->kind == RT_KEY_REAL) {
        config_text(k, NULL, NULL, text, sizeof text);
        if (load_text(text, NULL, 0, &cfg, &err) == 0) {
            RT_CHECK_MSG(holds(&cfg, k, k->def), "%s: the default '%s' was not applied", k->path,
                         k->def ? k->def : "(NaN)");
            rt_config_free(&cfg);
        } else {
            RT_CHECK_MSG(0, "%s: the config without it does not load: %s\n%s", k->path, err.msg,
                         text);
        }
    }

    /* Reading: the key written in its section. */
    other_value(k, value, sizeof value);
    config_text(k, NULL, value, text, sizeof text);
    if (load_text(text, NULL, 0, &cfg, &err) == 0) {
        RT_CHECK_MSG(holds(&cfg, k, value), "%s: %s was not read", k->path, value);
        rt_config_free(&cfg);
    } else {
        RT_CHECK_MSG(0, "%s: %s: %s\n%s", k->path, value, err.msg, text);
    }

    /* --set: the same value over the config without it (every key with a value can be set). */
    {
        char path[96], set[160];
        snprintf(path, sizeof path, "%s", k->path);
        char *hash = strstr(path, ".#.");
        if (hash)
            hash[1] = '0';
        snprintf(set, sizeof set, "%s=%s", path, value);
        const char *sets[2] = {set, NULL};
        int n_sets = 1;
        char with[96];
        if (companion(k->path)) {
            snprintf(with, sizeof with, "%.*s.%s", (int)(strrchr(k->path, '.') - k->path), k->path,
                     companion(k->path));
            *strstr(with, ": ") = '=';
            memmove(strchr(with, '=') + 1, strchr(with, '=') + 2, strlen(strchr(with, '=') + 1));
            sets[n_sets++] = with;
        }
        config_text(k, NULL, NULL, text, sizeof text);
        if (load_text(text, sets, n_sets, &cfg, &err) == 0) {
            RT_CHECK_MSG(holds(&cfg, k, value), "--set %s was not applied", set);
            rt_config_free(&cfg);
        } else {
            RT_CHECK_MSG(0, "--set %s: %s", set, err.msg);
        }
    }

    /* The check: the key's name doubled at its start is unknown in its section. */
    char wrong[64];
    snprintf(wrong, sizeof wrong, "%c%s", rt_config_key_name(k)[0], rt_config_key_name(k));
    config_text(k, wrong, value, text, sizeof text);
    char expected[128];
    snprintf(expected, sizeof expected, "unknown key '%s'", wrong);
    const int rc = load_text(text, NULL, 0, &cfg, &err);
    /* A matrix takes any other key as a generator argument: there the check is the registry's. */
    if (strncmp(k->path, "matrices.", 9) == 0) {
        if (rc == 0)
            rt_config_free(&cfg);
        return;
    }
    RT_CHECK_MSG(rc != 0 && rt_test_contains(err.msg, expected), "%s misspelt as %s: %s", k->path,
                 wrong, rc == 0 ? "accepted" : err.msg);
    if (rc == 0)
        rt_config_free(&cfg);
}

/* Every --set pattern the table derives, for the record: each settable key has one. */
static void test_patterns(void)
{
    char patterns[128][RT_CONFIG_PATTERN_MAX];
    const int n = rt_config_key_set_patterns(patterns, 128);
    RT_CHECK(n > 0);
    int n_keys = 0;
    const rt_config_key *keys = rt_config_keys(&n_keys);
    for (int i = 0; i < n_keys; ++i) {
        if (!(keys[i].set & RT_SET_SELF))
            continue;
        int found = 0;
        for (int j = 0; j < n && !found; ++j)
            found = strcmp(patterns[j], keys[i].path) == 0;
        RT_CHECK_MSG(found, "%s has no --set pattern", keys[i].path);
    }
    /* Too small a buffer is an error, not a silent cut. */
    RT_CHECK(rt_config_key_set_patterns(patterns, 3) == -1);
}

/* docs/guides/config.md: each key in the table of its section, with the table's type (the doc
 * may say more after it) and default. */
static const char *section_heading(const char *path)
{
    static char heading[64];
    const char *dot = strchr(path, '.');
    if (!dot)
        return "## Top-level keys";
    snprintf(heading, sizeof heading, "### %.*s", (int)(dot - path), path);
    return heading;
}

/* The row "| `name` | type | default | ..." of the first table after heading, split into its
 * type and default cells. */
static int doc_row(const char *doc, const char *heading, const char *name, char *type, char *def,
                   size_t len)
{
    const char *at = strstr(doc, heading);
    while (at && at[strlen(heading)] != '\n')
        at = strstr(at + 1, heading);
    if (!at)
        return 0;
    const char *end = strstr(at + strlen(heading), "\n#");
    char cell[96];
    snprintf(cell, sizeof cell, "\n| `%s` |", name);
    const char *row = strstr(at, cell);
    if (!row || (end && row > end))
        return 0;
    row += strlen(cell);
    const char *bar = strchr(row, '|');
    const char *bar2 = bar ? strchr(bar + 1, '|') : NULL;
    if (!bar || !bar2)
        return 0;
    snprintf(type, len, "%.*s", (int)(bar - row), row);
    snprintf(def, len, "%.*s", (int)(bar2 - bar - 1), bar + 1);
    /* trim */
    for (char *s = type; s; s = (s == type ? def : NULL)) {
        char *p = s;
        while (*p == ' ')
            ++p;
        memmove(s, p, strlen(p) + 1);
        for (size_t n = strlen(s); n > 0 && s[n - 1] == ' '; --n)
            s[n - 1] = '\0';
    }
    return 1;
}

static void test_docs(const char *doc_path)
{
    FILE *f = fopen(doc_path, "rb");
    if (!f) {
        RT_CHECK_MSG(0, "cannot read %s", doc_path);
        return;
    }
    static char doc[1 << 20];
    const size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    int n_keys = 0;
    const rt_config_key *keys = rt_config_keys(&n_keys);
    for (int i = 0; i < n_keys; ++i) {
        const rt_config_key *k = &keys[i];
        char type[512], def[512], want[512];
        if (!doc_row(doc, section_heading(k->path), rt_config_key_name(k), type, def,
                     sizeof type)) {
            RT_CHECK_MSG(0, "%s: no row for `%s` under '%s'", doc_path, rt_config_key_name(k),
                         section_heading(k->path));
            continue;
        }
        rt_config_key_type_text(k, want, sizeof want);
        RT_CHECK_MSG(strncmp(type, want, strlen(want)) == 0,
                     "%s: `%s` has type '%s', the table '%s'", doc_path, k->path, type, want);
        if (k->def) {
            snprintf(want, sizeof want, "`%s`", k->def[0] ? k->def : "\"\"");
            RT_CHECK_MSG(strcmp(def, want) == 0, "%s: `%s` has default '%s', the table %s",
                         doc_path, k->path, def, want);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_config_keys DOCS/guides/config.md\n");
        return 2;
    }
    int n = 0;
    const rt_config_key *keys = rt_config_keys(&n);
    int tested = 0;
    for (int i = 0; i < n; ++i) {
        if (!is_value_kind(keys[i].kind) || keys[i].size == 0)
            continue;
        test_key(&keys[i]);
        ++tested;
    }
    RT_CHECK_MSG(tested >= 30, "only %d keys with values of their own", tested);
    test_patterns();
    test_docs(argv[1]);
    return RT_TEST_RESULT();
}
