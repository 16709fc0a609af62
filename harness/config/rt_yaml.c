/* strdup and strcasecmp are POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "rt_yaml.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "rt_strutil.h"

/* Deeper nesting than this is certainly not a config, and bounding it keeps the recursive helpers
 * (free, clone) safe on hostile input. */
#define RT_YAML_MAX_DEPTH 256
/* Files larger than this are not configs either; refusing them early avoids reading a stray
 * multi-gigabyte file into memory because of a typo in an include. The node tree takes some 60
 * times the text (a 60 MB file took 3.75 GB), so the limit is far above any real config (the
 * largest in the repository is a few KiB) and far below what would exhaust a host. */
#define RT_YAML_MAX_FILE_BYTES (4L * 1024 * 1024)

/* The root of a loaded tree carries the file name in the same allocation, so freeing the root
 * node (a plain free of its address) releases the name too, and rt_yaml_free needs no side table.
 */
typedef struct yaml_root {
    rt_yaml_node node;
    char file[];
} yaml_root;

const char *rt_yaml_kind_name(rt_yaml_kind kind)
{
    switch (kind) {
    case RT_YAML_MAP: return "map";
    case RT_YAML_SEQ: return "sequence";
    default: return "scalar";
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Node storage */

/* Children arrays grow by doubling; the capacity is implied by n (4, 8, 16, ...) so the public
 * struct needs no capacity field. */
static int needs_growth(int n)
{
    if (n == 0)
        return 1;
    if (n < 4)
        return 0;
    return (n & (n - 1)) == 0;
}

static int grow_children(rt_yaml_node *node)
{
    if (!needs_growth(node->n))
        return 0;
    const size_t cap = node->n == 0 ? 4 : (size_t)node->n * 2;
    rt_yaml_node **items = realloc(node->items, cap * sizeof *items);
    if (!items)
        return -1;
    node->items = items;
    if (node->kind == RT_YAML_MAP) {
        char **keys = realloc(node->keys, cap * sizeof *keys);
        if (!keys)
            return -1;
        node->keys = keys;
        int *lines = realloc(node->key_lines, cap * sizeof *lines);
        if (!lines)
            return -1;
        node->key_lines = lines;
        int *cols = realloc(node->key_cols, cap * sizeof *cols);
        if (!cols)
            return -1;
        node->key_cols = cols;
    }
    return 0;
}

static void free_children(rt_yaml_node *node)
{
    for (int i = 0; i < node->n; ++i) {
        rt_yaml_free_node(node->items[i]);
        if (node->kind == RT_YAML_MAP)
            free(node->keys[i]);
    }
    free(node->items);
    free(node->keys);
    free(node->key_lines);
    free(node->key_cols);
    free(node->scalar);
}

void rt_yaml_free_node(rt_yaml_node *node)
{
    if (!node)
        return;
    free_children(node);
    free(node);
}

void rt_yaml_free(rt_yaml_node *root)
{
    /* The root's file name lives in the root's own allocation (yaml_root), so this is the same
     * walk as for any node. */
    rt_yaml_free_node(root);
}

static rt_yaml_node *node_new(rt_yaml_kind kind, const char *file, int line, int col)
{
    rt_yaml_node *node = calloc(1, sizeof *node);
    if (!node)
        return NULL;
    node->kind = kind;
    node->file = file;
    node->line = line;
    node->col = col;
    return node;
}

rt_yaml_node *rt_yaml_new_map(const char *file, int line, int col)
{
    return node_new(RT_YAML_MAP, file, line, col);
}

rt_yaml_node *rt_yaml_new_scalar(const char *file, int line, int col, const char *text, int quoted)
{
    rt_yaml_node *node = node_new(RT_YAML_SCALAR, file, line, col);
    if (!node)
        return NULL;
    node->scalar = strdup(text);
    if (!node->scalar) {
        free(node);
        return NULL;
    }
    node->quoted = quoted;
    return node;
}

int rt_yaml_seq_append(rt_yaml_node *seq, rt_yaml_node *item)
{
    if (seq->kind != RT_YAML_SEQ || grow_children(seq) != 0)
        return -1;
    seq->items[seq->n++] = item;
    return 0;
}

int rt_yaml_map_put(rt_yaml_node *map, const char *key, int line, int col, rt_yaml_node *value)
{
    if (map->kind != RT_YAML_MAP)
        return -1;
    const int at = rt_yaml_map_index(map, key);
    if (at >= 0) {
        rt_yaml_free_node(map->items[at]);
        map->items[at] = value;
        map->key_lines[at] = line;
        map->key_cols[at] = col;
        return 0;
    }
    char *copy = strdup(key);
    if (!copy || grow_children(map) != 0) {
        free(copy);
        return -1;
    }
    map->keys[map->n] = copy;
    map->key_lines[map->n] = line;
    map->key_cols[map->n] = col;
    map->items[map->n] = value;
    map->n++;
    return 0;
}

rt_yaml_node *rt_yaml_clone(const rt_yaml_node *src)
{
    rt_yaml_node *dst = node_new(src->kind, src->file, src->line, src->col);
    if (!dst)
        return NULL;
    dst->quoted = src->quoted;
    if (src->scalar && !(dst->scalar = strdup(src->scalar)))
        goto fail;
    for (int i = 0; i < src->n; ++i) {
        rt_yaml_node *child = rt_yaml_clone(src->items[i]);
        if (!child)
            goto fail;
        const int rc =
            src->kind == RT_YAML_MAP
                ? rt_yaml_map_put(dst, src->keys[i], src->key_lines[i], src->key_cols[i], child)
                : rt_yaml_seq_append(dst, child);
        if (rc != 0) {
            rt_yaml_free_node(child);
            goto fail;
        }
    }
    return dst;
fail:
    rt_yaml_free_node(dst);
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Parsing (libyaml event API) */

typedef struct build_frame {
    rt_yaml_node *node;
    /* Maps alternate key, value: while a key is pending, the next event is its value. */
    char *pending_key;
    int key_line, key_col;
} build_frame;

typedef struct build_ctx {
    const char *file;
    rt_yaml_node *root;
    build_frame stack[RT_YAML_MAX_DEPTH];
    int depth;
    int documents;
} build_ctx;

static int event_line(const yaml_event_t *ev)
{
    return (int)ev->start_mark.line + 1;
}
static int event_col(const yaml_event_t *ev)
{
    return (int)ev->start_mark.column + 1;
}

static rt_yaml_node *new_root(rt_yaml_kind kind, const char *name, int line, int col)
{
    const size_t len = strlen(name);
    yaml_root *root = calloc(1, sizeof *root + len + 1);
    if (!root)
        return NULL;
    memcpy(root->file, name, len + 1);
    root->node.kind = kind;
    root->node.file = root->file;
    root->node.line = line;
    root->node.col = col;
    return &root->node;
}

/* Attaches a freshly built node to the open container (or makes it the root). On failure the
 * node is freed here, so the caller never owns it afterwards. */
static int attach(build_ctx *ctx, rt_yaml_node *node, const yaml_event_t *ev, rt_err *err)
{
    if (ctx->depth == 0) {
        ctx->root = node;
        return 0;
    }
    build_frame *top = &ctx->stack[ctx->depth - 1];
    if (top->node->kind == RT_YAML_SEQ) {
        if (rt_yaml_seq_append(top->node, node) != 0) {
            rt_yaml_free_node(node);
            return rt_err_set(err, "%s:%d:%d: out of memory while reading YAML", ctx->file,
                              event_line(ev), event_col(ev));
        }
        return 0;
    }
    if (!top->pending_key) {
        /* A key position: only scalars make sensible config keys. */
        const int line = event_line(ev), col = event_col(ev);
        if (node->kind != RT_YAML_SCALAR) {
            const rt_yaml_kind kind = node->kind;
            rt_yaml_free_node(node);
            return rt_err_set(err, "%s:%d:%d: a %s cannot be used as a map key", ctx->file, line,
                              col, rt_yaml_kind_name(kind));
        }
        const int dup = rt_yaml_map_index(top->node, node->scalar);
        if (dup >= 0) {
            rt_err_set(err, "%s:%d:%d: duplicate key '%s' (first defined at line %d)", ctx->file,
                       line, col, node->scalar, top->node->key_lines[dup]);
            rt_yaml_free_node(node);
            return -1;
        }
        top->pending_key = node->scalar;
        top->key_line = line;
        top->key_col = col;
        node->scalar = NULL;
        rt_yaml_free_node(node);
        return 0;
    }
    const int rc = rt_yaml_map_put(top->node, top->pending_key, top->key_line, top->key_col, node);
    free(top->pending_key);
    top->pending_key = NULL;
    if (rc != 0) {
        rt_yaml_free_node(node);
        return rt_err_set(err, "%s:%d:%d: out of memory while reading YAML", ctx->file,
                          event_line(ev), event_col(ev));
    }
    return 0;
}

/* A container is attached when it opens (so a partial tree is always reachable from the root
 * and freed with it) but not yet as a map key: keys that are containers are refused in attach. */
static int open_container(build_ctx *ctx, rt_yaml_kind kind, const yaml_event_t *ev, rt_err *err)
{
    const int line = event_line(ev), col = event_col(ev);
    if (ctx->depth >= RT_YAML_MAX_DEPTH)
        return rt_err_set(err, "%s:%d:%d: nesting deeper than %d levels", ctx->file, line, col,
                          RT_YAML_MAX_DEPTH);
    rt_yaml_node *node = ctx->depth == 0 ? new_root(kind, ctx->file, line, col)
                                         : node_new(kind, ctx->file, line, col);
    if (!node)
        return rt_err_set(err, "%s:%d:%d: out of memory while reading YAML", ctx->file, line, col);
    if (ctx->depth == 0)
        ctx->file = node->file; /* from now on every node points at the root's copy */
    if (attach(ctx, node, ev, err) != 0)
        return -1;
    build_frame *frame = &ctx->stack[ctx->depth++];
    frame->node = node;
    frame->pending_key = NULL;
    return 0;
}

static int reject_anchor_or_tag(build_ctx *ctx, const yaml_event_t *ev, const yaml_char_t *anchor,
                                const yaml_char_t *tag, int *force_string, rt_err *err)
{
    if (anchor)
        return rt_err_set(err,
                          "%s:%d:%d: YAML anchors (&%s) are not supported: write the value out "
                          "or move shared settings into a file named by include:",
                          ctx->file, event_line(ev), event_col(ev), (const char *)anchor);
    if (tag) {
        if (strcmp((const char *)tag, YAML_STR_TAG) == 0) {
            *force_string = 1;
            return 0;
        }
        /* Show the standard tags the way users write them (!!int, not tag:yaml.org,...). */
        const char *shown = (const char *)tag;
        const size_t std_len = strlen("tag:yaml.org,2002:");
        const int standard = strncmp(shown, "tag:yaml.org,2002:", std_len) == 0;
        return rt_err_set(err, "%s:%d:%d: YAML tag '%s%s' is not supported (only !!str is)",
                          ctx->file, event_line(ev), event_col(ev), standard ? "!!" : "",
                          standard ? shown + std_len : shown);
    }
    return 0;
}

static int handle_event(build_ctx *ctx, const yaml_event_t *ev, rt_err *err)
{
    int force_string = 0;
    switch (ev->type) {
    case YAML_STREAM_START_EVENT:
    case YAML_STREAM_END_EVENT:
    case YAML_DOCUMENT_END_EVENT:
    case YAML_NO_EVENT: return 0;
    case YAML_DOCUMENT_START_EVENT:
        if (++ctx->documents > 1)
            return rt_err_set(err,
                              "%s:%d:%d: a second YAML document ('---') starts here; a config "
                              "file holds exactly one",
                              ctx->file, event_line(ev), event_col(ev));
        return 0;
    case YAML_ALIAS_EVENT:
        return rt_err_set(err,
                          "%s:%d:%d: YAML aliases (*%s) are not supported: write the value out "
                          "or move shared settings into a file named by include:",
                          ctx->file, event_line(ev), event_col(ev),
                          (const char *)ev->data.alias.anchor);
    case YAML_MAPPING_START_EVENT:
        if (reject_anchor_or_tag(ctx, ev, ev->data.mapping_start.anchor, ev->data.mapping_start.tag,
                                 &force_string, err) != 0)
            return -1;
        return open_container(ctx, RT_YAML_MAP, ev, err);
    case YAML_SEQUENCE_START_EVENT:
        if (reject_anchor_or_tag(ctx, ev, ev->data.sequence_start.anchor,
                                 ev->data.sequence_start.tag, &force_string, err) != 0)
            return -1;
        return open_container(ctx, RT_YAML_SEQ, ev, err);
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
        if (ctx->depth > 0) {
            --ctx->depth;
            free(ctx->stack[ctx->depth].pending_key);
            ctx->stack[ctx->depth].pending_key = NULL;
        }
        return 0;
    case YAML_SCALAR_EVENT: {
        if (reject_anchor_or_tag(ctx, ev, ev->data.scalar.anchor, ev->data.scalar.tag,
                                 &force_string, err) != 0)
            return -1;
        const int line = event_line(ev), col = event_col(ev);
        const char *text = (const char *)ev->data.scalar.value;
        const size_t len = ev->data.scalar.length;
        if (memchr(text, '\0', len))
            return rt_err_set(err, "%s:%d:%d: a scalar contains a NUL character", ctx->file, line,
                              col);
        const int quoted = force_string || ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
        rt_yaml_node *node = ctx->depth == 0 ? new_root(RT_YAML_SCALAR, ctx->file, line, col)
                                             : node_new(RT_YAML_SCALAR, ctx->file, line, col);
        if (!node)
            return rt_err_set(err, "%s:%d:%d: out of memory while reading YAML", ctx->file, line,
                              col);
        if (ctx->depth == 0)
            ctx->file = node->file;
        node->quoted = quoted;
        node->scalar = malloc(len + 1);
        if (!node->scalar) {
            rt_yaml_free_node(node);
            return rt_err_set(err, "%s:%d:%d: out of memory while reading YAML", ctx->file, line,
                              col);
        }
        memcpy(node->scalar, text, len);
        node->scalar[len] = '\0';
        return attach(ctx, node, ev, err);
    }
    }
    return 0;
}

static void format_syntax_error(const yaml_parser_t *parser, const char *text, size_t len,
                                const char *file, rt_err *err)
{
    const char *problem = parser->problem ? parser->problem : "malformed input";
    if (parser->error == YAML_READER_ERROR) {
        /* Reader errors (bad encoding, control characters) carry a byte offset, not a line:
         * count the lines up to it so the message points where an editor would. */
        const size_t at = parser->problem_offset < len ? parser->problem_offset : len;
        int line = 1;
        size_t line_start = 0;
        for (size_t i = 0; i < at; ++i) {
            if (text[i] == '\n') {
                ++line;
                line_start = i + 1;
            }
        }
        rt_err_set(err, "%s:%d:%d: YAML syntax error: %s (byte offset %zu)", file, line,
                   (int)(at - line_start) + 1, problem, parser->problem_offset);
        return;
    }
    if (parser->error == YAML_MEMORY_ERROR) {
        rt_err_set(err, "%s: out of memory while reading YAML", file);
        return;
    }
    if (parser->context)
        rt_err_set(err, "%s:%d:%d: YAML syntax error: %s (%s at line %d, column %d)", file,
                   (int)parser->problem_mark.line + 1, (int)parser->problem_mark.column + 1,
                   problem, parser->context, (int)parser->context_mark.line + 1,
                   (int)parser->context_mark.column + 1);
    else
        rt_err_set(err, "%s:%d:%d: YAML syntax error: %s", file, (int)parser->problem_mark.line + 1,
                   (int)parser->problem_mark.column + 1, problem);
}

int rt_yaml_load_buffer(const char *text, size_t len, const char *name, rt_yaml_node **root,
                        rt_err *err)
{
    if (!text || !name || !root)
        return rt_err_set(err, "rt_yaml_load_buffer: text, name and root must not be NULL");
    *root = NULL;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return rt_err_set(err, "%s: cannot initialise the YAML parser (out of memory)", name);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);

    build_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.file = name;
    int rc = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            format_syntax_error(&parser, text, len, ctx.file, err);
            rc = -1;
            break;
        }
        const int done = ev.type == YAML_STREAM_END_EVENT;
        rc = handle_event(&ctx, &ev, err);
        yaml_event_delete(&ev);
        if (rc != 0 || done)
            break;
    }
    yaml_parser_delete(&parser);
    for (int i = 0; i < ctx.depth; ++i)
        free(ctx.stack[i].pending_key);
    if (rc != 0) {
        rt_yaml_free(ctx.root);
        return -1;
    }
    if (!ctx.root) {
        /* An empty file (or only comments) is an empty map: "nothing configured". */
        ctx.root = new_root(RT_YAML_MAP, name, 1, 1);
        if (!ctx.root)
            return rt_err_set(err, "%s: out of memory while reading YAML", name);
    }
    *root = ctx.root;
    return 0;
}

