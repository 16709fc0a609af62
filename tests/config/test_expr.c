/* rt_expr: precedence, functions, identifiers, evaluation errors, parse errors with columns,
 * and garbage input. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rt_expr.h"
#include "rt_test.h"

typedef struct var {
    const char *name;
    double value;
} var;

static const var k_vars[] = {
    {"register_tile", 8}, {"K", 32},
    {"row_block", 256},   {"device.max_shared_per_block_optin", 232448},
    {"matrix.nnz", 1000}, {"matrix.rows", 100},
    {"zero", 0},          {"not_a_number", NAN},
};

static int lookup(const char *name, void *ctx, double *out)
{
    int *calls = ctx;
    if (calls)
        ++*calls;
    for (size_t i = 0; i < sizeof k_vars / sizeof k_vars[0]; ++i) {
        if (strcmp(k_vars[i].name, name) == 0) {
            *out = k_vars[i].value;
            return 0;
        }
    }
    return -1;
}

/* text parsed (err cleared), or NULL and a failed check when it does not parse. */
static rt_expr *parsed(const char *text, rt_err *err)
{
    rt_expr *e = NULL;
    rt_err_clear(err);
    if (rt_expr_parse(text, &e, err) != 0) {
        RT_CHECK_MSG(0, "parse of [%s] failed: %s", text, err->msg);
        return NULL;
    }
    return e;
}

static void value_is(const char *text, double expected)
{
    rt_err err;
    rt_expr *e = parsed(text, &err);
    if (!e)
        return;
    double v = NAN;
    const int rc = rt_expr_eval(e, lookup, NULL, &v, &err);
    RT_CHECK_MSG(rc == 0 && v == expected, "[%s] gave %g (rc %d: %s), expected %g", text, v, rc,
                 err.msg, expected);
    RT_CHECK(strcmp(rt_expr_text(e), text) == 0);
    rt_expr_free(e);
}

static void eval_fails(const char *text, const char *fragment)
{
    rt_err err;
    rt_expr *e = parsed(text, &err);
    if (!e)
        return;
    double v;
    RT_CHECK_MSG(rt_expr_eval(e, lookup, NULL, &v, &err) != 0, "[%s] should fail", text);
    RT_CHECK_MSG(rt_test_contains(err.msg, fragment), "[%s]: [%s] lacks [%s]", text, err.msg,
                 fragment);
    rt_expr_free(e);
}

static void parse_fails(const char *text, int col, const char *fragment)
{
    rt_expr *e = NULL;
    rt_err err;
    rt_err_clear(&err);
    int at = -1;
    RT_CHECK_MSG(rt_expr_parse_at(text, &e, &at, &err) != 0, "[%s] should not parse", text);
    RT_CHECK(e == NULL);
    RT_CHECK_MSG(at == col, "[%s]: error column %d, expected %d (%s)", text, at, col, err.msg);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "column %d: ", col);
    RT_CHECK_MSG(strncmp(err.msg, prefix, strlen(prefix)) == 0, "[%s] lacks prefix [%s]", err.msg,
                 prefix);
    RT_CHECK_MSG(rt_test_contains(err.msg, fragment), "[%s]: [%s] lacks [%s]", text, err.msg,
                 fragment);
    rt_expr_free(e);
}

static void test_precedence(void)
{
    value_is("1 + 2 * 3", 7);
    value_is("(1 + 2) * 3", 9);
    value_is("10 - 4 - 3", 3); /* left-associative */
    value_is("64 / 4 / 2", 8);
    value_is("7 / 2", 3.5);   /* exact division */
    value_is("2 * 3 % 4", 2); /* same level, left to right */
    value_is("7 % 3", 1);
    value_is("-7 % 3", -1); /* sign of the dividend, as in C */
    value_is("-2 * 3", -6);
    value_is("- -2", 2);
    value_is("+3", 3);
    value_is("!0 + 1", 2);
    value_is("!5", 0);
    value_is("1 + 2 < 4", 1);  /* arithmetic before comparison */
    value_is("1 < 2 == 1", 1); /* relational before equality */
    value_is("2 == 2 != 0", 1);
    value_is("1 || 0 && 0", 1); /* && before || */
    value_is("(1 || 0) && 0", 0);
    value_is("3 >= 3 && 3 <= 3 && 2 > 1 && 1 < 2 && 1 != 2", 1);
    value_is("1e3 + .5 + 2.5E-1", 1000.75);
    value_is("  42  ", 42);
}

