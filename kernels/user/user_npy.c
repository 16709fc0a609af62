#include "user_npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The element types a .npy file may hold (little-endian, or '|' for one byte). */
typedef enum npy_kind { NPY_F, NPY_I, NPY_U } npy_kind;

typedef struct npy_dtype {
    npy_kind kind;
    int size;
} npy_dtype;

/* The header's dictionary is at most this long (NumPy pads it to a multiple of 64). */
#define NPY_HEADER_MAX 65536

static int read_exact(FILE *f, void *buf, size_t n)
{
    return fread(buf, 1, n, f) == n ? 0 : -1;
}

/* The value text after 'key': in the header dictionary, or NULL. */
static const char *dict_value(const char *header, const char *key)
{
    char quoted[32];
    snprintf(quoted, sizeof quoted, "'%s'", key);
    const char *p = strstr(header, quoted);
    if (!p)
        return NULL;
    p += strlen(quoted);
    while (*p == ' ')
        ++p;
    if (*p != ':')
        return NULL;
    ++p;
    while (*p == ' ')
        ++p;
    return p;
}

static int parse_descr(const char *path, const char *v, npy_dtype *dt, rt_err *err)
{
    if (!v || (*v != '\'' && *v != '"'))
        return rt_err_set(err,
                          "%s: the .npy header has no readable 'descr' (a structured or "
                          "object array is not supported)",
                          path);
    const char quote = *v++;
    const char *end = strchr(v, quote);
    if (!end || end - v < 3 || end - v > 4)
        return rt_err_set(err, "%s: unsupported .npy element type '%.*s'", path,
                          end ? (int)(end - v) : 8, v);
    const char order = v[0], kind = v[1];
    const int size = atoi(v + 2);
    if (order == '>' && size > 1)
        return rt_err_set(err,
                          "%s: big-endian .npy data ('%.*s') is not supported; save it "
                          "little-endian",
                          path, (int)(end - v), v);
    if (order != '<' && order != '|' && order != '=')
        return rt_err_set(err, "%s: unsupported .npy byte order '%c'", path, order);
    if (kind == 'f' && (size == 4 || size == 8))
        dt->kind = NPY_F;
    else if (kind == 'i' && (size == 1 || size == 2 || size == 4 || size == 8))
        dt->kind = NPY_I;
    else if (kind == 'u' && (size == 1 || size == 2 || size == 4 || size == 8))
        dt->kind = NPY_U;
    else
        return rt_err_set(err,
                          "%s: unsupported .npy element type '%.*s' (float32/64, int8..64 and "
                          "uint8..64 are read)",
                          path, (int)(end - v), v);
    dt->size = size;
    return 0;
}

/* The product of the shape tuple's entries; () is one element. */
static int parse_shape(const char *path, const char *v, int64_t *count, rt_err *err)
{
    if (!v || *v != '(')
        return rt_err_set(err, "%s: the .npy header has no readable 'shape'", path);
    int64_t n = 1;
    const char *p = v + 1;
    for (;;) {
        while (*p == ' ' || *p == ',')
            ++p;
        if (*p == ')')
            break;
        char *end = NULL;
        errno = 0;
        const long long d = strtoll(p, &end, 10);
        if (end == p || errno != 0 || d < 0)
            return rt_err_set(err, "%s: the .npy shape '%.40s' is malformed", path, v);
        if (d > 0 && n > INT64_MAX / d)
            return rt_err_set(err, "%s: the .npy shape '%.40s' is too large", path, v);
        n *= d;
        p = end;
    }
    *count = n;
    return 0;
}

