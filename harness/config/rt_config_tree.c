/* realpath is POSIX (XSI), not C11. */
#define _XOPEN_SOURCE 700

#include "rt_config_tree.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_strutil.h"

/* A chain of includes deeper than this is a mistake, not a design. */
#define MAX_INCLUDE_DEPTH 32
/* Bounds the work a diamond of includes can cause (each file may be read more than once). */
#define MAX_FILES_READ    128
#define MAX_PATH_SEGMENTS 16
#define MAX_SEGMENT       128

typedef struct loader {
    rt_config_tree *tree;
    char *canonical[MAX_INCLUDE_DEPTH]; /* realpath of each file being read, outermost first */
    const char *shown[MAX_INCLUDE_DEPTH];
    int depth;
    int files_read;
    rt_err *err;
} loader;

static int out_of_memory(rt_err *err, const char *where)
{
    return rt_err_set(err, "%s: out of memory while reading the config", where);
}

/* Takes ownership of root (freeing it on failure). */
static int add_source(rt_config_tree *tree, rt_yaml_node *root, int is_file, rt_err *err)
{
    rt_yaml_node **sources =
        realloc(tree->sources, (size_t)(tree->n_sources + 1) * sizeof *sources);
    if (sources)
        tree->sources = sources;
    int *flags = realloc(tree->source_is_file, (size_t)(tree->n_sources + 1) * sizeof *flags);
    if (flags)
        tree->source_is_file = flags;
    if (!sources || !flags) {
        rt_yaml_free(root);
        return out_of_memory(err, "config");
    }
    tree->sources[tree->n_sources] = root;
    tree->source_is_file[tree->n_sources] = is_file;
    tree->n_sources++;
    return 0;
}

static int append_text(rt_config_tree *tree, const char *header, const char *body, size_t len,
                       rt_err *err)
{
    const size_t hlen = strlen(header);
    /* Each piece starts on its own line so the separator comments stay comments. */
    const int need_newline = tree->text_len > 0 && tree->text[tree->text_len - 1] != '\n';
    const size_t total = tree->text_len + (size_t)need_newline + hlen + len + 1;
    char *text = realloc(tree->text, total);
    if (!text)
        return out_of_memory(err, "config text");
    tree->text = text;
    if (need_newline)
        text[tree->text_len++] = '\n';
    memcpy(text + tree->text_len, header, hlen);
    tree->text_len += hlen;
    memcpy(text + tree->text_len, body, len);
    tree->text_len += len;
    text[tree->text_len] = '\0';
    return 0;
}

/* Directory part of path: "a/b.yaml" -> "a", "b.yaml" -> "", "/b.yaml" -> "/". */
static int dir_of(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (slash == path)
        n = 1;
    if (n + 1 > len)
        return -1;
    memcpy(buf, path, n);
    buf[n] = '\0';
    return 0;
}