typedef struct acc {
    char *buf;
    int count;
} acc;

/* Collects identifier names into a comma list. */
static int collect(const char *name, void *ctx)
{
    acc *a = ctx;
    strcat(a->buf, name);
    strcat(a->buf, ",");
    ++a->count;
    return 0;
}

static int stop_at_first(const char *name, void *ctx)
{
    return 7;
}

static void test_functions_and_identifiers(void)
{
    value_is("min(3, 5) + max(3, 5)", 8);
    value_is("log2(1024)", 10);
    value_is("ceil(2.1) + floor(2.9)", 5);
    value_is("pow2(10)", 1024);
    value_is("is_pow2(64) + is_pow2(48) + is_pow2(0) + is_pow2(-4) + is_pow2(1) + is_pow2(2.5)", 2);
    value_is("max(min(1, 2), log2(pow2(3)))", 3);
    value_is("register_tile * 32 <= K", 0);
    value_is("register_tile * 4 <= K", 1);
    value_is("row_block * 8 * 4 <= device.max_shared_per_block_optin", 1);
    value_is("matrix.nnz / matrix.rows", 10);
    value_is("floor(K / 3)", 10);
    value_is("row_block % register_tile == 0", 1);
    /* Short-circuit: the right side is never evaluated. */
    value_is("zero != 0 && K / zero > 1", 0);
    value_is("1 || unknown_name", 1);

    rt_expr *e = NULL;
    rt_err err;
    RT_CHECK(rt_expr_parse("a + b * a + device.x + min(a, c) + log2(b)", &e, &err) == 0);
    if (e) {
        char seen[256] = "";
        acc a = {seen, 0};
        RT_CHECK(rt_expr_identifiers(e, collect, &a) == 0);
        RT_CHECK_MSG(strcmp(seen, "a,b,device.x,c,") == 0 && a.count == 4, "%s", seen);
        rt_expr_free(e);
    }
    /* The callback can stop the walk; its value comes back. */
    RT_CHECK(rt_expr_parse("x + y", &e, &err) == 0);
    if (e) {
        RT_CHECK(rt_expr_identifiers(e, stop_at_first, NULL) == 7);
        rt_expr_free(e);
    }
    /* Without a lookup, only constant expressions evaluate. */
    RT_CHECK(rt_expr_parse("K + 1", &e, &err) == 0);
    if (e) {
        double v;
        RT_CHECK(rt_expr_eval(e, NULL, NULL, &v, &err) != 0 &&
                 rt_test_contains(err.msg, "unknown identifier 'K'"));
        int calls = 0;
        RT_CHECK(rt_expr_eval(e, lookup, &calls, &v, &err) == 0 && v == 33 && calls == 1);
        RT_CHECK(rt_expr_eval(e, lookup, &calls, &v, &err) == 0 && calls == 2); /* reusable */
        rt_expr_free(e);
    }
}

static void test_eval_errors(void)
{
    eval_fails("unknown_name + 1", "column 1: unknown identifier 'unknown_name'");
    eval_fails("K + device.nope", "column 5: unknown identifier 'device.nope'");
    eval_fails("K / zero", "column 3: division by zero");
    eval_fails("K % zero", "modulo by zero");
    eval_fails("2.5 % 2", "'%' needs integer operands");
    eval_fails("log2(zero)", "log2 of 0");
    eval_fails("log2(-1)", "log2 of -1");
    eval_fails("pow2(5000)", "pow2(5000) overflows");
    eval_fails("1e308 * 10", "not a finite number");
    eval_fails("not_a_number > 1", "'not_a_number' has no numeric value");
}

