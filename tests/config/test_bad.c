/* Malformed configs: every each tests/config/bad/NAME.yaml must fail to load (or fail the registry
 * check) with a message that starts with the file:line of the offending node and contains the
 * expected fragments. Each file states its expectations in leading comment lines:
 *
 *   # expect: <fragment>      (one or more; each must appear in the message)
 *   # line: <N>               (the message starts with "<file>:<N>:")
 *   # file: <path>            (optional: the file named in the message, relative to bad/,
 *                              when the error lies in an included file)
 *   # prefix: <text>          (instead of line/file: the message starts with this text, for
 *                              errors in --set overrides, which have no file)
 *   # set: <path=value>       (optional, repeatable: --set overrides to apply)
 *
 * Usage: test_config_bad <tests/config/bad> */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_config.h"
#include "rt_test.h"
#include "test_registry.h"

/* The brief asks for at least this many malformed configs; fewer means files went missing. */
#define MIN_BAD_CONFIGS 20
#define MAX_FILES       256
#define MAX_EXPECT      8
#define MAX_SETS        8

typedef struct expectation {
    char expect[MAX_EXPECT][512];
    int n_expect;
    int line;
    char file[256];
    char prefix[512];
    char sets[MAX_SETS][256];
    int n_sets;
} expectation;

static void strip_newline(char *s)
{
    s[strcspn(s, "\r\n")] = '\0';
}

/* Reads the leading "# key: value" lines. Returns 0, or -1 when they are unusable. */
static int read_expectation(const char *path, expectation *ex)
{
    memset(ex, 0, sizeof *ex);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char line[1024];
    while (fgets(line, sizeof line, f) && strncmp(line, "# ", 2) == 0) {
        strip_newline(line);
        const char *body = line + 2;
        if (strncmp(body, "expect: ", 8) == 0 && ex->n_expect < MAX_EXPECT)
            snprintf(ex->expect[ex->n_expect++], sizeof ex->expect[0], "%s", body + 8);
        else if (strncmp(body, "line: ", 6) == 0)
            ex->line = atoi(body + 6);
        else if (strncmp(body, "file: ", 6) == 0)
            snprintf(ex->file, sizeof ex->file, "%s", body + 6);
        else if (strncmp(body, "prefix: ", 8) == 0)
            snprintf(ex->prefix, sizeof ex->prefix, "%s", body + 8);
        else if (strncmp(body, "set: ", 5) == 0 && ex->n_sets < MAX_SETS)
            snprintf(ex->sets[ex->n_sets++], sizeof ex->sets[0], "%s", body + 5);
    }
    fclose(f);
    if (ex->n_expect == 0 || (ex->line <= 0 && ex->prefix[0] == '\0'))
        return -1;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Runs one bad config; returns 1 when it behaved as its header says. */
static int run_case(const char *dir, const char *name, const rt_registry *reg)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    expectation ex;
    if (read_expectation(path, &ex) != 0) {
        fprintf(stderr, "%s: missing or malformed '# expect:' / '# line:' header\n", path);
        return 0;
    }
    const char *sets[MAX_SETS];
    for (int i = 0; i < ex.n_sets; ++i)
        sets[i] = ex.sets[i];
    rt_config cfg;
    rt_err err;
    rt_err_clear(&err);
    int failed = rt_config_load(path, sets, ex.n_sets, &cfg, &err) != 0;
    if (!failed) {
        failed = rt_config_check(&cfg, reg, &err) != 0;
        rt_config_free(&cfg);
    }
    if (!failed) {
        fprintf(stderr, "%s: loaded and checked without error, but should fail\n", path);
        return 0;
    }
    char prefix[1400];
    if (ex.prefix[0])
        snprintf(prefix, sizeof prefix, "%s", ex.prefix);
    else
        snprintf(prefix, sizeof prefix, "%s/%s:%d:", dir, ex.file[0] ? ex.file : name, ex.line);
    int ok = 1;
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0) {
        fprintf(stderr, "%s: message does not start with '%s':\n  %s\n", path, prefix, err.msg);
        ok = 0;
    }
    /* Every located message carries a column after the line: "file:line:col: ". */
    if (ok && !ex.prefix[0]) {
        const char *rest = err.msg + strlen(prefix);
        char *end = NULL;
        const long col = strtol(rest, &end, 10);
        if (col < 1 || !end || strncmp(end, ": ", 2) != 0) {
            fprintf(stderr, "%s: no column after the line in:\n  %s\n", path, err.msg);
            ok = 0;
        }
    }
    for (int i = 0; i < ex.n_expect; ++i) {
        if (!rt_test_contains(err.msg, ex.expect[i])) {
            fprintf(stderr, "%s: message lacks '%s':\n  %s\n", path, ex.expect[i], err.msg);
            ok = 0;
        }
    }
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_config_bad <tests/config/bad>\n");
        return 2;
    }
    const char *dir = argv[1];
    rt_registry reg;
    rt_err err;
    if (test_registry_init(&reg, &err) != 0) {
        fprintf(stderr, "test registry: %s\n", err.msg);
        return 1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "cannot open %s\n", dir);
        return 1;
    }
    char *names[MAX_FILES];
    int n = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL && n < MAX_FILES) {
        const size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    int passed = 0;
    for (int i = 0; i < n; ++i) {
        const int ok = names[i] && run_case(dir, names[i], &reg);
        RT_CHECK_MSG(ok, "bad config %s", names[i] ? names[i] : "(out of memory)");
        passed += ok;
        free(names[i]);
    }
    RT_CHECK_MSG(n >= MIN_BAD_CONFIGS, "only %d bad configs in %s (at least %d expected)", n, dir,
                 MIN_BAD_CONFIGS);
    printf("%d of %d malformed configs rejected as expected\n", passed, n);
    return RT_TEST_RESULT();
}
