/* The timeline's CSV, overlap numbers and figure (report/rt_timeline_*.c) on synthetic records:
 * known intervals give known busy times and overlap, the CSV reads back what it wrote, every
 * malformed CSV is refused naming its file, line and column, and the figure puts each record in
 * its lane. Usage: test_timeline <scratch dir> */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_test.h"
#include "rt_timeline.h"
#include "rt_timeline_csv.h"
#include "rt_timeline_plot.h"
#include "rt_timeline_stats.h"

static const char *scratch;

static rt_timeline_record rec(const char *point, int device, rt_timeline_kind kind,
                              uint64_t start_ms, uint64_t end_ms, uint64_t bytes)
{
    rt_timeline_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.point, sizeof r.point, "%s", point);
    r.device = device;
    r.stream = 7 + (uint32_t)kind;
    r.kind = kind;
    if (kind == RT_TIMELINE_KERNEL)
        rt_timeline_set_name(r.name, "gemm_kernel<double, 128>");
    r.start_ns = start_ms * 1000000u;
    r.end_ns = end_ms * 1000000u;
    r.bytes = bytes;
    return r;
}

static void add(rt_timeline_list *l, rt_timeline_record r)
{
    rt_err err;
    RT_CHECK_MSG(rt_timeline_add(l, &r, &err) == 0, "%s", err.msg);
}

/* Point "p1", GPU 0: kernels [10,50) and [60,80); h2d [0,20) and [15,30) (overlapping streams:
 * busy 30), d2h [70,90), p2p [45,65). Copies' union: [0,30) [45,65) [70,90) = 70; kernels'
 * union [10,50) [60,80) = 60; kernels while copying: [10,30) + [45,50) + [60,65) + [70,80) = 40.
 * GPU 1 of p1: a kernel alone. Point "p0" (listed second, so it comes second): GPU 0, a copy
 * that touches a kernel end to end (no overlap). */
static void synthetic(rt_timeline_list *l)
{
    add(l, rec("p1", 0, RT_TIMELINE_KERNEL, 10, 50, 0));
    add(l, rec("p1", 0, RT_TIMELINE_H2D, 0, 20, 1000));
    add(l, rec("p1", 1, RT_TIMELINE_KERNEL, 5, 25, 0));
    add(l, rec("p1", 0, RT_TIMELINE_H2D, 15, 30, 2000));
    add(l, rec("p1", 0, RT_TIMELINE_KERNEL, 60, 80, 0));
    add(l, rec("p1", 0, RT_TIMELINE_D2H, 70, 90, 300));
    add(l, rec("p1", 0, RT_TIMELINE_P2P, 45, 65, 4096));
    add(l, rec("p0", 0, RT_TIMELINE_KERNEL, 100, 110, 0));
    add(l, rec("p0", 0, RT_TIMELINE_D2D, 110, 120, 64));
}

static const uint64_t MS = 1000000u;

