/* rt_shared_matrix: see rt_shared_matrix.h. */
#define _GNU_SOURCE /* memfd_create */
#include "rt_shared_matrix.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHARED_MAGIC UINT64_C(0x3158544d54525452) /* "RTRTMTX1" */
#define ALIGN        64

typedef struct shared_head {
    uint64_t magic;
    int64_t rows, cols, nnz;
    uint64_t rowptr_at, colidx_at, val_at, len; /* byte offsets of the arrays, the file's size */
} shared_head;

static uint64_t round_up(uint64_t x)
{
    return (x + ALIGN - 1) / ALIGN * ALIGN;
}

/* Where each array starts for this shape, and the whole file's length. */
static void layout(int64_t rows, int64_t nnz, shared_head *h)
{
    h->rowptr_at = round_up(sizeof *h);
    h->colidx_at = round_up(h->rowptr_at + (uint64_t)(rows + 1) * sizeof(int64_t));
    h->val_at = round_up(h->colidx_at + (uint64_t)nnz * sizeof(int32_t));
    h->len = h->val_at + (uint64_t)nnz * sizeof(double);
}

int rt_shared_matrix_create(const rt_csr *m, int *fd, rt_err *err)
{
    *fd = -1;
    shared_head h = {.magic = SHARED_MAGIC, .rows = m->rows, .cols = m->cols, .nnz = m->nnz};
    layout(m->rows, m->nnz, &h);
    const int f = memfd_create("rooftune-matrix", MFD_CLOEXEC);
    if (f < 0)
        return rt_err_set(err, "a shared matrix: memfd_create failed: %s", strerror(errno));
    if (ftruncate(f, (off_t)h.len) != 0) {
        const int e = errno;
        close(f);
        return rt_err_set(err, "a shared matrix of %" PRIu64 " bytes: %s", h.len, strerror(e));
    }
    char *p = mmap(NULL, (size_t)h.len, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    if (p == MAP_FAILED) {
        const int e = errno;
        close(f);
        return rt_err_set(err, "a shared matrix of %" PRIu64 " bytes: mmap failed: %s", h.len,
                          strerror(e));
    }
    /* One copy into the file (a few milliseconds per 100 MB), so that the builders (generators,
     * readers, orderings) keep their own allocations. */
    memcpy(p, &h, sizeof h);
    memcpy(p + h.rowptr_at, m->rowptr, (size_t)(m->rows + 1) * sizeof(int64_t));
    if (m->nnz > 0) {
        memcpy(p + h.colidx_at, m->colidx, (size_t)m->nnz * sizeof(int32_t));
        memcpy(p + h.val_at, m->val, (size_t)m->nnz * sizeof(double));
    }
    munmap(p, (size_t)h.len);
    *fd = f;
    return 0;
}

int rt_shared_matrix_map(int fd, rt_shared_matrix *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    if (fstat(fd, &st) != 0)
        return rt_err_set(err, "a shared matrix: fstat failed: %s", strerror(errno));
    if (st.st_size < (off_t)sizeof(shared_head))
        return rt_err_set(err, "a shared matrix of %lld bytes: shorter than its header (%zu bytes)",
                          (long long)st.st_size, sizeof(shared_head));
    const size_t len = (size_t)st.st_size;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
        return rt_err_set(err, "a shared matrix of %zu bytes: mmap failed: %s", len,
                          strerror(errno));
    shared_head h;
    memcpy(&h, p, sizeof h);
    shared_head want = h;
    int bad = h.magic != SHARED_MAGIC;
    const char *why = "it is not a rooftune matrix (magic)";
    if (!bad && (h.rows < 0 || h.cols < 0 || h.nnz < 0 || h.rows > INT64_MAX / 16 ||
                 h.nnz > INT64_MAX / 16 || h.cols > INT32_MAX)) {
        bad = 1;
        why = "its shape is impossible";
    }
    if (!bad) {
        layout(h.rows, h.nnz, &want);
        if (memcmp(&want, &h, sizeof h) != 0 || h.len != (uint64_t)len) {
            bad = 1;
            why = "its arrays do not match its shape and size";
        }
    }
    rt_csr c = {.rows = h.rows, .cols = h.cols, .nnz = h.nnz};
    if (!bad) {
        c.rowptr = (int64_t *)(void *)(p + h.rowptr_at);
        c.colidx = (int32_t *)(void *)(p + h.colidx_at);
        c.val = (double *)(void *)(p + h.val_at);
        if (c.rowptr[0] != 0 || c.rowptr[c.rows] != c.nnz) {
            bad = 1;
            why = "its row pointers do not start at 0 and end at its nonzeros";
        }
    }
    if (bad) {
        munmap(p, len);
        return rt_err_set(err, "a shared matrix of %zu bytes: %s", len, why);
    }
    out->csr = c;
    out->base = p;
    out->len = len;
    return 0;
}

void rt_shared_matrix_unmap(rt_shared_matrix *sm)
{
    if (sm->base)
        munmap(sm->base, sm->len);
    memset(sm, 0, sizeof *sm);
}