/* One element in the file's type (little-endian, as this machine), as a double. */
static double element(const unsigned char *raw, const npy_dtype *dt)
{
    if (dt->kind == NPY_F) {
        if (dt->size == 4) {
            float f;
            memcpy(&f, raw, 4);
            return f;
        }
        double d;
        memcpy(&d, raw, 8);
        return d;
    }
    uint64_t u = 0;
    memcpy(&u, raw, (size_t)dt->size);
    const int bits = 8 * dt->size;
    if (dt->kind == NPY_U || bits == 64 || !(u >> (bits - 1) & 1))
        return dt->kind == NPY_I && bits == 64 ? (double)(int64_t)u : (double)u;
    /* A negative integer narrower than 64 bits: extend its sign. */
    return (double)(int64_t)(u | ~0ULL << bits);
}

/* The file's data matches the array's type exactly: copied as it is. */
static int same_type(const npy_dtype *dt, user_type t)
{
    switch (t) {
    case USER_T_F32: return dt->kind == NPY_F && dt->size == 4;
    case USER_T_F64: return dt->kind == NPY_F && dt->size == 8;
    case USER_T_I32: return dt->kind == NPY_I && dt->size == 4;
    case USER_T_I64: return dt->kind == NPY_I && dt->size == 8;
    case USER_T_U32: return dt->kind == NPY_U && dt->size == 4;
    case USER_T_U8: return dt->kind == NPY_U && dt->size == 1;
    case USER_T_COUNT: break;
    }
    return 0;
}

static int read_header(FILE *f, const char *path, char **header, rt_err *err)
{
    unsigned char magic[8];
    if (read_exact(f, magic, sizeof magic) != 0 || memcmp(magic, "\x93NUMPY", 6) != 0)
        return rt_err_set(err, "%s: not a .npy file (no \\x93NUMPY magic)", path);
    const int major = magic[6];
    if (major < 1 || major > 3)
        return rt_err_set(err, "%s: .npy format version %d.%d is not supported (1 to 3 are)", path,
                          major, magic[7]);
    unsigned char lenbuf[4] = {0, 0, 0, 0};
    const size_t lenbytes = major == 1 ? 2 : 4;
    if (read_exact(f, lenbuf, lenbytes) != 0)
        return rt_err_set(err, "%s: the .npy header is cut short", path);
    const uint32_t hlen = (uint32_t)lenbuf[0] | (uint32_t)lenbuf[1] << 8 |
                          (uint32_t)lenbuf[2] << 16 | (uint32_t)lenbuf[3] << 24;
    if (hlen == 0 || hlen > NPY_HEADER_MAX)
        return rt_err_set(err, "%s: a .npy header of %u bytes (at most %d are read)", path, hlen,
                          NPY_HEADER_MAX);
    *header = malloc(hlen + 1);
    if (!*header)
        return rt_err_set(err, "%s: out of memory for the .npy header", path);
    if (read_exact(f, *header, hlen) != 0) {
        free(*header);
        *header = NULL;
        return rt_err_set(err, "%s: the .npy header is cut short", path);
    }
    (*header)[hlen] = '\0';
    return 0;
}

int user_npy_read(const char *path, user_type t, int64_t count, void *dst, rt_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    char *header = NULL;
    npy_dtype dt = {0};
    int64_t n = 0;
    int rc = read_header(f, path, &header, err);
    if (rc == 0)
        rc = parse_descr(path, dict_value(header, "descr"), &dt, err);
    if (rc == 0) {
        const char *fo = dict_value(header, "fortran_order");
        if (!fo || strncmp(fo, "False", 5) != 0)
            rc = rt_err_set(err,
                            "%s: Fortran-ordered .npy data is not supported; save it in C "
                            "order (numpy.ascontiguousarray)",
                            path);
    }
    if (rc == 0)
        rc = parse_shape(path, dict_value(header, "shape"), &n, err);
    free(header);
    if (rc == 0 && n != count)
        rc = rt_err_set(err, "%s holds %lld element(s), the array needs %lld", path, (long long)n,
                        (long long)count);
    if (rc == 0 && same_type(&dt, t)) {
        if (count > 0 && read_exact(f, dst, (size_t)count * user_type_size(t)) != 0)
            rc = rt_err_set(err, "%s: the data is shorter than its header says", path);
    } else if (rc == 0) {
        unsigned char raw[8];
        for (int64_t i = 0; i < count && rc == 0; ++i) {
            if (read_exact(f, raw, (size_t)dt.size) != 0)
                rc = rt_err_set(err, "%s: the data is shorter than its header says", path);
            else
                user_value_set(t, dst, i, element(raw, &dt));
        }
    }
    if (rc == 0 && fgetc(f) != EOF)
        rc = rt_err_set(err, "%s: bytes follow the %lld element(s) its header announces", path,
                        (long long)count);
    fclose(f);
    return rc;
}

