/* rt_progress: the text (counts, elapsed, estimate, current point), the terminal mode (one line
 * redrawn and erased) and the plain mode (a line at most every interval, none for short runs),
 * all with explicit clock values. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_progress.h"
#include "rt_test.h"

static void read_all(FILE *f, char *buf, size_t len)
{
    fflush(f);
    rewind(f);
    const size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        ++n;
    return n;
}

static void test_duration(void)
{
    char b[32];
    rt_progress_duration(41.2, b, sizeof b);
    RT_CHECK(strcmp(b, "0:41") == 0);
    rt_progress_duration(123, b, sizeof b);
    RT_CHECK(strcmp(b, "2:03") == 0);
    rt_progress_duration(3723, b, sizeof b);
    RT_CHECK(strcmp(b, "1:02:03") == 0);
    rt_progress_duration(-1, b, sizeof b);
    RT_CHECK(strcmp(b, "0:00") == 0);
}

static void test_format(void)
{
    rt_progress p;
    rt_progress_init(&p, NULL, 0, 10.0, 12, 100.0);
    char b[512];
    rt_progress_format(&p, 100.0, b, sizeof b);
    RT_CHECK_MSG(strcmp(b, "[0/12 0%] 0:00 elapsed") == 0, "%s", b);
    rt_progress_begin(&p, "spmm.cpu.csr band {\"row_block\":32}", 100.0);
    for (int i = 0; i < 3; ++i)
        rt_progress_done(&p);
    /* 3 points in 30 s: 9 left take about 90 s. */
    rt_progress_format(&p, 130.0, b, sizeof b);
    RT_CHECK_MSG(strcmp(b, "[3/12 25%] 0:30 elapsed, about 1:30 left: spmm.cpu.csr band "
                           "{\"row_block\":32}") == 0,
                 "%s", b);
    rt_progress_init(&p, NULL, 0, 10.0, 0, 0.0);
    rt_progress_done(&p);
    rt_progress_format(&p, 5.0, b, sizeof b);
    RT_CHECK_MSG(strcmp(b, "[1 done] 0:05 elapsed") == 0, "%s", b);
}

static void test_terminal(void)
{
    FILE *f = tmpfile();
    RT_CHECK(f != NULL);
    if (!f)
        return;
    rt_progress p;
    rt_progress_init(&p, f, 1, 10.0, 2, 0.0);
    rt_progress_begin(&p, "first", 0.0);
    rt_progress_clear(&p);
    rt_progress_done(&p);
    rt_progress_begin(&p, "second", 1.0);
    rt_progress_done(&p);
    rt_progress_clear(&p);
    rt_progress_clear(&p); /* nothing drawn: nothing erased */
    char b[2048];
    read_all(f, b, sizeof b);
    RT_CHECK_MSG(count(b, "\r\033[K") == 4, "%s", b); /* two draws, two erasures */
    RT_CHECK(strchr(b, '\n') == NULL);                /* never a new line */
    RT_CHECK(rt_test_contains(b, "[1/2 50%] 0:01 elapsed, about 0:01 left: second"));
    fclose(f);
}

static void test_plain(void)
{
    FILE *f = tmpfile();
    RT_CHECK(f != NULL);
    if (!f)
        return;
    rt_progress p;
    rt_progress_init(&p, f, 0, 10.0, 100, 0.0);
    for (int i = 0; i < 100; ++i) {
        rt_progress_begin(&p, "x", (double)i * 0.5); /* 0.5 s a point: 50 s in all */
        rt_progress_done(&p);
        rt_progress_clear(&p); /* no-op in plain mode */
    }
    char b[4096];
    read_all(f, b, sizeof b);
    /* Lines at 10, 20, 30, 40 s (not at 0: a short run prints none). */
    RT_CHECK_MSG(count(b, "progress [") == 4, "%s", b);
    RT_CHECK(count(b, "\n") == 4 && strchr(b, '\r') == NULL);
    RT_CHECK(rt_test_contains(b, "progress [20/100 20%] 0:10 elapsed, about 0:40 left: x\n"));
    fclose(f);

    rt_progress_init(&p, NULL, -1, 10.0, 3, 0.0); /* silent */
    rt_progress_begin(&p, "y", 100.0);
    rt_progress_clear(&p);
    RT_CHECK(p.redraw == 0);
}

int main(void)
{
    test_duration();
    test_format();
    test_terminal();
    test_plain();
    return rt_test_failures ? 1 : 0;
}
