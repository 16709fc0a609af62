#include "rt_plot_where.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "rt_plot_data.h"

/* One condition as SQL over `points AS p`: the field's text is one of the values. Numbers compare
 * as text ('256', '0.5'), the form in which a config writes them. */
static int condition_sql(struct sqlite3 *db, const char *experiment, const rt_plot_where *w,
                         char *out, size_t len, rt_err *err)
{
    rt_plot_field f;
    if (rt_plot_data_resolve(db, experiment, w->field, &f, err) != 0)
        return rt_err_prefix(err, "where: %s", w->field);
    int used = snprintf(out, len, "CAST((%s) AS TEXT) IN (", f.sql);
    for (int k = 0; k < w->n_values && used > 0 && (size_t)used < len; ++k)
        used += (int)strlen(sqlite3_snprintf((int)(len - (size_t)used), out + used, "%s%Q",
                                             k ? ", " : "", w->values[k]));
    if (used < 0 || (size_t)used + 2 > len)
        return rt_err_set(err, "where: %s: the condition is longer than %zu characters", w->field,
                          len - 1);
    snprintf(out + used, len - (size_t)used, ")");
    return 0;
}

int rt_plot_where_apply(struct sqlite3 *db, const char *experiment, const rt_plot_where *where,
                        int n_where, char *desc, size_t desc_len, rt_err *err)
{
    char cond[4096] = "";
    size_t used = 0;
    for (int i = 0; i < n_where; ++i) {
        char one[2048];
        if (condition_sql(db, experiment, &where[i], one, sizeof one, err) != 0)
            return -1;
        const int n = snprintf(cond + used, sizeof cond - used, "%s%s", i ? " AND " : "", one);
        if (n < 0 || (size_t)n >= sizeof cond - used)
            return rt_err_set(err, "where: the conditions are longer than %zu characters",
                              sizeof cond - 1);
        used += (size_t)n;
    }
    rt_plot_where_clear(db);
    char *sql =
        sqlite3_mprintf("CREATE TEMP VIEW points AS SELECT * FROM main.points AS p WHERE %s", cond);
    if (!sql)
        return rt_err_set(err, "where: out of memory");
    char *msg = NULL;
    const int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    sqlite3_free(sql);
    if (rc != SQLITE_OK) {
        rt_err_set(err, "where: cannot restrict the points to %s: %s", cond,
                   msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        return -1;
    }
    int64_t total = 0, ok = 0;
    if (rt_plot_data_count(db, experiment, &total, &ok, err) != 0 || ok == 0) {
        rt_plot_where_clear(db);
        if (ok == 0)
            rt_err_set(err, "where: no status-ok point of experiment '%s' meets %s", experiment,
                       cond);
        return -1;
    }
    snprintf(desc, desc_len, "%s", cond);
    return 0;
}

void rt_plot_where_clear(struct sqlite3 *db)
{
    sqlite3_exec(db, "DROP VIEW IF EXISTS temp.points", NULL, NULL, NULL);
}
