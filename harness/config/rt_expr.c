#include "rt_expr.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_strutil.h"

/* Bounds the parser's recursion (nested parentheses, chains of unary operators) so hostile text
 * cannot exhaust the stack. No real constraint comes close. */
#define EXPR_MAX_NESTING 100

typedef enum expr_op {
    OP_NUM,
    OP_IDENT,
    OP_CALL,
    OP_NEG,
    OP_NOT,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_EQ,
    OP_NE,
    OP_AND,
    OP_OR
} expr_op;

typedef enum expr_fn { FN_MIN, FN_MAX, FN_LOG2, FN_CEIL, FN_FLOOR, FN_POW2, FN_IS_POW2 } expr_fn;

typedef struct fn_info {
    const char *name;
    int n_args;
} fn_info;

/* Indexed by expr_fn. */
static const fn_info k_functions[] = {
    {"min", 2}, {"max", 2}, {"log2", 1}, {"ceil", 1}, {"floor", 1}, {"pow2", 1}, {"is_pow2", 1},
};
#define N_FUNCTIONS ((int)(sizeof k_functions / sizeof k_functions[0]))

typedef struct ast_node {
    expr_op op;
    int col;    /* 1-based column of the token that made the node, for messages */
    double num; /* OP_NUM */
    int name;   /* OP_IDENT: offset of the name in the pool */
    expr_fn fn; /* OP_CALL */
    int a, b;   /* operands / arguments (node indexes), -1 when unused */
} ast_node;

struct rt_expr {
    char *text;
    ast_node *nodes;
    int n_nodes;
    int root;
    char *pool; /* identifier names, each NUL-terminated */
    int pool_len;
    int *idents; /* pool offsets of the distinct identifiers, in order of first appearance */
    int n_idents;
};

/* ------------------------------------------------------------------------------------------ */
/* Lexer */

typedef enum tok_kind {
    TOK_END,
    TOK_NUM,
    TOK_IDENT,
    TOK_OP,
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_COMMA
} tok_kind;

typedef struct token {
    tok_kind kind;
    int start; /* 0-based offset in the text */
    int len;
    double num;
} token;

typedef struct parser {
    const char *text;
    int pos;
    token tok;
    rt_expr *expr;
    int cap_nodes, cap_pool;
    int nesting;
    int error_col;
    rt_err *err;
} parser;

static int fail_at(parser *ps, int offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(parser *ps, int offset, const char *fmt, ...)
{
    ps->error_col = offset + 1;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rt_err_set(ps->err, "column %d: %s in '%s'", offset + 1, what, ps->text);
}

static int is_name_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}
static int is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static int lex_number(parser *ps, int start)
{
    const char *t = ps->text;
    int i = start, digits = 0;
    while (isdigit((unsigned char)t[i])) {
        ++i;
        ++digits;
    }
    if (t[i] == '.') {
        ++i;
        while (isdigit((unsigned char)t[i])) {
            ++i;
            ++digits;
        }
    }
    if (digits == 0)
        return fail_at(ps, start, "malformed number");
    if (t[i] == 'e' || t[i] == 'E') {
        ++i;
        if (t[i] == '+' || t[i] == '-')
            ++i;
        if (!isdigit((unsigned char)t[i]))
            return fail_at(ps, start, "malformed number (exponent has no digits)");
        while (isdigit((unsigned char)t[i]))
            ++i;
    }
    if (is_name_char(t[i]) || t[i] == '.')
        return fail_at(ps, i, "unexpected '%.1s' after a number", t + i);
    char buf[128];
    const int len = i - start;
    if (len >= (int)sizeof buf)
        return fail_at(ps, start, "number too long");
    memcpy(buf, t + start, (size_t)len);
    buf[len] = '\0';
    errno = 0;
    const double v = strtod(buf, NULL);
    if (!isfinite(v) || errno == ERANGE)
        return fail_at(ps, start, "number %s is out of range", buf);
    ps->tok.kind = TOK_NUM;
    ps->tok.len = len;
    ps->tok.num = v;
    ps->pos = i;
    return 0;
}