static int join_path(const char *dir, const char *rel, char *buf, size_t len)
{
    int n;
    if (rel[0] == '/' || dir[0] == '\0')
        n = snprintf(buf, len, "%s", rel);
    else if (dir[strlen(dir) - 1] == '/')
        n = snprintf(buf, len, "%s%s", dir, rel);
    else
        n = snprintf(buf, len, "%s/%s", dir, rel);
    return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

/* dst gets every key of src (but skip_key): maps merge key by key, anything else replaces. */
static int merge_into(rt_yaml_node *dst, const rt_yaml_node *src, const char *skip_key, rt_err *err)
{
    for (int i = 0; i < src->n; ++i) {
        if (skip_key && strcmp(src->keys[i], skip_key) == 0)
            continue;
        const rt_yaml_node *sv = src->items[i];
        const int at = rt_yaml_map_index(dst, src->keys[i]);
        if (at >= 0 && dst->items[at]->kind == RT_YAML_MAP && sv->kind == RT_YAML_MAP) {
            if (merge_into(dst->items[at], sv, NULL, err) != 0)
                return -1;
            continue;
        }
        rt_yaml_node *copy = rt_yaml_clone(sv);
        if (!copy ||
            rt_yaml_map_put(dst, src->keys[i], src->key_lines[i], src->key_cols[i], copy) != 0) {
            rt_yaml_free_node(copy);
            return out_of_memory(err, src->file);
        }
    }
    return 0;
}

static int include_cycle_error(const loader *ld, const rt_yaml_node *at, const char *shown,
                               int first)
{
    char chain[1024] = "";
    size_t used = 0;
    for (int i = first; i < ld->depth && used < sizeof chain; ++i)
        used += (size_t)snprintf(chain + used, sizeof chain - used, "%s -> ", ld->shown[i]);
    if (used < sizeof chain)
        snprintf(chain + used, sizeof chain - used, "%s", shown);
    return rt_err_set(ld->err, "%s:%d:%d: include cycle: %s", at->file, at->line, at->col, chain);
}

static int load_merged(loader *ld, const char *path, const char *written,
                       const rt_yaml_node *include_at, rt_yaml_node **out);

/* The include: entry of root, as a list of scalar nodes. */
static int collect_includes(const rt_yaml_node *inc, const rt_yaml_node ***list, int *n,
                            rt_err *err)
{
    static const char expected[] = "expected a file name or a list of file names";
    *list = NULL;
    *n = 0;
    if (inc->kind == RT_YAML_MAP || (inc->kind == RT_YAML_SCALAR && inc->scalar[0] == '\0')) {
        char got[96];
        rt_yaml_describe(inc, got, sizeof got);
        return rt_err_set(err, "%s:%d:%d: include: %s, got %s", inc->file, inc->line, inc->col,
                          expected, got);
    }
    const int count = inc->kind == RT_YAML_SCALAR ? 1 : inc->n;
    const rt_yaml_node **items = calloc((size_t)(count ? count : 1), sizeof *items);
    if (!items)
        return out_of_memory(err, inc->file);
    for (int i = 0; i < count; ++i) {
        const rt_yaml_node *it = inc->kind == RT_YAML_SCALAR ? inc : inc->items[i];
        if (it->kind != RT_YAML_SCALAR || it->scalar[0] == '\0') {
            char got[96];
            rt_yaml_describe(it, got, sizeof got);
            free(items);
            return rt_err_set(err, "%s:%d:%d: include[%d]: expected a file name, got %s", it->file,
                              it->line, it->col, i, got);
        }
        items[i] = it;
    }
    *list = items;
    *n = count;
    return 0;
}

static int load_includes_and_merge(loader *ld, const char *path, const rt_yaml_node *root,
                                   rt_yaml_node **out)
{
    rt_yaml_node *merged = rt_yaml_new_map(root->file, root->line, root->col);
    if (!merged)
        return out_of_memory(ld->err, path);
    const rt_yaml_node *inc = rt_yaml_map_get(root, "include");
    if (inc) {
        const rt_yaml_node **list;
        int n;
        if (collect_includes(inc, &list, &n, ld->err) != 0) {
            rt_yaml_free_node(merged);
            return -1;
        }
        char dir[PATH_MAX];
        if (dir_of(path, dir, sizeof dir) != 0) {
            free(list);
            rt_yaml_free_node(merged);
            return rt_err_set(ld->err, "%s: path too long", path);
        }
        for (int i = 0; i < n; ++i) {
            char inc_path[PATH_MAX];
            if (join_path(dir, list[i]->scalar, inc_path, sizeof inc_path) != 0) {
                rt_err_set(ld->err, "%s:%d:%d: include: path too long", list[i]->file,
                           list[i]->line, list[i]->col);
                free(list);
                rt_yaml_free_node(merged);
                return -1;
            }
            rt_yaml_node *sub = NULL;
            if (load_merged(ld, inc_path, list[i]->scalar, list[i], &sub) != 0 ||
                merge_into(merged, sub, NULL, ld->err) != 0) {
                rt_yaml_free_node(sub);
                free(list);
                rt_yaml_free_node(merged);
                return -1;
            }
            rt_yaml_free_node(sub);
        }
        free(list);
    }
    if (merge_into(merged, root, "include", ld->err) != 0) {
        rt_yaml_free_node(merged);
        return -1;
    }
    *out = merged;
    return 0;
}

/* Reads path (written as `written` in the including file, at include_at; both NULL for the top
 * file) and returns its map with its own includes merged in. */
static int load_merged(loader *ld, const char *path, const char *written,
                       const rt_yaml_node *include_at, rt_yaml_node **out)
{
    *out = NULL;
    char *canonical = realpath(path, NULL);
    if (!canonical) {
        if (include_at)
            return rt_err_set(ld->err, "%s:%d:%d: include '%s': cannot open '%s': %s",
                              include_at->file, include_at->line, include_at->col, written, path,
                              strerror(errno));
        return rt_err_set(ld->err, "cannot open config '%s': %s", path, strerror(errno));
    }
    for (int i = 0; i < ld->depth; ++i) {
        if (strcmp(ld->canonical[i], canonical) == 0) {
            free(canonical);
            return include_cycle_error(ld, include_at, path, i);
        }
    }
    if (ld->depth >= MAX_INCLUDE_DEPTH || ld->files_read >= MAX_FILES_READ) {
        free(canonical);
        return rt_err_set(ld->err,
                          "%s:%d:%d: include '%s': more than %d nested or %d total "
                          "included files",
                          include_at->file, include_at->line, include_at->col, written,
                          MAX_INCLUDE_DEPTH, MAX_FILES_READ);
    }
    ++ld->files_read;

    char *text;
    size_t len;
    if (rt_yaml_read_file(path, &text, &len, ld->err) != 0) {
        free(canonical);
        if (include_at)
            return rt_err_prefix(ld->err, "%s:%d:%d: include '%s'", include_at->file,
                                 include_at->line, include_at->col, written);
        return -1;
    }
    char header[PATH_MAX + 64] = "";
    if (include_at)
        snprintf(header, sizeof header, "# --- rooftune include: %s\n", written);
    rt_yaml_node *root = NULL;
    int rc = append_text(ld->tree, header, text, len, ld->err);
    if (rc == 0)
        rc = rt_yaml_load_buffer(text, len, path, &root, ld->err);
    free(text);
    if (rc == 0)
        rc = add_source(ld->tree, root, 1, ld->err);
    if (rc == 0 && root->kind != RT_YAML_MAP) {
        rt_err_set(ld->err,
                   "%s:%d:%d: expected a map of settings at the top of the file, got "
                   "a %s",
                   root->file, root->line, root->col, rt_yaml_kind_name(root->kind));
        rc = -1;
    }
    if (rc != 0) {
        free(canonical);
        return -1;
    }
    ld->canonical[ld->depth] = canonical;
    ld->shown[ld->depth] = root->file;
    ld->depth++;
    rc = load_includes_and_merge(ld, path, root, out);
    ld->depth--;
    free(canonical);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Overrides */

typedef struct set_path {
    int n;
    char seg[MAX_PATH_SEGMENTS][MAX_SEGMENT];
} set_path;

static int is_index(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; ++s)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

static int split_path(const char *text, size_t len, set_path *p)
{
    p->n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; ++i) {
        if (i < len && text[i] != '.')
            continue;
        const size_t n = i - start;
        if (n == 0 || n >= MAX_SEGMENT || p->n >= MAX_PATH_SEGMENTS)
            return -1;
        memcpy(p->seg[p->n], text + start, n);
        p->seg[p->n][n] = '\0';
        p->n++;
        start = i + 1;
    }
    return 0;
}

/* Matches path against one pattern. A path that stops inside a pattern (a prefix, such as
 * "measure" for "measure.mode") matches too: it sets a whole section. *matched: how many
 * segments matched before the first mismatch. */
static int pattern_matches(const char *pattern, const set_path *p, int *matched)
{
    set_path pat;
    if (split_path(pattern, strlen(pattern), &pat) != 0) {
        *matched = 0;
        return 0;
    }
    for (int i = 0; i < p->n; ++i) {
        if (i >= pat.n) {
            *matched = i;
            return 0;
        }
        const char *ps = pat.seg[i];
        if (strcmp(ps, "**") == 0) {
            *matched = p->n;
            return 1;
        }
        const int ok = strcmp(ps, "*") == 0 || (strcmp(ps, "#") == 0 && is_index(p->seg[i])) ||
                       strcmp(ps, p->seg[i]) == 0;
        if (!ok) {
            *matched = i;
            return 0;
        }
    }
    *matched = p->n;
    return 1;
}

static void path_prefix(const set_path *p, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; ++i)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "." : "", p->seg[i]);
}