static void test_parse_errors(void)
{
    parse_fails("", 1, "empty expression");
    parse_fails("   ", 1, "empty expression");
    parse_fails("1 +", 4, "expression ends where a value was expected");
    parse_fails("(1 + 2", 7, "expected ')' to close the '(' at column 1");
    parse_fails("row_block * (col_block", 23, "expected ')'");
    parse_fails("1 2", 3, "unexpected '2' after a complete expression");
    parse_fails("a = b", 3, "'=' is not an operator");
    parse_fails("a & b", 3, "single '&'");
    parse_fails("a | b", 3, "single '|'");
    parse_fails("flor(2.5)", 1, "unknown function 'flor' (did you mean 'floor'?)");
    parse_fails("sqrt(4)", 1, "unknown function 'sqrt'");
    parse_fails("min(1)", 1, "min() takes 2 arguments, got 1");
    parse_fails("log2(1, 2)", 1, "log2() takes 1 argument, got 2");
    parse_fails("ceil()", 1, "ceil() takes 1 argument, got 0");
    parse_fails("min(1 2)", 7, "expected ',' or ')' in the arguments of min()");
    parse_fails("3x", 2, "unexpected 'x' after a number");
    parse_fails("1.2.3", 4, "after a number");
    parse_fails("1e+", 1, "exponent has no digits");
    parse_fails("1e999", 1, "out of range");
    parse_fails("device.", 7, "identifier cannot end with '.'");
    parse_fails("a $ b", 3, "unexpected character '$'");
    parse_fails("a \x01 b", 3, "byte 0x01");
    parse_fails("* 3", 1, "expected a number, a name or '(' but found '*'");
    parse_fails(")", 1, "found ')'");
    parse_fails("K <= ", 6, "expression ends");

    char deep[400];
    memset(deep, '(', 150);
    snprintf(deep + 150, sizeof deep - 150, "1");
    parse_fails(deep, 101, "nested too deeply");
    memset(deep, '-', 150);
    snprintf(deep + 150, sizeof deep - 150, "1");
    parse_fails(deep, 101, "nested too deeply");

    static char longest[RT_EXPR_MAX_TEXT + 8];
    memset(longest, '1', RT_EXPR_MAX_TEXT + 1);
    longest[RT_EXPR_MAX_TEXT + 1] = '\0';
    rt_expr *e = NULL;
    rt_err err;
    RT_CHECK(rt_expr_parse(longest, &e, &err) != 0 && !e && rt_test_contains(err.msg, "at most"));
    RT_CHECK(rt_expr_parse(NULL, &e, &err) != 0);
}

/* Random token soup: parse must either fail with a column or give an expression that
 * evaluates (or fails) cleanly. */
static void test_garbage(void)
{
    static const char *const pieces[] = {
        "1",     "2.5",      "K", "zero", "device.x", "(",  ")",  "+",  "-",   "*",
        "/",     "%",        "!", "<",    "<=",       "==", "!=", "&&", "||",  "min(",
        "log2(", "is_pow2(", ",", " ",    "e",        ".",  "=",  "&",  "9e9", "pow2("};
    const int n_pieces = (int)(sizeof pieces / sizeof pieces[0]);
    uint64_t state = 12345;
    int parsed = 0;
    for (int iter = 0; iter < 5000; ++iter) {
        char text[256] = "";
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const int n = 1 + (int)((state >> 33) % 12);
        for (int i = 0; i < n; ++i) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            strcat(text, pieces[(state >> 33) % (uint64_t)n_pieces]);
        }
        rt_expr *e = NULL;
        rt_err err;
        int col = 0;
        if (rt_expr_parse_at(text, &e, &col, &err) == 0) {
            ++parsed;
            double v;
            if (rt_expr_eval(e, lookup, NULL, &v, &err) == 0)
                RT_CHECK_MSG(isfinite(v), "[%s] gave %g", text, v);
            rt_expr_free(e);
        } else {
            RT_CHECK_MSG(col >= 1 && col <= (int)strlen(text) + 1, "[%s]: column %d", text, col);
        }
    }
    RT_CHECK(parsed > 0);
}

int main(void)
{
    test_precedence();
    test_functions_and_identifiers();
    test_eval_errors();
    test_parse_errors();
    test_garbage();
    return RT_TEST_RESULT();
}