/* Reads the next token into ps->tok. */
static int lex(parser *ps)
{
    const char *t = ps->text;
    while (t[ps->pos] == ' ' || t[ps->pos] == '\t')
        ++ps->pos;
    const int start = ps->pos;
    ps->tok.start = start;
    ps->tok.len = 1;
    const char c = t[start];
    if (c == '\0') {
        ps->tok.kind = TOK_END;
        ps->tok.len = 0;
        return 0;
    }
    if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)t[start + 1])))
        return lex_number(ps, start);
    if (is_name_start(c)) {
        int i = start;
        for (;;) {
            while (is_name_char(t[i]))
                ++i;
            if (t[i] == '.' && is_name_start(t[i + 1])) {
                ++i;
                continue;
            }
            break;
        }
        if (t[i] == '.')
            return fail_at(ps, i, "identifier cannot end with '.'");
        ps->tok.kind = TOK_IDENT;
        ps->tok.len = i - start;
        ps->pos = i;
        return 0;
    }
    ps->pos = start + 1;
    switch (c) {
    case '(': ps->tok.kind = TOK_LPAREN; return 0;
    case ')': ps->tok.kind = TOK_RPAREN; return 0;
    case ',': ps->tok.kind = TOK_COMMA; return 0;
    case '+':
    case '-':
    case '*':
    case '/':
    case '%': ps->tok.kind = TOK_OP; return 0;
    case '<':
    case '>':
    case '!':
        ps->tok.kind = TOK_OP;
        if (t[start + 1] == '=') {
            ps->tok.len = 2;
            ps->pos = start + 2;
        }
        return 0;
    case '=':
        if (t[start + 1] != '=')
            return fail_at(ps, start, "'=' is not an operator (write '==' to compare)");
        ps->tok.kind = TOK_OP;
        ps->tok.len = 2;
        ps->pos = start + 2;
        return 0;
    case '&':
    case '|':
        if (t[start + 1] != c)
            return fail_at(ps, start, "single '%.1s' (write '&&' or '||')", t + start);
        ps->tok.kind = TOK_OP;
        ps->tok.len = 2;
        ps->pos = start + 2;
        return 0;
    default: break;
    }
    if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
        return fail_at(ps, start, "unexpected character (byte 0x%02x)", (unsigned)(unsigned char)c);
    return fail_at(ps, start, "unexpected character '%.1s'", t + start);
}

