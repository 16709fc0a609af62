/* rt_path_format: a path that fits is written whole; one that does not is an error naming it,
 * and leaves an empty buffer rather than a prefix that names another file. */
#include <string.h>

#include "rt_path.h"
#include "rt_test.h"

int main(void)
{
    rt_err err;
    rt_err_clear(&err);
    /* A path for a short message keeps its end, from a '/', and says it was cut. */
    int cut = -1;
    RT_CHECK(strcmp(rt_path_tail("/a/b", 10, &cut), "/a/b") == 0 && cut == 0);
    const char *deep = "/tmp/dddddddddddddddddddd/fresh/no-powercap/intel-rapl:0/energy_uj";
    const char *tail = rt_path_tail(deep, 40, &cut);
    RT_CHECK_MSG(cut == 1 && strcmp(tail, "/no-powercap/intel-rapl:0/energy_uj") == 0, "%s", tail);
    RT_CHECK(strlen(tail) <= 36);
    char buf[16];
    RT_CHECK(rt_path_format(buf, sizeof buf, &err, "%s/%s", "dir", "file") == 0);
    RT_CHECK(strcmp(buf, "dir/file") == 0);
    /* 15 characters fit exactly; 16 do not. */
    RT_CHECK(rt_path_format(buf, sizeof buf, &err, "%s", "abcdefghijklmno") == 0);
    RT_CHECK(strcmp(buf, "abcdefghijklmno") == 0);
    RT_CHECK(rt_path_format(buf, sizeof buf, &err, "%s/%s", "abcdefgh", "ijklmnop") == -1);
    RT_CHECK(buf[0] == '\0');
    RT_CHECK_MSG(rt_test_contains(err.msg, "path too long (17 bytes, at most 15): abcdefgh/ijklmn"),
                 "%s", err.msg);
    /* A message with deep paths, for a reason of 200 characters: the paths lose their start, the
     * message keeps its point; a message that fits is left alone. */
    char deep_dir[400] = "";
    for (int i = 0; i < 90; ++i)
        strcat(deep_dir, "/d");
    char msg[1200], fit[200];
    snprintf(msg, sizeof msg,
             "%s/work/mixed.yaml:6:5: matrix 'zero': %s/work/zero.mtx:2: size line: a 0 x 0 "
             "matrix has nothing to multiply",
             deep_dir, deep_dir);
    rt_path_fit_text(msg, fit, sizeof fit);
    RT_CHECK_MSG(strcmp(fit, ".../work/mixed.yaml:6:5: matrix 'zero': .../work/zero.mtx:2: size "
                             "line: a 0 x 0 matrix has nothing to multiply") == 0,
                 "%s", fit);
    rt_path_fit_text("/short/path.mtx:2: bad", fit, sizeof fit);
    RT_CHECK(strcmp(fit, "/short/path.mtx:2: bad") == 0);
    char tiny[12];
    rt_path_fit_text(msg, tiny, sizeof tiny);
    RT_CHECK_MSG(strcmp(tiny, ".../work/mi") == 0, "%s", tiny);
    /* A NULL err is allowed (the caller only needs to know it did not fit). */
    RT_CHECK(rt_path_format(buf, sizeof buf, NULL, "%0300d", 0) == -1);
    RT_CHECK(buf[0] == '\0');
    return RT_TEST_RESULT();
}