static int check_path(const char *override, const set_path *p,
                      const rt_config_path_pattern *patterns, int n_patterns, rt_err *err)
{
    int best = 0;
    for (int k = 0; k < n_patterns; ++k) {
        int matched;
        if (pattern_matches(patterns[k], p, &matched))
            return 0;
        if (matched > best)
            best = matched;
    }
    /* Suggest among the literal keys that patterns allow where the path went wrong. */
    char names[64][MAX_SEGMENT];
    const char *name_ptrs[64];
    int n_cands = 0, wants_index = 0;
    for (int k = 0; k < n_patterns; ++k) {
        int matched;
        set_path pat;
        pattern_matches(patterns[k], p, &matched);
        if (matched != best || split_path(patterns[k], strlen(patterns[k]), &pat) != 0 ||
            pat.n <= best)
            continue;
        const char *s = pat.seg[best];
        if (strcmp(s, "#") == 0) {
            wants_index = 1;
            continue;
        }
        if (strcmp(s, "*") == 0 || strcmp(s, "**") == 0)
            continue;
        int seen = 0;
        for (int c = 0; c < n_cands && !seen; ++c)
            seen = strcmp(names[c], s) == 0;
        if (!seen && n_cands < 64) {
            snprintf(names[n_cands], MAX_SEGMENT, "%s", s);
            name_ptrs[n_cands] = names[n_cands];
            n_cands++;
        }
    }
    char prefix[512], bad[512];
    path_prefix(p, best, prefix, sizeof prefix);
    path_prefix(p, best + 1, bad, sizeof bad);
    if (wants_index && n_cands == 0)
        return rt_err_set(err,
                          "--set '%s': '%s' is a list: write an item number after it "
                          "(e.g. %s.0)",
                          override, prefix, prefix);
    const char *hint = rt_suggest(p->seg[best], name_ptrs, n_cands);
    if (hint)
        return rt_err_set(err, "--set '%s': unknown setting '%s' (did you mean '%s%s%s'?)",
                          override, bad, prefix, best ? "." : "", hint);
    char list[512] = "";
    size_t used = 0;
    for (int c = 0; c < n_cands && used < sizeof list; ++c)
        used +=
            (size_t)snprintf(list + used, sizeof list - used, "%s%s", c ? ", " : "", name_ptrs[c]);
    if (n_cands == 0)
        return rt_err_set(err,
                          "--set '%s': unknown setting '%s' ('%s' has no settings inside "
                          "it)",
                          override, bad, prefix);
    return rt_err_set(err, "--set '%s': unknown setting '%s' (known%s%s: %s)", override, bad,
                      best ? " under " : "", prefix, list);
}

