/* runner.shared_matrix: what the coordinator of --parallel gpus hands its workers instead of
 * each building the matrix (app/runner/rt_prefetch.h, rt_shared_matrix.h, rt_wire_send_fd): a
 * matrix built ahead in a thread maps to exactly the matrix the walk builds; a matrix that cannot
 * be built carries its message (naming the matrix) and no file; a file that is not a shared
 * matrix is refused naming what is wrong; the file's descriptor crosses a socket wire beside its
 * message, and a message without one gives none. */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rt_prefetch.h"
#include "rt_shared_matrix.h"
#include "rt_test.h"
#include "rt_walk.h"
#include "rt_wire.h"

static void banded(rt_matrix_cfg *mc)
{
    rt_err err;
    memset(mc, 0, sizeof *mc);
    snprintf(mc->name, sizeof mc->name, "band");
    snprintf(mc->generator, sizeof mc->generator, "banded");
    rt_params_init(&mc->gen);
    RT_CHECK(rt_params_set(&mc->gen, "rows", rt_value_int(2000), &err) == 0);
    RT_CHECK(rt_params_set(&mc->gen, "bandwidth", rt_value_int(5), &err) == 0);
    RT_CHECK(rt_params_set(&mc->gen, "seed", rt_value_int(3), &err) == 0);
}

/* The banded matrix built as the walk builds it (into *m), and a shared file of it. */
static int shared_band(rt_csr *m)
{
    rt_err err;
    rt_matrix_cfg mc;
    banded(&mc);
    RT_CHECK(rt_walk_build_matrix(&mc, m, &err) == 0);
    int fd = -1;
    RT_CHECK(rt_shared_matrix_create(m, &fd, &err) == 0);
    return fd;
}

static int same_csr(const rt_csr *a, const rt_csr *b)
{
    return a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz &&
           memcmp(a->rowptr, b->rowptr, (size_t)(a->rows + 1) * sizeof *a->rowptr) == 0 &&
           memcmp(a->colidx, b->colidx, (size_t)a->nnz * sizeof *a->colidx) == 0 &&
           memcmp(a->val, b->val, (size_t)a->nnz * sizeof *a->val) == 0;
}

/* Built ahead, in a thread, into shared memory: the walk's own matrix, bit for bit. */
static void test_ahead(void)
{
    rt_err err;
    rt_matrix_cfg mc;
    banded(&mc);
    rt_csr want;
    RT_CHECK(rt_walk_build_matrix(&mc, &want, &err) == 0);
    rt_prefetch *p = NULL;
    RT_CHECK(rt_prefetch_start(&mc, 4, &p, &err) == 0);
    if (!p)
        return;
    RT_CHECK(rt_prefetch_index(p) == 4);
    rt_prefetch_result *res = rt_prefetch_wait(p);
    RT_CHECK(rt_prefetch_ready(p));
    RT_CHECK_MSG(res->fd >= 0 && res->failed[0] == '\0', "failed: %s", res->failed);
    RT_CHECK(res->rows == want.rows && res->cols == want.cols && res->nnz == want.nnz);
    RT_CHECK(res->end >= res->begin && res->begin > 0);
    rt_shared_matrix sm;
    RT_CHECK(rt_shared_matrix_map(res->fd, &sm, &err) == 0);
    RT_CHECK(same_csr(&sm.csr, &want));
    /* A private mapping: a process that writes its matrix writes its own copy only. */
    rt_shared_matrix other;
    RT_CHECK(rt_shared_matrix_map(res->fd, &other, &err) == 0);
    sm.csr.val[0] = -12345.0;
    RT_CHECK(other.csr.val[0] == want.val[0]);
    rt_shared_matrix_unmap(&other);
    rt_shared_matrix_unmap(&sm);
    RT_CHECK(sm.base == NULL);
    rt_prefetch_free(p); /* closes the file it kept */
    rt_csr_free(&want);
}

/* A matrix that cannot be built: no file, the reason naming the matrix. */
static void test_failed(void)
{
    rt_err err;
    rt_matrix_cfg mc;
    memset(&mc, 0, sizeof mc);
    snprintf(mc.name, sizeof mc.name, "missing");
    snprintf(mc.file, sizeof mc.file, "/nonexistent/rooftune/none.mtx");
    rt_prefetch *p = NULL;
    RT_CHECK(rt_prefetch_start(&mc, 1, &p, &err) == 0);
    if (!p)
        return;
    const rt_prefetch_result *res = rt_prefetch_wait(p);
    RT_CHECK(res->fd < 0);
    RT_CHECK_MSG(rt_test_contains(res->failed, "matrix 'missing'"), "failed: %s", res->failed);
    rt_prefetch_free(p);
    rt_prefetch_free(NULL);
}

