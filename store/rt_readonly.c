/* rt_readonly: read-only opening of result stores; see rt_readonly.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_readonly.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_path.h"
#include "rt_sqlite_why.h"
#include "rt_store.h"

/* "file:" URI of a path: '%', '?' and '#' would end or escape the path part, so they are
 * percent-encoded (RFC 3986), as is anything outside printable ASCII. */
static int path_uri(const char *path, const char *query, char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "file:");
    for (const unsigned char *c = (const unsigned char *)path; *c; ++c) {
        const int plain = *c > 0x20 && *c < 0x7f && *c != '%' && *c != '?' && *c != '#';
        const int n = plain ? snprintf(out + used, len - used, "%c", *c)
                            : snprintf(out + used, len - used, "%%%02X", *c);
        if (n < 0 || (size_t)n >= len - used)
            return -1;
        used += (size_t)n;
    }
    const int n = snprintf(out + used, len - used, "?%s", query);
    return n < 0 || (size_t)n >= len - used ? -1 : 0;
}

int rt_readonly_open(const char *path, sqlite3 **db, rt_err *err)
{
    *db = NULL;
    if (!path || !*path)
        return rt_err_set(err, "no store given");
    struct stat st;
    if (stat(path, &st) != 0)
        return rt_err_set(err, "cannot open %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return rt_err_set(err, "cannot open %s: not a regular file", path);
    if (st.st_size == 0)
        return rt_err_set(err, "%s is empty, so not a rooftune result store", path);
    char wal[4200];
    if (rt_path_format(wal, sizeof wal, err, "%s-wal", path) != 0)
        return rt_err_prefix(err, "cannot open %s", path);
    struct stat wst;
    const int writing = stat(wal, &wst) == 0;
    char uri[8400];
    if (path_uri(path, writing ? "mode=ro" : "immutable=1", uri, sizeof uri) != 0)
        return rt_err_set(err, "cannot open %s: the path is too long", path);
    const int rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    if (rc != SQLITE_OK) {
        char why[1024];
        rt_sqlite_open_why(path, *db, rc, why, sizeof why);
        rt_err_set(err, "cannot open %s: %s", path, why);
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    if (rt_store_check(*db, err) != 0) {
        rt_err_prefix(err, "%s", path);
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    return 0;
}
