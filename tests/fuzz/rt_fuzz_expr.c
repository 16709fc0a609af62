#include <stdlib.h>
#include <string.h>

#include "rt_expr.h"
#include "rt_fuzz.h"

static int count_ident(const char *name, void *ctx)
{
    (void)name;
    ++*(int *)ctx;
    return 0;
}

/* Every identifier has a value derived from its name, so evaluation reaches every operator. */
static int lookup(const char *name, void *ctx, double *value)
{
    (void)ctx;
    *value = (double)(strlen(name) % 7) - 2.0;
    return 0;
}

void rt_fuzz_expr(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return;
    char *text = malloc(size + 1);
    if (!text)
        return;
    memcpy(text, data, size);
    text[size] = '\0';
    rt_expr *e = NULL;
    rt_err err;
    int col = 0;
    if (rt_expr_parse_at(text, &e, &col, &err) == 0 && e) {
        int n = 0;
        rt_expr_identifiers(e, count_ident, &n);
        double v = 0;
        rt_expr_eval(e, lookup, NULL, &v, &err);
        (void)rt_expr_text(e);
        rt_expr_free(e);
    }
    free(text);
}