static int apply_override(rt_config_tree *tree, const char *override, const set_path *p,
                          const rt_yaml_node *value, rt_err *err)
{
    rt_yaml_node *node = tree->root;
    char prefix[512];
    for (int i = 0; i < p->n; ++i) {
        const char *seg = p->seg[i];
        const int last = i == p->n - 1;
        path_prefix(p, i, prefix, sizeof prefix);
        if (node->kind == RT_YAML_SCALAR)
            return rt_err_set(err,
                              "--set '%s': '%s' is a single value (%s:%d:%d), so nothing "
                              "can be set inside it; set '%s' itself",
                              override, prefix, node->file, node->line, node->col, prefix);
        if (node->kind == RT_YAML_SEQ) {
            if (!is_index(seg))
                return rt_err_set(err, "--set '%s': '%s' is a list: '%s' is not an item number",
                                  override, prefix, seg);
            const long idx = strtol(seg, NULL, 10);
            if (idx >= node->n || strlen(seg) > 9)
                return rt_err_set(err,
                                  "--set '%s': '%s' has %d item%s (numbered from 0); there "
                                  "is no item %s",
                                  override, prefix, node->n, node->n == 1 ? "" : "s", seg);
            if (last) {
                rt_yaml_node *copy = rt_yaml_clone(value);
                if (!copy)
                    return out_of_memory(err, "--set");
                rt_yaml_free_node(node->items[idx]);
                node->items[idx] = copy;
                return 0;
            }
            node = node->items[idx];
            continue;
        }
        /* A map. */
        if (last) {
            rt_yaml_node *copy = rt_yaml_clone(value);
            if (!copy || rt_yaml_map_put(node, seg, value->line, value->col, copy) != 0) {
                rt_yaml_free_node(copy);
                return out_of_memory(err, "--set");
            }
            return 0;
        }
        rt_yaml_node *child = (rt_yaml_node *)rt_yaml_map_get(node, seg);
        if (!child) {
            char here[512];
            path_prefix(p, i + 1, here, sizeof here);
            if (is_index(p->seg[i + 1]))
                return rt_err_set(err, "--set '%s': the config has no '%s', so it has no item %s",
                                  override, here, p->seg[i + 1]);
            child = rt_yaml_new_map(value->file, value->line, value->col);
            if (!child || rt_yaml_map_put(node, seg, value->line, value->col, child) != 0) {
                rt_yaml_free_node(child);
                return out_of_memory(err, "--set");
            }
        }
        node = child;
    }
    return 0;
}

