#define _POSIX_C_SOURCE 200809L
#include "sptrsv_factor_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_strutil.h"

#define MAGIC "RTSPTRF1"

/* What the file starts with; the arrays follow in the order of sptrsv_raw_factor. */
typedef struct file_header {
    char magic[8];
    uint64_t key;
    int64_t n, nsuper, nrows, nval;
    double analyse_s, factor_s;
} file_header;

void sptrsv_raw_free(sptrsv_raw_factor *r)
{
    if (!r)
        return;
    free(r->super);
    free(r->pi);
    free(r->px);
    free(r->srows);
    free(r->x);
    free(r->perm);
    r->super = r->pi = r->px = r->perm = NULL;
    r->srows = NULL;
    r->x = NULL;
}

int sptrsv_raw_alloc(sptrsv_raw_factor *r, rt_err *err)
{
    if (r->n < 0 || r->nsuper < 0 || r->nrows < 0 || r->nval < 0)
        return rt_err_set(err, "sptrsv factor: negative sizes");
    const size_t ns1 = (size_t)r->nsuper + 1;
    r->super = malloc(ns1 * sizeof *r->super);
    r->pi = malloc(ns1 * sizeof *r->pi);
    r->px = malloc(ns1 * sizeof *r->px);
    r->srows = malloc((size_t)(r->nrows > 0 ? r->nrows : 1) * sizeof *r->srows);
    r->x = malloc((size_t)(r->nval > 0 ? r->nval : 1) * sizeof *r->x);
    r->perm = malloc((size_t)(r->n > 0 ? r->n : 1) * sizeof *r->perm);
    if (!r->super || !r->pi || !r->px || !r->srows || !r->x || !r->perm) {
        sptrsv_raw_free(r);
        return rt_err_set(err, "sptrsv factor: out of memory for %" PRId64 " values", r->nval);
    }
    return 0;
}

void sptrsv_factor_cache_dir(char *dir, size_t len)
{
    const char *d = getenv("ROOFTUNE_FACTOR_CACHE");
    const char *c = getenv("ROOFTUNE_CACHE_DIR");
    if (d && d[0])
        snprintf(dir, len, "%s", d);
    else if (c && c[0])
        snprintf(dir, len, "%s/sptrsv-factors", c);
    else if (len > 0)
        dir[0] = '\0';
}

uint64_t sptrsv_factor_cache_key(const rt_csr *a, int ordering)
{
    const int64_t head[4] = {a->rows, a->cols, a->nnz, ordering};
    uint64_t h = rt_hash64(head, sizeof head, 0x5eed5eedULL);
    h = rt_hash64(a->rowptr, (size_t)(a->rows + 1) * sizeof *a->rowptr, h);
    h = rt_hash64(a->colidx, (size_t)a->nnz * sizeof *a->colidx, h);
    return rt_hash64(a->val, (size_t)a->nnz * sizeof *a->val, h);
}

static int path_of(const char *dir, uint64_t key, const char *ext, char *out, size_t len)
{
    char hex[17];
    rt_hash_hex(key, hex);
    const int n = snprintf(out, len, "%s/sptrsv-%s.%s", dir, hex, ext);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* mkdir -p for the cache folder (one level of parents is enough for the defaults, but a user's
 * folder may be deeper). */
static int make_dir(const char *dir, rt_err *err)
{
    char p[1024];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
        return rt_err_set(err, "sptrsv factor cache: the folder name is too long");
    for (char *c = p + 1; *c; ++c) {
        if (*c != '/')
            continue;
        *c = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST)
            return rt_err_set(err, "sptrsv factor cache: mkdir %s: %s", p, strerror(errno));
        *c = '/';
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        return rt_err_set(err, "sptrsv factor cache: mkdir %s: %s", p, strerror(errno));
    return 0;
}

int sptrsv_factor_cache_lock(const char *dir, uint64_t key, int *fd, rt_err *err)
{
    *fd = -1;
    char path[1100];
    if (make_dir(dir, err) != 0)
        return -1;
    if (path_of(dir, key, "lock", path, sizeof path) != 0)
        return rt_err_set(err, "sptrsv factor cache: the folder name is too long");
    const int f = open(path, O_RDWR | O_CREAT, 0644);
    if (f < 0)
        return rt_err_set(err, "sptrsv factor cache: open %s: %s", path, strerror(errno));
    struct flock l;
    memset(&l, 0, sizeof l);
    l.l_type = F_WRLCK;
    l.l_whence = SEEK_SET;
    while (fcntl(f, F_SETLKW, &l) != 0) {
        if (errno == EINTR)
            continue;
        const int e = errno;
        close(f);
        return rt_err_set(err, "sptrsv factor cache: locking %s: %s", path, strerror(e));
    }
    *fd = f;
    return 0;
}

void sptrsv_factor_cache_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* closing the descriptor releases the process's record lock */
}