/* A memory file holding these bytes. */
static int file_of(const void *bytes, size_t n)
{
    const int fd = memfd_create("garbage", MFD_CLOEXEC);
    RT_CHECK(fd >= 0 && (n == 0 || write(fd, bytes, n) == (ssize_t)n));
    return fd;
}

static void expect_refused(int fd, const char *label, const char *want)
{
    rt_err err;
    rt_err_clear(&err);
    rt_shared_matrix sm;
    RT_CHECK_MSG(rt_shared_matrix_map(fd, &sm, &err) != 0, "%s accepted", label);
    RT_CHECK_MSG(rt_test_contains(err.msg, want), "%s: %s", label, err.msg);
    RT_CHECK(sm.base == NULL);
    close(fd);
}

/* Garbage for a shared matrix: refused, saying what is wrong. */
static void test_garbage(void)
{
    rt_err err;
    expect_refused(file_of("", 0), "an empty file", "shorter than its header");
    char junk[4096];
    for (size_t i = 0; i < sizeof junk; ++i)
        junk[i] = (char)(i * 7 + 3);
    expect_refused(file_of(junk, sizeof junk), "junk", "not a rooftune matrix");
    /* A real one, then cut short, grown, or with row pointers that do not add up. */
    rt_csr m;
    int fd = shared_band(&m);
    RT_CHECK(ftruncate(fd, 4096) == 0);
    expect_refused(fd, "a cut file", "do not match its shape and size");
    RT_CHECK(rt_shared_matrix_create(&m, &fd, &err) == 0);
    const off_t len = lseek(fd, 0, SEEK_END);
    RT_CHECK(ftruncate(fd, len + 64) == 0);
    expect_refused(fd, "a grown file", "do not match its shape and size");
    RT_CHECK(rt_shared_matrix_create(&m, &fd, &err) == 0);
    int64_t *head = mmap(NULL, 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    RT_CHECK(head != MAP_FAILED);
    const int64_t rows = head[1];
    head[1] = -5; /* rows */
    expect_refused(dup(fd), "negative rows", "shape is impossible");
    head[1] = rows;
    const uint64_t rowptr_at = (uint64_t)head[4];
    int64_t first = 7;
    RT_CHECK(pwrite(fd, &first, sizeof first, (off_t)rowptr_at) == (ssize_t)sizeof first);
    expect_refused(fd, "rowptr[0] = 7", "row pointers do not start at 0");
    munmap(head, 64);
    rt_csr_free(&m);
}

/* The matrix's descriptor crosses a socket beside its message; a plain message brings none. */
static void test_wire_fd(void)
{
    rt_err err;
    int sv[2];
    RT_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    rt_wire *a = NULL, *b = NULL;
    RT_CHECK(rt_wire_open_sockets(&sv[0], 1, 1, &a, &err) == 0); /* a's peer 1: b */
    RT_CHECK(rt_wire_open_sockets(&sv[1], 1, 0, &b, &err) == 0); /* b's peer 0: a */
    rt_csr m;
    const int fd = shared_band(&m);
    RT_CHECK(rt_wire_send(a, 1, "plain", 5, &err) == 0);
    RT_CHECK(rt_wire_send_fd(a, 1, "matrix", 6, fd, &err) == 0);
    RT_CHECK(rt_wire_send_fd(a, 1, "none", 4, -1, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "no file descriptor"));
    close(fd); /* the receiver has its own */
    int peer = -1;
    void *data = NULL;
    size_t n = 0;
    RT_CHECK(rt_wire_recv(b, 1, &peer, &data, &n, &err) == 1);
    RT_CHECK(peer == 0 && n == 5 && memcmp(data, "plain", 5) == 0);
    RT_CHECK(rt_wire_take_fd(b) == -1);
    free(data);
    RT_CHECK(rt_wire_recv(b, 1, &peer, &data, &n, &err) == 1);
    RT_CHECK(n == 6 && memcmp(data, "matrix", 6) == 0);
    free(data);
    const int got = rt_wire_take_fd(b);
    RT_CHECK(got >= 0);
    RT_CHECK(rt_wire_take_fd(b) == -1); /* taken once */
    rt_shared_matrix sm;
    RT_CHECK(got >= 0 && rt_shared_matrix_map(got, &sm, &err) == 0);
    RT_CHECK(same_csr(&sm.csr, &m));
    rt_shared_matrix_unmap(&sm);
    if (got >= 0)
        close(got);
    rt_wire_close(a);
    RT_CHECK(rt_wire_recv(b, 1, &peer, &data, &n, &err) == -1); /* a closed its end */
    RT_CHECK(rt_test_contains(err.msg, "closed the connection"));
    rt_wire_close(b);
    rt_csr_free(&m);
}

int main(void)
{
    test_ahead();
    test_failed();
    test_garbage();
    test_wire_fd();
    if (rt_test_failures == 0)
        printf("runner.shared_matrix: ok\n");
    return RT_TEST_RESULT();
}
