/* The CUDA context's memos (rt_cuda_ctx_memo): a family's key finds its own data and no other's,
 * setting a key again releases what it held, a key that does not fit or a full table is refused
 * without taking the data, and destroying the context releases every memo once. Needs a device:
 * ctest starts it through rt_gpu_launch, which skips where there is none. */
#include <stdio.h>
#include <stdlib.h>

#include "rt_cuda_ctx.h"
#include "rt_test.h"

static int released[RT_CUDA_MEMO_SLOTS + 2];

static void release(void *data)
{
    ++released[*(int *)data];
}

int main(void)
{
    rt_err err;
    rt_cuda_ctx *ctx = NULL;
    if (rt_cuda_ctx_create(0, NULL, &ctx, &err) != 0) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }
    int tag[RT_CUDA_MEMO_SLOTS + 2];
    for (int i = 0; i < RT_CUDA_MEMO_SLOTS + 2; ++i)
        tag[i] = i;
    RT_CHECK(rt_cuda_ctx_memo(ctx, "spmm.cusparse") == NULL);
    RT_CHECK(rt_cuda_ctx_set_memo(ctx, "spmm.cusparse", &tag[0], release, &err) == 0);
    RT_CHECK(rt_cuda_ctx_set_memo(ctx, "spdnn.cusparse", &tag[1], release, &err) == 0);
    RT_CHECK(rt_cuda_ctx_memo(ctx, "spmm.cusparse") == &tag[0]);
    RT_CHECK(rt_cuda_ctx_memo(ctx, "spdnn.cusparse") == &tag[1]);
    RT_CHECK(rt_cuda_ctx_memo(ctx, "spmm") == NULL);
    /* The same key again: the old data is released, the new one kept. */
    RT_CHECK(rt_cuda_ctx_set_memo(ctx, "spmm.cusparse", &tag[2], release, &err) == 0);
    RT_CHECK(released[0] == 1 && rt_cuda_ctx_memo(ctx, "spmm.cusparse") == &tag[2]);
    /* Keys that do not fit. */
    char longkey[RT_CUDA_MEMO_KEY_MAX + 1];
    for (int i = 0; i < RT_CUDA_MEMO_KEY_MAX; ++i)
        longkey[i] = 'k';
    longkey[RT_CUDA_MEMO_KEY_MAX] = '\0';
    RT_CHECK(rt_cuda_ctx_set_memo(ctx, longkey, &tag[3], release, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "longer than"));
    RT_CHECK(rt_cuda_ctx_set_memo(ctx, "", &tag[3], release, &err) != 0);
    /* Fill the table: two keys are taken, so RT_CUDA_MEMO_SLOTS - 2 more fit, then none. */
    char key[32];
    for (int i = 0; i < RT_CUDA_MEMO_SLOTS - 2; ++i) {
        snprintf(key, sizeof key, "family%d.memo", i);
        RT_CHECK(rt_cuda_ctx_set_memo(ctx, key, &tag[3], NULL, &err) == 0);
    }
    RT_CHECK(rt_cuda_ctx_set_memo(ctx, "one.too.many", &tag[4], release, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "one.too.many") && released[4] == 0);
    rt_cuda_ctx_destroy(ctx);
    RT_CHECK(released[0] == 1 && released[1] == 1 && released[2] == 1 && released[3] == 0);
    return RT_TEST_RESULT();
}