static int load_override(rt_config_tree *tree, const char *override,
                         const rt_config_path_pattern *patterns, int n_patterns, rt_err *err)
{
    const char *eq = strchr(override, '=');
    if (!eq)
        return rt_err_set(err, "--set '%s': expected dotted.path=value (e.g. measure.max_reps=3)",
                          override);
    const char *start = override, *end = eq;
    while (start < end && isspace((unsigned char)*start))
        ++start;
    while (end > start && isspace((unsigned char)end[-1]))
        --end;
    set_path p;
    if (start == end || split_path(start, (size_t)(end - start), &p) != 0)
        return rt_err_set(err,
                          "--set '%s': malformed path before '=' (expected names and item "
                          "numbers separated by single dots, at most %d of them)",
                          override, MAX_PATH_SEGMENTS);
    if (check_path(override, &p, patterns, n_patterns, err) != 0)
        return -1;
    char label[600];
    char shown[512];
    path_prefix(&p, p.n, shown, sizeof shown);
    snprintf(label, sizeof label, "--set %s", shown);
    const char *value = eq + 1;
    int blank = 1;
    for (const char *c = value; *c; ++c)
        blank &= isspace((unsigned char)*c) != 0;
    rt_yaml_node *root;
    /* An empty value means the empty string; libyaml would read an empty document instead. */
    if (rt_yaml_load_string(blank ? "''" : value, label, &root, err) != 0)
        return -1;
    if (add_source(tree, root, 0, err) != 0)
        return -1;
    return apply_override(tree, override, &p, root, err);
}

/* ------------------------------------------------------------------------------------------ */

void rt_config_tree_free(rt_config_tree *tree)
{
    if (!tree)
        return;
    rt_yaml_free_node(tree->root);
    for (int i = 0; i < tree->n_sources; ++i)
        rt_yaml_free(tree->sources[i]);
    free(tree->sources);
    free(tree->source_is_file);
    free(tree->text);
    memset(tree, 0, sizeof *tree);
}

int rt_config_tree_load(const char *path, const char *const *overrides, int n_overrides,
                        const rt_config_path_pattern *patterns, int n_patterns,
                        rt_config_tree *tree, rt_err *err)
{
    memset(tree, 0, sizeof *tree);
    if (!path || !*path)
        return rt_err_set(err, "no config file given");
    loader ld;
    memset(&ld, 0, sizeof ld);
    ld.tree = tree;
    ld.err = err;
    if (load_merged(&ld, path, NULL, NULL, &tree->root) != 0) {
        rt_config_tree_free(tree);
        return -1;
    }
    uint64_t h = rt_hash64(tree->text, tree->text_len, 0);
    for (int i = 0; i < n_overrides; ++i) {
        if (!overrides[i] || load_override(tree, overrides[i], patterns, n_patterns, err) != 0) {
            if (!overrides[i])
                rt_err_set(err, "--set: override %d is missing", i + 1);
            rt_config_tree_free(tree);
            return -1;
        }
        /* The terminating NUL separates overrides, so "a=1","b=2" and "a=1b=2" hash apart. */
        h = rt_hash64(overrides[i], strlen(overrides[i]) + 1, h);
    }
    rt_hash_hex(h, tree->hash);
    return 0;
}

int rt_config_tree_base_dir(const rt_config_tree *tree, const rt_yaml_node *node, char *buf,
                            size_t len)
{
    if (len == 0)
        return -1;
    buf[0] = '\0';
    for (int i = 0; i < tree->n_sources; ++i) {
        if (tree->sources[i]->file == node->file)
            return tree->source_is_file[i] ? dir_of(node->file, buf, len) : 0;
    }
    return 0;
}