static int tok_is(const parser *ps, const char *op)
{
    return ps->tok.kind == TOK_OP && (int)strlen(op) == ps->tok.len &&
           strncmp(ps->text + ps->tok.start, op, (size_t)ps->tok.len) == 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Parser: recursive descent, one function per precedence level. Each returns a node index or
 * -1 on error. */

static int add_node(parser *ps, expr_op op, int col, int a, int b)
{
    rt_expr *e = ps->expr;
    if (e->n_nodes == ps->cap_nodes) {
        const int cap = ps->cap_nodes ? ps->cap_nodes * 2 : 16;
        ast_node *nodes = realloc(e->nodes, (size_t)cap * sizeof *nodes);
        if (!nodes) {
            rt_err_set(ps->err, "out of memory while parsing '%s'", ps->text);
            return -1;
        }
        e->nodes = nodes;
        ps->cap_nodes = cap;
    }
    e->nodes[e->n_nodes] = (ast_node){.op = op, .col = col, .a = a, .b = b};
    return e->n_nodes++;
}

static int intern_name(parser *ps, const char *s, int len)
{
    rt_expr *e = ps->expr;
    for (int i = 0; i < e->n_idents; ++i) {
        const char *have = e->pool + e->idents[i];
        if ((int)strlen(have) == len && strncmp(have, s, (size_t)len) == 0)
            return e->idents[i];
    }
    if (e->pool_len + len + 1 > ps->cap_pool) {
        int cap = ps->cap_pool ? ps->cap_pool : 64;
        while (cap < e->pool_len + len + 1)
            cap *= 2;
        char *pool = realloc(e->pool, (size_t)cap);
        if (!pool)
            return rt_err_set(ps->err, "out of memory while parsing '%s'", ps->text);
        e->pool = pool;
        ps->cap_pool = cap;
    }
    /* Every identifier is distinct here, so n_idents never exceeds the pool's name count and
     * growing idents one by one keeps the code simple. */
    int *idents = realloc(e->idents, (size_t)(e->n_idents + 1) * sizeof *idents);
    if (!idents)
        return rt_err_set(ps->err, "out of memory while parsing '%s'", ps->text);
    e->idents = idents;
    const int at = e->pool_len;
    memcpy(e->pool + at, s, (size_t)len);
    e->pool[at + len] = '\0';
    e->pool_len += len + 1;
    e->idents[e->n_idents++] = at;
    return at;
}

static int parse_or(parser *ps);

static int parse_call(parser *ps, const token name)
{
    const char *s = ps->text + name.start;
    int fn = -1;
    for (int k = 0; k < N_FUNCTIONS; ++k)
        if ((int)strlen(k_functions[k].name) == name.len &&
            strncmp(k_functions[k].name, s, (size_t)name.len) == 0)
            fn = k;
    if (fn < 0) {
        char word[96];
        snprintf(word, sizeof word, "%.*s", name.len, s);
        const char *names[N_FUNCTIONS];
        for (int k = 0; k < N_FUNCTIONS; ++k)
            names[k] = k_functions[k].name;
        const char *hint = rt_suggest(word, names, N_FUNCTIONS);
        char detail[256];
        if (hint)
            snprintf(detail, sizeof detail, "'%s' (did you mean '%s'?)", word, hint);
        else
            snprintf(detail, sizeof detail,
                     "'%s' (functions: min, max, log2, ceil, floor, pow2, is_pow2)", word);
        fail_at(ps, name.start, "unknown function %s", detail);
        return -1;
    }
    if (lex(ps) != 0) /* consume '(' */
        return -1;
    int args[2] = {-1, -1};
    int n_args = 0;
    for (;;) {
        if (ps->tok.kind == TOK_RPAREN && n_args == 0)
            break;
        const int arg = parse_or(ps);
        if (arg < 0)
            return -1;
        if (n_args < 2)
            args[n_args] = arg;
        ++n_args;
        if (ps->tok.kind == TOK_COMMA) {
            if (lex(ps) != 0)
                return -1;
            continue;
        }
        break;
    }
    if (ps->tok.kind != TOK_RPAREN) {
        fail_at(ps, ps->tok.start, "expected ',' or ')' in the arguments of %s()",
                k_functions[fn].name);
        return -1;
    }
    if (n_args != k_functions[fn].n_args) {
        fail_at(ps, name.start, "%s() takes %d argument%s, got %d", k_functions[fn].name,
                k_functions[fn].n_args, k_functions[fn].n_args == 1 ? "" : "s", n_args);
        return -1;
    }
    if (lex(ps) != 0)
        return -1;
    const int node = add_node(ps, OP_CALL, name.start + 1, args[0], args[1]);
    if (node >= 0)
        ps->expr->nodes[node].fn = (expr_fn)fn;
    return node;
}

static int parse_primary(parser *ps)
{
    const token t = ps->tok;
    switch (t.kind) {
    case TOK_NUM: {
        const int node = add_node(ps, OP_NUM, t.start + 1, -1, -1);
        if (node < 0)
            return -1;
        ps->expr->nodes[node].num = t.num;
        return lex(ps) != 0 ? -1 : node;
    }
    case TOK_IDENT: {
        if (lex(ps) != 0)
            return -1;
        if (ps->tok.kind == TOK_LPAREN)
            return parse_call(ps, t);
        const int name = intern_name(ps, ps->text + t.start, t.len);
        if (name < 0)
            return -1;
        const int node = add_node(ps, OP_IDENT, t.start + 1, -1, -1);
        if (node >= 0)
            ps->expr->nodes[node].name = name;
        return node;
    }
    case TOK_LPAREN: {
        if (lex(ps) != 0)
            return -1;
        const int inner = parse_or(ps);
        if (inner < 0)
            return -1;
        if (ps->tok.kind != TOK_RPAREN) {
            fail_at(ps, ps->tok.start, "expected ')' to close the '(' at column %d", t.start + 1);
            return -1;
        }
        return lex(ps) != 0 ? -1 : inner;
    }
    case TOK_END: fail_at(ps, t.start, "expression ends where a value was expected"); return -1;
    default: {
        char shown[8];
        snprintf(shown, sizeof shown, "%.*s", t.len, ps->text + t.start);
        fail_at(ps, t.start, "expected a number, a name or '(' but found '%s'", shown);
        return -1;
    }
    }
}

static int parse_unary(parser *ps)
{
    if (++ps->nesting > EXPR_MAX_NESTING) {
        fail_at(ps, ps->tok.start, "expression nested too deeply");
        return -1;
    }
    int node;
    if (tok_is(ps, "-") || tok_is(ps, "!") || tok_is(ps, "+")) {
        const token t = ps->tok;
        const char op = ps->text[t.start];
        if (lex(ps) != 0)
            return -1;
        const int operand = parse_unary(ps);
        if (operand < 0)
            return -1;
        node = op == '+' ? operand
                         : add_node(ps, op == '-' ? OP_NEG : OP_NOT, t.start + 1, operand, -1);
    } else {
        node = parse_primary(ps);
    }
    --ps->nesting;
    return node;
}

typedef struct binop {
    const char *text;
    expr_op op;
} binop;

/* One precedence level: operand (op operand)*, left-associative. */
static int parse_level(parser *ps, int (*operand)(parser *), const binop *ops, int n_ops)
{
    int left = operand(ps);
    while (left >= 0) {
        int matched = -1;
        for (int k = 0; k < n_ops && matched < 0; ++k)
            if (tok_is(ps, ops[k].text))
                matched = k;
        if (matched < 0)
            break;
        const int col = ps->tok.start + 1;
        if (lex(ps) != 0)
            return -1;
        const int right = operand(ps);
        if (right < 0)
            return -1;
        left = add_node(ps, ops[matched].op, col, left, right);
    }
    return left;
}

static int parse_product(parser *ps)
{
    static const binop ops[] = {{"*", OP_MUL}, {"/", OP_DIV}, {"%", OP_MOD}};
    return parse_level(ps, parse_unary, ops, 3);
}
static int parse_sum(parser *ps)
{
    static const binop ops[] = {{"+", OP_ADD}, {"-", OP_SUB}};
    return parse_level(ps, parse_product, ops, 2);
}
static int parse_relation(parser *ps)
{
    static const binop ops[] = {{"<=", OP_LE}, {">=", OP_GE}, {"<", OP_LT}, {">", OP_GT}};
    return parse_level(ps, parse_sum, ops, 4);
}
static int parse_equality(parser *ps)
{
    static const binop ops[] = {{"==", OP_EQ}, {"!=", OP_NE}};
    return parse_level(ps, parse_relation, ops, 2);
}
static int parse_and(parser *ps)
{
    static const binop ops[] = {{"&&", OP_AND}};
    return parse_level(ps, parse_equality, ops, 1);
}
static int parse_or(parser *ps)
{
    static const binop ops[] = {{"||", OP_OR}};
    return parse_level(ps, parse_and, ops, 1);
}

void rt_expr_free(rt_expr *expr)
{
    if (!expr)
        return;
    free(expr->text);
    free(expr->nodes);
    free(expr->pool);
    free(expr->idents);
    free(expr);
}

int rt_expr_parse_at(const char *text, rt_expr **out, int *error_col, rt_err *err)
{
    *out = NULL;
    if (error_col)
        *error_col = 0;
    if (!text)
        return rt_err_set(err, "no expression given");
    const size_t len = strlen(text);
    if (len > RT_EXPR_MAX_TEXT) {
        if (error_col)
            *error_col = RT_EXPR_MAX_TEXT + 1;
        return rt_err_set(err, "expression is %zu characters long (at most %d)", len,
                          RT_EXPR_MAX_TEXT);
    }
    rt_expr *e = calloc(1, sizeof *e);
    if (!e || !(e->text = malloc(len + 1))) {
        free(e);
        return rt_err_set(err, "out of memory while parsing '%s'", text);
    }
    memcpy(e->text, text, len + 1);
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.text = e->text;
    ps.expr = e;
    ps.err = err;
    int root = -1;
    if (lex(&ps) == 0) {
        if (ps.tok.kind == TOK_END)
            fail_at(&ps, 0, "empty expression");
        else
            root = parse_or(&ps);
    }
    if (root >= 0 && ps.tok.kind != TOK_END) {
        char shown[16];
        snprintf(shown, sizeof shown, "%.*s", ps.tok.len > 12 ? 12 : ps.tok.len,
                 ps.text + ps.tok.start);
        fail_at(&ps, ps.tok.start, "unexpected '%s' after a complete expression", shown);
        root = -1;
    }
    if (root < 0) {
        if (error_col)
            *error_col = ps.error_col;
        rt_expr_free(e);
        return -1;
    }
    e->root = root;
    *out = e;
    return 0;
}

int rt_expr_parse(const char *text, rt_expr **out, rt_err *err)
{
    return rt_expr_parse_at(text, out, NULL, err);
}

/* ------------------------------------------------------------------------------------------ */
/* Evaluation */

typedef struct eval_ctx {
    const rt_expr *expr;
    rt_expr_lookup_fn lookup;
    void *user;
    rt_err *err;
} eval_ctx;

static int eval_fail(const eval_ctx *ev, const ast_node *n, const char *what)
{
    return rt_err_set(ev->err, "column %d: %s in '%s'", n->col, what, ev->expr->text);
}

static int is_integral(double x)
{
    return isfinite(x) && x == floor(x);
}

static int eval_node(const eval_ctx *ev, int index, double *out);

static int eval_call(const eval_ctx *ev, const ast_node *n, double *out)
{
    double x, y = 0;
    if (eval_node(ev, n->a, &x) != 0)
        return -1;
    if (n->b >= 0 && eval_node(ev, n->b, &y) != 0)
        return -1;
    char what[160];
    switch (n->fn) {
    case FN_MIN: *out = x < y ? x : y; return 0;
    case FN_MAX: *out = x > y ? x : y; return 0;
    case FN_CEIL: *out = ceil(x); return 0;
    case FN_FLOOR: *out = floor(x); return 0;
    case FN_LOG2:
        if (!(x > 0)) {
            snprintf(what, sizeof what, "log2 of %g (needs a value > 0)", x);
            return eval_fail(ev, n, what);
        }
        *out = log2(x);
        return 0;
    case FN_POW2:
        *out = exp2(x);
        if (!isfinite(*out)) {
            snprintf(what, sizeof what, "pow2(%g) overflows", x);
            return eval_fail(ev, n, what);
        }
        return 0;
    case FN_IS_POW2:
        if (is_integral(x) && x >= 1 && x <= 9.2e18) {
            const uint64_t u = (uint64_t)x;
            *out = (u & (u - 1)) == 0;
        } else {
            *out = 0;
        }
        return 0;
    }
    return eval_fail(ev, n, "internal error: unknown function");
}

static int eval_node(const eval_ctx *ev, int index, double *out)
{
    const ast_node *n = &ev->expr->nodes[index];
    double x, y;
    char what[320];
    switch (n->op) {
    case OP_NUM: *out = n->num; return 0;
    case OP_IDENT: {
        const char *name = ev->expr->pool + n->name;
        if (!ev->lookup || ev->lookup(name, ev->user, out) != 0) {
            snprintf(what, sizeof what, "unknown identifier '%s'", name);
            return eval_fail(ev, n, what);
        }
        if (isnan(*out)) {
            snprintf(what, sizeof what, "'%s' has no numeric value", name);
            return eval_fail(ev, n, what);
        }
        return 0;
    }
    case OP_CALL: return eval_call(ev, n, out);
    case OP_NEG:
        if (eval_node(ev, n->a, &x) != 0)
            return -1;
        *out = -x;
        return 0;
    case OP_NOT:
        if (eval_node(ev, n->a, &x) != 0)
            return -1;
        *out = x == 0;
        return 0;
    case OP_AND:
        if (eval_node(ev, n->a, &x) != 0)
            return -1;
        if (x == 0) {
            *out = 0;
            return 0;
        }
        if (eval_node(ev, n->b, &y) != 0)
            return -1;
        *out = y != 0;
        return 0;
    case OP_OR:
        if (eval_node(ev, n->a, &x) != 0)
            return -1;
        if (x != 0) {
            *out = 1;
            return 0;
        }
        if (eval_node(ev, n->b, &y) != 0)
            return -1;
        *out = y != 0;
        return 0;
    default: break;
    }
    if (eval_node(ev, n->a, &x) != 0 || eval_node(ev, n->b, &y) != 0)
        return -1;
    switch (n->op) {
    case OP_ADD: *out = x + y; break;
    case OP_SUB: *out = x - y; break;
    case OP_MUL: *out = x * y; break;
    case OP_DIV:
        if (y == 0)
            return eval_fail(ev, n, "division by zero");
        *out = x / y;
        break;
    case OP_MOD:
        if (!is_integral(x) || !is_integral(y) || fabs(x) > 9.2e18 || fabs(y) > 9.2e18) {
            snprintf(what, sizeof what, "'%%' needs integer operands, got %g %% %g", x, y);
            return eval_fail(ev, n, what);
        }
        if (y == 0)
            return eval_fail(ev, n, "modulo by zero");
        if (y == -1) { /* INT64_MIN % -1 traps on x86; the answer is 0 anyway */
            *out = 0;
            break;
        }
        *out = (double)((int64_t)x % (int64_t)y);
        break;
    case OP_LT: *out = x < y; break;
    case OP_LE: *out = x <= y; break;
    case OP_GT: *out = x > y; break;
    case OP_GE: *out = x >= y; break;
    case OP_EQ: *out = x == y; break;
    case OP_NE: *out = x != y; break;
    default: return eval_fail(ev, n, "internal error: unknown operator");
    }
    if (!isfinite(*out))
        return eval_fail(ev, n, "result is not a finite number");
    return 0;
}

int rt_expr_eval(const rt_expr *expr, rt_expr_lookup_fn lookup, void *ctx, double *result,
                 rt_err *err)
{
    if (!expr)
        return rt_err_set(err, "no expression to evaluate");
    const eval_ctx ev = {expr, lookup, ctx, err};
    return eval_node(&ev, expr->root, result);
}

int rt_expr_identifiers(const rt_expr *expr, rt_expr_ident_fn callback, void *ctx)
{
    for (int i = 0; i < expr->n_idents; ++i) {
        const int rc = callback(expr->pool + expr->idents[i], ctx);
        if (rc != 0)
            return rc;
    }
    return 0;
}

const char *rt_expr_text(const rt_expr *expr)
{
    return expr ? expr->text : "";
}
