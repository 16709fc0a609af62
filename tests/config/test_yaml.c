/* rt_yaml: node tree, positions, quoting, duplicate keys, syntax errors, typed readers, key
 * checks, tree editing, and garbage input (which must give an error, never a crash). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"
#include "rt_yaml.h"

static rt_yaml_node *load_ok(const char *text)
{
    rt_yaml_node *root = NULL;
    rt_err err;
    rt_err_clear(&err);
    const int rc = rt_yaml_load_string(text, "t.yaml", &root, &err);
    RT_CHECK_MSG(rc == 0, "load failed: %s", err.msg);
    return rc == 0 ? root : NULL;
}

/* Expects a load failure whose message starts with prefix and contains fragment. */
static void load_fails(const char *text, const char *prefix, const char *fragment)
{
    rt_yaml_node *root = NULL;
    rt_err err;
    rt_err_clear(&err);
    const int rc = rt_yaml_load_string(text, "t.yaml", &root, &err);
    RT_CHECK_MSG(rc != 0, "expected failure for [%s]", text);
    RT_CHECK_MSG(root == NULL, "root must stay NULL on failure");
    RT_CHECK_MSG(strncmp(err.msg, prefix, strlen(prefix)) == 0, "[%s] should start with [%s]",
                 err.msg, prefix);
    RT_CHECK_MSG(rt_test_contains(err.msg, fragment), "[%s] should contain [%s]", err.msg,
                 fragment);
    rt_yaml_free(root);
}

static void test_tree(void)
{
    rt_yaml_node *root = load_ok("# comment\n"
                                 "name: quick\n"
                                 "list: [1, 'two', \"3\"]\n"
                                 "nested:\n"
                                 "  inner: {a: 1, b: [x, y]}\n"
                                 "  empty:\n"
                                 "block: |\n"
                                 "  text\n");
    if (!root)
        return;
    RT_CHECK(root->kind == RT_YAML_MAP && root->n == 4);
    RT_CHECK(strcmp(root->file, "t.yaml") == 0);
    RT_CHECK(strcmp(root->keys[0], "name") == 0 && root->key_lines[0] == 2 &&
             root->key_cols[0] == 1);
    const rt_yaml_node *name = rt_yaml_map_get(root, "name");
    RT_CHECK(name && name->kind == RT_YAML_SCALAR && strcmp(name->scalar, "quick") == 0);
    RT_CHECK(name && name->line == 2 && name->col == 7 && !name->quoted);
    const rt_yaml_node *list = rt_yaml_map_get(root, "list");
    RT_CHECK(list && list->kind == RT_YAML_SEQ && list->n == 3);
    if (list && list->n == 3) {
        RT_CHECK(!list->items[0]->quoted && list->items[1]->quoted && list->items[2]->quoted);
        RT_CHECK(list->items[1]->line == 3 && list->items[1]->col == 11);
        RT_CHECK(strcmp(list->items[2]->scalar, "3") == 0);
    }
    const rt_yaml_node *nested = rt_yaml_map_get(root, "nested");
    const rt_yaml_node *inner = rt_yaml_map_get(nested, "inner");
    RT_CHECK(inner && inner->kind == RT_YAML_MAP && inner->n == 2 && inner->line == 5);
    const rt_yaml_node *b = rt_yaml_map_get(inner, "b");
    RT_CHECK(b && b->kind == RT_YAML_SEQ && b->n == 2 && strcmp(b->items[1]->scalar, "y") == 0);
    const rt_yaml_node *empty = rt_yaml_map_get(nested, "empty");
    RT_CHECK(empty && empty->kind == RT_YAML_SCALAR && empty->scalar[0] == '\0' && !empty->quoted);
    const rt_yaml_node *block = rt_yaml_map_get(root, "block");
    RT_CHECK(block && block->quoted && strcmp(block->scalar, "text\n") == 0);
    RT_CHECK(rt_yaml_map_get(root, "missing") == NULL);
    RT_CHECK(rt_yaml_map_get(list, "x") == NULL); /* not a map */
    RT_CHECK(rt_yaml_map_index(root, "block") == 3);

    /* Clone, edit, free: the clone is independent of the original. */
    rt_yaml_node *copy = rt_yaml_clone(root);
    RT_CHECK(copy && copy->n == 4);
    if (copy) {
        rt_yaml_node *v = rt_yaml_new_scalar(root->file, 9, 1, "replaced", 1);
        RT_CHECK(v && rt_yaml_map_put(copy, "name", 9, 1, v) == 0);
        RT_CHECK(strcmp(rt_yaml_map_get(copy, "name")->scalar, "replaced") == 0);
        RT_CHECK(strcmp(rt_yaml_map_get(root, "name")->scalar, "quick") == 0);
        rt_yaml_node *w = rt_yaml_new_scalar(root->file, 10, 1, "new", 0);
        RT_CHECK(w && rt_yaml_map_put(copy, "added", 10, 1, w) == 0 && copy->n == 5);
        rt_yaml_free_node(copy);
    }
    rt_yaml_free(root);

    /* Empty documents are empty maps. */
    rt_yaml_node *e = load_ok("");
    RT_CHECK(e && e->kind == RT_YAML_MAP && e->n == 0);
    rt_yaml_free(e);
    e = load_ok("# nothing but a comment\n");
    RT_CHECK(e && e->kind == RT_YAML_MAP && e->n == 0);
    rt_yaml_free(e);
    /* A scalar document keeps its own root (the --set values use this). */
    e = load_ok("[32, 64]");
    RT_CHECK(e && e->kind == RT_YAML_SEQ && e->n == 2);
    rt_yaml_free(e);
    e = load_ok("!!str 5");
    RT_CHECK(e && e->kind == RT_YAML_SCALAR && e->quoted);
    rt_yaml_free(e);

    /* Large sequences grow correctly. */
    char big[8192];
    size_t used = (size_t)snprintf(big, sizeof big, "[");
    for (int i = 0; i < 1000; ++i)
        used += (size_t)snprintf(big + used, sizeof big - used, "%s%d", i ? "," : "", i);
    snprintf(big + used, sizeof big - used, "]");
    e = load_ok(big);
    RT_CHECK(e && e->n == 1000 && strcmp(e->items[999]->scalar, "999") == 0);
    rt_yaml_free(e);
}