int user_raw_read(const char *path, user_type t, int64_t count, void *dst, rt_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    const size_t want = (size_t)count * user_type_size(t);
    int rc = 0;
    if (fseek(f, 0, SEEK_END) != 0) {
        rc = rt_err_set(err, "%s: cannot seek: %s", path, strerror(errno));
    } else {
        const long size = ftell(f);
        if (size < 0 || (size_t)size != want)
            rc = rt_err_set(err,
                            "%s holds %ld byte(s); the array needs %lld %s element(s), %zu "
                            "byte(s) (a raw file holds the elements and nothing else)",
                            path, size, (long long)count, user_type_name(t), want);
        else if (fseek(f, 0, SEEK_SET) != 0 || (want > 0 && read_exact(f, dst, want) != 0))
            rc = rt_err_set(err, "%s: read failed: %s", path, strerror(errno));
    }
    fclose(f);
    return rc;
}

static int has_suffix(const char *s, const char *suffix)
{
    const size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int user_npy_fill(const user_init *init, int output, user_type t, void *data, int64_t count,
                  rt_err *err)
{
    if (init->kind != USER_INIT_FILE)
        return user_data_fill(init, output, t, data, count, err);
    return has_suffix(init->file, ".npy") ? user_npy_read(init->file, t, count, data, err)
                                          : user_raw_read(init->file, t, count, data, err);
}

static const char *npy_descr(user_type t)
{
    switch (t) {
    case USER_T_F32: return "<f4";
    case USER_T_F64: return "<f8";
    case USER_T_I32: return "<i4";
    case USER_T_I64: return "<i8";
    case USER_T_U32: return "<u4";
    case USER_T_U8: return "|u1";
    case USER_T_COUNT: break;
    }
    return "";
}

int user_npy_write(const char *path, user_type t, int64_t count, const void *src, rt_err *err)
{
    char dict[128];
    int len =
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld,), }",
                 npy_descr(t), (long long)count);
    /* Magic (6) + version (2) + length (2) + dictionary + padding + '\n' is a multiple of 64. */
    const int total = 10 + len + 1;
    const int pad = (64 - total % 64) % 64;
    char header[256];
    memcpy(header, dict, (size_t)len);
    memset(header + len, ' ', (size_t)pad);
    len += pad;
    header[len++] = '\n';
    FILE *f = fopen(path, "wb");
    if (!f)
        return rt_err_set(err, "%s: cannot create: %s", path, strerror(errno));
    const unsigned char pre[10] = {0x93,
                                   'N',
                                   'U',
                                   'M',
                                   'P',
                                   'Y',
                                   1,
                                   0,
                                   (unsigned char)(len & 0xff),
                                   (unsigned char)(len >> 8)};
    const size_t bytes = (size_t)count * user_type_size(t);
    int rc = fwrite(pre, 1, sizeof pre, f) == sizeof pre &&
                     fwrite(header, 1, (size_t)len, f) == (size_t)len &&
                     (bytes == 0 || fwrite(src, 1, bytes, f) == bytes)
                 ? 0
                 : -1;
    if (fclose(f) != 0)
        rc = -1;
    return rc == 0 ? 0 : rt_err_set(err, "%s: write failed: %s", path, strerror(errno));
}