/* The arrays of r in file order: pointer, bytes. */
static int arrays(const sptrsv_raw_factor *r, void *ptr[6], size_t bytes[6])
{
    const size_t ns1 = (size_t)r->nsuper + 1;
    ptr[0] = r->super, bytes[0] = ns1 * sizeof *r->super;
    ptr[1] = r->pi, bytes[1] = ns1 * sizeof *r->pi;
    ptr[2] = r->px, bytes[2] = ns1 * sizeof *r->px;
    ptr[3] = r->srows, bytes[3] = (size_t)r->nrows * sizeof *r->srows;
    ptr[4] = r->x, bytes[4] = (size_t)r->nval * sizeof *r->x;
    ptr[5] = r->perm, bytes[5] = (size_t)r->n * sizeof *r->perm;
    return 6;
}

int sptrsv_factor_cache_read(const char *dir, uint64_t key, sptrsv_raw_factor *r, char *why,
                             size_t whylen, rt_err *err)
{
    char path[1100];
    memset(r, 0, sizeof *r);
    if (path_of(dir, key, "factor", path, sizeof path) != 0)
        return rt_err_set(err, "sptrsv factor cache: the folder name is too long");
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(why, whylen, "no cached factor %s", path);
        return 0;
    }
    file_header h;
    int found = 0;
    struct stat st;
    if (fread(&h, sizeof h, 1, fp) != 1 || memcmp(h.magic, MAGIC, 8) != 0 || h.key != key) {
        snprintf(why, whylen, "%s is not a factor of this matrix (another version?)", path);
        goto done;
    }
    r->n = h.n;
    r->nsuper = h.nsuper;
    r->nrows = h.nrows;
    r->nval = h.nval;
    r->analyse_s = h.analyse_s;
    r->factor_s = h.factor_s;
    void *ptr[6];
    size_t bytes[6], total = sizeof h;
    if (fstat(fileno(fp), &st) != 0 || r->n < 0 || r->nsuper < 0 || r->nrows < 0 || r->nval < 0) {
        snprintf(why, whylen, "%s: unreadable header", path);
        goto done;
    }
    /* Sizes against the file's length before any allocation: a truncated file is no factor. */
    const size_t ns1 = (size_t)r->nsuper + 1;
    total += 3 * ns1 * 8 + (size_t)r->nrows * 4 + (size_t)r->nval * 8 + (size_t)r->n * 8;
    if ((size_t)st.st_size != total) {
        snprintf(why, whylen, "%s has %lld bytes where its header says %zu (a broken write?)", path,
                 (long long)st.st_size, total);
        goto done;
    }
    if (sptrsv_raw_alloc(r, err) != 0) {
        fclose(fp);
        return -1;
    }
    const int na = arrays(r, ptr, bytes);
    for (int i = 0; i < na; ++i)
        if (bytes[i] > 0 && fread(ptr[i], bytes[i], 1, fp) != 1) {
            snprintf(why, whylen, "%s: short read", path);
            sptrsv_raw_free(r);
            goto done;
        }
    found = 1;
done:
    fclose(fp);
    return found;
}

int sptrsv_factor_cache_write(const char *dir, uint64_t key, const sptrsv_raw_factor *r,
                              rt_err *err)
{
    char path[1100], tmp[1200];
    if (make_dir(dir, err) != 0)
        return -1;
    if (path_of(dir, key, "factor", path, sizeof path) != 0)
        return rt_err_set(err, "sptrsv factor cache: the folder name is too long");
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *fp = fopen(tmp, "wb");
    if (!fp)
        return rt_err_set(err, "sptrsv factor cache: cannot write %s: %s", tmp, strerror(errno));
    file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, 8);
    h.key = key;
    h.n = r->n;
    h.nsuper = r->nsuper;
    h.nrows = r->nrows;
    h.nval = r->nval;
    h.analyse_s = r->analyse_s;
    h.factor_s = r->factor_s;
    int ok = fwrite(&h, sizeof h, 1, fp) == 1;
    void *ptr[6];
    size_t bytes[6];
    const int na = arrays(r, ptr, bytes);
    for (int i = 0; i < na && ok; ++i)
        ok = bytes[i] == 0 || fwrite(ptr[i], bytes[i], 1, fp) == 1;
    const int e = errno;
    if (fclose(fp) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        const int e2 = ok ? errno : e;
        remove(tmp);
        return rt_err_set(err, "sptrsv factor cache: writing %s failed: %s", path, strerror(e2));
    }
    return 0;
}