static void test_errors(void)
{
    /* the YAML, the start of its message and a fragment of the rest */
    static const struct {
        const char *text, *prefix, *fragment;
    } cases[] = {
        {"a: 1\nb: 2\na: 3\n", "t.yaml:3:1: ", "duplicate key 'a' (first defined at line 1)"},
        {"m:\n  x: 1\n  x: 2\n", "t.yaml:3:3: ", "duplicate key 'x'"},
        {"problem: {K: [32, 64}\n", "t.yaml:1:21: YAML syntax error: ",
         "did not find expected ',' or ']' (while parsing a flow sequence"},
        {"a: 1\nb:\n\t- 2\n",
         "t.yaml:3:1: YAML syntax error: ", "found character that cannot start any token"},
        {"a: 'open\nb: 2\n", "t.yaml:3:1: YAML syntax error: ", "quoted scalar"},
        {"a: \xff\xfe\n", "t.yaml:1:4: YAML syntax error: ", "UTF-8"},
        {"a: &x 1\nb: *x\n", "t.yaml:1:4: ", "anchors (&x) are not supported"},
        {"a: 1\nb: *x\n", "t.yaml:2:4: ", ""},
        {"a: 1\n---\nb: 2\n", "t.yaml:2:1: ", "a second YAML document"},
        {"? [a]\n: 1\n", "t.yaml:1:3: ", "a sequence cannot be used as a map key"},
        {"a: !!int 3\n", "t.yaml:1:4: ", "YAML tag '!!int' is not supported"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        load_fails(cases[i].text, cases[i].prefix, cases[i].fragment);
    char deep[2100];
    memset(deep, '[', 1000);
    memset(deep + 1000, ']', 1000);
    deep[2000] = '\0';
    load_fails(deep, "t.yaml:1:257: ", "nesting deeper than 256 levels");

    /* A NUL byte inside the buffer is refused, not silently cut. */
    rt_yaml_node *root = NULL;
    rt_err err;
    RT_CHECK(rt_yaml_load_buffer("a: b\0c\n", 7, "nul.yaml", &root, &err) != 0 && !root);
    RT_CHECK_MSG(rt_test_contains(err.msg, "nul.yaml:1:5: YAML syntax error"), "%s", err.msg);

    RT_CHECK(rt_yaml_load_file("/nonexistent/dir/x.yaml", &root, &err) != 0 && !root);
    RT_CHECK_MSG(rt_test_contains(err.msg, "cannot open '/nonexistent/dir/x.yaml'") &&
                     rt_test_contains(err.msg, "No such file"),
                 "%s", err.msg);
    RT_CHECK(rt_yaml_load_file("/", &root, &err) != 0 && !root);
    RT_CHECK_MSG(rt_test_contains(err.msg, "'/'"), "%s", err.msg);
    RT_CHECK(rt_yaml_load_string(NULL, "x", &root, &err) != 0);
}

static void test_readers(void)
{
    rt_yaml_node *root = load_ok("i: 42\nneg: -7\nhex: 0x1F\nr: 2.5\ne: 1e3\nw: abc\nq: '12'\n"
                                 "l: [1]\nt: true\nf: off\nbig: 99999999999999999999\nf2: 1.5\n");
    if (!root)
        return;
    rt_err err;
    int64_t i;
    double d;
    const char *s;
    int b;
    RT_CHECK(rt_yaml_get_int(rt_yaml_map_get(root, "i"), "x.i", &i, &err) == 0 && i == 42);
    RT_CHECK(rt_yaml_get_int(rt_yaml_map_get(root, "neg"), "x.neg", &i, &err) == 0 && i == -7);
    RT_CHECK(rt_yaml_get_int(rt_yaml_map_get(root, "hex"), "x.hex", &i, &err) == 0 && i == 31);
    RT_CHECK(rt_yaml_get_int(rt_yaml_map_get(root, "q"), "x.q", &i, &err) == 0 && i == 12);
    RT_CHECK(rt_yaml_get_int(rt_yaml_map_get(root, "w"), "x.w", &i, &err) != 0);
    RT_CHECK_MSG(strcmp(err.msg, "t.yaml:6:4: x.w: expected an integer, got 'abc'") == 0, "%s",
                 err.msg);
    RT_CHECK(rt_yaml_get_int(rt_yaml_map_get(root, "f2"), "x.f2", &i, &err) != 0);
    RT_CHECK(rt_yaml_get_int(rt_yaml_map_get(root, "big"), "x.big", &i, &err) != 0);
    RT_CHECK(rt_yaml_get_int(rt_yaml_map_get(root, "l"), "x.l", &i, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "t.yaml:8:4: x.l: expected an integer, got a sequence"),
                 "%s", err.msg);
    RT_CHECK(rt_yaml_get_int(NULL, "x.none", &i, &err) != 0 &&
             rt_test_contains(err.msg, "x.none: missing"));
    RT_CHECK(rt_yaml_get_double(rt_yaml_map_get(root, "r"), "x.r", &d, &err) == 0 && d == 2.5);
    RT_CHECK(rt_yaml_get_double(rt_yaml_map_get(root, "e"), "x.e", &d, &err) == 0 && d == 1000);
    RT_CHECK(rt_yaml_get_double(rt_yaml_map_get(root, "i"), "x.i", &d, &err) == 0 && d == 42);
    RT_CHECK(rt_yaml_get_double(rt_yaml_map_get(root, "w"), "x.w", &d, &err) != 0 &&
             rt_test_contains(err.msg, "expected a number, got 'abc'"));
    RT_CHECK(rt_yaml_get_string(rt_yaml_map_get(root, "w"), "x.w", &s, &err) == 0 &&
             strcmp(s, "abc") == 0);
    RT_CHECK(rt_yaml_get_string(rt_yaml_map_get(root, "l"), "x.l", &s, &err) != 0 &&
             rt_test_contains(err.msg, "expected a string"));
    RT_CHECK(rt_yaml_get_bool(rt_yaml_map_get(root, "t"), "x.t", &b, &err) == 0 && b == 1);
    RT_CHECK(rt_yaml_get_bool(rt_yaml_map_get(root, "f"), "x.f", &b, &err) == 0 && b == 0);
    RT_CHECK(rt_yaml_get_bool(rt_yaml_map_get(root, "w"), "x.w", &b, &err) != 0);

    /* Number parsers reject what strtod alone would take. */
    double r;
    RT_CHECK(rt_yaml_parse_real("nan", &r) != 0 && rt_yaml_parse_real("inf", &r) != 0);
    RT_CHECK(rt_yaml_parse_real("1e999", &r) != 0 && rt_yaml_parse_real("1e", &r) != 0);
    RT_CHECK(rt_yaml_parse_real(".5", &r) == 0 && r == 0.5);
    RT_CHECK(rt_yaml_parse_real("", &r) != 0 && rt_yaml_parse_real("1.2.3", &r) != 0);
    RT_CHECK(rt_yaml_parse_int("-9223372036854775808", &i) == 0 && i == INT64_MIN);
    RT_CHECK(rt_yaml_parse_int("9223372036854775808", &i) != 0);
    RT_CHECK(rt_yaml_parse_int(" 1", &i) != 0 && rt_yaml_parse_int("0x", &i) != 0);
    rt_yaml_free(root);
}

static void test_check_keys(void)
{
    rt_yaml_node *root = load_ok("measure:\n  warmup: 1\n  max_rep: 3\nother: {zzzz: 1}\n");
    if (!root)
        return;
    static const char *const allowed[] = {"warmup", "min_reps", "max_reps"};
    rt_err err;
    RT_CHECK(rt_yaml_check_keys(rt_yaml_map_get(root, "measure"), "measure", allowed, 3, &err) !=
             0);
    RT_CHECK_MSG(strcmp(err.msg, "t.yaml:3:3: measure: unknown key 'max_rep' (did you mean "
                                 "'max_reps'?)") == 0,
                 "%s", err.msg);
    RT_CHECK(rt_yaml_check_keys(rt_yaml_map_get(root, "other"), "other", allowed, 3, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "t.yaml:4:9: other: unknown key 'zzzz' (known keys: "
                                           "warmup, min_reps, max_reps)"),
                 "%s", err.msg);
    static const char *const top[] = {"measure", "other"};
    RT_CHECK(rt_yaml_check_keys(root, "config", top, 2, &err) == 0);
    const rt_yaml_node *scalar = rt_yaml_map_get(rt_yaml_map_get(root, "measure"), "warmup");
    RT_CHECK(rt_yaml_check_keys(scalar, "measure.warmup", top, 2, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "t.yaml:2:11: measure.warmup: expected a map, got '1'"),
                 "%s", err.msg);
    rt_yaml_free(root);
}

/* Deterministic garbage from YAML's significant characters: every input either loads or fails
 * with a message; the sanitizers catch anything worse. */
static void test_garbage(void)
{
    static const char alphabet[] = "ab:- \n\t[]{},'\"&*!|>#?%@`\\.0123456789\xc3\xff";
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    int failures_with_message = 0, loaded = 0;
    for (int iter = 0; iter < 4000; ++iter) {
        char text[96];
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const int len = (int)((state >> 33) % (sizeof text - 1));
        for (int i = 0; i < len; ++i) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            text[i] = alphabet[(state >> 33) % (sizeof alphabet - 1)];
        }
        text[len] = '\0';
        rt_yaml_node *root = NULL;
        rt_err err;
        rt_err_clear(&err);
        if (rt_yaml_load_string(text, "fuzz.yaml", &root, &err) == 0) {
            ++loaded;
            rt_yaml_node *copy = rt_yaml_clone(root);
            rt_yaml_free_node(copy);
            rt_yaml_free(root);
        } else {
            failures_with_message += strncmp(err.msg, "fuzz.yaml:", 10) == 0;
            RT_CHECK_MSG(strncmp(err.msg, "fuzz.yaml:", 10) == 0,
                         "garbage error without "
                         "position: %s",
                         err.msg);
        }
    }
    RT_CHECK(loaded > 0 && failures_with_message > 0);
}

int main(void)
{
    test_tree();
    test_errors();
    test_readers();
    test_check_keys();
    test_garbage();
    return RT_TEST_RESULT();
}