int rt_yaml_load_string(const char *text, const char *name, rt_yaml_node **root, rt_err *err)
{
    if (!text || !name || !root)
        return rt_err_set(err, "rt_yaml_load_string: text, name and root must not be NULL");
    return rt_yaml_load_buffer(text, strlen(text), name, root, err);
}

int rt_yaml_read_file(const char *path, char **text, size_t *len, rt_err *err)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_err_set(err, "cannot open '%s': %s", path, strerror(errno));
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return rt_err_set(err, "cannot read '%s': out of memory", path);
    }
    for (;;) {
        if (used + 1 >= cap) {
            if (cap >= (size_t)RT_YAML_MAX_FILE_BYTES) {
                free(buf);
                fclose(f);
                return rt_err_set(err, "'%s' is larger than %ld MiB; not a config file", path,
                                  RT_YAML_MAX_FILE_BYTES / (1024 * 1024));
            }
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                fclose(f);
                return rt_err_set(err, "cannot read '%s': out of memory", path);
            }
            buf = bigger;
            cap *= 2;
        }
        const size_t got = fread(buf + used, 1, cap - used - 1, f);
        used += got;
        if (got == 0)
            break;
    }
    const int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        return rt_err_set(err, "cannot read '%s' (is it a directory?)", path);
    }
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return 0;
}

