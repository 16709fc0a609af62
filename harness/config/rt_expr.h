/* rt_expr: the constraint expression language of configs ("register_tile * 32 <= K",
 * "row_block * col_block * 8 <= device.max_shared_per_block_optin").
 *
 * An expression is parsed once into an AST and evaluated many times, once per point of a sweep,
 * with identifiers resolved through a callback, so the language knows nothing about kernels.
 *
 * Grammar (lowest precedence first; all binary operators are left-associative):
 *   expr     := or
 *   or       := and ('||' and)*
 *   and      := equality ('&&' equality)*
 *   equality := relation (('==' | '!=') relation)*
 *   relation := sum (('<' | '<=' | '>' | '>=') sum)*
 *   sum      := product (('+' | '-') product)*
 *   product  := unary (('*' | '/' | '%') unary)*
 *   unary    := ('-' | '+' | '!') unary | primary
 *   primary  := number | identifier | function '(' expr (',' expr)* ')' | '(' expr ')'
 *   number   := 12 | 1.5 | .5 | 1e3 | 2.5E-3
 *   identifier := name ('.' name)*, name := [A-Za-z_][A-Za-z0-9_]*   (e.g. device.warp_size)
 *   function := min(a,b) max(a,b) log2(x) ceil(x) floor(x) pow2(x) is_pow2(x)
 *
 * Values are doubles. '/' divides exactly (7 / 2 = 3.5; use floor() for integer division);
 * '%' needs integral operands and gives the remainder with the sign of the dividend, as in C.
 * Comparisons and logic give 1 or 0; && and || evaluate their right side only when needed, so
 * "b != 0 && a / b > 2" is safe. Evaluation errors: an unknown identifier, division or modulo by
 * zero, '%' on a non-integer, log2 of x <= 0, a result that is not finite. */
#ifndef RT_EXPR_H
#define RT_EXPR_H

#include "rt_error.h"

/* Longest expression text accepted by rt_expr_parse. */
#define RT_EXPR_MAX_TEXT 4096

typedef struct rt_expr rt_expr;

/* Resolves an identifier; returns 0 and fills *value, or -1 when the name is unknown. */
typedef int (*rt_expr_lookup_fn)(const char *name, void *ctx, double *value);
/* Called once per distinct identifier, in order of first appearance. Return 0 to go on; any
 * other value stops the walk and is returned by rt_expr_identifiers. */
typedef int (*rt_expr_ident_fn)(const char *name, void *ctx);

/* Parses text. On failure err reads "column N: <what is wrong> in '<text>'" (N 1-based) and
 * *error_col (when error_col is not NULL) holds N. */
int rt_expr_parse_at(const char *text, rt_expr **out, int *error_col, rt_err *err);
/* Same as rt_expr_parse_at without the column out-parameter. */
int rt_expr_parse(const char *text, rt_expr **out, rt_err *err);
/* Evaluates; lookup may be NULL when the expression has no identifiers. Errors name the
 * identifier or operator at fault and its column. */
int rt_expr_eval(const rt_expr *expr, rt_expr_lookup_fn lookup, void *ctx, double *result,
                 rt_err *err);
/* Lists the distinct identifiers (function names excluded). */
int rt_expr_identifiers(const rt_expr *expr, rt_expr_ident_fn callback, void *ctx);
/* The text the expression was parsed from. */
const char *rt_expr_text(const rt_expr *expr);
void rt_expr_free(rt_expr *expr);

#endif