static void test_stats(void)
{
    rt_timeline_list l = {0};
    synthetic(&l);
    rt_timeline_gpu_stats *st = NULL;
    int n = 0;
    rt_err err;
    RT_CHECK_MSG(rt_timeline_stats_compute(&l, &st, &n, &err) == 0, "%s", err.msg);
    RT_CHECK(n == 3);
    if (n == 3) {
        const rt_timeline_gpu_stats *a = &st[0], *b = &st[1], *c = &st[2];
        RT_CHECK(strcmp(a->point, "p1") == 0 && a->device == 0);
        RT_CHECK(a->busy_ns[RT_TIMELINE_KERNEL] == 60 * MS);
        RT_CHECK(a->busy_ns[RT_TIMELINE_H2D] == 30 * MS);
        RT_CHECK(a->busy_ns[RT_TIMELINE_D2H] == 20 * MS);
        RT_CHECK(a->busy_ns[RT_TIMELINE_P2P] == 20 * MS);
        RT_CHECK(a->busy_ns[RT_TIMELINE_D2D] == 0);
        RT_CHECK(a->count[RT_TIMELINE_H2D] == 2 && a->bytes[RT_TIMELINE_H2D] == 3000);
        RT_CHECK(a->copy_busy_ns == 70 * MS);
        RT_CHECK_MSG(a->kernel_while_copy_ns == 40 * MS, "%llu",
                     (unsigned long long)a->kernel_while_copy_ns);
        RT_CHECK(fabs(a->overlap_share - 40.0 / 70.0) < 1e-12);
        RT_CHECK(a->first_ns == 0 && a->last_ns == 90 * MS);
        /* head: [0,10) before the kernel at 10; tail: [80,90) after the last kernel's end */
        RT_CHECK_MSG(a->head_ns == 10 * MS && a->tail_ns == 10 * MS, "head %llu tail %llu",
                     (unsigned long long)a->head_ns, (unsigned long long)a->tail_ns);
        RT_CHECK(strcmp(b->point, "p1") == 0 && b->device == 1);
        RT_CHECK(b->busy_ns[RT_TIMELINE_KERNEL] == 20 * MS && b->copy_busy_ns == 0);
        RT_CHECK(isnan(b->overlap_share));
        RT_CHECK(strcmp(c->point, "p0") == 0 && c->device == 0);
        RT_CHECK(c->copy_busy_ns == 10 * MS && c->kernel_while_copy_ns == 0);
        RT_CHECK(c->overlap_share == 0.0);
        RT_CHECK(c->head_ns == 0 && c->tail_ns == 10 * MS); /* the copy after the kernel */
    }
    /* The text says the same numbers. */
    char path[1024];
    snprintf(path, sizeof path, "%s/summary.txt", scratch);
    FILE *f = fopen(path, "w");
    RT_CHECK(f != NULL);
    if (f) {
        rt_timeline_stats_write(f, "synthetic.csv", st, n);
        fclose(f);
        char *text = rt_test_read_file(scratch, "summary.txt", NULL);
        RT_CHECK(rt_test_contains(text, "point p1, GPU 0: 90.000 ms"));
        RT_CHECK(rt_test_contains(text, "kernels running while a copy is in flight: 40.000 ms"));
        RT_CHECK(rt_test_contains(text, "overlap share: 0.571"));
        RT_CHECK(rt_test_contains(text, "overlap share: - (no copies on this GPU)"));
        RT_CHECK(rt_test_contains(text, "before the first kernel: 10.000 ms; after the last "
                                        "kernel: 10.000 ms (22.2% of the span)"));
        free(text);
    }
    free(st);
    rt_timeline_free(&l);

    rt_timeline_list empty = {0};
    RT_CHECK(rt_timeline_stats_compute(&empty, &st, &n, &err) == 0 && n == 0 && st == NULL);
    /* A record that ends before it starts never enters a list. */
    rt_timeline_record bad = rec("p", 0, RT_TIMELINE_H2D, 5, 4, 1);
    RT_CHECK(rt_timeline_add(&empty, &bad, &err) != 0 && rt_test_contains(err.msg, "before"));
    /* Nor does one on a device the CSV would not read back (CUPTI's device id is unsigned). */
    const int devices[] = {-1, RT_TIMELINE_DEVICE_MAX + 1};
    for (int i = 0; i < 2; ++i) {
        bad = rec("p", devices[i], RT_TIMELINE_KERNEL, 1, 2, 0);
        RT_CHECK_MSG(rt_timeline_add(&empty, &bad, &err) != 0 &&
                         rt_test_contains(err.msg, "not a device from 0 to 1023"),
                     "device %d: '%s'", devices[i], err.msg);
    }
    RT_CHECK(empty.n == 0);
    rt_timeline_free(&empty);
}