int rt_yaml_load_file(const char *path, rt_yaml_node **root, rt_err *err)
{
    if (!path || !root)
        return rt_err_set(err, "rt_yaml_load_file: path and root must not be NULL");
    *root = NULL;
    char *text;
    size_t len;
    if (rt_yaml_read_file(path, &text, &len, err) != 0)
        return -1;
    const int rc = rt_yaml_load_buffer(text, len, path, root, err);
    free(text);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Access */

int rt_yaml_map_index(const rt_yaml_node *map, const char *key)
{
    if (!map || map->kind != RT_YAML_MAP || !key)
        return -1;
    for (int i = 0; i < map->n; ++i)
        if (strcmp(map->keys[i], key) == 0)
            return i;
    return -1;
}

void rt_yaml_key_pos(const rt_yaml_node *map, int i, const char **file, int *line, int *col)
{
    const rt_yaml_node *value = map->items[i];
    if (value->file != map->file) {
        *file = value->file;
        *line = value->line;
        *col = value->col;
        return;
    }
    *file = map->file;
    *line = map->key_lines[i];
    *col = map->key_cols[i];
}

const rt_yaml_node *rt_yaml_map_get(const rt_yaml_node *map, const char *key)
{
    const int i = rt_yaml_map_index(map, key);
    return i < 0 ? NULL : map->items[i];
}

void rt_yaml_describe(const rt_yaml_node *n, char *buf, size_t len)
{
    if (n->kind == RT_YAML_MAP) {
        snprintf(buf, len, "a map");
    } else if (n->kind == RT_YAML_SEQ) {
        snprintf(buf, len, "a sequence");
    } else if (!n->quoted && n->scalar[0] == '\0') {
        snprintf(buf, len, "nothing");
    } else {
        /* Long scalars are cut so the message stays one readable line. */
        const size_t max_shown = 60;
        if (strlen(n->scalar) > max_shown)
            snprintf(buf, len, "'%.*s...'", (int)max_shown, n->scalar);
        else
            snprintf(buf, len, "'%s'", n->scalar);
    }
}

static int type_error(const rt_yaml_node *n, const char *what, const char *expected, rt_err *err)
{
    char got[96];
    rt_yaml_describe(n, got, sizeof got);
    return rt_err_set(err, "%s:%d:%d: %s: expected %s, got %s", n->file, n->line, n->col, what,
                      expected, got);
}

int rt_yaml_parse_int(const char *s, int64_t *out)
{
    const char *p = s;
    int negative = 0;
    if (*p == '+' || *p == '-')
        negative = *p++ == '-';
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (!isxdigit((unsigned char)*p) || (base == 10 && !isdigit((unsigned char)*p)))
        return -1;
    errno = 0;
    char *end = NULL;
    const unsigned long long mag = strtoull(p, &end, base);
    if (errno != 0 || *end != '\0')
        return -1;
    if (negative) {
        if (mag > (unsigned long long)INT64_MAX + 1ULL)
            return -1;
        *out = mag == (unsigned long long)INT64_MAX + 1ULL ? INT64_MIN : -(int64_t)mag;
    } else {
        if (mag > (unsigned long long)INT64_MAX)
            return -1;
        *out = (int64_t)mag;
    }
    return 0;
}

int rt_yaml_parse_real(const char *s, double *out)
{
    /* Only decimal notation: strtod alone would also take "nan", "inf" and hex floats, which in
     * a config are far more likely typos than intent. */
    const char *p = s;
    if (*p == '+' || *p == '-')
        ++p;
    int digits = 0;
    while (isdigit((unsigned char)*p)) {
        ++p;
        ++digits;
    }
    if (*p == '.') {
        ++p;
        while (isdigit((unsigned char)*p)) {
            ++p;
            ++digits;
        }
    }
    if (digits == 0)
        return -1;
    if (*p == 'e' || *p == 'E') {
        ++p;
        if (*p == '+' || *p == '-')
            ++p;
        if (!isdigit((unsigned char)*p))
            return -1;
        while (isdigit((unsigned char)*p))
            ++p;
    }
    if (*p != '\0')
        return -1;
    errno = 0;
    const double v = strtod(s, NULL);
    if (errno == ERANGE && !isfinite(v))
        return -1;
    if (!isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int rt_yaml_get_double(const rt_yaml_node *n, const char *what, double *out, rt_err *err)
{
    if (!n)
        return rt_err_set(err, "%s: missing", what);
    int64_t i;
    if (n->kind == RT_YAML_SCALAR) {
        if (rt_yaml_parse_real(n->scalar, out) == 0)
            return 0;
        if (rt_yaml_parse_int(n->scalar, &i) == 0) { /* hex integers */
            *out = (double)i;
            return 0;
        }
    }
    return type_error(n, what, "a number", err);
}

int rt_yaml_get_int(const rt_yaml_node *n, const char *what, int64_t *out, rt_err *err)
{
    if (!n)
        return rt_err_set(err, "%s: missing", what);
    if (n->kind == RT_YAML_SCALAR && rt_yaml_parse_int(n->scalar, out) == 0)
        return 0;
    return type_error(n, what, "an integer", err);
}

int rt_yaml_get_string(const rt_yaml_node *n, const char *what, const char **out, rt_err *err)
{
    if (!n)
        return rt_err_set(err, "%s: missing", what);
    if (n->kind == RT_YAML_SCALAR) {
        *out = n->scalar;
        return 0;
    }
    return type_error(n, what, "a string", err);
}

int rt_yaml_get_bool(const rt_yaml_node *n, const char *what, int *out, rt_err *err)
{
    if (!n)
        return rt_err_set(err, "%s: missing", what);
    if (n->kind == RT_YAML_SCALAR && !n->quoted) {
        static const char *const yes[] = {"true", "yes", "on", "1"};
        static const char *const no[] = {"false", "no", "off", "0"};
        for (size_t k = 0; k < sizeof yes / sizeof yes[0]; ++k) {
            if (strcasecmp(n->scalar, yes[k]) == 0) {
                *out = 1;
                return 0;
            }
            if (strcasecmp(n->scalar, no[k]) == 0) {
                *out = 0;
                return 0;
            }
        }
    }
    return type_error(n, what, "true or false", err);
}

int rt_yaml_check_keys(const rt_yaml_node *map, const char *what, const char *const *allowed,
                       int n_allowed, rt_err *err)
{
    if (!map)
        return rt_err_set(err, "%s: missing", what);
    if (map->kind != RT_YAML_MAP)
        return type_error(map, what, "a map", err);
    for (int i = 0; i < map->n; ++i) {
        int known = 0;
        for (int k = 0; k < n_allowed && !known; ++k)
            known = strcmp(map->keys[i], allowed[k]) == 0;
        if (known)
            continue;
        const char *file;
        int line, col;
        rt_yaml_key_pos(map, i, &file, &line, &col);
        const char *hint = rt_suggest(map->keys[i], allowed, n_allowed);
        if (hint)
            return rt_err_set(err, "%s:%d:%d: %s: unknown key '%s' (did you mean '%s'?)", file,
                              line, col, what, map->keys[i], hint);
        char list[512] = "";
        size_t used = 0;
        for (int k = 0; k < n_allowed && used < sizeof list; ++k)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "",
                                     allowed[k]);
        return rt_err_set(err, "%s:%d:%d: %s: unknown key '%s' (known keys: %s)", file, line, col,
                          what, map->keys[i], list);
    }
    return 0;
}