static void test_round_trip(void)
{
    rt_timeline_list l = {0}, back = {0};
    synthetic(&l);
    char path[1024];
    snprintf(path, sizeof path, "%s/round.csv", scratch);
    rt_err err;
    RT_CHECK_MSG(rt_timeline_csv_save(path, &l, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(rt_timeline_csv_load(path, &back, &err) == 0, "%s", err.msg);
    RT_CHECK(back.n == l.n);
    for (int64_t i = 0; i < l.n && i < back.n; ++i)
        RT_CHECK_MSG(memcmp(&l.v[i], &back.v[i], sizeof l.v[i]) == 0, "record %lld differs",
                     (long long)i);
    /* Names are cut and made safe for one CSV line, and a quoted field reads back. */
    char name[RT_TIMELINE_NAME_MAX];
    rt_timeline_set_name(name, "a,b\"c\nd");
    RT_CHECK(strcmp(name, "a_b_c_d") == 0);
    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    rt_timeline_set_name(name, longname);
    RT_CHECK(strlen(name) == RT_TIMELINE_NAME_MAX - 1);
    snprintf(path, sizeof path, "%s/quoted.csv", scratch);
    RT_CHECK(rt_test_write_file(path,
                                RT_TIMELINE_CSV_HEADER "\n\"p\"\"1\",2,3,kernel,\"k,1\",5,9,0\n"
                                                       "\n") == 0);
    rt_timeline_list q = {0};
    RT_CHECK_MSG(rt_timeline_csv_load(path, &q, &err) == 0, "%s", err.msg);
    RT_CHECK(q.n == 1 && strcmp(q.v[0].point, "p\"1") == 0 && strcmp(q.v[0].name, "k_1") == 0 &&
             q.v[0].device == 2 && q.v[0].stream == 3 && q.v[0].end_ns == 9);
    rt_timeline_free(&q);
    rt_timeline_free(&l);
    rt_timeline_free(&back);
}

/* Writes text as scratch/name, loads it, and checks the refusal names name:line and says what. */
static void refused(const char *name, const char *text, size_t len, const char *where,
                    const char *what)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *f = fopen(path, "wb");
    RT_CHECK(f != NULL);
    if (!f)
        return;
    fwrite(text, 1, len, f);
    fclose(f);
    rt_timeline_list l = {0};
    rt_err err;
    rt_err_clear(&err);
    const int rc = rt_timeline_csv_load(path, &l, &err);
    char at[1100];
    snprintf(at, sizeof at, "%s%s", path, where);
    RT_CHECK_MSG(rc != 0, "%s was read", name);
    RT_CHECK_MSG(rt_test_contains(err.msg, at) && rt_test_contains(err.msg, what),
                 "%s: '%s' lacks '%s' or '%s'", name, err.msg, at, what);
    rt_timeline_free(&l);
}

#define H   RT_TIMELINE_CSV_HEADER "\n"
#define ROW "p,0,7,kernel,k,10,20,0\n"

/* Malformed CSVs, where each refusal points and what it says. */
static const struct {
    const char *file, *text, *where, *what;
} bad_csvs[] = {
    {"header.csv", "point,device\n" ROW, ":1:", "not a timeline CSV"},
    {"empty.csv", "", " is empty", "no header"},
    {"kind.csv", H ROW "p,0,7,copy,,1,2,3\n", ":3:", "column kind: 'copy'"},
    {"device.csv", H "p,-1,7,kernel,k,1,2,0\n", ":2:", "column device: '-1'"},
    {"overflow.csv", H "p,0,7,h2d,,1,99999999999999999999999,0\n", ":2:", "column end_ns"},
    {"order.csv", H ROW ROW "p,0,7,h2d,,30,20,8\n", ":4:", "end_ns 20 is before start_ns 30"},
    {"few.csv", H "p,0,7,kernel,k,10\n", ":2:", "6 field(s), expected 8"},
    {"many.csv", H ROW "p,0,7,kernel,k,10,20,0,extra\n", ":3:", "more than 8 field(s)"},
    {"quote.csv", H "\"p,0,7,kernel,k,10,20,0\n", ":2:", "quoted field is not closed"},
    {"bytes.csv", H "p,0,7,h2d,,1,2,1e6\n", ":2:", "column bytes: '1e6'"},
};

static void test_garbage(void)
{
    for (size_t k = 0; k < sizeof bad_csvs / sizeof bad_csvs[0]; ++k)
        refused(bad_csvs[k].file, bad_csvs[k].text, strlen(bad_csvs[k].text), bad_csvs[k].where,
                bad_csvs[k].what);
    /* Binary: a PNG's first line, and a NUL inside a row. */
    static const char bin[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    refused("png.csv", bin, sizeof bin - 1, ":1:", "the first line is '?PNG'");
    static const char nul[] = RT_TIMELINE_CSV_HEADER "\np,0,7,kernel,k\0,1,2,0\n";
    refused("nul.csv", nul, sizeof nul - 1, ":2:", "NUL byte");
    char longline[3000];
    snprintf(longline, sizeof longline, "%s", H);
    memset(longline + strlen(H), 'y', 2000);
    longline[strlen(H) + 2000] = '\0';
    refused("long.csv", longline, strlen(longline), ":2:", "longer than a timeline record");
    /* A folder is not a CSV. */
    rt_timeline_list l = {0};
    rt_err err;
    RT_CHECK(rt_timeline_csv_load(scratch, &l, &err) != 0 && rt_test_contains(err.msg, "folder"));
}

static void test_figure(void)
{
    rt_timeline_list l = {0};
    synthetic(&l);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/fig/sub", scratch);
    const rt_timeline_plot_opts o = {.out_dir = dir, .stem = "t l", .run_gnuplot = 0};
    rt_timeline_plot_result res;
    rt_err err;
    RT_CHECK_MSG(rt_timeline_plot(&l, &o, &res, &err) == 0, "%s", err.msg);
    RT_CHECK(res.n_records == 9 && res.n_devices == 2 && strcmp(res.stem, "t_l") == 0);
    char *dat = rt_test_read_file(dir, "t_l.dat", NULL);
    char *gp = rt_test_read_file(dir, "t_l.gp", NULL);
    RT_CHECK(dat && gp);
    /* Lanes: GPU 0 kernels 0, H2D 1, D2H 2, P2P/D2D 3; GPU 1 kernels 4. Times from the first
     * record (p1's h2d at 0 ms). */
    RT_CHECK(rt_test_contains(dat, "\n0\t10\t50\t0\t7\t0\tgemm_kernel<double_ 128>\tp1\n"));
    RT_CHECK(rt_test_contains(dat, "\n4\t5\t25\t1\t7\t0\t"));
    RT_CHECK(rt_test_contains(dat, "\n1\t15\t30\t0\t8\t2000\t-\tp1\n"));
    RT_CHECK(rt_test_contains(dat, "\n3\t45\t65\t0\t11\t4096\t-\tp1\n"));
    RT_CHECK(rt_test_contains(dat, "\n3\t110\t120\t0\t10\t64\t-\tp0\n"));
    /* Five kinds, five blocks, one plot item each; every lane labelled. */
    RT_CHECK(rt_test_contains(gp, "index 4 using") && !rt_test_contains(gp, "index 5"));
    RT_CHECK(rt_test_contains(gp, "'GPU 1 P2P/D2D' 7"));
    RT_CHECK(rt_test_contains(gp, "set yrange [7.5:-0.5]"));
    free(dat);
    free(gp);
    rt_timeline_list empty = {0};
    RT_CHECK(rt_timeline_plot(&empty, &o, &res, &err) != 0 &&
             rt_test_contains(err.msg, "no record"));
    rt_timeline_free(&l);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <scratch dir>\n", argv[0]);
        return 2;
    }
    scratch = argv[1];
    mkdir(scratch, 0777);
    test_stats();
    test_round_trip();
    test_garbage();
    test_figure();
    return RT_TEST_RESULT();
}
